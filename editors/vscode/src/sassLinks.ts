// The links between a SASS view and its PTX file, from the `ptx/sass` answer: for each line
// of the view, the PTX line (1-based) its instruction came from, or null.

export interface SassAnswer {
  target?: string;
  text?: string;
  lines?: (number | null)[];
  functions?: { name: string; first_line: number; last_line: number; instructions: number }[];
  counts?: { line: number; instructions: number }[];
  error?: string;
}

/** The PTX line (0-based, as editors count) of view line `viewLine` (0-based), if any. */
export function ptxLineOf(answer: SassAnswer, viewLine: number): number | undefined {
  const line = answer.lines?.[viewLine];
  return typeof line === "number" ? line - 1 : undefined;
}

/** The view lines (0-based) of the instructions made from PTX line `ptxLine` (0-based). */
export function viewLinesOf(answer: SassAnswer, ptxLine: number): number[] {
  const out: number[] = [];
  (answer.lines ?? []).forEach((line, i) => {
    if (line === ptxLine + 1) {
      out.push(i);
    }
  });
  return out;
}

/** The name of the view document: `KERNEL.sass` or `FILE.sass`. */
export function viewName(sourcePath: string, kernel: string | undefined): string {
  const base = kernel ?? sourcePath.split(/[\\/]/).pop() ?? "ptx";
  return `${base.replace(/[^A-Za-z0-9_.-]/g, "_")}.sass`;
}
