//! Warnings about tcgen05 usage that ptxas does not check but the spec states (PTX ISA
//! 9.7.16: 9.7.16.7 allocation, 9.7.16.8 ld/st/wait, 9.7.16.6 `.cta_group`):
//! * all tcgen05 instructions of a kernel use the same `.cta_group`;
//! * no `tcgen05.alloc` after `tcgen05.relinquish_alloc_permit`;
//! * a kernel that allocates tensor memory also deallocates it;
//! * registers loaded by `tcgen05.ld` are not read before `tcgen05.wait::ld`;
//! * tensor memory written by `tcgen05.st` is not read before `tcgen05.wait::st`.
//!
//! The flow is read in source order, without following branches: a straight-line
//! approximation that can miss problems on some paths.

use std::collections::HashMap;

use ptx_syntax::{Function, FunctionKind, Operand, OperandKind, TextRange};

use super::operand_types::symbol_of;
use crate::context::{Ctx, InstInfo};
use crate::Diagnostic;

/// What has been seen so far in one function.
#[derive(Debug, Default)]
pub(crate) struct Flow<'a> {
    is_entry: bool,
    has_call: bool,
    cta_group: Option<(&'a str, TextRange)>,
    relinquished: Option<TextRange>,
    allocs: Vec<TextRange>,
    deallocated: bool,
    /// Registers written by a `tcgen05.ld` not yet waited for, with the load's range.
    pending_loads: HashMap<&'a str, TextRange>,
    /// The last `tcgen05.st` not yet waited for.
    pending_store: Option<TextRange>,
    /// The names of the function's input parameters (not its return parameters), as
    /// declared: ptxas rejects a store to them (see `state_spaces::input_parameter_write`).
    pub inputs: Vec<TextRange>,
}

impl<'a> Flow<'a> {
    pub fn for_function(function: Function<'a>) -> Self {
        Flow {
            is_entry: function.kind() == FunctionKind::Entry,
            inputs: function
                .parameters()
                .iter()
                .flat_map(|p| p.parts().declarators)
                .filter_map(|d| d.name().map(|n| n.range()))
                .collect(),
            ..Flow::default()
        }
    }

    /// Notes an instruction of this mnemonic without its parts; `false` when
    /// [`Flow::observe`] needs its parts (a tcgen05 instruction, or loads pending).
    pub fn observe_mnemonic(&mut self, mnemonic: &str) -> bool {
        if !self.pending_loads.is_empty() || mnemonic == "tcgen05" {
            return false;
        }
        if mnemonic == "call" {
            self.has_call = true;
        }
        true
    }

    pub fn observe(&mut self, ctx: &mut Ctx<'_>, info: &InstInfo<'a>) {
        if info.words[0] == "call" {
            self.has_call = true;
        }
        // nvcc copies a loaded register (`mov.b32 %f1, %r1;`, a change of register type)
        // before the wait and reads the copy after it: the copy waits for the load instead.
        if let Some((from, to)) = self.pending_copy(info) {
            if let Some(load) = self.pending_loads.remove(from) {
                self.pending_loads.insert(to, load);
            }
            return;
        }
        self.check_reads(ctx, info);
        if info.words[0] != "tcgen05" {
            self.forget_writes(info);
            return;
        }
        let op = info.words.get(1).copied().unwrap_or("");
        self.check_cta_group(ctx, info);
        match op {
            "alloc" => {
                if let Some(permit) = &self.relinquished {
                    ctx.report(
                        Diagnostic::warning(
                            "tcgen05-alloc-after-relinquish",
                            info.opcode_range(),
                            "`tcgen05.alloc` after `tcgen05.relinquish_alloc_permit`: the CTA gave up the right to allocate",
                        )
                        .section("9.7.16.7.1")
                        .with_related(permit.clone(), "the permit is relinquished here"),
                    );
                }
                self.allocs.push(info.opcode_range());
            }
            "dealloc" => self.deallocated = true,
            "relinquish_alloc_permit" => self.relinquished = Some(info.opcode_range()),
            "wait::ld" => self.pending_loads.clear(),
            "wait::st" => self.pending_store = None,
            "ld" => {
                if let Some(store) = &self.pending_store {
                    ctx.report(
                        Diagnostic::warning(
                            "tcgen05-st-without-wait",
                            info.opcode_range(),
                            "`tcgen05.ld` reads tensor memory written by an earlier `tcgen05.st` without `tcgen05.wait::st` in between",
                        )
                        .section("9.7.16.8.5")
                        .with_related(store.clone(), "the store"),
                    );
                }
                if let Some(dest) = info.operands.first() {
                    for register in destination_registers(dest) {
                        self.pending_loads.insert(register, info.opcode_range());
                    }
                }
            }
            "st" => self.pending_store = Some(info.opcode_range()),
            _ => {}
        }
    }

