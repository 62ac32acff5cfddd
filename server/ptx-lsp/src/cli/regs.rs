//! `ptx-lsp regs`: register counts of an instruction's vector operands.

use std::process::ExitCode;

use ptx_check::form_availability::register_counts_on;

pub fn run(instruction: &str, target: Option<&str>, json: bool) -> ExitCode {
    let fail = |message: String| {
        eprintln!("error: {message}");
        ExitCode::from(1)
    };
    // With a target, the form in hand must be available there (the checker's own verdict).
    let counts = match register_counts_on(instruction, target) {
        Ok(counts) => counts,
        Err(error) => return fail(error.to_string()),
    };
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
