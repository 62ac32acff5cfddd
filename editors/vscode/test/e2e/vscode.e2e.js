// End-to-end test of the extension inside a real VS Code: code-server (VS Code
// in a browser) with the packaged .vsix installed, driven headlessly through
// Debian's Chromium with playwright-core. It checks what a person sees: the
// language mode, the Problems panel, a hover, target-filtered completion, a
// quick fix, the register-count inlay hint, formatting, the rename of one
// register of a range, the semantic-token colours, and the values of a
// "Run" code lens, a debug session started from the "Debug" lens (stopped at a
// breakpoint: the warps, the registers, a step), the Tensor Memory scope of a
// tcgen05 kernel, the fragment layout of an mma (in the debugger and in its
// hover) and a data breakpoint's stop; and, in a CUDA file, the PTX
// inside an `asm()` statement:
// its diagnostic in the Problems panel (and nothing on the C++ around it),
// hovers on a qualifier, an opcode and an operand placeholder, and a quick fix
// that edits the string literal. Every step saves a screenshot under the
// artifacts folder.
//
//   node test/e2e/vscode.e2e.js
// Environment: PTX_VSIX (the .vsix to install; required), CODE_SERVER (the
// code-server launcher; required), CHROMIUM (default /usr/bin/chromium),
// E2E_ARTIFACTS (default ../../target/vscode-e2e), E2E_ONLY (a comma-separated
// list of check functions to run; default all). No environment variable or
// setting tells the extension where the server is: it must find the binary
// bundled in the .vsix.

"use strict";

const assert = require("node:assert");
const childProcess = require("node:child_process");
const fs = require("node:fs");
const http = require("node:http");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");
const { chromium } = require("playwright-core");

const here = __dirname;
const vsix = requiredEnv("PTX_VSIX");
const codeServer = requiredEnv("CODE_SERVER");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const artifacts = path.resolve(process.env.E2E_ARTIFACTS || path.join(here, "..", "..", "..", "..", "target", "vscode-e2e"));
const STEP_TIMEOUT = 60_000;
// E2E_ONLY=checkDebug,checkHover runs only those checks (while working on them).
const only = (process.env.E2E_ONLY || "").split(",").filter(Boolean);
const wanted = (check) => only.length === 0 || only.includes(check);

function requiredEnv(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`vscode e2e: set ${name} (see tests/run-all.sh)`);
    process.exit(2);
  }
  return value;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

function waitForHttp(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      http
        .get(url, (res) => {
          res.resume();
          resolve();
        })
        .on("error", () => {
          if (Date.now() > deadline) reject(new Error(`code-server did not answer at ${url}`));
          else setTimeout(attempt, 250);
        });
    };
    attempt();
  });
}

/** Copies the workspace fixtures into a fresh folder with its settings. */
function makeWorkspace(root) {
  const workspace = path.join(root, "workspace");
  fs.mkdirSync(path.join(workspace, ".vscode"), { recursive: true });
  for (const name of fs.readdirSync(path.join(here, "workspace"))) {
    fs.copyFileSync(path.join(here, "workspace", name), path.join(workspace, name));
  }
  return workspace;
}

function writeUserSettings(userData) {
  const dir = path.join(userData, "User");
  fs.mkdirSync(dir, { recursive: true });
  const settings = {
    "workbench.startupEditor": "none",
    "workbench.colorTheme": "Default Dark Modern",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": true,
    "security.workspace.trust.enabled": false,
    "telemetry.telemetryLevel": "off",
    "extensions.ignoreRecommendations": true,
    "extensions.autoCheckUpdates": false,
    "update.mode": "none",
    "editor.inlayHints.enabled": "on",
    "editor.codeLens": true,
    "editor.formatOnSave": false,
    "files.autoSave": "off",
    "ptx.trace.server": "verbose",
  };
  fs.writeFileSync(path.join(dir, "settings.json"), JSON.stringify(settings, null, 2));
}

