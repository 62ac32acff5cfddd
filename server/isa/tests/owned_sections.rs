//! `Isa::load` reads the data through borrowed views of the embedded files; the public
//! functions that work on owned sections (`parse_sections`, `apply_overlay`,
//! `build_instructions`) must build the same instructions from the same files.

use ptx_isa::Isa;

#[test]
fn owned_sections_build_the_same_instructions() {
    let mut sections = Vec::new();
    for (name, text) in ptx_isa::GEN_FILES {
        sections.extend(ptx_isa::datafile::parse_sections(name, text).expect("parses"));
    }
    for (name, text) in ptx_isa::OVERLAYS {
        ptx_isa::datafile::apply_overlay(&mut sections, name, text).expect("applies");
    }
    let built = ptx_isa::model::build_instructions(&sections);
    let isa = Isa::load().expect("the embedded data loads");
    assert_eq!(built.len(), isa.instructions().len());
    for (b, loaded) in built.iter().zip(isa.instructions()) {
        // Summaries come from `summaries.txt`, which `Isa::load` alone reads.
        let mut loaded = loaded.clone();
        loaded.summary = None;
        assert_eq!(*b, loaded, "{}", b.opcode);
    }
}
