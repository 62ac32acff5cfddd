// Which documents the server is started for. Pure (no `vscode` import) so
// that it can be unit-tested.

/**
 * PTX files, and with `ptx.inlineAsm.enable` (on by default) CUDA, C++ and C
 * files too (VS Code's language ids `cuda-cpp`, `cpp`, `c`), where the server
 * offers its features inside inline `asm()` statements beside the file's own
 * C++ language server.
 */
export function documentSelector(inlineAsm: boolean): { language: string }[] {
  const languages = inlineAsm ? ["ptx", "cuda-cpp", "cpp", "c"] : ["ptx"];
  return languages.map((language) => ({ language }));
}