let shot = 0;
async function screenshot(page, name) {
  shot += 1;
  const file = path.join(artifacts, `${String(shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  console.log(`  screenshot ${path.relative(process.cwd(), file)}`);
}

/**
 * Runs a UI interaction up to three times: the workbench sometimes closes a
 * quick pick that opened while focus was moving (a panel opening, an editor
 * being restored), which a person would simply retry.
 */
async function retry(what, page, fn) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt === 3) throw error;
      console.log(`  retrying ${what}: ${String(error.message || error).split("\n")[0]}`);
      await page.keyboard.press("Escape");
    }
  }
}

const ATTEMPT_TIMEOUT = 15_000;

/** Runs a command by its title through the command palette (F1). */
async function runCommand(page, title) {
  return retry(`command ${title}`, page, () => runCommandOnce(page, title));
}

async function runCommandOnce(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: ATTEMPT_TIMEOUT });
  await input.fill(`>${title}`, { timeout: ATTEMPT_TIMEOUT });
  // The row whose label is exactly the title (not the first fuzzy match).
  const row = page
    .locator(".quick-input-widget .monaco-list-row")
    .filter({ has: page.getByText(title, { exact: true }) })
    .first();
  await row.waitFor({ state: "visible", timeout: ATTEMPT_TIMEOUT });
  await row.click();
  await page.locator(".quick-input-widget").waitFor({ state: "hidden", timeout: ATTEMPT_TIMEOUT });
}

/** Opens a workspace file with Quick Open and waits for its editor tab. */
async function openFile(page, name) {
  return retry(`opening ${name}`, page, () => openFileOnce(page, name));
}

async function openFileOnce(page, name) {
  const STEP_TIMEOUT = ATTEMPT_TIMEOUT;
  // Close whatever holds the keyboard (a hover, a menu) before Quick Open.
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  await input.fill(name, { timeout: ATTEMPT_TIMEOUT });
  const row = page.locator(".quick-input-widget .monaco-list-row", { hasText: name }).first();
  await row.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  // The row itself, not Enter: the highlighted row may be another entry (a view of the file).
  await row.click();
  await page
    .locator(".tabs-container .tab.active", { hasText: name })
    .waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  await page.locator(".monaco-editor.focused").first().waitFor({ timeout: STEP_TIMEOUT });
}

/**
 * Moves the cursor with Quick Open's go-to-line mode (`:line:column`,
 * 1-based; in a browser Ctrl+G belongs to the browser).
 */
async function goTo(page, line, column) {
  return retry(`going to ${line}:${column}`, page, () => goToOnce(page, line, column));
}

async function goToOnce(page, line, column) {
  const STEP_TIMEOUT = ATTEMPT_TIMEOUT;
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  await input.fill(`:${line}:${column}`, { timeout: ATTEMPT_TIMEOUT });
  await page.locator(".quick-input-widget .monaco-list-row", { hasText: `line ${line}` }).first()
    .waitFor({ state: "visible", timeout: STEP_TIMEOUT }).catch(() => {});
  await page.keyboard.press("Enter");
  await page.locator(".quick-input-widget").waitFor({ state: "hidden", timeout: STEP_TIMEOUT });
}

async function poll(what, fn, timeoutMs = STEP_TIMEOUT) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The text of an extension's output channel, from the log file VS Code keeps
 * of it (a file `N-NAME.log` under `logs/` in the user data
 * folder): the panel itself shows only the lines scrolled into view.
 */
function channelLog(userData, name) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(`-${name}.log`)) found.push(full);
    }
  };
  walk(path.join(userData, "logs"));
  return found.map((file) => fs.readFileSync(file, "utf8")).join("\n");
}

/**
 * The text of the editor's visible lines (small files are fully visible),
 * with the non-breaking spaces the editor renders turned back into spaces.
 */
async function editorText(page) {
  const text = await page.locator(".editor-group-container.active .monaco-editor .view-lines").first().innerText();
  return text.replace(/\u00a0/g, " ");
}

async function main() {
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ptx-vscode-e2e-"));
  const userData = path.join(root, "user-data");
  const extensions = path.join(root, "extensions");
  const workspace = makeWorkspace(root);
  writeUserSettings(userData);
  const env = { ...process.env };
  delete env.PTX_LSP_PATH; // the bundled server must be found with no settings

  console.log(`installing ${vsix}`);
  childProcess.execFileSync(
    codeServer,
    ["--user-data-dir", userData, "--extensions-dir", extensions, "--install-extension", vsix],
    { env, stdio: ["ignore", "inherit", "inherit"] },
  );

  const port = await freePort();
  const serverLog = fs.openSync(path.join(artifacts, "code-server.log"), "w");
  const server = childProcess.spawn(
    codeServer,
    [
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--user-data-dir", userData,
      "--extensions-dir", extensions,
      workspace,
    ],
    { env, stdio: ["ignore", serverLog, serverLog], detached: true },
  );
  const browserProfile = path.join(root, "chromium-profile");
  let browser;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 120_000);
    // A new, empty profile (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(browserProfile, {
      executablePath: chromiumPath,
      headless: true,
      viewport: { width: 1400, height: 900 },
      args: [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ],
    });
    const page = browser.pages()[0] || (await browser.newPage());
    page.setDefaultTimeout(STEP_TIMEOUT);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 120_000 });
    await page.locator('[id="workbench.parts.statusbar"]').waitFor();
    // Focus the workbench (the first key press otherwise goes nowhere).
    await page.locator(".monaco-workbench").click({ position: { x: 700, y: 450 } });
    await screenshot(page, "workbench");

    if (wanted("checkCudaAttach")) await checkCudaAttach(page, userData);
    if (wanted("checkInlineAsm")) await checkInlineAsm(page, workspace);
    if (wanted("checkLanguageAndProblems")) await checkLanguageAndProblems(page);
    if (wanted("checkHover")) await checkHover(page);
    if (wanted("checkInlayHint")) await checkInlayHint(page);
    if (wanted("checkQuickFix")) await checkQuickFix(page, workspace);
    if (wanted("checkFormatting")) await checkFormatting(page, workspace);
    if (wanted("checkRename")) await checkRename(page, workspace);
    if (wanted("checkSemanticColours")) await checkSemanticColours(page);
    if (wanted("checkCompletion")) await checkCompletion(page);
    if (wanted("checkRun")) await checkRun(page, userData);
    if (wanted("checkCompilerView")) await checkCompilerView(page);
    if (wanted("checkDebug")) await checkDebug(page);
    if (wanted("checkDebugTensorMemory")) await checkDebugTensorMemory(page);
    if (wanted("checkDebugFragmentLayout")) await checkDebugFragmentLayout(page);
    if (wanted("checkDebugDataBreakpoint")) await checkDebugDataBreakpoint(page);
    console.log("vscode e2e: all checks passed");
  } catch (error) {
    if (browser) {
      const pages = browser.pages();
      if (pages[0]) await screenshot(pages[0], "failure").catch(() => {});
    }
    throw error;
  } finally {
    if (browser) await browser.close();
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// A CUDA file: its language mode is VS Code's own, and the PTX server is
// started for it (the extension activates on `cuda-cpp` and the client
// sends it `didOpen`, visible in the trace of the server log).
async function checkCudaAttach(page, userData) {
  console.log("check: the bundled server starts with no settings, also for a CUDA file");
  await openFile(page, "host.cu");
  const mode = page.locator('[id="status.editor.mode"]');
  await poll("the CUDA language mode", async () => (await mode.innerText()).includes("CUDA"));
  await runCommand(page, "PTX: Show Server Log");
  const log = () => channelLog(userData, "PTX Language Server");
  await poll("the bundled server in the log", async () => /server\/ptx-lsp \(from bundled\)/.test(log()));
  await poll("didOpen of host.cu (cuda-cpp) in the trace", async () =>
    /Sending notification 'textDocument\/didOpen'[\s\S]*?"uri": "file:[^"]*host\.cu",\s*"languageId": "cuda-cpp"/.test(log()),
  );
  await screenshot(page, "cuda-attach-log");
  // Give the focus back to the editor that the output panel took.
  await runCommand(page, "View: Focus Active Editor Group");
}

/**
 * The Problems panel as a person reads it: for each file row, the number of
 * problems it announces and the labels of the problem rows under it
 * ("Error: MESSAGE at line L and character C. generated by SOURCE").
 */
async function problemsByFile(page) {
  const labels = await page
    .locator(".markers-panel .monaco-list-row")
    .evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") || e.textContent || ""));
  const files = {};
  let current = null;
  for (const label of labels) {
    const file = /^(\d+) problems in file (\S+) of folder/.exec(label);
    if (file) {
      current = { count: Number(file[1]), markers: [] };
      files[file[2]] = current;
    } else {
      // A problem row before any file row: kept under "?" so that a
      // failure shows it.
      if (!current) files["?"] = current = { count: 0, markers: [] };
      current.markers.push(label);
    }
  }
  return files;
}

/** Hovers at `line:column` (1-based) and waits until `accept(text)` holds. */
async function hoverAt(page, line, column, what, accept) {
  await goTo(page, line, column);
  await runCommand(page, "Show or Focus Hover");
  const hover = page.locator(".monaco-hover:not(.hidden)").first();
  const text = await poll(what, async () => {
    const shown = (await hover.innerText()).replace(/\u00a0/g, " ");
    return accept(shown) ? shown : null;
  });
  return text;
}

// host.cu holds one misspelled qualifier inside an asm string (line 10,
// `.bflly` of `shfl.sync.bflly.b32`). The server reads only the asm
// statements: the Problems panel lists exactly that one error for host.cu —
// a server that parsed the C++ as PTX would list syntax errors there too.
async function checkInlineAsm(page, workspace) {
  console.log("check: inline PTX in a CUDA file (diagnostic, hovers, quick fix)");
  await openFile(page, "host.cu");
  await runCommand(page, "View: Focus Problems");
  const isAsmError = (label) =>
    label.startsWith("Error: `shfl` has no qualifier `.bflly`; did you mean `.bfly`?") &&
    label.includes(" at line 10 and character 28.");
  const problems = await poll("the asm diagnostic of host.cu in the Problems panel", async () => {
    const files = await problemsByFile(page);
    const host = files["host.cu"];
    if (host && host.markers.some(isAsmError)) return host;
    throw new Error(`Problems panel: ${JSON.stringify(files)}`);
  });
  await screenshot(page, "asm-problems");
  assert.strictEqual(problems.count, 1, `host.cu problems: ${problems.markers.join(" | ")}`);
  assert.strictEqual(problems.markers.length, 1, `host.cu problems: ${problems.markers.join(" | ")}`);
  await runCommand(page, "View: Focus Active Editor Group");

  // A qualifier inside the string: `.sync` of `shfl.sync.bflly.b32`.
  await hoverAt(page, 10, 24, "the PTX hover of .sync in the asm string", (text) =>
    text.includes(".sync on shfl.sync") && text.includes("synchronize"));
  await screenshot(page, "asm-hover-qualifier");
  await page.keyboard.press("Escape");
  // An opcode: `add` of `add.s32 %0, %1, 1;` on line 4.
  await hoverAt(page, 4, 10, "the PTX hover of add in the asm string", (text) =>
    text.includes("Integer addition") && text.includes("add.type d, a, b;"));
  await screenshot(page, "asm-hover-opcode");
  await page.keyboard.press("Escape");
  // A placeholder: `%0` is the C++ output `y` with constraint "=r".
  await hoverAt(page, 4, 18, "the hover of the placeholder %0", (text) =>
    text.includes('asm operand 0') && text.includes('"=r"(y)') && text.includes("32-bit register"));
  await screenshot(page, "asm-hover-placeholder");
  await page.keyboard.press("Escape");

  // The quick fix rewrites the qualifier inside the literal.
  await goTo(page, 10, 28);
  await runCommand(page, "Quick Fix...");
  const action = page.locator(".action-widget .monaco-list-row", { hasText: "Change to `.bfly`" }).first();
  await action.waitFor({ state: "visible" });
  await screenshot(page, "asm-quick-fix-menu");
  await action.click();
  await poll("the fixed asm string", async () => (await editorText(page)).includes('asm volatile("shfl.sync.bfly.b32 %0, %1'));
  await runCommand(page, "File: Save");
  const file = path.join(workspace, "host.cu");
  await poll("the fixed asm string saved to disk", async () =>
    fs.readFileSync(file, "utf8").includes('    asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v));\n'));
  await runCommand(page, "View: Focus Problems");
  await poll("no problem left in host.cu", async () => !(await problemsByFile(page))["host.cu"]);
  await screenshot(page, "asm-quick-fix-applied");
  await runCommand(page, "View: Focus Active Editor Group");
}

async function checkLanguageAndProblems(page) {
  console.log("check: language mode and Problems panel");
  await openFile(page, "kernel.ptx");
  const mode = page.locator('[id="status.editor.mode"]');
  await poll("language mode PTX", async () => (await mode.innerText()).trim() === "PTX");
  await runCommand(page, "View: Focus Problems");
  const rows = page.locator(".markers-panel .monaco-list-row");
  const expected = [
    "`ld` has no qualifier `.gloabl`; did you mean `.global`?",
    "`add` has no qualifier `.s33`; did you mean `.s32`?",
    "register `%r9` is not declared",
  ];
  await poll("the three diagnostics in the Problems panel", async () => {
    const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") || e.textContent));
    return expected.every((m) => labels.some((l) => l.includes(m)));
  });
  await screenshot(page, "problems");
}

async function checkHover(page) {
  console.log("check: hover over a qualifier");
  await openFile(page, "kernel.ptx");
  await goTo(page, 10, 9); // on `.global` of `ld.global.v4.u32` (columns count a tab as 4)
  await runCommand(page, "Show or Focus Hover");
  const hover = page.locator(".monaco-hover:not(.hidden)").first();
  await poll("the hover text of .global", async () => {
    const text = await hover.innerText();
    return text.includes(".global on ld") && text.includes("global memory");
  });
  await screenshot(page, "hover");
  await page.keyboard.press("Escape");
}

async function checkInlayHint(page) {
  console.log("check: register-count inlay hint");
  await openFile(page, "kernel.ptx");
  await poll("the inlay hint 4×b32", async () => (await editorText(page)).includes("4×b32"));
  await screenshot(page, "inlay-hint");
}

async function checkQuickFix(page, workspace) {
  console.log("check: quick fix");
  await openFile(page, "kernel.ptx");
  await goTo(page, 11, 9); // on `.gloabl`
  await runCommand(page, "Quick Fix...");
  const action = page.locator(".action-widget .monaco-list-row", { hasText: "Change to `.global`" }).first();
  await action.waitFor({ state: "visible" });
  await screenshot(page, "quick-fix-menu");
  await action.click();
  await poll("the fixed line", async () => (await editorText(page)).includes("ld.global.u32 %r4"));
  await runCommand(page, "File: Save");
  const file = path.join(workspace, "kernel.ptx");
  await poll("the fix saved to disk", async () => fs.readFileSync(file, "utf8").includes("\tld.global.u32 %r4, [%rd1];"));
  await screenshot(page, "quick-fix-applied");
}

async function checkFormatting(page, workspace) {
  console.log("check: formatting");
  await openFile(page, "kernel.ptx");
  const before = fs.readFileSync(path.join(workspace, "kernel.ptx"), "utf8");
  await runCommand(page, "Format Document");
  await poll("a formatted buffer", async () => (await editorText(page)).includes(".param .u64 out\n)"));
  await runCommand(page, "File: Save");
  const file = path.join(workspace, "kernel.ptx");
  await poll("the formatted file saved to disk", async () => fs.readFileSync(file, "utf8") !== before);
  const after = fs.readFileSync(file, "utf8");
  assert.ok(after.includes(".visible .entry scale(\n"), after);
  await screenshot(page, "formatted");
}

// F2 on one register of a `%f<4>` range: the new name gets its own declaration
// (of the range's type) and every use of that register is renamed; the other
// registers of the range keep theirs.
async function checkRename(page, workspace) {
  console.log("check: rename one register of a range");
  await openFile(page, "rename.ptx");
  await goTo(page, 10, 14); // inside `%f1` of `mov.f32 %f1, ...` (a tab counts as 4 columns)
  await runCommand(page, "Rename Symbol");
  const box = page.locator(".rename-box input").first();
  await box.waitFor({ state: "visible" });
  await poll("the rename box holding %f1", async () => (await box.inputValue()) === "%f1");
  await box.fill("%scale");
  await screenshot(page, "rename-box");
  await page.keyboard.press("Enter");
  await poll("the renamed register", async () => {
    const text = await editorText(page);
    return text.includes(".reg .f32 %scale;") && text.includes("add.f32 %f3, %scale, %f2;")
      && text.includes("mov.f32 %scale, 0f3F800000;") && text.includes(".reg .f32 %f<4>;");
  });
  await screenshot(page, "rename-applied");
  await runCommand(page, "File: Save");
  const file = path.join(workspace, "rename.ptx");
  await poll("the rename saved to disk", async () => fs.readFileSync(file, "utf8").includes("\t.reg .f32 %scale;\n"));
}

// The server's semantic tokens are applied (the token inspector names their
// type) and give the parts of an instruction different colours in the default
// dark theme: opcode, state space, vector qualifier, type and registers.
async function checkSemanticColours(page) {
  console.log("check: semantic token colours");
  await openFile(page, "kernel.ptx");
  // The inspector shows what the editor had when it opened; tokens that
  // arrive later (the server is still answering an earlier edit) do not
  // refresh it, so a view without them is closed and opened again.
  const widget = page.locator(".token-inspect-widget").first();
  let seen = "";
  await retry("the token inspector", page, async () => {
    await goTo(page, 10, 8); // on `.global` of `ld.global.v4.u32`
    await runCommand(page, "Developer: Inspect Editor Tokens and Scopes");
    await poll(
      "the token inspector naming the semantic token of .global",
      async () => {
        seen = await widget.innerText({ timeout: ATTEMPT_TIMEOUT });
        return seen.includes("semantic token type") && seen.includes("modifier") ? seen : null;
      },
      ATTEMPT_TIMEOUT,
    ).catch((error) => {
      throw new Error(`${error.message}; the inspector showed: ${JSON.stringify(seen.slice(0, 300))}`);
    });
  });
  await screenshot(page, "semantic-token-inspect");
  await page.keyboard.press("Escape");
  // The colour of each word of line 10, as rendered.
  const colours = await poll("distinct colours on the ld.global.v4.u32 line", async () => {
    const words = await page.locator(".editor-group-container.active .view-line").evaluateAll((lines) => {
      const line = lines.find((l) => l.textContent.includes("ld.global.v4.u32"));
      if (!line) return null;
      return [...line.querySelectorAll("span > span")].map((s) => [s.textContent.trim(), getComputedStyle(s).color]);
    });
    if (!words) return null;
    const colourOf = (word) => (words.find(([text]) => text === word) || [])[1];
    const parts = ["ld", ".global", ".v4", ".u32", "%r0"].map(colourOf);
    return parts.every(Boolean) && new Set(parts).size >= 4 ? parts : null;
  });
  console.log(`  colours of ld .global .v4 .u32 %r0: ${colours.join(" | ")}`);
  await screenshot(page, "semantic-colours");
}

/** The labels of the suggest widget's rows after typing `text`. */
async function suggestionsAfter(page, file, text) {
  await openFile(page, file);
  await goTo(page, 10, 1);
  await page.keyboard.type(text);
  await runCommand(page, "Trigger Suggest");
  const rows = page.locator(".editor-widget.suggest-widget.visible .monaco-list-row");
  return poll(`suggestions in ${file}`, async () => {
    const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") || ""));
    return labels.length > 0 ? labels : null;
  });
}

// Typing `L` after `ld.global.` narrows the list to the cache qualifiers
// (fewer rows than the list shows at once): `L2::*` exists from sm_80 on, so on
// sm_70 those rows come after the `L1::*` ones (marked with what they need).
async function checkCompletion(page) {
  console.log("check: completion after ld.global. is ordered by .target");
  const sm90 = await suggestionsAfter(page, "complete_sm90.ptx", "\tld.global.L");
  await screenshot(page, "completion-sm90");
  assert.ok(sm90.some((l) => l.includes("L1::evict_last")), `sm_90: ${sm90.join(" | ")}`);
  assert.ok(sm90.some((l) => l.includes("L2::cache_hint")), `sm_90: ${sm90.join(" | ")}`);
  await page.keyboard.press("Escape");
  const sm70 = await suggestionsAfter(page, "complete_sm70.ptx", "\tld.global.L");
  await screenshot(page, "completion-sm70");
  const lastL1 = sm70.map((l) => l.includes("L1::")).lastIndexOf(true);
  const firstL2 = sm70.findIndex((l) => l.includes("L2::"));
  assert.ok(lastL1 >= 0, `sm_70: ${sm70.join(" | ")}`);
  assert.ok(firstL2 === -1 || firstL2 > lastL1, `sm_70 lists L2 qualifiers first: ${sm70.join(" | ")}`);
  await page.keyboard.press("Escape");
  // Accepting an item after the dot writes it once (in a file of its own, so
  // the text typed above is not in the way). Enter is pressed only once the
  // row is listed: on a slow machine the widget shows before its items, and
  // Enter on an empty list would insert a line break.
  await openFile(page, "complete_accept.ptx");
  await goTo(page, 10, 1);
  await page.keyboard.type("\tld.global.L2::ca");
  await runCommand(page, "Trigger Suggest");
  await page
    .locator(".editor-widget.suggest-widget.visible .monaco-list-row", { hasText: "L2::cache_hint" })
    .first()
    .waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  await page.keyboard.press("Enter");
  await poll("the accepted completion", async () => (await editorText(page)).includes("ld.global.L2::cache_hint"));
  assert.ok(!(await editorText(page)).includes("ld.global.."), await editorText(page));
  await screenshot(page, "completion-accepted");
  await page.keyboard.press("Escape");
}

async function checkRun(page, userData) {
  console.log("check: the Run code lens shows register values");
  await openFile(page, "snippet.ptx");
  const lens = page.locator(".codelens-decoration a", { hasText: "Run" }).first();
  await lens.waitFor({ state: "visible" });
  await lens.click();
  // The PTX Run panel opens with every register of the thread...
  const output = page.locator(".panel .monaco-editor .view-lines").first();
  await poll("the register values in the PTX Run panel", async () => {
    const text = (await output.innerText()).replace(/\u00a0/g, " ");
    return text.includes("%r3 = 0x0000000c") && text.includes("%r1 = 0x00000005");
  });
  assert.ok(channelLog(userData, "PTX Run").includes("%r2 = 0x00000007"));
  // ...and the editor shows each line's values as inlay hints.
  await poll("the run values as inlay hints", async () => (await editorText(page)).includes("0x0000000c"));
  await screenshot(page, "run-values");
}

/** Expands a tree row (a thread of the call stack, a scope) unless it is open. */
async function expand(row) {
  await row.waitFor({ state: "visible" });
  if ((await row.getAttribute("aria-expanded")) !== "true") {
    await row.locator(".monaco-tl-twistie").first().click();
  }
  await poll("the row to open", async () => (await row.getAttribute("aria-expanded")) === "true");
}

// The "Debug" lens of a kernel with a `// @run` launch: a breakpoint stops
// it; the call stack lists the warps, the Variables view the focused lane's
// registers; a step moves to the next line; continuing ends the session.
async function checkDebug(page) {
  console.log("check: the Debug code lens stops a kernel at a breakpoint");
  await openFile(page, "debug_kernel.ptx");
  await goTo(page, 22, 5);
  await runCommand(page, "Debug: Toggle Breakpoint");
  const lens = page.locator(".codelens-decoration a", { hasText: "Debug" }).first();
  await lens.waitFor({ state: "visible" });
  await lens.click();
  // The call stack lists the warps of the CTA; the stopped warp's frame is
  // on the breakpoint's line.
  const callStack = page.locator(".debug-call-stack").first();
  const stackText = async () => (await callStack.innerText()).replace(/\u00a0/g, " ");
  await poll("the warps in the call stack", async () => {
    const text = (await stackText()).toLowerCase();
    return text.includes("cta (0,0,0) warp 0") && text.includes("cta (0,0,0) warp 1");
  });
  const thread = callStack.locator(".monaco-list-row", { hasText: /warp 0/i }).first();
  await expand(thread);
  await poll("the stopped frame on line 22", async () => (await stackText()).includes("22:1"));
  // The Variables view: the focused lane's registers.
  const variables = page.locator(".debug-variables").first();
  const registers = variables.locator(".monaco-list-row", { hasText: "Registers (lane 0)" }).first();
  await registers.waitFor({ state: "visible" });
  await expand(registers);
  await poll("the focused lane's registers", async () => {
    const text = (await variables.innerText()).replace(/\u00a0/g, " ");
    return text.includes("%rd3") && text.includes("0x00007f0000000000");
  });
  await page.locator(".debug-top-stack-frame-line").first().waitFor({ state: "attached" });
  await screenshot(page, "debug-stopped");
  await runCommand(page, "Debug: Step Over");
  await poll("the step to the next line", async () => (await stackText()).includes("23:1"));
  await screenshot(page, "debug-step");
  // Without the breakpoint the launch runs to its end, with a summary in
  // the Debug Console.
  await goTo(page, 22, 5);
  await runCommand(page, "Debug: Toggle Breakpoint");
  await runCommand(page, "Debug: Continue");
  await poll("the end of the debug session", async () =>
    (await page.locator(".debug-toolbar").count()) === 0 || !(await page.locator(".debug-toolbar").first().isVisible()));
  await poll("the launch's summary in the Debug Console", async () =>
    (await page.locator(".repl").first().innerText()).includes("the launch finished"));
  await screenshot(page, "debug-ended");
}

/** Waits until the debug session has ended (the debug toolbar is gone). */
async function waitForSessionEnd(page) {
  await poll("the end of the debug session", async () =>
    (await page.locator(".debug-toolbar").count()) === 0 || !(await page.locator(".debug-toolbar").first().isVisible()));
}

/**
 * Sets a breakpoint on `line` of `file`, starts the file's "Debug" lens and
 * waits for the stop on that line in warp 0; returns the call stack and the
 * Variables view.
 */
async function debugToLine(page, file, line) {
  await roomForVariables(page);
  await openFile(page, file);
  await goTo(page, line, 5);
  await runCommand(page, "Debug: Toggle Breakpoint");
  const lens = page.locator(".codelens-decoration a", { hasText: "Debug" }).first();
  await lens.waitFor({ state: "visible" });
  await lens.click();
  const callStack = page.locator(".debug-call-stack").first();
  const stackText = async () => (await callStack.innerText()).replace(/\u00a0/g, " ");
  // With one warp the call stack lists its frames; with several, under a
  // row per warp (warp 0's opened here).
  const thread = callStack.locator(".monaco-list-row", { hasText: /warp 0/i }).first();
  await poll(`the stop on line ${line}`, async () => {
    if ((await stackText()).includes(`${line}:1`)) return true;
    if ((await thread.count()) > 0 && (await thread.getAttribute("aria-expanded")) === "false") {
      await thread.locator(".monaco-tl-twistie").first().click();
    }
    return false;
  });
  await page.locator(".debug-top-stack-frame-line").first().waitFor({ state: "attached" });
  // The Watch view folded: its height goes to the Variables view.
  const watch = page.locator(".pane-header", { hasText: /^Watch/ });
  if ((await watch.count()) > 0 && (await watch.first().getAttribute("aria-expanded")) === "true") {
    await watch.first().click();
  }
  return { callStack, stackText, variables: page.locator(".debug-variables").first() };
}

/**
 * Room for the debugger's views: a taller window and a side bar 700 pixels
 * wide (dragged by its edge), so that an opened scope's rows are on screen
 * (the Variables tree draws only the rows in view) and their values whole.
 */
async function roomForVariables(page) {
  await page.setViewportSize({ width: 1600, height: 1400 });
  const sidebar = page.locator('[id="workbench.parts.sidebar"]');
  await sidebar.waitFor({ state: "visible" });
  const box = await sidebar.boundingBox();
  if (box.width < 650) {
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width + 1, y);
    await page.mouse.down();
    await page.mouse.move(box.x + 700, y, { steps: 10 });
    await page.mouse.up();
  }
}

/**
 * Folds a tree row that the workbench opens by itself (the first scope, a
 * moment after the stop) once it is open.
 */
async function collapse(row) {
  await poll("the workbench to open the row", async () =>
    (await row.count()) > 0 && (await row.first().getAttribute("aria-expanded")) === "true", 3_000).catch(() => {});
  if ((await row.count()) > 0 && (await row.first().getAttribute("aria-expanded")) === "true") {
    await row.first().locator(".monaco-tl-twistie").first().click();
    await poll("the row to fold", async () => (await row.first().getAttribute("aria-expanded")) === "false");
  }
}

/**
 * Scrolls the Variables view down (the mouse wheel over it) until `row` is
 * drawn: the tree draws only the rows in view. Returns the row.
 */
async function reveal(page, view, row) {
  for (let i = 0; ; i++) {
    if ((await row.count()) > 0 && (await row.first().isVisible())) return row.first();
    if (i === 40) throw new Error(`no row ${row} in the Variables view`);
    const box = await view.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 120);
    await page.waitForTimeout(100);
  }
}

