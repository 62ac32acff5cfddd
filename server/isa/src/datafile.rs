//! Reader for the `.isa` data files (`data/gen/*.isa` and `data/overlay.isa`).
//!
//! Format: one statement per line; `#` starts a comment line; blank lines separate sections.
//! ```text
//! section 9.7.1.1 integer-arithmetic-instructions-add   # number and anchor
//! title Integer Arithmetic Instructions: add
//! opcodes add                                           # instruction names of the section
//! form add{.sat}.s32 d, a, b;                           # a form in spec notation
//! set .type = { .u16, .u32 }                            # a qualifier set
//! group                                                 # next forms use their own sets
//! since 8.0 : add.u16x2, add.s16x2                      # PTX version (subjects optional)
//! target sm_90+ : add.u16x2                             # targets (`all`, `sm_90a`, `sm_100f+`, `|`)
//! dropped 6.4 sm_70+ : vote                             # removed for those targets from that version
//! ```
//! The overlay additionally has `patch <number>` blocks whose lines are added to the section,
//! plus `drop-fact <line>` / `drop-form <form>` to delete generated lines and
//! `rewrite-forms FROM => TO` to edit the text of every form of the section containing FROM.

use std::borrow::Cow;

use crate::notation::{trim_fast, SetDef, SetRef};
use crate::target::TargetReq;
use crate::version::PtxVersion;

/// Kind and value of a version/target fact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FactKind {
    Since(PtxVersion),
    Target(TargetReq),
    Dropped(PtxVersion, TargetReq),
}

/// A `since` / `target` / `dropped` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    pub kind: FactKind,
    /// Dotted subjects (`add.u16x2`, `.sem`); empty = whole section; `?` = not attributed.
    pub subjects: Vec<String>,
}

impl Fact {
    /// Whether the generator could not tell what the fact is about.
    pub fn is_unattributed(&self) -> bool {
        self.subjects.iter().any(|s| s == "?")
    }
}

/// A [`Fact`] that borrows its subjects from the text it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FactRef<'a> {
    pub(crate) kind: FactKind,
    pub(crate) subjects: Vec<Cow<'a, str>>,
}

impl<'a> FactRef<'a> {
    fn parse(keyword: &str, rest: &'a str) -> Result<FactRef<'a>, String> {
        let (value, subjects) = match split_subjects(rest) {
            Some((v, s)) => (
                v,
                s.split(',').map(|x| Cow::Borrowed(trim_fast(x))).collect(),
            ),
            None => (rest, Vec::new()),
        };
        let value = trim_fast(value);
        let kind = match keyword {
            "since" => FactKind::Since(PtxVersion::parse(value).ok_or("bad version")?),
            "target" => FactKind::Target(TargetReq::parse(value).ok_or("bad target")?),
            "dropped" => {
                let (v, t) = value
                    .split_once(' ')
                    .ok_or("dropped needs VERSION TARGETS")?;
                FactKind::Dropped(
                    PtxVersion::parse(v).ok_or("bad version")?,
                    TargetReq::parse(t).ok_or("bad target")?,
                )
            }
            _ => return Err(format!("unknown fact `{keyword}`")),
        };
        Ok(FactRef { kind, subjects })
    }

    /// See [`Fact::is_unattributed`].
    pub(crate) fn is_unattributed(&self) -> bool {
        self.subjects.iter().any(|s| s == "?")
    }
}

/// Forms of one syntax group and the sets they refer to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub forms: Vec<String>,
    pub sets: Vec<SetDef>,
}

/// One spec section with a Syntax block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SectionData {
    pub number: String,
    pub anchor: String,
    pub title: String,
    pub opcodes: Vec<String>,
    pub groups: Vec<Group>,
    pub facts: Vec<Fact>,
}

impl SectionData {
    /// Look up a set by name: first in `group`, then in the other groups of the section.
    pub fn find_set(&self, group: usize, name: &str) -> Option<&SetDef> {
        let in_group = self
            .groups
            .get(group)?
            .sets
            .iter()
            .find(|s| s.has_name(name));
        in_group.or_else(|| {
            self.groups
                .iter()
                .flat_map(|g| g.sets.iter())
                .find(|s| s.has_name(name))
        })
    }
}

/// Forms and sets of one syntax group, borrowing from the data file (see [`SectionRef`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct GroupRef<'a> {
    pub(crate) forms: Vec<Cow<'a, str>>,
    pub(crate) sets: Vec<SetRef<'a>>,
}

/// A [`SectionData`] that borrows its text from the data file it was read from: the loader
/// reads every file into these, applies the overlays to them, and builds the model from them
/// without copying the text that the model does not keep.
#[derive(Clone, Debug, Default)]
pub(crate) struct SectionRef<'a> {
    pub(crate) number: Cow<'a, str>,
    pub(crate) anchor: Cow<'a, str>,
    pub(crate) title: Cow<'a, str>,
    pub(crate) opcodes: Vec<Cow<'a, str>>,
    pub(crate) groups: Vec<GroupRef<'a>>,
    pub(crate) facts: Vec<FactRef<'a>>,
}

