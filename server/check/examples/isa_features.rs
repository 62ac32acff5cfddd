//! Prints the knowledge base's requirement facts of instructions (a development aid):
//! `cargo run -p ptx-check --example isa_features -- st min mma`.
fn main() {
    let isa = ptx_isa::Isa::get();
    for op in std::env::args().skip(1) {
        for inst in isa.instructions_named(&op) {
            println!(
                "== {} ({}) base: since {} targets {}",
                inst.opcode, inst.section, inst.requirement.since, inst.requirement.targets
            );
            for f in &inst.features {
                println!(
                    "   feature {:?} pattern {:?} since {:?} targets {:?} removed {:?}",
                    f.subject,
                    f.pattern,
                    f.since.map(|v| v.to_string()),
                    f.targets.as_ref().map(|t| t.to_string()),
                    f.removed
                );
            }
        }
    }
}
