//! The fragment layout of a matrix instruction in its opcode hover: which
//! lane's register holds each element of each matrix operand, for the exact
//! form written (shape, types, layouts, `.num`, `.x4`, `.trans` ...), named
//! with the instruction's own registers. The mapping is the interpreter's
//! ([`ptx_interp::instruction_layout`]), the one its `run` and `dap` execute
//! with; nothing runs here.

use std::fmt::Write as _;

use ptx_syntax::Instruction;

/// At most this many rows and columns of a matrix are drawn (a `wgmma` with
/// `n = 256` has 256 columns); the hover says what it leaves out.
const MAX_ROWS: usize = 32;
const MAX_COLS: usize = 32;

/// The markdown section, `None` when the instruction is not a matrix
/// instruction the interpreter models.
pub(super) fn fragment_layout(inst: &Instruction<'_>) -> Option<String> {
    let matrices = ptx_interp::instruction_layout(inst, 0)?;
    let mut out = String::from(
        "\n**Fragment layout**: `tL %rN` is lane L's register `%rN` \
         (`.lo`/`.hi`: its low or high 16 bits, `.bK`: byte K)\n",
    );
    if inst.mnemonic().is_some_and(|m| m.text == "wgmma") {
        out.push_str(
            "\nShown for warp 0 of the warpgroup; warp w holds rows 16w to 16w + 15 \
             in the same lanes and registers.\n",
        );
    }
    for m in &matrices {
        let (rows, cols) = m.size();
        let _ = write!(out, "\n{}", m.name);
        let mut clipped = Vec::new();
        if rows > MAX_ROWS {
            clipped.push(format!(
                "rows {}..{} of {rows}",
                m.first_row,
                m.first_row + MAX_ROWS - 1
            ));
        }
        if cols > MAX_COLS {
            clipped.push(format!(
                "columns {}..{} of {cols}",
                m.first_col,
                m.first_col + MAX_COLS - 1
            ));
        }
        if !clipped.is_empty() {
            let _ = write!(out, " ({} shown)", clipped.join(", "));
        }
        let _ = write!(out, "\n```text\n{}```\n", m.grid(MAX_ROWS, MAX_COLS));
    }
    Some(out)
}