fn borrowed(s: &str) -> Cow<'_, str> {
    Cow::Borrowed(s)
}

impl<'a> SectionRef<'a> {
    /// The same section, borrowing from `sec`.
    pub(crate) fn borrow(sec: &'a SectionData) -> Self {
        SectionRef {
            number: borrowed(&sec.number),
            anchor: borrowed(&sec.anchor),
            title: borrowed(&sec.title),
            opcodes: sec.opcodes.iter().map(|o| borrowed(o)).collect(),
            groups: sec
                .groups
                .iter()
                .map(|g| GroupRef {
                    forms: g.forms.iter().map(|f| borrowed(f)).collect(),
                    sets: g.sets.iter().map(SetRef::borrow).collect(),
                })
                .collect(),
            facts: sec
                .facts
                .iter()
                .map(|f| FactRef {
                    kind: f.kind.clone(),
                    subjects: f.subjects.iter().map(|s| borrowed(s)).collect(),
                })
                .collect(),
        }
    }

    pub(crate) fn into_owned(self) -> SectionData {
        SectionData {
            number: self.number.into_owned(),
            anchor: self.anchor.into_owned(),
            title: self.title.into_owned(),
            opcodes: self.opcodes.into_iter().map(Cow::into_owned).collect(),
            groups: self
                .groups
                .into_iter()
                .map(|g| Group {
                    forms: g.forms.into_iter().map(Cow::into_owned).collect(),
                    sets: g.sets.into_iter().map(SetRef::into_owned).collect(),
                })
                .collect(),
            facts: self
                .facts
                .into_iter()
                .map(|f| Fact {
                    kind: f.kind,
                    subjects: f.subjects.into_iter().map(Cow::into_owned).collect(),
                })
                .collect(),
        }
    }
}

/// The lines of a data file as [`str::lines`] gives them (a trailing `\r` removed), found
/// with a plain byte scan: the loader reads some 4,000 short lines, where setting up a
/// character search per line costs more than the scan.
fn data_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, next) = match rest.as_bytes().iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = next;
        Some(line.strip_suffix('\r').unwrap_or(line))
    })
}

/// `s.split_once(" : ")`, without setting up a substring search.
fn split_subjects(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    (1..b.len().saturating_sub(1))
        .find(|&i| b[i] == b':' && b[i - 1] == b' ' && b[i + 1] == b' ')
        .map(|i| (&s[..i - 1], &s[i + 2..]))
}

/// Parse a data file into sections. `file` is only used in error messages.
pub fn parse_sections(file: &str, text: &str) -> Result<Vec<SectionData>, String> {
    Ok(parse_section_refs(file, text)?
        .into_iter()
        .map(SectionRef::into_owned)
        .collect())
}

/// [`parse_sections`], borrowing from `text`.
pub(crate) fn parse_section_refs<'a>(
    file: &str,
    text: &'a str,
) -> Result<Vec<SectionRef<'a>>, String> {
    let mut out: Vec<SectionRef<'a>> = Vec::new();
    for (i, raw) in data_lines(text).enumerate() {
        let line = trim_fast(raw);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |m: String| format!("{file}:{}: {m}: `{raw}`", i + 1);
        let (kw, rest) = line.split_once(' ').unwrap_or((line, ""));
        if kw == "section" {
            let (number, anchor) = rest.split_once(' ').unwrap_or((rest, ""));
            out.push(SectionRef {
                number: Cow::Borrowed(number),
                anchor: Cow::Borrowed(trim_fast(anchor)),
                groups: vec![GroupRef::default()],
                ..SectionRef::default()
            });
            continue;
        }
        let sec = out
            .last_mut()
            .ok_or_else(|| err("statement before `section`".into()))?;
        apply_line(sec, kw, rest).map_err(err)?;
    }
    Ok(out)
}

fn apply_line<'a>(sec: &mut SectionRef<'a>, kw: &str, rest: &'a str) -> Result<(), String> {
    match kw {
        "title" => sec.title = Cow::Borrowed(rest),
        "opcodes" => {
            sec.opcodes = rest
                .split(", ")
                .map(|s| Cow::Borrowed(trim_fast(s)))
                .collect()
        }
        "form" => sec
            .groups
            .last_mut()
            .ok_or("no group")?
            .forms
            .push(Cow::Borrowed(rest)),
        "set" => {
            let def = SetRef::parse(rest).ok_or("bad set definition")?;
            let group = sec.groups.last_mut().ok_or("no group")?;
            group
                .sets
                .retain(|s| !def.names.iter().any(|n| s.has_name(n)));
            group.sets.push(def);
        }
        "group" => sec.groups.push(GroupRef::default()),
        "since" | "target" | "dropped" => sec.facts.push(FactRef::parse(kw, rest)?),
        _ => return Err(format!("unknown keyword `{kw}`")),
    }
    Ok(())
}

