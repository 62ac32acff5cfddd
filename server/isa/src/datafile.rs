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

use crate::notation::SetDef;
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
    fn parse(keyword: &str, rest: &str) -> Result<Fact, String> {
        let (value, subjects) = match rest.split_once(" : ") {
            Some((v, s)) => (v, s.split(',').map(|x| x.trim().to_string()).collect()),
            None => (rest, Vec::new()),
        };
        let value = value.trim();
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
        Ok(Fact { kind, subjects })
    }

    /// Whether the generator could not tell what the fact is about.
    pub fn is_unattributed(&self) -> bool {
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

/// Parse a data file into sections. `file` is only used in error messages.
pub fn parse_sections(file: &str, text: &str) -> Result<Vec<SectionData>, String> {
    let mut out: Vec<SectionData> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |m: String| format!("{file}:{}: {m}: `{raw}`", i + 1);
        let (kw, rest) = line.split_once(' ').unwrap_or((line, ""));
        if kw == "section" {
            let (number, anchor) = rest.split_once(' ').unwrap_or((rest, ""));
            out.push(SectionData {
                number: number.to_string(),
                anchor: anchor.trim().to_string(),
                groups: vec![Group::default()],
                ..SectionData::default()
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

fn apply_line(sec: &mut SectionData, kw: &str, rest: &str) -> Result<(), String> {
    match kw {
        "title" => sec.title = rest.to_string(),
        "opcodes" => sec.opcodes = rest.split(", ").map(|s| s.trim().to_string()).collect(),
        "form" => sec
            .groups
            .last_mut()
            .ok_or("no group")?
            .forms
            .push(rest.to_string()),
        "set" => {
            let def = SetDef::parse(rest).ok_or("bad set definition")?;
            let group = sec.groups.last_mut().ok_or("no group")?;
            group
                .sets
                .retain(|s| !def.names.iter().any(|n| s.has_name(n)));
            group.sets.push(def);
        }
        "group" => sec.groups.push(Group::default()),
        "since" | "target" | "dropped" => sec.facts.push(Fact::parse(kw, rest)?),
        _ => return Err(format!("unknown keyword `{kw}`")),
    }
    Ok(())
}

/// Apply an overlay file (`data/overlay.isa`, `data/overlay/*.isa`) to generated sections. New `section` blocks are appended.
pub fn apply_overlay(
    sections: &mut Vec<SectionData>,
    name: &str,
    text: &str,
) -> Result<(), String> {
    let mut current: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |m: String| format!("{name}:{}: {m}: `{raw}`", i + 1);
        let (kw, rest) = line.split_once(' ').unwrap_or((line, ""));
        match kw {
            "patch" => {
                let idx = sections
                    .iter()
                    .position(|s| s.number == rest.trim())
                    .ok_or_else(|| err("no such section".into()))?;
                current = Some(idx);
            }
            "section" => {
                let mut parsed = parse_sections(name, line)?;
                sections.append(&mut parsed);
                current = Some(sections.len() - 1);
            }
            _ => {
                let idx = current.ok_or_else(|| err("statement before `patch`".into()))?;
                let sec = &mut sections[idx];
                match kw {
                    "drop-fact" => {
                        let (k, r) = rest.split_once(' ').unwrap_or((rest, ""));
                        let fact = Fact::parse(k, r).map_err(err)?;
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
                                *f = f.replacen(from, to, 1);
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
                        let def = SetDef::parse(rest).ok_or_else(|| err("bad set".into()))?;
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
        assert!(apply_overlay(&mut s, "t.isa", "patch 1.2\nrewrite-forms q.r => q\n").is_err());
        assert!(s[0].find_set(0, "v").is_some());
        assert!(apply_overlay(&mut s, "t.isa", "patch 1.2\ndrop-fact since 7.7\n").is_err());
    }
}
