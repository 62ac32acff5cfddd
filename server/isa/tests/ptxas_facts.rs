//! Facts confirmed with ptxas 13.5, recorded in `tests/fixtures/ptxas` by `regen.sh`:
//! the knowledge base must give the same verdicts.

use std::fs;
use std::path::Path;

use ptx_isa::{Isa, PtxVersion};

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ptxas"))
}

#[test]
fn oldest_version_per_target_matches_ptxas() {
    let text = fs::read_to_string(fixtures().join("target-min-version.txt")).unwrap();
    let isa = Isa::get();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let (target, oldest) = (w[0], PtxVersion::parse(w[2]).unwrap());
        let info = isa
            .target(target)
            .unwrap_or_else(|| panic!("unknown target {target}"));
        assert_eq!(info.min_version(), oldest, "oldest .version for {target}");
        checked += 1;
    }
    assert!(checked >= 40);
}

#[test]
fn instruction_verdicts_match_ptxas() {
    let isa = Isa::get();
    let mut mismatches = Vec::new();
    let mut checked = 0;
    let mut entries: Vec<_> = fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
    {
        let ptx = fs::read_to_string(path).unwrap();
        let field = |key: &str| {
            ptx.lines()
                .find_map(|l| l.trim().strip_prefix(key))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|| panic!("{}: no `{key}`", path.display()))
        };
        let opcode = field("// kb-check:");
        let version = PtxVersion::parse(&field(".version")).unwrap();
        let target = field(".target");
        let verdict = fs::read_to_string(path.with_extension("verdict")).unwrap();
        let ptxas_ok = verdict.starts_with("accepted");

        let tokens: Vec<&str> = opcode.split('.').collect();
        let outcome = isa.match_qualifiers(&tokens);
        let m = outcome
            .matches
            .first()
            .unwrap_or_else(|| panic!("{opcode}: no form matches: {:?}", outcome.errors));
        let target_ok = isa
            .target(&target)
            .is_some_and(|t| t.min_version() <= version);
        let unmet = m.requirement.check(version, &[target.as_str()]);
        let kb_ok = target_ok && unmet.is_empty();
        if kb_ok != ptxas_ok {
            mismatches.push(format!(
                "{}: ptxas says {}, knowledge base says {kb_ok} ({unmet:?}, target pairing ok: {target_ok})",
                path.file_name().unwrap().to_string_lossy(),
                verdict.trim()
            ));
        }
        checked += 1;
    }
    assert!(checked >= 25, "only {checked} fixtures");
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}