    fn check_cta_group(&mut self, ctx: &mut Ctx<'_>, info: &InstInfo<'a>) {
        let Some(token) = info
            .qualifiers
            .iter()
            .find(|q| q.text.starts_with(".cta_group::"))
        else {
            return;
        };
        match &self.cta_group {
            None => self.cta_group = Some((token.text, token.range())),
            Some((first, range)) if *first != token.text => {
                ctx.report(
                    Diagnostic::warning(
                        "tcgen05-mixed-cta-group",
                        token.range(),
                        format!(
                            "`{}` differs from the `{first}` used earlier in this function; a kernel's tcgen05 instructions must agree",
                            token.text
                        ),
                    )
                    .section("9.7.16.6")
                    .with_related(range.clone(), "the first `.cta_group`"),
                );
            }
            Some(_) => {}
        }
    }

    /// An unguarded `mov` of a register that a `tcgen05.ld` has not finished writing into
    /// another register: (source, destination).
    fn pending_copy(&self, info: &InstInfo<'a>) -> Option<(&'a str, &'a str)> {
        if info.words[0] != "mov" || info.inst.guard().is_some() {
            return None;
        }
        let [dest, source] = &info.operands[..] else {
            return None;
        };
        match (dest.kind(), source.kind()) {
            (OperandKind::Register(to), OperandKind::Register(from))
                if self.pending_loads.contains_key(from) =>
            {
                Some((from, to))
            }
            _ => None,
        }
    }

    /// Warns when an instruction reads a register that a `tcgen05.ld` has not finished writing.
    fn check_reads(&mut self, ctx: &mut Ctx<'_>, info: &InstInfo<'a>) {
        if self.pending_loads.is_empty() {
            return;
        }
        let mut reads = Vec::new();
        if let Some(guard) = info.inst.guard() {
            reads.push(guard.predicate);
        }
        for (i, operand) in info.operands.iter().enumerate() {
            let is_address = matches!(operand.kind(), OperandKind::Address { .. });
            if i > 0 || is_address || no_destination(info) {
                reads.extend(operand.registers());
            }
        }
        for register in reads {
            if let Some(load) = self.pending_loads.remove(register.text) {
                ctx.report(
                    Diagnostic::warning(
                        "tcgen05-ld-without-wait",
                        register.range(),
                        format!(
                            "`{}` is read before `tcgen05.wait::ld`: the `tcgen05.ld` that writes it may not have finished",
                            register.text
                        ),
                    )
                    .section("9.7.16.8.3")
                    .with_related(load, "the load"),
                );
            }
        }
    }

    /// A register overwritten by another instruction no longer waits for the load.
    fn forget_writes(&mut self, info: &InstInfo<'a>) {
        if no_destination(info) {
            return;
        }
        if let Some(dest) = info.operands.first() {
            for register in destination_registers(dest) {
                self.pending_loads.remove(register);
            }
        }
    }

    pub fn finish(self, ctx: &mut Ctx<'_>) {
        if self.is_entry && !self.has_call && !self.deallocated {
            if let Some(first) = self.allocs.first() {
                ctx.report(
                    Diagnostic::warning(
                        "tcgen05-alloc-without-dealloc",
                        first.clone(),
                        "tensor memory allocated here is never freed with `tcgen05.dealloc` before the kernel exits",
                    )
                    .section("9.7.16.7.1"),
                );
            }
        }
    }
}

/// Instructions whose first operand is read, not written.
fn no_destination(info: &InstInfo<'_>) -> bool {
    matches!(
        info.words[0],
        "st" | "stmatrix"
            | "red"
            | "bar"
            | "barrier"
            | "bra"
            | "call"
            | "ret"
            | "prefetch"
            | "mbarrier"
            | "cp"
            | "fence"
            | "membar"
            | "multimem"
            | "wgmma"
            | "griddepcontrol"
            | "tensormap"
            | "sust"
            | "sured"
            | "stu"
            | "tcgen05"
            | "setmaxnreg"
    )
}

