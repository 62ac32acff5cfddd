//! Writes the knowledge base's instruction forms as plain text for the case generator
//! (fixtures/gen_cases.py): `cargo run -p ptx-check --example isa_export > forms.txt`.
//!
//! One block per instruction:
//! `I <section> <opcode> <since> <targets>`, then per form `F <syntax>` followed by its
//! qualifier slots `S <name> <optional 0|1> <group or -> <value> <value>…` and operands
//! `O <kind> <name> <optional 0|1>`.
use std::fmt::Write as _;

fn main() {
    let isa = ptx_isa::Isa::get();
    let mut out = String::new();
    for inst in isa.instructions() {
        if !inst.section.starts_with("9.7.") {
            continue;
        }
        let _ = writeln!(
            out,
            "I\t{}\t{}\t{}\t{}",
            inst.section, inst.opcode, inst.requirement.since, inst.requirement.targets
        );
        for form in inst.forms.iter().filter(|f| !f.pseudo) {
            let _ = writeln!(
                out,
                "F\t{}\t{}\t{}\t{}",
                form.syntax,
                form.root,
                form.since(),
                form.targets()
            );
            for slot in &form.qualifier_slots {
                let _ = writeln!(
                    out,
                    "S\t{}\t{}\t{}\t{}",
                    slot.name,
                    u8::from(slot.optional),
                    slot.group.map_or("-".to_owned(), |g| g.to_string()),
                    slot.values.join(" ")
                );
            }
            for op in &form.operands {
                let _ = writeln!(
                    out,
                    "O\t{:?}\t{}\t{}\t{}",
                    op.kind,
                    op.name,
                    u8::from(op.optional),
                    op.text
                );
            }
        }
    }
    print!("{out}");
}