/** Removes the breakpoint on `line` of the open file and ends the session. */
async function stopDebugging(page, line) {
  await goTo(page, line, 5);
  await runCommand(page, "Debug: Toggle Breakpoint");
  await runCommand(page, "Debug: Stop");
  await waitForSessionEnd(page);
}

/** The Variables view's text, with the editor's non-breaking spaces as spaces. */
async function variablesText(variables) {
  return (await variables.innerText()).replace(/\u00a0/g, " ");
}

// A tcgen05 kernel (sm_100a) stopped after its `tcgen05.ld`: the Tensor
// Memory scope lists the allocated columns, and each Tensor Memory lane the
// words `tcgen05.st` wrote there (lane 5: 105 and 10, in hex).
async function checkDebugTensorMemory(page) {
  console.log("check: the Tensor Memory scope of a stopped tcgen05 kernel");
  const { variables } = await debugToLine(page, "debug_tmem.ptx", 20);
  await collapse(variables.locator(".monaco-list-row", { hasText: "Registers (lane 0)" }));
  const rows = (text) => variables.locator(".monaco-list-row", { hasText: text });
  await expand(await reveal(page, variables, rows("Tensor Memory")));
  await poll("the allocated columns", async () => (await variablesText(variables)).includes("128 lanes × 32 columns of 32 bits"));
  await expand(await reveal(page, variables, rows("columns 0..31")));
  const lane5 = await reveal(page, variables, rows(/^lane 5\b/));
  await poll("the words of Tensor Memory lane 5", async () =>
    (await lane5.innerText()).replace(/\u00a0/g, " ").includes("[0x00000069, 0x0000000a, 0x00000000"));
  // Lane 5's columns, each word with its typed views.
  await expand(lane5);
  await reveal(page, variables, rows(/^column 1\b/));
  await poll("column 1 of lane 5", async () => /column 1\b[\s\S]*0x0000000a/.test(await variablesText(variables)));
  await screenshot(page, "debug-tensor-memory");
  await stopDebugging(page, 20);
}

