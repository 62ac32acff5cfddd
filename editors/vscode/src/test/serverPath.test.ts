// Unit tests of the server lookup order: env var, setting, bundled, error.

import { strict as assert } from "assert";
import { test } from "node:test";

import { bundledServerPath, resolveServerPath } from "../serverPath";

const base = {
  env: undefined,
  setting: undefined,
  extensionDir: "/ext",
  platform: "linux" as NodeJS.Platform,
};

test("the environment variable comes first", () => {
  const found = resolveServerPath({ ...base, env: "/env/ptx-lsp", setting: "/s", exists: () => true });
  assert.deepEqual(found, { ok: true, path: "/env/ptx-lsp", source: "env" });
});

test("then the setting", () => {
  const found = resolveServerPath({ ...base, setting: "/s/ptx-lsp", exists: () => true });
  assert.deepEqual(found, { ok: true, path: "/s/ptx-lsp", source: "setting" });
});

test("then the bundled binary", () => {
  const bundled = bundledServerPath("/ext", "linux");
  const found = resolveServerPath({ ...base, exists: (f) => f === bundled });
  assert.deepEqual(found, { ok: true, path: bundled, source: "bundled" });
  assert.ok(bundledServerPath("/ext", "win32").endsWith("ptx-lsp.exe"));
});

test("a missing file is a clear error, not a silent fallback", () => {
  const env = resolveServerPath({ ...base, env: "/nope", exists: () => false });
  assert.equal(env.ok, false);
  assert.match(!env.ok ? env.message : "", /PTX_LSP_PATH/);
  const none = resolveServerPath({ ...base, exists: () => false });
  assert.match(!none.ok ? none.message : "", /ptx\.server\.path/);
});
