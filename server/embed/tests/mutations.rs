//! Injected mistakes (fixtures/mutations.tsv): each statement, alone in a kernel and checked
//! for its target, gets an error exactly when ptxas 13.5 rejects the PTX module it becomes.
//! The sample covers every kind of mutation that `examples/asm_stats.rs --mutate` injects
//! into real code (a bogus qualifier, a placeholder past the last operand, a register
//! constraint of another width, a brace vector one element short or long, `.sync.aligned`
//! dropped, a wrong `mNnNkN` shape), with changes ptxas accepts beside them.

use ptx_check::Severity;
use ptx_embed::{check::check, EmbedOptions, HostDocument};

#[test]
fn injected_mistakes_get_errors_exactly_where_ptxas_rejects() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mutations.tsv");
    let text = std::fs::read_to_string(path).expect("mutations.tsv");
    let mut cases = 0;
    let mut wrong = Vec::new();
    let mut kinds = std::collections::BTreeSet::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let fields: Vec<&str> = line.splitn(4, '\t').collect();
        let [target, verdict, kind, statement] = fields[..] else {
            panic!("not four tab-separated fields: {line}");
        };
        let host = format!("__global__ void k() {{\n{statement};\n}}\n");
        let options = EmbedOptions {
            target: Some(target.to_string()),
            ..EmbedOptions::default()
        };
        let doc = HostDocument::new(&host, &options);
        let error = check(&doc, &[])
            .iter()
            .any(|d| d.severity == Severity::Error);
        if error != (verdict == "rejected") {
            wrong.push(format!("{kind} ({verdict} by ptxas): {statement}"));
        }
        cases += 1;
        kinds.insert(kind);
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        [
            "bogus qualifier",
            "constraint width",
            "missing .sync.aligned",
            "original",
            "placeholder past the end",
            "vector count off by one",
            "wrong shape"
        ]
    );
    assert!(cases >= 39, "{cases} cases");
    assert!(
        wrong.is_empty(),
        "verdicts unlike ptxas's:\n{}",
        wrong.join("\n")
    );
}