// An `mma` (m16n8k16, f16 inputs, f32 accumulators) stopped just after it:
// the "Fragment layout" scope shows each matrix row by row, each element
// with its value and the lane and register that hold it. The hover on the
// instruction shows the same grid of lanes and registers without running.
async function checkDebugFragmentLayout(page) {
  console.log("check: the fragment layout of an mma, in the debugger and in the hover");
  const { variables } = await debugToLine(page, "debug_mma.ptx", 27);
  await collapse(variables.locator(".monaco-list-row", { hasText: "Registers (lane 0)" }));
  const rows = (text) => variables.locator(".monaco-list-row", { hasText: text });
  await expand(await reveal(page, variables, rows("Fragment layout (line 26)")));
  await poll("the matrices of the mma", async () => {
    const text = await variablesText(variables);
    return text.includes("A: 16×16 .f16") && text.includes("D: 16×8 .f32");
  });
  await expand(await reveal(page, variables, rows(/^D: 16×8/)));
  // D's last row: which lane and register hold each element, and its value.
  await expand(await reveal(page, variables, rows(/^row 15/)));
  await reveal(page, variables, rows(/^col 7/));
  await poll("the holders of D's row 15", async () => (await variablesText(variables)).includes("(lane 28 %d2)"));
  await screenshot(page, "debug-fragment-layout");
  await stopDebugging(page, 27);

  await hoverAt(page, 26, 6, "the fragment layout in the hover of mma", (text) =>
    text.includes("Fragment layout") && text.includes("t0 %a0.lo") && text.includes("t31 %d3"));
  // Scroll the hover to its end, where the grids are (the mouse wheel over it).
  const hover = page.locator(".monaco-hover:not(.hidden)").first();
  const box = await hover.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  // The last grid's last row in view: its box inside the hover's.
  const last = hover.getByText(/row\s+15/).last();
  await poll("the end of the hover in view", async () => {
    await page.mouse.wheel(0, 400);
    const outer = await hover.boundingBox({ timeout: 1_000 });
    const inner = await last.boundingBox({ timeout: 1_000 });
    return inner && inner.y + inner.height <= outer.y + outer.height + 2;
  });
  await screenshot(page, "hover-fragment-layout");
  // The mouse leaves the text first: a hover under the pointer comes back and keeps the
  // keyboard (Quick Open would not open in the next check).
  await page.mouse.move(5, 5);
  await page.keyboard.press("Escape");
  await page.locator(".monaco-hover:not(.hidden)").first()
    .waitFor({ state: "hidden", timeout: ATTEMPT_TIMEOUT }).catch(() => {});
}

