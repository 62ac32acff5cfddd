//! Small helpers shared by the handlers: edit distance for did-you-mean suggestions, human
//! wording of target requirements, and what kind of constant an operand is.

use ptx_isa::TargetReq;

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
pub(crate) fn nearest<'c>(
    word: &str,
    candidates: impl IntoIterator<Item = &'c str>,
) -> Option<&'c str> {
    let limit = (word.chars().count() / 3).clamp(1, 3);
    // Ties go to the candidate sharing the longest prefix (`ad` -> `add`, not `ld`), then to
    // the one closest in length.
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| {
            let prefix = word
                .chars()
                .zip(c.chars())
                .take_while(|(a, b)| a == b)
                .count();
            (*d, usize::MAX - prefix, c.len().abs_diff(word.len()), *c)
        })
        .map(|(_, c)| c)
}

/// The targets as every message words them ([`TargetReq::describe`]).
pub(crate) fn describe_targets(req: &TargetReq) -> String {
    req.describe()
}

/// A list of qualifiers for a message: `.a, .b, .c` (at most `limit`, then `…`).
pub(crate) fn qualifier_list(values: &[String], limit: usize) -> String {
    let mut out: Vec<String> = values.iter().take(limit).map(|v| format!(".{v}")).collect();
    if values.len() > limit {
        out.push("…".to_owned());
    }
    out.join(", ")
}

/// Whether an operand is a constant, signed or written as an expression of constants (`1`,
/// `-1`, `0f3F800000`, `(4)`).
pub(crate) fn is_constant(op: &ptx_syntax::Operand<'_>) -> bool {
    use ptx_syntax::OperandKind;
    match op.kind() {
        OperandKind::Integer(_) | OperandKind::Float(_) => true,
        OperandKind::Expression => op.registers().is_empty() && op.identifiers().is_empty(),
        _ => false,
    }
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
        assert_eq!(describe_targets(&req), "sm_100a/sm_100f");
        let req = TargetReq::parse("sm_90+").unwrap();
        assert_eq!(describe_targets(&req), "sm_90 or newer");
    }
}
