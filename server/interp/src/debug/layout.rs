//! Fragment layouts you can see: for a matrix instruction (`mma`, `wmma`,
//! `wgmma.mma_async`, `ldmatrix`/`stmatrix`/`movmatrix`, `tcgen05.ld`/`st`)
//! which lane's register (and which part of it) holds each element of each
//! matrix operand, with the value it holds now.
//!
//! The mapping is the one the interpreter executes with: each instruction
//! module lists its operands' holders from the same functions its `exec`
//! uses, so the picture cannot drift from the semantics.

use ptx_syntax::{Instruction, Operand, OperandKind};

use crate::decode::{destination_count, parse_int};
use crate::ir::{mask, Address, Dst, Quals, Src, Ty};
use crate::Op;

use super::{format_as, Session};

/// Which operand of the instruction a fragment's registers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    Dst(usize),
    Src(usize),
}

/// One element's holder: its place in the matrix, the lane, the register
/// (index among the operand's registers) and the part of that register
/// (`part · bits` is its lowest bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Holder {
    pub row: usize,
    pub col: usize,
    pub lane: u32,
    pub reg: usize,
    pub part: u32,
}

/// One matrix operand of an instruction, as the instruction modules give it.
#[derive(Debug, Clone)]
pub(crate) struct Fragment {
    pub name: String,
    pub place: Place,
    pub rows: usize,
    pub cols: usize,
    /// Element type and width in bits.
    pub ty: Ty,
    pub bits: u32,
    /// The first row's and column's numbers in the whole matrix (a warp of a
    /// warpgroup holds a band of rows; a Tensor Memory tile starts at its
    /// address).
    pub first_row: usize,
    pub first_col: usize,
    pub holders: Vec<Holder>,
}

/// One element as shown: who holds it and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellView {
    pub lane: u32,
    /// The register's name with the part: `%r3`, `%r3.hi`, `%r5.b2`.
    pub register: String,
    pub value: String,
}

/// One matrix operand as shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixView {
    /// `A: 16×16 .f16`.
    pub name: String,
    pub first_row: usize,
    pub first_col: usize,
    /// `cells[row][col]`: the holders of the element (several when the
    /// registers hold copies).
    pub cells: Vec<Vec<Vec<CellView>>>,
}

/// The layout of one instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutView {
    pub pc: u32,
    pub line: usize,
    /// The instruction's text.
    pub instruction: String,
    pub matrices: Vec<MatrixView>,
}

fn part_name(part: u32, bits: u32) -> String {
    match (bits, part) {
        (32 | 64, _) => String::new(),
        (16, 0) => ".lo".into(),
        (16, _) => ".hi".into(),
        (8, p) => format!(".b{p}"),
        (w, p) => format!("[{}:{}]", p * w, p * w + w - 1),
    }
}

fn elements_dst(dst: Option<&Dst>) -> Vec<Option<u32>> {
    Dst::elements(dst)
        .iter()
        .map(|d| match d {
            Dst::Reg(r) => Some(*r),
            _ => None,
        })
        .collect()
}

fn elements_src(src: Option<&Src>) -> Vec<Option<u32>> {
    Src::elements(src)
        .iter()
        .map(|s| match s {
            Src::Reg(r) => Some(*r),
            _ => None,
        })
        .collect()
}

/// The fragments of a decoded matrix instruction for warp `w` (of its
/// warpgroup, for `wgmma`); `split` reads the `.16x32bx2` split offset
/// operand of `tcgen05.ld`/`st`. `None` when `op` is not a matrix
/// instruction.
fn fragments_of(
    op: &Op,
    src: &[Src],
    w: usize,
    split: impl Fn(&Src) -> u32,
) -> Option<Vec<Fragment>> {
    let fragments = match op {
        Op::Matrix(op) => crate::matrix::fragments(op),
        Op::Wmma(op) => crate::wmma::fragments(op),
        Op::Wgmma(op) => crate::warpgroup::fragments(op, w)?,
        Op::Tensor(op) => {
            let offset = match src.get(1) {
                Some(s) if crate::tensor::has_split(op) => split(s),
                _ => 0,
            };
            // No layout for an offset past Tensor Memory's last column.
            if offset as usize >= crate::tensor::COLUMNS {
                return None;
            }
            crate::tensor::fragments(op, offset)?
        }
        _ => return None,
    };
    (!fragments.is_empty()).then_some(fragments)
}

