//! The built-in descriptions are complete: every instruction, qualifier, directive, special
//! register, type and state space of `ptx-isa` has one. That they are our own words is checked
//! against a copy of the document by `spec_prose.rs`.

use std::collections::BTreeSet;

use ptx_ide::hover::descriptions::{descriptions, QualifierSource};
use ptx_isa::Isa;

#[test]
fn every_instruction_directive_register_type_and_space_is_described() {
    let isa = Isa::get();
    let d = descriptions();
    let mut missing = Vec::new();
    for i in isa.instructions() {
        match d.instruction(&i.opcode, &i.section) {
            Some(desc) if !desc.example.is_empty() => {}
            Some(_) => missing.push(format!(
                "instruction {} ({}) has no example",
                i.opcode, i.section
            )),
            None => missing.push(format!("instruction {} ({})", i.opcode, i.section)),
        }
    }
    for dir in isa.directives() {
        if d.directive(&dir.name).is_none() {
            missing.push(format!("directive {}", dir.name));
        }
    }
    for sreg in isa.special_registers() {
        if d.special_register(&sreg.name).is_none() {
            missing.push(format!("special register {}", sreg.name));
        }
    }
    for ty in isa.types() {
        if d.type_or_space(ty.name).is_none() {
            missing.push(format!("type {}", ty.name));
        }
    }
    for space in isa.state_spaces() {
        if d.type_or_space(space.name).is_none() {
            missing.push(format!("state space {}", space.name));
        }
    }
    assert!(
        missing.is_empty(),
        "missing descriptions:\n{}",
        missing.join("\n")
    );
    eprintln!(
        "described: {} instructions ({} sections), {} directives, {} special registers, {} types, {} state spaces",
        isa.instructions().iter().map(|i| &i.opcode).collect::<BTreeSet<_>>().len(),
        isa.instructions().len(),
        isa.directives().len(),
        isa.special_registers().len(),
        isa.types().len(),
        isa.state_spaces().len()
    );
}

#[test]
fn every_qualifier_of_every_instruction_is_described() {
    let isa = Isa::get();
    let d = descriptions();
    let mut pairs = BTreeSet::new();
    for i in isa.instructions() {
        let own: Vec<&str> = i.opcode.split('.').collect();
        for form in &i.forms {
            for slot in &form.qualifier_slots {
                for v in &slot.values {
                    // An empty value is an artifact of the generated data (`{.abs.}`).
                    if !own[1..].contains(&v.as_str()) && !v.is_empty() && v != "." {
                        pairs.insert((i.opcode.clone(), i.section.clone(), v.clone()));
                    }
                }
            }
        }
    }
    let (mut own, mut shared, mut spelling) = (0, 0, 0);
    let mut missing = Vec::new();
    for (opcode, section, q) in &pairs {
        match d.qualifier(opcode, section, q).map(|(_, s)| s) {
            Some(QualifierSource::Instruction) => own += 1,
            Some(QualifierSource::Shared) => shared += 1,
            Some(QualifierSource::Spelling) => spelling += 1,
            None => missing.push(format!("{opcode} .{q}")),
        }
    }
    eprintln!(
        "{} instruction/qualifier pairs: {own} described by the instruction, {shared} by the shared \
         qualifier table, {spelling} from their spelling (shapes, counts, types)",
        pairs.len()
    );
    assert!(
        missing.is_empty(),
        "qualifiers without a description:\n{}",
        missing.join("\n")
    );
}
