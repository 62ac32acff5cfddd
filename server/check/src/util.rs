//! Small helpers shared by the handlers: edit distance for did-you-mean suggestions and
//! human wording of target requirements.

use ptx_isa::{TargetAtom, TargetReq};

/// Levenshtein distance between two short strings.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(row[j + 1])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate closest to `word`, if it is close enough to be a likely typo.
pub(crate) fn nearest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.len()))
        .map(|(_, c)| c)
}

/// `sm_100a | sm_100f+` as `sm_100a, or sm_100f and later family members`.
pub(crate) fn describe_targets(req: &TargetReq) -> String {
    match req {
        TargetReq::All => "any target".to_owned(),
        TargetReq::AnyOf(atoms) => {
            let parts: Vec<String> = atoms.iter().map(describe_atom).collect();
            parts.join(" or ")
        }
        TargetReq::AllOf(parts) => {
            let parts: Vec<String> = parts.iter().map(describe_targets).collect();
            parts.join(", and ")
        }
    }
}

fn describe_atom(atom: &TargetAtom) -> String {
    match atom {
        TargetAtom::AtLeast(n) => format!("sm_{n} or newer"),
        TargetAtom::Arch(n) => format!("sm_{n}a"),
        TargetAtom::Family(n) => {
            let family = if *n >= 100 {
                format!(" (or a later sm_{}x `a`/`f` target)", n / 10)
            } else {
                String::new()
            };
            format!("sm_{n}f{family}")
        }
        TargetAtom::Option(o) => o.clone(),
    }
}

/// A list of qualifiers for a message: `.a, .b, .c` (at most `limit`, then `…`).
pub(crate) fn qualifier_list(values: &[String], limit: usize) -> String {
    let mut out: Vec<String> = values.iter().take(limit).map(|v| format!(".{v}")).collect();
    if values.len() > limit {
        out.push("…".to_owned());
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("ad", "add"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(nearest("ad", ["add", "and", "abs"]), Some("add"));
        assert_eq!(nearest("zzzzzz", ["add"]), None);
    }

    #[test]
    fn target_wording() {
        let req = TargetReq::parse("sm_100a | sm_100f+").unwrap();
        assert_eq!(
            describe_targets(&req),
            "sm_100a or sm_100f (or a later sm_10x `a`/`f` target)"
        );
        let req = TargetReq::parse("sm_90+").unwrap();
        assert_eq!(describe_targets(&req), "sm_90 or newer");
    }
}
