// Debug configurations for `ptx-lsp dap`: the launch a "Debug" code lens
// asks for (the lens carries the same `ptx/run` parameters as "Run"), and the
// gaps VS Code leaves when F5 is pressed without a launch.json. Pure (no
// `vscode` import) so that it can be unit-tested.

/** A launch configuration of the `ptx` debugger (see package.json). */
export interface PtxLaunch {
  type: string;
  request: string;
  name: string;
  program?: string;
  entry?: string;
  grid?: number[] | number | string;
  block?: number[] | number | string;
  args?: string[];
  threads?: number;
  set?: unknown;
  dynamicSmem?: number;
  maxSteps?: number;
  stopOnEntry?: boolean;
  range?: unknown;
  [key: string]: unknown;
}

/** The `ptx/run` parameters that are also launch arguments. */
const RUN_KEYS = ["entry", "grid", "block", "args", "threads", "set", "dynamicSmem", "maxSteps", "range"];

/**
 * The launch for a "Debug" lens: its `ptx/run` parameters (the document's
 * URI becomes `program`, a file path) with the debugger's fields.
 */
export function lensLaunch(params: Record<string, unknown>, program: string): PtxLaunch {
  const launch: PtxLaunch = {
    type: "ptx",
    request: "launch",
    name: params.entry ? `Debug ${params.entry}` : "Debug @run region",
    program,
  };
  for (const key of RUN_KEYS) {
    if (params[key] !== undefined && params[key] !== null) {
      launch[key] = params[key];
    }
  }
  return launch;
}

/**
 * Fills in what an F5 without launch.json (or a configuration without
 * `program`) leaves out: the active PTX file, run as a snippet unless an
 * entry is named. `undefined` when there is nothing to debug.
 */
export function completeLaunch(
  config: Partial<PtxLaunch>,
  activePtxFile: string | undefined,
): PtxLaunch | undefined {
  const filled: Partial<PtxLaunch> = { ...config };
  if (!filled.type && !filled.request && !filled.name) {
    if (!activePtxFile) {
      return undefined;
    }
    filled.type = "ptx";
    filled.request = "launch";
    filled.name = "Debug PTX file";
    filled.stopOnEntry = true;
  }
  if (!filled.program) {
    if (!activePtxFile) {
      return undefined;
    }
    filled.program = activePtxFile;
  }
  return filled as PtxLaunch;
}
