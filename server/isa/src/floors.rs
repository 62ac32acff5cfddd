//! Version and target floors of matrix-fragment forms, matched on an instruction's written
//! words (data/fragment-floors.txt). They cover spellings that the syntax blocks do not list,
//! so they are kept apart from the forms' own requirements.

use crate::model::Requirement;
use crate::target::TargetReq;
use crate::version::PtxVersion;

/// One floor: an instruction whose words include all of [`FragmentFloor::words`] (the opcode
/// root first) needs [`FragmentFloor::requirement`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentFloor {
    /// The opcode root, then the other words that must be written (in any order).
    pub words: Vec<String>,
    pub requirement: Requirement,
    /// The spec section that describes the feature.
    pub section: String,
    /// What needs the floor, in words (for messages).
    pub feature: String,
}

impl FragmentFloor {
    /// Whether the floor applies to an instruction written with `words` (opcode root first).
    pub fn matches(&self, words: &[&str]) -> bool {
        words.first().copied() == self.words.first().map(String::as_str)
            && self.words[1..]
                .iter()
                .all(|w| words[1..].contains(&w.as_str()))
    }
}

/// Reads data/fragment-floors.txt: `WORDS ; SINCE ; TARGETS ; SECTION ; FEATURE` per line,
/// `#` comment lines and blank lines skipped.
pub(crate) fn parse(name: &str, text: &str) -> Result<Vec<FragmentFloor>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: &str| format!("{name}:{}: {why}: `{line}`", n + 1);
        let fields: Vec<&str> = line.split(" ; ").map(str::trim).collect();
        let [words, since, targets, section, feature] = fields[..] else {
            return Err(bad("expected five fields separated by ` ; `"));
        };
        let words: Vec<String> = words.split_whitespace().map(str::to_owned).collect();
        if words.is_empty() {
            return Err(bad("no words"));
        }
        let since = PtxVersion::parse(since).ok_or_else(|| bad("bad version"))?;
        let targets = TargetReq::parse(targets).ok_or_else(|| bad("bad targets"))?;
        if section.is_empty() || feature.is_empty() {
            return Err(bad("empty section or feature"));
        }
        out.push(FragmentFloor {
            words,
            requirement: Requirement {
                since,
                targets,
                removed: Vec::new(),
            },
            section: section.to_owned(),
            feature: feature.to_owned(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_floors_parse() {
        let floors = parse(
            "fragment-floors.txt",
            include_str!("../data/fragment-floors.txt"),
        )
        .expect("parses");
        assert!(floors.len() >= 29, "{} floors", floors.len());
        let wgmma = floors
            .iter()
            .find(|f| f.words == ["wgmma", "mma_async"])
            .expect("wgmma floor");
        assert!(wgmma.matches(&["wgmma", "mma_async", "sync", "aligned", "m64n8k16"]));
        assert!(!wgmma.matches(&["mma", "sync", "mma_async"]));
        assert_eq!(wgmma.requirement.since, PtxVersion::new(8, 0));
    }

    #[test]
    fn malformed_lines_are_errors_with_their_line() {
        let err = parse("x.txt", "# c\nmma e4m3 ; 8.4 ; sm_89+\n").unwrap_err();
        assert!(err.starts_with("x.txt:2: expected five fields"), "{err}");
        let err = parse("x.txt", "mma ; eight ; sm_89+ ; 1 ; f\n").unwrap_err();
        assert!(err.starts_with("x.txt:1: bad version"), "{err}");
        let err = parse("x.txt", "mma ; 8.4 ; nonsense!! ; 1 ; f\n").unwrap_err();
        assert!(err.starts_with("x.txt:1: bad targets"), "{err}");
    }
}