/// The matrices of `fragments`, each element's holder named and valued by
/// `cell(register id, holder, fragment)`.
fn matrices(
    fragments: Vec<Fragment>,
    dst: &[Dst],
    src: &[Src],
    cell: impl Fn(u32, &Holder, &Fragment) -> (String, String),
) -> Vec<MatrixView> {
    let mut matrices = Vec::new();
    for f in fragments {
        let regs = match f.place {
            Place::Dst(i) => elements_dst(dst.get(i)),
            Place::Src(i) => elements_src(src.get(i)),
        };
        let mut cells = vec![vec![Vec::new(); f.cols]; f.rows];
        for h in &f.holders {
            let Some(slot) = cells.get_mut(h.row).and_then(|r| r.get_mut(h.col)) else {
                continue;
            };
            let (register, value) = match regs.get(h.reg).copied().flatten() {
                Some(r) => cell(r, h, &f),
                None => (format!("operand {}", h.reg), "?".into()),
            };
            slot.push(CellView {
                lane: h.lane,
                register,
                value,
            });
        }
        matrices.push(MatrixView {
            name: f.name,
            first_row: f.first_row,
            first_col: f.first_col,
            cells,
        });
    }
    matrices
}

/// The fragment layout of a matrix instruction as written, without running
/// anything: for each matrix operand, which lane's register (named as the
/// instruction names it, with the part) holds each element. The same
/// mapping the interpreter executes with; `warp` picks the warp of a
/// warpgroup for `wgmma` (it holds rows `16·warp` to `16·warp + 15`). The
/// cells' values are empty. `None` when the instruction is not a matrix
/// instruction the interpreter models (or not a complete one).
pub fn instruction_layout(inst: &Instruction<'_>, warp: usize) -> Option<Vec<MatrixView>> {
    let mnemonic = inst.mnemonic()?.text;
    if !matches!(
        mnemonic,
        "mma" | "wmma" | "wgmma" | "ldmatrix" | "stmatrix" | "movmatrix" | "tcgen05"
    ) || inst.has_error()
    {
        return None;
    }
    let quals = Quals::new(inst.qualifiers().iter().map(|q| q.text));
    let n_dst = destination_count(mnemonic, &quals);
    let mut names = Vec::new();
    let mut dst = Vec::new();
    let mut src = Vec::new();
    for (index, operand) in inst.operands().iter().enumerate() {
        if index < n_dst {
            dst.push(static_dst(operand, &mut names)?);
        } else {
            src.push(static_src(operand, &mut names));
        }
    }
    let op = crate::decode_op(mnemonic, &quals, dst.len(), &src).ok()?;
    let fragments = fragments_of(&op, &src, warp, |s| match s {
        Src::Imm(v) => u32::try_from(*v).unwrap_or(u32::MAX),
        _ => 0,
    })?;
    Some(matrices(fragments, &dst, &src, |r, h, f| {
        (
            format!("{}{}", names[r as usize], part_name(h.part, f.bits)),
            String::new(),
        )
    }))
}

/// A register as a fresh id with its name.
fn static_reg(text: &str, names: &mut Vec<String>) -> u32 {
    names.push(text.to_string());
    names.len() as u32 - 1
}

fn static_dst(operand: &Operand<'_>, names: &mut Vec<String>) -> Option<Dst> {
    Some(match operand.kind() {
        OperandKind::Register(_) | OperandKind::Identifier(_) | OperandKind::Component { .. } => {
            Dst::Reg(static_reg(operand.text(), names))
        }
        OperandKind::Vector => Dst::Vector(
            operand
                .elements()
                .iter()
                .map(|e| static_dst(e, names))
                .collect::<Option<_>>()?,
        ),
        OperandKind::Sink => Dst::Sink,
        _ => return None,
    })
}

/// A source as the decoder's operand kinds see it: registers, vectors,
/// addresses and immediates (constants it cannot read count as 0).
fn static_src(operand: &Operand<'_>, names: &mut Vec<String>) -> Src {
    match operand.kind() {
        OperandKind::Register(_) | OperandKind::Identifier(_) | OperandKind::Component { .. } => {
            Src::Reg(static_reg(operand.text(), names))
        }
        OperandKind::Negated => Src::NotReg(static_reg(operand.text(), names)),
        OperandKind::Vector => Src::Vector(
            operand
                .elements()
                .iter()
                .map(|e| static_src(e, names))
                .collect(),
        ),
        OperandKind::Address { .. } => Src::Addr(Address {
            base: None,
            offset: 0,
        }),
        OperandKind::Integer(text) => Src::Imm(parse_int(text).unwrap_or(0)),
        OperandKind::Sink => Src::Sink,
        _ => Src::Imm(0),
    }
}

