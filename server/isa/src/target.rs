//! Target architectures (`.target sm_XX{a,f}` and platform options) and target requirements.
//!
//! Semantics (checked against ptxas 13.5, see `tests/fixtures/ptxas`):
//! * `sm_90+` ("sm_90 or higher"): every `sm_N`, `sm_Na`, `sm_Nf` with `N >= 90`.
//! * `sm_90a` (architecture-specific): only that exact `a` target (after renames).
//! * `sm_100f+` (family-specific, "sm_100f or higher in the same family"): `f` and `a`
//!   targets of the same family whose number is `>= 100` (`sm_100a`, `sm_103f`, `sm_103a`),
//!   never the plain baseline `sm_100`.
//! * Renames: `sm_101{,a,f}` became `sm_110{,a,f}` in PTX ISA 9.0; both spellings compare equal.

use std::fmt;

use crate::version::PtxVersion;

/// Which flavour of a target name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// `sm_90`: baseline features, onion model.
    Base,
    /// `sm_90a`: architecture-specific features for exactly that architecture.
    Arch,
    /// `sm_100f`: family-specific features shared by later members of the family.
    Family,
}

/// A parsed `sm_XX{a,f}` (or `compute_XX{a,f}`) name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SmName {
    pub number: u32,
    pub variant: Variant,
}

impl SmName {
    /// Parse `sm_100a`, `sm_90`, `compute_120f`.
    pub fn parse(s: &str) -> Option<Self> {
        let rest = s
            .strip_prefix("sm_")
            .or_else(|| s.strip_prefix("compute_"))?;
        let (digits, variant) = match rest.as_bytes().last()? {
            b'a' => (&rest[..rest.len() - 1], Variant::Arch),
            b'f' => (&rest[..rest.len() - 1], Variant::Family),
            _ => (rest, Variant::Base),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(Self {
            number: digits.parse().ok()?,
            variant,
        })
    }

    /// How ptxas 13.5 reads a `.target` architecture that is not spelled as the spec writes
    /// one (11.1.2): the digits after `sm_`/`compute_`, then only the last character decides
    /// the variant (`a` or `f`); the characters between are ignored. `sm_90b`, `sm_90x1` and
    /// `sm_90ab` are read as `sm_90`, `sm_90ba` and `sm_90_a` as `sm_90a` (measured: ptxas
    /// takes `setmaxnreg`, an sm_90a instruction, under `sm_90ba` but not under `sm_90ab`).
    /// Returns the name as ptxas reads it when it differs from `s`; `None` for a name written
    /// as the spec writes it, or one that is no architecture at all.
    pub fn ptxas_reading(s: &str) -> Option<String> {
        if Self::parse(s).is_some() {
            return None;
        }
        let (prefix, rest) = match s.strip_prefix("sm_") {
            Some(rest) => ("sm_", rest),
            None => ("compute_", s.strip_prefix("compute_")?),
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let tail = &rest[digits..];
        if digits == 0
            || tail.is_empty()
            || !tail.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            return None;
        }
        let suffix = match tail.as_bytes()[tail.len() - 1] {
            b'a' => "a",
            b'f' => "f",
            _ => "",
        };
        Some(format!("{prefix}{}{suffix}", &rest[..digits]))
    }

    /// [`SmName::parse`] of the name as ptxas 13.5 reads it ([`SmName::ptxas_reading`]).
    pub fn read(s: &str) -> Option<Self> {
        Self::parse(s).or_else(|| Self::parse(&Self::ptxas_reading(s)?))
    }

    /// The number after applying renames (`101` -> `110`).
    pub fn canonical_number(self) -> u32 {
        match self.number {
            101 => 110,
            n => n,
        }
    }

    /// Architecture family (`sm_10x` -> 10, `sm_11x` -> 11, `sm_12x` -> 12); `None` before sm_100.
    pub fn family(self) -> Option<u32> {
        let n = self.canonical_number();
        (n >= 100).then_some(n / 10)
    }
}

impl fmt::Display for SmName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.variant {
            Variant::Base => "",
            Variant::Arch => "a",
            Variant::Family => "f",
        };
        write!(f, "sm_{}{}", self.number, suffix)
    }
}

/// One alternative of a target requirement.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TargetAtom {
    /// `sm_N or higher` (written `sm_N+`).
    AtLeast(u32),
    /// Exactly the architecture-specific target `sm_Na` (written `sm_Na`).
    Arch(u32),
    /// `sm_Nf or higher in the same family` (written `sm_Nf+`).
    Family(u32),
    /// A platform option such as `map_f64_to_f32`.
    Option(String),
}

