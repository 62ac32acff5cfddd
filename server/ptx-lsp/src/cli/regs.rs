//! `ptx-lsp regs`: register counts of an instruction's vector operands.

use std::process::ExitCode;

use ptx_isa::{Isa, PtxVersion, Unmet};
use ptx_regs::register_counts;

pub fn run(instruction: &str, target: Option<&str>, json: bool) -> ExitCode {
    let fail = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(1)
    };
    let counts = match register_counts(instruction) {
        Ok(counts) => counts,
        Err(error) => return fail(error.to_string()),
    };
    if let Some(target) = target {
        if let Err(message) = check_target(&counts.instruction, target) {
            return fail(message);
        }
    }
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&counts).expect("plain data serializes")
        );
    } else {
        outln!("{}", counts.instruction);
        if counts.vectors.is_empty() {
            outln!("  no vector operands");
        }
        for vector in &counts.vectors {
            outln!(
                "  operand {}: {} × {}-bit registers ({})",
                // Counted from 1, as diagnostics and hovers count operands.
                vector.operand + 1,
                vector.registers,
                vector.register_bits,
                vector.explanation
            );
        }
    }
    ExitCode::SUCCESS
}

/// Whether some form of the instruction exists on `target` (any PTX version).
fn check_target(opcode: &str, target: &str) -> Result<(), String> {
    let isa = Isa::get();
    if isa.target(target).is_none() {
        return Err(format!("unknown target `{target}`"));
    }
    let components: Vec<&str> = split_components(opcode);
    let outcome = isa.match_qualifiers(&components);
    if outcome.matches.is_empty() {
        // The register tables know the form; the spec's syntax does not list
        // it exactly (ptxas accepts more than the spec says). Nothing to check.
        return Ok(());
    }
    let mut needed = Vec::new();
    for m in &outcome.matches {
        let unmet = m.requirement.check(PtxVersion::SPEC, &[target]);
        if !unmet.iter().any(|u| matches!(u, Unmet::Target { .. })) {
            return Ok(());
        }
        needed.push(m.requirement.targets.to_string());
    }
    needed.dedup();
    Err(format!(
        "`{opcode}` is not available on {target} (it needs {})",
        needed.join(" or ")
    ))
}

/// `a.b::c.d` → `["a", "b::c", "d"]`.
fn split_components(opcode: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = opcode.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'.' {
            out.push(&opcode[start..i]);
            start = i + 1;
        }
    }
    out.push(&opcode[start..]);
    out
}