// A data breakpoint from the Variables view: stopped before the kernel
// stores, "Break on Value Change" on element [5] of the global buffer; the
// launch then stops right after the store that changed it, and says which
// line, warp and lane wrote what.
async function checkDebugDataBreakpoint(page) {
  console.log("check: a data breakpoint on a buffer element stops after the write");
  const { stackText, variables } = await debugToLine(page, "debug_kernel.ptx", 17);
  await collapse(variables.locator(".monaco-list-row", { hasText: "Registers (lane 0)" }));
  // The line breakpoint goes: only the data breakpoint should stop the launch.
  await goTo(page, 17, 5);
  await runCommand(page, "Debug: Toggle Breakpoint");
  const rows = (text) => variables.locator(".monaco-list-row", { hasText: text });
  await expand(await reveal(page, variables, rows("Global buffers")));
  await expand(await reveal(page, variables, rows(/^buf/)));
  const element = await reveal(page, variables, rows(/^\[5\]/));
  await retry("Break on Value Change", page, async () => {
    await element.click({ button: "right" });
    const item = page.getByRole("menuitem", { name: "Break on Value Change" }).first();
    await item.waitFor({ state: "visible", timeout: ATTEMPT_TIMEOUT });
    await item.click();
    // Some Chromium builds leave the context menu open after a click on an item: the
    // item, focused by then, is taken with Enter.
    const closed = await item
      .waitFor({ state: "hidden", timeout: 3_000 })
      .then(() => true)
      .catch(() => false);
    if (!closed) {
      await item.focus();
      await page.keyboard.press("Enter");
      await item.waitFor({ state: "hidden", timeout: ATTEMPT_TIMEOUT });
    }
  });
  // The Breakpoints view lists its rows only while it is open; the Variables
  // view, grown by the rows above, may have folded it.
  const header = page.locator(".pane-header", { hasText: /^Breakpoints/ }).first();
  const breakpoints = page.locator(".debug-breakpoints").first();
  await poll("the data breakpoint in the Breakpoints view", async () => {
    if ((await header.count()) > 0 && (await header.getAttribute("aria-expanded")) === "false") {
      await header.click();
    }
    return (await breakpoints.count()) > 0 && (await breakpoints.innerText()).includes("buf[5]");
  });
  await runCommand(page, "Debug: Continue");
  // The stop is on the line after the store, and says what the store did
  // (the call stack shows the description in capitals).
  await poll("the stop after the store to buf[5]", async () => (await stackText()).includes("23:1"));
  await poll("what the store wrote, in the stop's description", async () =>
    (await stackText()).toLowerCase().includes("buf[5] written by line 22 (cta (0,0,0) warp 0 lane 5): 0 → 10"));
  await poll("the same in the Debug Console", async () =>
    (await page.locator(".repl").first().innerText()).includes("buf[5] written by line 22 (cta (0,0,0) warp 0 lane 5): 0 → 10"));
  await screenshot(page, "debug-data-breakpoint");
  await runCommand(page, "Debug: Stop");
  await waitForSessionEnd(page);
  await page.setViewportSize({ width: 1400, height: 900 });
}

// The compiler view (ptxas and nvdisasm installed by tools/install-cuda-tool.sh, found in
// ~/.cache): a lens with the kernel's registers and occupancy, which opens its SASS beside.
async function checkCompilerView(page) {
  console.log("check: the resource lens and the SASS view");
  await openFile(page, "resources.ptx");
  const lens = page.locator(".codelens-decoration a", { hasText: "registers" }).first();
  await lens.waitFor({ state: "visible", timeout: 120_000 });
  const title = await lens.innerText();
  assert.ok(title.includes("occupancy"), title);
  await screenshot(page, "resource-lens");
  await lens.click();
  await page.locator(".tabs-container .tab", { hasText: "scale.sass" }).first().waitFor({ state: "visible" });
  const sass = page.locator(".editor-group-container", { hasText: "EXIT" }).first();
  await sass.waitFor({ state: "visible" });
  await screenshot(page, "sass-view");
}

main().catch((error) => {
  console.error(`vscode e2e FAILED: ${error.stack || error}`);
  process.exit(1);
});
