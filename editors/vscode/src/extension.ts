// The PTX extension: starts the ptx-lsp language server and wires its
// features into VS Code. A TextMate grammar (syntaxes/, generated from the
// server's knowledge base) colours files before the server answers; the
// server's semantic tokens then refine it. They use the standard token types
// and modifiers, mapped in package.json to the grammar's own scopes so that
// colours stay the same when the server starts.

import * as fs from "fs";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

import { completeLaunch, lensLaunch } from "./debugConfig";
import { documentSelector } from "./documents";
import * as sass from "./sass";
import { resolveServerPath, ServerPath } from "./serverPath";

let client: LanguageClient | undefined;
let log: vscode.OutputChannel | undefined;
let runOutput: vscode.OutputChannel | undefined;


function settings(): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration("ptx");
  return {
    target: config.get<string>("target", ""),
    version: config.get<string>("version", ""),
    diagnostics: {
      enable: config.get<boolean>("diagnostics.enable", true),
      disabled: config.get<string[]>("diagnostics.disabled", []),
    },
    docs: { indexPath: config.get<string | null>("docs.indexPath", null) },
    inlayHints: { registerCounts: config.get<boolean>("inlayHints.registerCounts", true) },
    // The "Debug" lens beside "Run" starts `ptx-lsp dap` through `ptx.debug`.
    run: { debugLens: config.get<boolean>("run.debugLens", true) },
    compiler: {
      enable: config.get<boolean>("compiler.enable", true),
      path: config.get<string | null>("compiler.path", null),
      diagnostics: config.get<boolean>("compiler.diagnostics", false),
      blockSize: config.get<number | null>("compiler.blockSize", null),
      dynamicSharedBytes: config.get<number>("compiler.dynamicSharedBytes", 0),
      sassCounts: config.get<boolean>("compiler.sassCounts", false),
    },
  };
}

function findServer(context: vscode.ExtensionContext): ServerPath {
  return resolveServerPath({
    env: process.env.PTX_LSP_PATH,
    setting: vscode.workspace.getConfiguration("ptx").get<string | null>("server.path", null),
    extensionDir: context.extensionPath,
    platform: process.platform,
    exists: (file) => fs.existsSync(file),
  });
}

// The debugger is the same binary: `ptx-lsp dap` on stdio.
function debugAdapterFactory(context: vscode.ExtensionContext): vscode.DebugAdapterDescriptorFactory {
  return {
    createDebugAdapterDescriptor(): vscode.ProviderResult<vscode.DebugAdapterDescriptor> {
      const found = findServer(context);
      if (!found.ok) {
        throw new Error(found.message);
      }
      return new vscode.DebugAdapterExecutable(found.path, ["dap"]);
    },
  };
}

function activePtxFile(): string | undefined {
  const document = vscode.window.activeTextEditor?.document;
  return document && document.languageId === "ptx" && document.uri.scheme === "file"
    ? document.uri.fsPath
    : undefined;
}

const debugConfigurations: vscode.DebugConfigurationProvider = {
  resolveDebugConfiguration(_folder, config) {
    const launch = completeLaunch(config as Record<string, unknown>, activePtxFile());
    if (!launch) {
      vscode.window.showInformationMessage("PTX: open a .ptx file to debug, or set `program`.");
      return undefined;
    }
    return launch as vscode.DebugConfiguration;
  },
};

// Starts a debug session with a "Debug" lens's parameters.
async function debugCode(params: Record<string, unknown>): Promise<void> {
  const document = params.textDocument as { uri?: string } | undefined;
  const uri = document?.uri ? vscode.Uri.parse(document.uri) : undefined;
  if (!uri || uri.scheme !== "file") {
    vscode.window.showErrorMessage("PTX: only files on disk can be debugged; save the file first.");
    return;
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open?.isDirty) {
    await open.save();
  }
  await vscode.debug.startDebugging(
    vscode.workspace.getWorkspaceFolder(uri),
    lensLaunch(params, uri.fsPath) as vscode.DebugConfiguration,
  );
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const found = findServer(context);
  if (!found.ok) {
    const open = "Open Settings";
    const choice = await vscode.window.showErrorMessage(found.message, open);
    if (choice === open) {
      await vscode.commands.executeCommand("workbench.action.openSettings", "ptx.server.path");
    }
    return;
  }
  log ??= vscode.window.createOutputChannel("PTX Language Server");
  log.appendLine(`using ${found.path} (from ${found.source})`);
  // No `transport` here: with `TransportKind.stdio` vscode-languageclient
  // appends `--stdio` to the arguments, which `ptx-lsp serve` refuses. Without
  // it the client still talks over the process's stdin and stdout.
  const serverOptions: ServerOptions = {
    command: found.path,
    args: ["serve"],
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(
      vscode.workspace.getConfiguration("ptx").get<boolean>("inlineAsm.enable", true),
    ),
    initializationOptions: settings(),
    outputChannel: log,
    synchronize: { configurationSection: "ptx" },
  };
  client = new LanguageClient("ptx", "PTX Language Server", serverOptions, clientOptions);
  await client.start();
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

interface RegisterCount {
  instruction: string;
  vectors?: { operand: number; registers: number; register_bits: number; explanation: string }[];
  error?: string;
}

async function showRegisterCount(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!client || !editor || editor.document.languageId !== "ptx") {
    return;
  }
  const result = await client.sendRequest<RegisterCount | null>("ptx/registerCount", {
    textDocument: { uri: editor.document.uri.toString() },
    position: client.code2ProtocolConverter.asPosition(editor.selection.active),
  });
  if (!result) {
    vscode.window.showInformationMessage("No instruction at the cursor.");
  } else if (result.error) {
    vscode.window.showWarningMessage(`${result.instruction}: ${result.error}`);
  } else {
    const parts = (result.vectors ?? []).map(
      (v) => `operand ${v.operand}: ${v.registers} × ${v.register_bits}-bit (${v.explanation})`,
    );
    vscode.window.showInformationMessage(
      `${result.instruction}: ${parts.length ? parts.join("; ") : "no vector operands"}`,
    );
  }
}