impl Session<'_> {
    /// The fragments of the instruction at `pc`, if it is a matrix instruction.
    fn fragments(&self, w: usize, pc: u32) -> Option<Vec<Fragment>> {
        let inst = self.m.prog.insts.get(pc as usize)?;
        // The `.16x32bx2` split offset is an operand: read it as the
        // instruction does (first lane).
        fragments_of(&inst.op, &inst.src, w, |s| {
            let first = self.m.warps[w].valid.trailing_zeros().min(31);
            self.m.read_lane(w, s, first) as u32
        })
    }

    /// The layout of the matrix instruction at `pc` for warp `w`, with the
    /// values its lanes' registers hold now; `None` when the instruction
    /// there is not a matrix instruction.
    pub fn layout(&self, w: usize, pc: u32) -> Option<LayoutView> {
        if w >= self.m.warps.len() {
            return None;
        }
        let fragments = self.fragments(w, pc)?;
        let prog = self.m.prog;
        let inst = &prog.insts[pc as usize];
        let matrices = matrices(fragments, &inst.dst, &inst.src, |r, h, f| {
            let bits = self.m.warps[w].regs[r as usize * 32 + h.lane as usize];
            let element = bits >> (h.part * f.bits).min(63) & mask(f.bits);
            (
                format!(
                    "{}{}",
                    prog.regs[r as usize].name,
                    part_name(h.part, f.bits)
                ),
                format_as(element, f.ty),
            )
        });
        let text = self.target.source.get(inst.range.clone()).unwrap_or("");
        Some(LayoutView {
            pc,
            line: prog.line_of(pc),
            instruction: text.split_whitespace().collect::<Vec<_>>().join(" "),
            matrices,
        })
    }

    /// The CTA's Tensor Memory allocations: first column and column count.
    pub fn tensor_allocations(&self) -> Vec<(u32, u32)> {
        self.m.tensor.allocations()
    }

    /// The 32-bit word at Tensor Memory `lane`, `column` (`None` when not
    /// allocated).
    pub fn tensor_word(&self, lane: u32, column: u32) -> Option<u32> {
        self.m.tensor.word(lane, column)
    }
}

impl LayoutView {
    /// The layout as text: per matrix a grid of `tLANE REGISTER` cells.
    pub fn text(&self) -> String {
        let mut out = format!("line {}: {}\n", self.line, self.instruction);
        for m in &self.matrices {
            out.push_str(&format!("{}\n", m.name));
            out.push_str(&m.grid(usize::MAX, usize::MAX));
        }
        out
    }
}

impl MatrixView {
    /// The first `max_rows` rows and `max_cols` columns as a text grid of
    /// `tLANE REGISTER` cells under `col N` headings, each row after
    /// `row N`.
    pub fn grid(&self, max_rows: usize, max_cols: usize) -> String {
        let rows = &self.cells[..self.cells.len().min(max_rows)];
        let cols = self.cells.first().map_or(0, Vec::len).min(max_cols);
        let width = rows
            .iter()
            .flat_map(|r| &r[..cols])
            .map(|c| cell_text(c).chars().count())
            .max()
            .unwrap_or(1);
        let mut out = String::new();
        let mut line = format!("{:>8} ", "");
        for c in 0..cols {
            line.push_str(&format!(
                " {:<width$}",
                format!("col {}", self.first_col + c)
            ));
        }
        out.push_str(line.trim_end());
        out.push('\n');
        for (r, row) in rows.iter().enumerate() {
            let mut line = format!("{:>8} ", format!("row {}", self.first_row + r));
            for cell in &row[..cols] {
                line.push_str(&format!(" {:<width$}", cell_text(cell)));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// Rows and columns of the matrix (or the part of it shown).
    pub fn size(&self) -> (usize, usize) {
        (self.cells.len(), self.cells.first().map_or(0, Vec::len))
    }
}

/// `t5 %r3.hi` (holders of copies joined by `/`).
pub fn cell_text(cell: &[CellView]) -> String {
    if cell.is_empty() {
        return "-".into();
    }
    cell.iter()
        .map(|c| format!("t{} {}", c.lane, c.register))
        .collect::<Vec<_>>()
        .join("/")
}
