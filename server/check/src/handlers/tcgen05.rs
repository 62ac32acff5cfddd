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

use ptx_syntax::{Function, FunctionKind, OperandKind, TextRange};

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

    pub fn observe(&mut self, ctx: &mut Ctx<'_>, info: &InstInfo<'a>) {
        if info.words[0] == "call" {
            self.has_call = true;
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