impl TargetAtom {
    /// Parse the data-file notation: `sm_90+`, `sm_90a`, `sm_100f+` (or `sm_100f`), `map_f64_to_f32`.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let plus = s.ends_with('+');
        let core = s.trim_end_matches('+');
        if let Some(sm) = SmName::parse(core) {
            return Some(match sm.variant {
                Variant::Base => TargetAtom::AtLeast(sm.number),
                Variant::Arch if !plus => TargetAtom::Arch(sm.number),
                Variant::Arch => return None,
                Variant::Family => TargetAtom::Family(sm.number),
            });
        }
        if !plus && !core.is_empty() && core.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Some(TargetAtom::Option(core.to_string()));
        }
        None
    }

    /// Whether a single `.target` entry (e.g. `sm_100a`) satisfies this atom.
    pub fn satisfied_by(&self, target: &str) -> bool {
        let Some(t) = SmName::parse(target) else {
            return matches!(self, TargetAtom::Option(o) if o == target);
        };
        let tn = t.canonical_number();
        match *self {
            TargetAtom::AtLeast(n) => tn >= canon(n),
            TargetAtom::Arch(n) => t.variant == Variant::Arch && tn == canon(n),
            TargetAtom::Family(n) => {
                let req = SmName {
                    number: n,
                    variant: Variant::Family,
                };
                t.variant != Variant::Base && t.family() == req.family() && tn >= canon(n)
            }
            TargetAtom::Option(_) => false,
        }
    }
}

fn canon(n: u32) -> u32 {
    SmName {
        number: n,
        variant: Variant::Base,
    }
    .canonical_number()
}

impl fmt::Display for TargetAtom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetAtom::AtLeast(n) => write!(f, "sm_{n}+"),
            TargetAtom::Arch(n) => write!(f, "sm_{n}a"),
            TargetAtom::Family(n) => write!(f, "sm_{n}f+"),
            TargetAtom::Option(o) => f.write_str(o),
        }
    }
}

/// Which targets support a feature.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum TargetReq {
    /// Supported on all target architectures.
    #[default]
    All,
    /// Supported if any alternative is satisfied.
    AnyOf(Vec<TargetAtom>),
    /// Every part must be satisfied (a feature combining several restricted qualifiers).
    AllOf(Vec<TargetReq>),
}

impl TargetReq {
    /// Parse `all`, `sm_90+`, `sm_100a | sm_100f+`, `sm_90+ & sm_100a`.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        if s == "all" {
            return Some(TargetReq::All);
        }
        if s.contains('&') {
            let parts = s
                .split('&')
                .map(TargetReq::parse)
                .collect::<Option<Vec<_>>>()?;
            return Some(TargetReq::AllOf(parts));
        }
        let atoms = s
            .split('|')
            .map(TargetAtom::parse)
            .collect::<Option<Vec<_>>>()?;
        Some(TargetReq::AnyOf(atoms))
    }

    /// Conjunction of two requirements, flattening trivial cases.
    pub fn and(self, other: TargetReq) -> TargetReq {
        match (self, other) {
            (TargetReq::All, x) | (x, TargetReq::All) => x,
            (a, b) if a == b => a,
            (TargetReq::AllOf(mut a), TargetReq::AllOf(b)) => {
                for x in b {
                    if !a.contains(&x) {
                        a.push(x);
                    }
                }
                TargetReq::AllOf(a)
            }
            (TargetReq::AllOf(mut a), x) | (x, TargetReq::AllOf(mut a)) => {
                if !a.contains(&x) {
                    a.push(x);
                }
                TargetReq::AllOf(a)
            }
            (a, b) => TargetReq::AllOf(vec![a, b]),
        }
    }

    /// Whether one `.target` entry satisfies this requirement.
    pub fn satisfied_by(&self, target: &str) -> bool {
        self.satisfied_by_any(&[target])
    }

    /// Whether a `.target` list (architecture plus options such as `map_f64_to_f32`) satisfies it.
    pub fn satisfied_by_any(&self, targets: &[&str]) -> bool {
        match self {
            TargetReq::All => true,
            TargetReq::AnyOf(atoms) => atoms
                .iter()
                .any(|a| targets.iter().any(|t| a.satisfied_by(t))),
            TargetReq::AllOf(parts) => parts.iter().all(|p| p.satisfied_by_any(targets)),
        }
    }

    /// The smallest plain `sm_N` that satisfies the requirement, if one does (used for messages).
    pub fn min_baseline(&self) -> Option<u32> {
        match self {
            TargetReq::All => Some(0),
            TargetReq::AnyOf(atoms) => atoms
                .iter()
                .filter_map(|a| match a {
                    TargetAtom::AtLeast(n) => Some(*n),
                    _ => None,
                })
                .min(),
            TargetReq::AllOf(parts) => parts
                .iter()
                .map(TargetReq::min_baseline)
                .collect::<Option<Vec<_>>>()
                .map(|v| v.into_iter().max().unwrap_or(0)),
        }
    }
}

