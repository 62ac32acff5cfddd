// The injection grammar (syntaxes/ptx-inline.injection.json) colours the template strings
// of asm statements in C++ and CUDA C++ as PTX, the way VS Code applies it (vscode-textmate
// with the Oniguruma WebAssembly build). The host grammar here is a small stand-in for
// VS Code's C++ grammar (strings, comments, words): what matters is that the injection
// takes over inside `asm(...)` and leaves the operand lists to the host.
// Run with `node --test test/grammar/`.

const fs = require("fs");
const path = require("path");
const test = require("node:test");
const assert = require("node:assert");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const root = path.join(__dirname, "..", "..");

const HOST = {
  scopeName: "source.cpp",
  patterns: [
    { match: "//.*$", name: "comment.line.double-slash.cpp" },
    { begin: "\"", end: "\"", name: "string.quoted.double.cpp" },
    { match: "\\b[A-Za-z_]\\w*\\b", name: "identifier.cpp" },
  ],
};

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;
  await oniguruma.loadWASM(wasm);
  const files = {
    "source.ptx": "ptx.tmLanguage.json",
    "source.ptx.inline-asm": "ptx-inline.injection.json",
  };
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName === "source.cpp") {
        return vsctm.parseRawGrammar(JSON.stringify(HOST), "host.json");
      }
      const file = files[scopeName];
      if (!file) return null;
      return vsctm.parseRawGrammar(
        fs.readFileSync(path.join(root, "syntaxes", file), "utf8"),
        file,
      );
    },
    getInjections: (scopeName) =>
      scopeName === "source.cpp" ? ["source.ptx.inline-asm"] : undefined,
  });
  return registry.loadGrammar("source.cpp");
}

/** The innermost scope of every token: [text, scope]. */
function tokens(grammar, text) {
  const out = [];
  let state = vsctm.INITIAL;
  for (const line of text.split("\n")) {
    const result = grammar.tokenizeLine(line, state);
    for (const t of result.tokens) {
      const piece = line.slice(t.startIndex, t.endIndex);
      if (piece.trim()) out.push([piece.trim(), t.scopes[t.scopes.length - 1]]);
    }
    state = result.ruleStack;
  }
  return out;
}

function scopeOf(all, text) {
  const found = all.find(([t]) => t === text);
  assert.ok(found, `no token ${text} in ${JSON.stringify(all)}`);
  return found[1];
}

test("asm templates are PTX, operand lists are C++", async () => {
  const grammar = await loadGrammar();
  const all = tokens(
    grammar,
    [
      "__device__ void f(unsigned x, unsigned long long p) {",
      '  asm volatile("ld.global.nc.v2 .u32 {%0, %1}, [%2];\\n\\t" // first',
      '               "mov.b32 %%r1, %0;"',
      '               : "=r"(x), "=r"(y) : "l"(p) : "memory");',
      '  const char* s = "add.u32 not ptx";',
      "}",
    ].join("\n"),
  );
  assert.strictEqual(scopeOf(all, "ld"), "support.function.opcode.ptx");
  assert.strictEqual(scopeOf(all, ".global"), "storage.modifier.state-space.ptx");
  assert.strictEqual(scopeOf(all, ".u32"), "support.type.ptx");
  assert.strictEqual(scopeOf(all, "mov"), "support.function.opcode.ptx");
  assert.strictEqual(scopeOf(all, "%0"), "variable.parameter.placeholder.ptx");
  assert.strictEqual(scopeOf(all, "%%"), "constant.character.escape.percent.ptx");
  assert.strictEqual(scopeOf(all, "\\n"), "constant.character.escape.cpp");
  assert.strictEqual(scopeOf(all, "// first"), "comment.line.double-slash.cpp");
  // The constraints after the first `:` and strings outside asm keep the host's colours.
  assert.strictEqual(scopeOf(all, "=r"), "string.quoted.double.cpp");
  assert.strictEqual(scopeOf(all, "add.u32 not ptx"), "string.quoted.double.cpp");
});