/// Apply an overlay file (`data/overlay.isa`, `data/overlay/*.isa`) to generated sections. New `section` blocks are appended.
/// On an error the sections are left as they were.
pub fn apply_overlay(
    sections: &mut Vec<SectionData>,
    name: &str,
    text: &str,
) -> Result<(), String> {
    let mut refs: Vec<SectionRef<'_>> = sections.iter().map(SectionRef::borrow).collect();
    apply_overlay_refs(&mut refs, name, text)?;
    let owned = refs.into_iter().map(SectionRef::into_owned).collect();
    *sections = owned;
    Ok(())
}

/// [`apply_overlay`] on sections that borrow from their data files (and from `text`).
pub(crate) fn apply_overlay_refs<'a>(
    sections: &mut Vec<SectionRef<'a>>,
    name: &str,
    text: &'a str,
) -> Result<(), String> {
    let mut current: Option<usize> = None;
    for (i, raw) in data_lines(text).enumerate() {
        let line = trim_fast(raw);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |m: String| format!("{name}:{}: {m}: `{raw}`", i + 1);
        let (kw, rest) = line.split_once(' ').unwrap_or((line, ""));
        match kw {
            "patch" => {
                let idx = sections
                    .iter()
                    .position(|s| s.number == trim_fast(rest))
                    .ok_or_else(|| err("no such section".into()))?;
                current = Some(idx);
            }
            "section" => {
                let mut parsed = parse_section_refs(name, line)?;
                sections.append(&mut parsed);
                current = Some(sections.len() - 1);
            }
            _ => {
                let idx = current.ok_or_else(|| err("statement before `patch`".into()))?;
                let sec = &mut sections[idx];
                match kw {
                    "drop-fact" => {
                        let (k, r) = rest.split_once(' ').unwrap_or((rest, ""));
                        let fact = FactRef::parse(k, r).map_err(err)?;
                        let before = sec.facts.len();
                        sec.facts.retain(|f| *f != fact);
                        if sec.facts.len() == before {
                            return Err(err("fact not found".into()));
                        }
                    }
                    "drop-form" => {
                        let mut found = false;
                        for g in &mut sec.groups {
                            let before = g.forms.len();
                            g.forms.retain(|f| f != rest);
                            found |= g.forms.len() != before;
                        }
                        if !found {
                            return Err(err("form not found".into()));
                        }
                    }
                    "rewrite-forms" => {
                        // `rewrite-forms FROM => TO`: edit the text of every form of the
                        // section that contains FROM (a qualifier that ptxas leaves optional).
                        let (from, to) = rest
                            .split_once(" => ")
                            .ok_or_else(|| err("expected `FROM => TO`".into()))?;
                        let mut found = false;
                        for g in &mut sec.groups {
                            for f in g.forms.iter_mut().filter(|f| f.contains(from)) {
                                *f = Cow::Owned(f.replacen(from, to, 1));
                                found = true;
                            }
                        }
                        if !found {
                            return Err(err("no form contains it".into()));
                        }
                    }
                    "add-set" => {
                        // Add a set to every group of the section (for names the spec leaves
                        // undefined in the Syntax block).
                        let def = SetRef::parse(rest).ok_or_else(|| err("bad set".into()))?;
                        for g in &mut sec.groups {
                            g.sets.retain(|s| !def.names.iter().any(|n| s.has_name(n)));
                            g.sets.push(def.clone());
                        }
                    }
                    _ => apply_line(sec, kw, rest).map_err(err)?,
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# c\nsection 1.2 anchor-x\ntitle T: x\nopcodes x, y\nform x.t d;\nset .t = { .a, .b }\ngroup\nform y.u d;\nset .u = { .c }\nsince 1.0\ntarget sm_90+ : x.a\ndropped 6.4 sm_70+ : y\n";

    #[test]
    fn parse_sample() {
        let s = parse_sections("t", SAMPLE).unwrap();
        assert_eq!(s.len(), 1);
        let s = &s[0];
        assert_eq!(s.opcodes, ["x", "y"]);
        assert_eq!(s.groups.len(), 2);
        assert!(s.find_set(1, ".t").is_some());
        assert_eq!(s.facts.len(), 3);
        assert_eq!(s.facts[1].subjects, ["x.a"]);
    }

    #[test]
    fn overlay() {
        let mut s = parse_sections("t", SAMPLE).unwrap();
        apply_overlay(
            &mut s,
            "t.isa",
            "patch 1.2\ndrop-fact since 1.0\nsince 2.0\nrewrite-forms x.t => x{.t}\ndrop-form y.u d;\nadd-set .v = { .q }\nsection 9.9 new\nopcodes z\nform z d;\n",
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].facts[2].kind, FactKind::Since(PtxVersion::new(2, 0)));
        assert!(s[0].groups[1].forms.is_empty());
        assert_eq!(s[0].groups[0].forms, ["x{.t} d;"]);
        // A failing overlay leaves the sections as they were, also what its earlier lines did.
        let before = s.clone();
        assert!(apply_overlay(
            &mut s,
            "t.isa",
            "patch 1.2\nsince 3.0\nrewrite-forms q.r => q\n"
        )
        .is_err());
        assert_eq!(s, before);
        assert!(s[0].find_set(0, "v").is_some());
        assert!(apply_overlay(&mut s, "t.isa", "patch 1.2\ndrop-fact since 7.7\n").is_err());
    }
}