impl fmt::Display for TargetReq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetReq::All => f.write_str("all"),
            TargetReq::AnyOf(atoms) => {
                for (i, a) in atoms.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "{a}")?;
                }
                Ok(())
            }
            TargetReq::AllOf(parts) => {
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" & ")?;
                    }
                    write!(f, "{p}")?;
                }
                Ok(())
            }
        }
    }
}

impl TargetReq {
    /// The targets in the words every message of the project uses (diagnostics, hover,
    /// completion): `sm_90+` as `sm_90 or newer`; `sm_100a | sm_100f+ | sm_103f+` as
    /// `sm_100a/sm_100f/sm_103f` (an `f` target stands for itself and the later `a`/`f` targets
    /// of its family); several conditions that must all hold as the one they amount to when
    /// each is `sm_N or newer` (`sm_80+ & sm_90+` is `sm_90 or newer`), else joined with "and".
    pub fn describe(&self) -> String {
        match self {
            TargetReq::All => "any target".to_owned(),
            TargetReq::AnyOf(atoms) => match atoms.as_slice() {
                [TargetAtom::AtLeast(n)] => format!("sm_{n} or newer"),
                _ => {
                    let mut names: Vec<String> = Vec::new();
                    for atom in atoms {
                        let name = match atom {
                            TargetAtom::AtLeast(n) => format!("sm_{n}+"),
                            // sm_101* was renamed sm_110*: name only the new spelling.
                            TargetAtom::Arch(101) | TargetAtom::Family(101) => continue,
                            TargetAtom::Arch(n) => format!("sm_{n}a"),
                            TargetAtom::Family(n) => format!("sm_{n}f"),
                            TargetAtom::Option(o) => o.clone(),
                        };
                        if !names.contains(&name) {
                            names.push(name);
                        }
                    }
                    names.join("/")
                }
            },
            TargetReq::AllOf(parts) => {
                let floors: Option<Vec<u32>> = parts
                    .iter()
                    .map(|p| match p {
                        TargetReq::All => Some(0),
                        TargetReq::AnyOf(atoms) => match atoms.as_slice() {
                            [TargetAtom::AtLeast(n)] => Some(*n),
                            _ => None,
                        },
                        TargetReq::AllOf(_) => None,
                    })
                    .collect();
                match floors.and_then(|f| f.into_iter().max()) {
                    Some(0) => "any target".to_owned(),
                    Some(n) => format!("sm_{n} or newer"),
                    None => {
                        let mut out: Vec<String> = Vec::new();
                        for p in parts.iter().filter(|p| **p != TargetReq::All) {
                            let d = p.describe();
                            if !out.contains(&d) {
                                out.push(d);
                            }
                        }
                        out.join(" and ")
                    }
                }
            }
        }
    }
}

/// Convenience: whether `target` (one `.target` entry) satisfies `req`.
pub fn target_supports(req: &TargetReq, target: &str) -> bool {
    req.satisfied_by(target)
}

/// Kind of a `.target` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// An `sm_XX{a,f}` architecture.
    Sm(SmName),
    /// A platform or texturing option (`texmode_unified`, `debug`, `map_f64_to_f32`, ...).
    Option,
}

/// One `.target` string the spec knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetInfo {
    pub name: String,
    pub kind: TargetKind,
    /// PTX ISA version that introduced this target string.
    pub since: PtxVersion,
    /// New name and the PTX version from which it applies (`sm_101a` -> `sm_110a` in 9.0).
    pub renamed_to: Option<(String, PtxVersion)>,
    /// Oldest `.version` ptxas 13.5 accepts with this target, where it differs from `since`.
    pub ptxas_min_version: Option<PtxVersion>,
    /// Whether ptxas 13.5 accepts this target string in a `.target` directive.
    pub ptxas_accepts: bool,
    /// Whether ptxas 13.5 can generate code for this GPU (`-arch=` the same name); it knows
    /// the older `sm_XX` names but no longer assembles for them.
    pub ptxas_codegen: bool,
    /// For a GPU ptxas 13.5 no longer generates code for: the newest CUDA major release whose
    /// ptxas still does, where known.
    pub codegen_until_cuda: Option<u32>,
}

impl TargetInfo {
    /// Family name such as `sm_10x` for targets in a family.
    pub fn family(&self) -> Option<String> {
        match self.kind {
            TargetKind::Sm(sm) => sm.family().map(|f| format!("sm_{f}x")),
            TargetKind::Option => None,
        }
    }

    /// The oldest `.version` that may be paired with this target.
    pub fn min_version(&self) -> PtxVersion {
        self.ptxas_min_version.unwrap_or(self.since).max(self.since)
    }
}

