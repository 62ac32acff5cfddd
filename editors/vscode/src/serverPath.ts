// Where the ptx-lsp binary is: the environment variable PTX_LSP_PATH, then
// the `ptx.server.path` setting, then the binary bundled in the extension's
// `server/` folder. When none exists the caller shows an error that says
// how to fix it. Pure (no `vscode` import) so that it can be unit-tested.

import * as path from "path";

export interface ServerPathInputs {
  /** Value of the environment variable PTX_LSP_PATH. */
  env: string | undefined;
  /** Value of the `ptx.server.path` setting. */
  setting: string | null | undefined;
  /** The extension's install folder. */
  extensionDir: string;
  platform: NodeJS.Platform;
  /** Whether a file exists (injected for tests). */
  exists: (file: string) => boolean;
}

export type ServerPath =
  | { ok: true; path: string; source: "env" | "setting" | "bundled" }
  | { ok: false; message: string };

export function bundledServerPath(extensionDir: string, platform: NodeJS.Platform): string {
  const exe = platform === "win32" ? "ptx-lsp.exe" : "ptx-lsp";
  return path.join(extensionDir, "server", exe);
}

export function resolveServerPath(inputs: ServerPathInputs): ServerPath {
  const env = inputs.env?.trim();
  if (env) {
    if (inputs.exists(env)) {
      return { ok: true, path: env, source: "env" };
    }
    return {
      ok: false,
      message: `PTX_LSP_PATH is set to "${env}", but no file is there.`,
    };
  }
  const setting = inputs.setting?.trim();
  if (setting) {
    if (inputs.exists(setting)) {
      return { ok: true, path: setting, source: "setting" };
    }
    return {
      ok: false,
      message: `The setting ptx.server.path is "${setting}", but no file is there.`,
    };
  }
  const bundled = bundledServerPath(inputs.extensionDir, inputs.platform);
  if (inputs.exists(bundled)) {
    return { ok: true, path: bundled, source: "bundled" };
  }
  return {
    ok: false,
    message:
      "The ptx-lsp language server was not found. Build it (`cargo build --release -p ptx-lsp`) " +
      "and set ptx.server.path (or the environment variable PTX_LSP_PATH) to the binary.",
  };
}
