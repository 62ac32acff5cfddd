//! The loaded knowledge base, rendered whole and hashed: any change to what `Isa::load`
//! builds from the data files (an instruction, form, slot, operand, requirement, feature,
//! floor, summary, target, special register, directive, type or state space, or their order)
//! changes the hash. The loader may be rewritten freely as long as this test passes unchanged.
//!
//! The hash may change only when the files under `data/` change. To refresh it after such a
//! change, run `cargo test -p ptx-isa --test load_snapshot` and copy the printed value into
//! `EXPECTED` below (the test prints the rendering's size and hash on failure).

use std::fmt::Write;

use ptx_isa::Isa;

/// FNV-1a, 64 bits: a hash whose value is fixed by its definition (the standard library's
/// hashers may change between Rust releases).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Every public fact of the knowledge base as text. `Isa`'s own `Debug` is not used because
/// the catalog holds a `HashMap`, whose order changes from run to run; the lookups through it
/// are rendered instead.
fn render(isa: &Isa) -> String {
    let mut out = String::new();
    writeln!(out, "{:#?}", isa.instructions()).unwrap();
    writeln!(out, "{:#?}", isa.targets()).unwrap();
    writeln!(out, "{:#?}", isa.special_registers()).unwrap();
    writeln!(out, "{:#?}", isa.directives()).unwrap();
    writeln!(out, "{:#?}", isa.types()).unwrap();
    writeln!(out, "{:#?}", isa.state_spaces()).unwrap();
    writeln!(out, "{:#?}", isa.fragment_floors()).unwrap();
    writeln!(out, "{:#?}", isa.comparisons()).unwrap();
    writeln!(out, "{:#?}", isa.memory_combinations()).unwrap();
    writeln!(out, "{:#?}", isa.operand_forms()).unwrap();
    for r in isa.special_registers() {
        for name in std::iter::once(&r.name).chain(&r.components) {
            let found = isa.special_register(name).map(|s| s.name.as_str());
            writeln!(out, "special {name} -> {found:?}").unwrap();
        }
    }
    out
}

/// Size in bytes and FNV-1a hash of the rendering; see the module comment to refresh.
const EXPECTED: &str = "3149562 bytes, fnv1a a75206009c6cb072";

#[test]
fn loaded_knowledge_base_is_unchanged() {
    let isa = Isa::load().expect("the embedded data loads");
    let text = render(&isa);
    let got = format!(
        "{} bytes, fnv1a {:016x}",
        text.len(),
        fnv1a(text.as_bytes())
    );
    assert_eq!(
        got, EXPECTED,
        "the loaded knowledge base changed (only a change to data/ may change it)"
    );
    // Loading twice gives the same result (no state carried between loads).
    assert_eq!(render(&Isa::load().expect("loads again")), text);
}