interface RunResult {
  threads: { tid: number; ctaid: number; registers: Record<string, string> }[];
  steps: number;
  buffers: { arg: number; hex: string; type?: string; values?: string[]; more?: number }[];
  lines: { range: { start: { line: number } }; text: string; executions: number }[];
  error: { kind: string; message: string; range?: { start: { line: number } }; thread?: number } | null;
}

let lastRunParams: Record<string, unknown> | undefined;

// Runs `ptx/run` with the code lens's parameters. The server shows the
// selected thread's values as inlay hints and a fault as a diagnostic on its
// line; every thread's registers and the buffers go to the log.
async function runCode(params: Record<string, unknown>): Promise<void> {
  if (!client) {
    return;
  }
  lastRunParams = params;
  let result: RunResult;
  try {
    result = await client.sendRequest<RunResult>("ptx/run", params);
  } catch (error) {
    vscode.window.showErrorMessage(`PTX run: ${error instanceof Error ? error.message : error}`);
    return;
  }
  if (result.error) {
    const where = result.error.range ? ` (line ${result.error.range.start.line + 1})` : "";
    const thread = result.error.thread !== undefined ? `, thread ${result.error.thread}` : "";
    vscode.window.setStatusBarMessage(`PTX run: ${result.error.message}${where}${thread}`, 10000);
  }
  // The registers of every thread, in a panel of their own.
  runOutput ??= vscode.window.createOutputChannel("PTX Run");
  runOutput.clear();
  runOutput.appendLine(`ptx/run: ${result.steps} steps`);
  if (result.error) {
    runOutput.appendLine(`error: ${result.error.message}`);
  }
  for (const thread of result.threads) {
    runOutput.appendLine(`cta ${thread.ctaid} thread ${thread.tid}:`);
    for (const [name, value] of Object.entries(thread.registers)) {
      runOutput.appendLine(`  ${name} = ${value}`);
    }
  }
  for (const buffer of result.buffers) {
    if (buffer.values) {
      // Typed buffers as numbers, eight to a line, each line led by its first index.
      runOutput.appendLine(`buffer of argument ${buffer.arg} (${buffer.type}, ${buffer.values.length + (buffer.more ?? 0)} elements):`);
      for (let i = 0; i < buffer.values.length; i += 8) {
        runOutput.appendLine(`  [${i}] ${buffer.values.slice(i, i + 8).join("  ")}`);
      }
      if (buffer.more) {
        runOutput.appendLine(`  … ${buffer.more} more (every byte is in the hex below)`);
        runOutput.appendLine(`  hex: ${buffer.hex}`);
      }
    } else {
      runOutput.appendLine(`buffer of argument ${buffer.arg}: ${buffer.hex}`);
    }
  }
  runOutput.show(true);
}

// Re-runs the latest run with the values of another thread shown.
async function selectRunThread(): Promise<void> {
  if (!lastRunParams) {
    vscode.window.showInformationMessage("PTX: run a kernel or an @run region first");
    return;
  }
  const answer = await vscode.window.showInputBox({
    prompt: "Show the values of which thread?",
    value: String(lastRunParams.hintThread ?? 0),
    validateInput: (text) => (/^\d+$/.test(text) ? undefined : "a thread index (0, 1, ...)"),
  });
  if (answer !== undefined) {
    await runCode({ ...lastRunParams, hintThread: Number(answer) });
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("ptx.restartServer", async () => {
      await stop();
      await start(context);
    }),
    vscode.commands.registerCommand("ptx.registerCount", showRegisterCount),
    vscode.commands.registerCommand("ptx.showLog", () => log?.show()),
    vscode.commands.registerCommand("ptx.run", runCode),
    vscode.commands.registerCommand("ptx.runSelectThread", selectRunThread),
    vscode.commands.registerCommand("ptx.debug", debugCode),
    vscode.debug.registerDebugAdapterDescriptorFactory("ptx", debugAdapterFactory(context)),
    vscode.debug.registerDebugConfigurationProvider("ptx", debugConfigurations),
    vscode.commands.registerCommand("ptx.showSass", (args) => sass.showSass(client, args)),
    vscode.commands.registerCommand("ptx.sassGoToPtx", sass.goToPtx),
    vscode.commands.registerCommand("ptx.ptxGoToSass", sass.goToSass),
    vscode.workspace.registerTextDocumentContentProvider(sass.SCHEME, sass.provider),
    vscode.languages.registerDefinitionProvider({ scheme: sass.SCHEME }, sass.definitions),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (
        event.affectsConfiguration("ptx.server.path") ||
        event.affectsConfiguration("ptx.inlineAsm.enable")
      ) {
        await stop();
        await start(context);
      }
    }),
  );
  await start(context);
}

export function deactivate(): Thenable<void> | undefined {
  return stop();
}
