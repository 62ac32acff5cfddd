// Tokenizes every PTX file of the project's corpus (tests/corpus: nvcc and
// Triton output, generated files) with the TextMate grammar, the way VS Code
// does (vscode-textmate with the Oniguruma WebAssembly build), and checks
// what a reader would see before the language server starts:
// - the first word of every statement is an opcode, and each of its
//   qualifiers is a token of its own (with a qualifier, type or state-space
//   scope);
// - every `%name` is a register or a special register;
// - every dotted word outside instructions is a directive, type, state space,
//   attribute or DWARF section name (never the generic fallback scope);
// - every number literal is a number, hex float bits included.
// Run with `node --test test/grammar/`.

const fs = require("fs");
const path = require("path");
const test = require("node:test");
const assert = require("node:assert");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const root = path.join(__dirname, "..", "..");
const corpus = path.join(root, "..", "..", "tests", "corpus");

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () =>
      vsctm.parseRawGrammar(
        fs.readFileSync(path.join(root, "syntaxes", "ptx.tmLanguage.json"), "utf8"),
        "ptx.tmLanguage.json",
      ),
  });
  return registry.loadGrammar("source.ptx");
}

function ptxFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...ptxFiles(full));
    else if (entry.name.endsWith(".ptx")) out.push(full);
  }
  return out.sort();
}

/** Every token of a file: { line, text, scopes, lineText }. */
function tokenize(grammar, text) {
  const tokens = [];
  let state = vsctm.INITIAL;
  text.split(/\r?\n/).forEach((lineText, line) => {
    const result = grammar.tokenizeLine(lineText, state);
    for (const t of result.tokens) {
      tokens.push({ line, text: lineText.slice(t.startIndex, t.endIndex), scopes: t.scopes, lineText });
    }
    state = result.ruleStack;
  });
  return tokens;
}

const has = (token, prefix) => token.scopes.some((s) => s.startsWith(prefix));

test("the corpus is highlighted by the TextMate grammar", async () => {
  const grammar = await loadGrammar();
  const files = ptxFiles(corpus);
  assert.ok(files.length >= 30, `expected the corpus in ${corpus}, found ${files.length} files`);
  const problems = [];
  let statements = 0;
  for (const file of files) {
    const name = path.relative(corpus, file);
    const tokens = tokenize(grammar, fs.readFileSync(file, "utf8"));
    const report = (t, why) => {
      if (problems.length < 40) problems.push(`${name}:${t.line + 1}: ${why}: "${t.text}" in "${t.lineText.trim()}" (${t.scopes.join(" ")})`);
    };
    const byLine = new Map();
    for (const t of tokens) {
      if (!byLine.has(t.line)) byLine.set(t.line, []);
      byLine.get(t.line).push(t);
    }
    let previousCode = ";";
    for (const [, line] of byLine) {
      const code = line.filter((t) => !has(t, "comment") && t.text.trim());
      if (code.length === 0) continue;
      const lineText = line[0].lineText;
      // A statement that starts with a lower-case word (after an optional
      // predicate guard), on a line that does not continue an operand list,
      // is an instruction.
      const continues = /[,(]$/.test(previousCode);
      previousCode = lineText.replace(/\/\/.*$/, "").trim() || previousCode;
      if (!continues && /^\s*(@!?%?[\w$]+\s+)?[a-z]\w*(\.|\s|;|$)/.test(lineText) && !/^\s*[\w$]+\s*:(?!:)/.test(lineText)) {
        statements++;
        if (!code.some((t) => has(t, "support.function.opcode"))) report(code[0], "statement without an opcode");
      }
      for (const t of code) {
        if (has(t, "string")) continue;
        const word = t.text.trim();
        if (/^%[\w$]/.test(word) && !has(t, "variable.")) report(t, "register without a variable scope");
        // One token per qualifier: `.L1::evict_last`, never `.global.v4`.
        const qualifier = has(t, "variable.other.enummember.qualifier") || ((has(t, "storage.") || has(t, "support.type")) && !/^\s*\./.test(lineText));
        if (qualifier && !/^\.[\w]+(::[\w]+)*$/.test(word)) report(t, "not exactly one qualifier in a token");
        if (/^\.[A-Za-z_]/.test(word)) {
          if (t.scopes.length < 2) report(t, "dotted word without a scope");
          else if (has(t, "keyword.other.ptx")) report(t, "dotted word with only the fallback scope");
        }
        if (/^(0[fF][0-9A-Fa-f]{8}|0[dD][0-9A-Fa-f]{16})$/.test(word) && !has(t, "constant.numeric.float.hex")) report(t, "hex float bits not a number");
        if (/^\d/.test(word) && !has(t, "constant.numeric") && !has(t, "variable.other.enummember.qualifier")) report(t, "number without a numeric scope");
      }
    }
  }
  assert.ok(statements > 10000, `only ${statements} statements found`);
  assert.deepStrictEqual(problems, []);
});