/// Parse `data/targets.txt` (see the header of that file for the format).
pub(crate) fn parse_targets(text: &str) -> Result<Vec<TargetInfo>, String> {
    let mut out = Vec::new();
    for (lineno, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let err = |m: &str| format!("targets.txt:{}: {m}: `{raw}`", lineno + 1);
        let mut words = line.split_whitespace();
        let name = words.next().ok_or_else(|| err("empty"))?.to_string();
        let since = words
            .next()
            .and_then(PtxVersion::parse)
            .ok_or_else(|| err("missing version"))?;
        let kind = match SmName::parse(&name) {
            Some(sm) => TargetKind::Sm(sm),
            None => TargetKind::Option,
        };
        let mut info = TargetInfo {
            name,
            kind,
            since,
            renamed_to: None,
            ptxas_min_version: None,
            ptxas_accepts: true,
            ptxas_codegen: true,
            codegen_until_cuda: None,
        };
        while let Some(w) = words.next() {
            match w {
                "renamed" => {
                    let to = words.next().ok_or_else(|| err("renamed needs a name"))?;
                    let ver = words
                        .next()
                        .and_then(PtxVersion::parse)
                        .ok_or_else(|| err("renamed needs a version"))?;
                    info.renamed_to = Some((to.to_string(), ver));
                }
                "ptxas-min" => {
                    info.ptxas_min_version = Some(
                        words
                            .next()
                            .and_then(PtxVersion::parse)
                            .ok_or_else(|| err("ptxas-min needs a version"))?,
                    );
                }
                "ptxas-rejects" => info.ptxas_accepts = false,
                "ptxas-no-codegen" => info.ptxas_codegen = false,
                "codegen-until" => {
                    info.codegen_until_cuda = Some(
                        words
                            .next()
                            .and_then(|w| w.parse().ok())
                            .ok_or_else(|| err("codegen-until needs a CUDA major release"))?,
                    );
                }
                _ => return Err(err("unknown word")),
            }
        }
        out.push(info);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(s: &str) -> TargetReq {
        TargetReq::parse(s).unwrap()
    }

    #[test]
    fn ptxas_reading_of_odd_suffixes() {
        let read = |s: &str| SmName::ptxas_reading(s);
        assert_eq!(read("sm_90b").as_deref(), Some("sm_90"));
        assert_eq!(read("sm_90ab").as_deref(), Some("sm_90"));
        assert_eq!(read("sm_90ba").as_deref(), Some("sm_90a"));
        assert_eq!(read("sm_90_a").as_deref(), Some("sm_90a"));
        assert_eq!(read("compute_90b").as_deref(), Some("compute_90"));
        assert_eq!(read("sm_90"), None);
        assert_eq!(read("sm_90a"), None);
        assert_eq!(read("sm_x90"), None);
        assert_eq!(read("texmode_unified"), None);
    }

    #[test]
    fn onion_model() {
        let r = req("sm_90+");
        assert!(r.satisfied_by("sm_90"));
        assert!(r.satisfied_by("sm_90a"));
        assert!(r.satisfied_by("sm_120f"));
        assert!(!r.satisfied_by("sm_89"));
    }

    #[test]
    fn arch_specific_is_exact() {
        let r = req("sm_90a");
        assert!(r.satisfied_by("sm_90a"));
        assert!(!r.satisfied_by("sm_90"));
        assert!(!r.satisfied_by("sm_100a"));
    }

    #[test]
    fn family_specific() {
        let r = req("sm_100f+");
        assert!(r.satisfied_by("sm_100f"));
        assert!(r.satisfied_by("sm_100a"));
        assert!(r.satisfied_by("sm_103a"));
        assert!(r.satisfied_by("sm_103f"));
        assert!(!r.satisfied_by("sm_100"));
        assert!(!r.satisfied_by("sm_110f"));
        assert!(!r.satisfied_by("sm_120a"));
        let r = req("sm_103f+");
        assert!(!r.satisfied_by("sm_100f"));
    }

    #[test]
    fn renames() {
        assert!(req("sm_101a").satisfied_by("sm_110a"));
        assert!(req("sm_110a").satisfied_by("sm_101a"));
        assert!(req("sm_101f+").satisfied_by("sm_110f"));
        assert_eq!(SmName::parse("sm_101f").unwrap().family(), Some(11));
    }

    #[test]
    fn options_and_display() {
        let r = req("sm_13+ | map_f64_to_f32");
        assert!(r.satisfied_by_any(&["sm_10", "map_f64_to_f32"]));
        assert!(!r.satisfied_by("sm_10"));
        let both = req("sm_100a | sm_100f+").and(req("sm_90+"));
        assert_eq!(both.to_string(), "sm_100a | sm_100f+ & sm_90+");
        assert_eq!(TargetReq::parse(&both.to_string()), Some(both));
    }
}