fn destination_registers<'a>(dest: &ptx_syntax::Operand<'a>) -> Vec<&'a str> {
    match dest.kind() {
        OperandKind::Register(name) => vec![name],
        OperandKind::Vector => dest
            .elements()
            .iter()
            .filter_map(|e| match e.kind() {
                OperandKind::Register(name) => Some(name),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The decompression formats of `tcgen05.cp` (9.7.16.9.2) and `ldmatrix` (9.7.14.5.15) go in
/// pairs, `.b8x16` then `.b6x16_p32` or `.b4x16_p64`; the knowledge base's matcher drops a lone
/// one (ptxas ignores these words on other instructions), ptxas 13.5 rejects it here
/// ("Unexpected number of 'format conversion' modifiers specified", "Unexpected number of
/// instruction types specified for ldmatrix").
pub(super) fn format_pair(rules: &mut super::operand_types::Rules<'_, '_, '_, '_>) {
    let info = rules.info;
    let destination = info.has("b8x16");
    let source = info.has("b6x16_p32") || info.has("b4x16_p64");
    let plain = info.has("b16") || info.has("b8");
    if destination != source || (source && plain) {
        let message = format!(
            "`{}`: write the formats as a pair, `.b8x16` then `.b6x16_p32` or `.b4x16_p64`, and no other type",
            rules.opcode()
        );
        rules.error("invalid-qualifier", info.opcode_range(), message);
    }
}

/// Operand types of the tensor-core instructions that the matcher cannot see (confirmed with
/// ptxas 13.5, "Arguments mismatch" unless noted):
/// * `tcgen05.mma{.sp}{.ws}` (9.7.16.10.9): `[d-tmem]` (and `[a-tmem]`) a 32-bit register
///   address, not a variable; the descriptors 64-bit; `idesc` 32-bit; the disabled-lane
///   vector of 32-bit registers; `enable-input-d` a predicate (or constant); `scale-input-d`
///   a constant; the `.ws` zero-column mask 64-bit;
/// * `tcgen05.cp` (9.7.16.9.1): the shared-memory descriptor 64-bit;
/// * `tcgen05.alloc` (9.7.16.7.1): the column count 32-bit;
/// * `tcgen05.commit….multicast::cluster` (9.7.16.11.1): a 16-bit CTA mask follows the
///   mbarrier ("must be 16-bit size");
/// * `wgmma.mma_async{.sp}` (9.7.15.5.2): descriptors 64-bit, `scale-d` a predicate, the
///   sparsity metadata 32-bit, the selector and the `imm-*` operands constants.
pub(crate) fn operands(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &crate::scope::Scope<'_>) {
    use super::operand_types::{int32, int64, is_vector, pred, word16, word32, Rules};
    let op = info.words.get(1).copied().unwrap_or("");
    let section = match (info.words[0], op) {
        ("tcgen05", "mma") => "9.7.16.10.9",
        ("tcgen05", "ld") => "9.7.16.8.3",
        ("tcgen05", "st") => "9.7.16.8.4",
        ("tcgen05", "cp") => "9.7.16.9.1",
        ("tcgen05", "alloc") => "9.7.16.7.1",
        ("tcgen05", "dealloc") => "9.7.16.7.1",
        ("tcgen05", "commit") => "9.7.16.11.1",
        ("wgmma", "mma_async") => "9.7.15.5.2",
        _ => return,
    };
    let mut rules = Rules {
        ctx,
        info,
        scope,
        section,
    };
    let ops = &info.operands;
    let constant = |rules: &mut Rules<'_, '_, '_, '_>, operand: &Operand<'_>, what: &str| {
        if matches!(
            operand.kind(),
            OperandKind::Register(_) | OperandKind::Vector
        ) {
            let message = format!("the {what} of `{}` is a constant", rules.opcode());
            rules.error("operand-kind", operand.range(), message);
        }
    };
    // A tensor-memory address: a 32-bit register, not a named variable.
    let tmem = |rules: &mut Rules<'_, '_, '_, '_>, operand: &Operand<'_>| {
        if !matches!(operand.kind(), OperandKind::Address { .. }) {
            return;
        }
        // The register's width is checked with the other address operands
        // (`state_spaces::generic_address_width`).
        for part in operand.elements() {
            let OperandKind::Identifier(name) = part.kind() else {
                continue;
            };
            if symbol_of(rules.scope, name, crate::scope::SymbolKind::Variable).is_some() {
                let message = format!(
                    "`{}` addresses tensor memory through a 32-bit register, not the variable `{name}`",
                    rules.opcode()
                );
                rules.error("operand-kind", part.range(), message);
            }
        }
    };
    match (info.words[0], op) {
        // The data vector holds 32-bit registers (16-bit elements are packed two to a
        // register with `.pack::16b`/`.unpack::16b`); ptxas 13.5: "Illegal to use symbol … of
        // type .b64 as vector element. Use a 32-bit register type only".
        ("tcgen05", "ld" | "st") => {
            let data = if op == "ld" { ops.first() } else { ops.get(1) };
            if let Some(data) = data.filter(|d| is_vector(d)) {
                rules.registers(data, "data", "32-bit registers", word32);
            }
        }
        ("tcgen05", "mma") => {
            if let Some(d) = ops.first() {
                tmem(&mut rules, d);
            }
            let descriptor = |rules: &mut Rules<'_, '_, '_, '_>, o: &Operand<'_>| {
                if matches!(o.kind(), OperandKind::Address { .. }) {
                    tmem(rules, o);
                } else {
                    rules.registers(o, "matrix descriptor", "a 64-bit register", int64);
                }
            };
            if let Some(a) = ops.get(1) {
                descriptor(&mut rules, a);
            }
            if let Some(b) = ops.get(2) {
                descriptor(&mut rules, b);
            }
            // The rest without the tensor-memory addresses (sparsity metadata, scale
            // factors): idesc, then `{ disable-output-lane }`, enable-input-d, and a last
            // optional operand (scale-input-d, or the `.ws` zero-column mask).
            let rest: Vec<Operand<'_>> = ops
                .iter()
                .skip(3)
                .filter(|o| !matches!(o.kind(), OperandKind::Address { .. }))
                .copied()
                .collect();
            let mut rest = rest.as_slice();
            if let Some((idesc, tail)) = rest.split_first() {
                rules.registers(idesc, "instruction descriptor", "a 32-bit register", int32);
                rest = tail;
            }
            if let Some((lanes, tail)) = rest.split_first() {
                if is_vector(lanes) {
                    // Any 32-bit register (ptxas 13.5 takes `.f32` ones too), four of them
                    // with `.cta_group::1` and eight with `::2` ("Argument vector size
                    // mismatch").
                    rules.registers(lanes, "disabled-lane mask", "32-bit registers", word32);
                    let wanted = if info.has("cta_group::2") { 8 } else { 4 };
                    let found = lanes.elements().len();
                    if found != wanted {
                        let message = format!(
                            "the disabled-lane mask of `{}` has {wanted} registers with this `.cta_group`, found {found}",
                            rules.opcode()
                        );
                        rules.error("vector-length", lanes.range(), message);
                    }
                    rest = tail;
                }
            }
            if let Some((enable, tail)) = rest.split_first() {
                rules.registers(enable, "accumulate flag", "a predicate", pred);
                rest = tail;
            }
            if let Some(last) = rest.first() {
                if info.has("ws") {
                    rules.registers(
                        last,
                        "zero-column mask descriptor",
                        "a 64-bit register",
                        int64,
                    );
                } else {
                    constant(&mut rules, last, "input scale");
                }
            }
        }
        ("tcgen05", "cp") => {
            format_pair(&mut rules);
            if let Some(desc) = ops.get(1) {
                rules.registers(desc, "shared memory descriptor", "a 64-bit register", int64);
            }
        }
        ("tcgen05", "alloc") => {
            if let Some(columns) = ops.get(1) {
                rules.scalar(columns);
                rules.registers(columns, "column count", "a 32-bit register", int32);
            }
        }
        ("tcgen05", "dealloc") => {
            for o in ops {
                rules.scalar(o);
            }
        }
        ("tcgen05", "commit") => {
            if info.has("multicast::cluster") && ops.len() == 1 {
                let message = format!(
                    "`{}` multicasts: write the 16-bit mask of the CTAs to signal after the mbarrier",
                    rules.opcode()
                );
                rules.error("operand-count", ops[0].range(), message);
            }
            if let Some(mask) = ops.get(1) {
                rules.registers(mask, "CTA mask", "a 16-bit register", word16);
            }
        }
        ("wgmma", "mma_async") => {
            if let Some(a) = ops.get(1).filter(|a| !is_vector(a)) {
                rules.registers(a, "matrix descriptor", "a 64-bit register", int64);
            }
            if let Some(b) = ops.get(2) {
                if is_vector(b) {
                    let message = format!(
                        "the B matrix of `{}` is a 64-bit descriptor, not a vector",
                        rules.opcode()
                    );
                    rules.error("operand-kind", b.range(), message);
                } else {
                    rules.registers(b, "matrix descriptor", "a 64-bit register", int64);
                }
            }
            let mut rest = &ops[ops.len().min(3)..];
            if info.has("sp") {
                if let Some(meta) = rest.first() {
                    rules.registers(meta, "sparsity metadata", "a 32-bit register", int32);
                }
                if let Some(selector) = rest.get(1) {
                    constant(&mut rules, selector, "sparsity selector");
                }
                rest = &rest[rest.len().min(2)..];
            }
            // scale-d is a predicate or 0/1; then imm-scale-a and imm-scale-b (-1 or 1) and the
            // transpose flags (0 or 1). ptxas 13.5: "unexpected value '0', expected to be -1
            // or 1", "unexpected value '2', expected to be 0 or 1".
            if let Some((scale_d, immediates)) = rest.split_first() {
                rules.registers(scale_d, "accumulate flag", "a predicate", pred);
                let values = |i: usize| -> (&[i128], &str) {
                    if i < 2 {
                        (&[-1, 1], "-1 or 1")
                    } else {
                        (&[0, 1], "0 or 1")
                    }
                };
                let mut flags = vec![(scale_d, &[0i128, 1][..], "0 or 1 (or a predicate)")];
                for (i, imm) in immediates.iter().enumerate() {
                    constant(&mut rules, imm, "scale or transpose flag");
                    let (allowed, text) = values(i);
                    flags.push((imm, allowed, text));
                }
                for (operand, allowed, text) in flags {
                    if let Some(value) = operand.integer_value() {
                        if !allowed.contains(&value) {
                            let message =
                                format!("`{}` takes {text} here, not {value}", rules.opcode());
                            rules.error("immediate-range", operand.range(), message);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn load_then_read_without_wait() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];
  add.s32 %r4, %r1, 1;
//             ^^^ warning: `%r1` is read before `tcgen05.wait::ld`: the `tcgen05.ld` that writes it may not have finished
  tcgen05.wait::ld.sync.aligned;
  add.s32 %r4, %r2, 1;
  ret;
}
"#,
        );
    }

    #[test]
    fn a_copy_before_the_wait_waits_for_the_load() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];
  mov.b32 %f1, %r1;
  mov.b32 %f2, %r2;
  add.f32 %f3, %f2, %f2;
//             ^^^ warning: `%f2` is read before `tcgen05.wait::ld`: the `tcgen05.ld` that writes it may not have finished
  tcgen05.wait::ld.sync.aligned;
  add.f32 %f3, %f1, %f1;
  ret;
}
"#,
        );
    }

    #[test]
    fn allocation_rules() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%rd1], 32;
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning: tensor memory allocated here is never freed with `tcgen05.dealloc` before the kernel exits
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
  tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%rd1], 32;
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning: `tcgen05.alloc` after `tcgen05.relinquish_alloc_permit`: the CTA gave up the right to allocate
//             ^^^^^^^^^^^^^ warning: `.cta_group::2` differs from the `.cta_group::1` used earlier in this function; a kernel's tcgen05 instructions must agree
  ret;
}
"#,
        );
    }

    #[test]
    fn store_then_load_without_wait() {
        check_diagnostics(
            r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r3], {%r1};
  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r2}, [%r3];
//^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ warning: `tcgen05.ld` reads tensor memory written by an earlier `tcgen05.st` without `tcgen05.wait::st` in between
  tcgen05.wait::ld.sync.aligned;
  ret;
}
"#,
        );
    }
}
