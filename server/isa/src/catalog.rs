//! Special registers (chapter 10), directives (chapter 11), types and state spaces (chapter 5).
//!
//! Special registers and directives come from the generated `data/gen/10.isa` and
//! `data/gen/11.isa` (same format as the instruction files); types and state spaces are small
//! hand-written tables below.

use crate::datafile::{parse_section_refs, FactKind, SectionRef};
use crate::model::Requirement;
use crate::version::PtxVersion;

const SREGS: &str = include_str!("../data/gen/10.isa");
const DIRECTIVES: &str = include_str!("../data/gen/11.isa");

/// A special register such as `%tid` (with its components `%tid.x` ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecialRegister {
    /// Base name: `%tid`, `%pm0`, `%clock64`.
    pub name: String,
    /// Type as declared in the spec syntax, e.g. `.v4 .u32` or `.u64`.
    pub ty: String,
    /// Component registers (`%tid.x`, `%tid.y`, `%tid.z`), if any.
    pub components: Vec<String>,
    pub section: String,
    pub anchor: String,
    pub requirement: Requirement,
}

/// A directive such as `.maxnreg`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directive {
    /// With the dot: `.maxnreg` (and `@@dwarf`).
    pub name: String,
    /// Syntax lines in spec notation.
    pub syntax: Vec<String>,
    pub section: String,
    pub anchor: String,
    pub requirement: Requirement,
}

/// Basic kind of a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Signed,
    Unsigned,
    Float,
    Bits,
    Predicate,
    /// Alternate floating-point formats (`.bf16`, `.e4m3`, ...), instruction use only.
    AltFloat,
    /// Packed vectors of small elements in one register (`.f16x2`, `.e4m3x2`, `.u16x2`).
    Packed,
    /// Texture, sampler and surface references.
    Opaque,
}

/// A type name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TypeInfo {
    pub name: &'static str,
    pub kind: TypeKind,
    /// Size in bits (0 for opaque types).
    pub bits: u32,
    /// Whether variables may be declared with it (fundamental types), or only instructions use it.
    pub declarable: bool,
}

/// A state space such as `.shared`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StateSpace {
    pub name: &'static str,
    /// Sub-qualified spellings (`.shared::cta`, `.shared::cluster`).
    pub variants: &'static [&'static str],
    /// Whether it is addressable by `ld`/`st`.
    pub addressable: bool,
    /// Spec section.
    pub section: &'static str,
}

const fn t(name: &'static str, kind: TypeKind, bits: u32, declarable: bool) -> TypeInfo {
    TypeInfo {
        name,
        kind,
        bits,
        declarable,
    }
}

/// Fundamental types (5.2.1), alternate formats (5.2.3), packed types (5.2.5), opaque types (5.3).
pub const TYPES: &[TypeInfo] = &[
    t(".s8", TypeKind::Signed, 8, true),
    t(".s16", TypeKind::Signed, 16, true),
    t(".s32", TypeKind::Signed, 32, true),
    t(".s64", TypeKind::Signed, 64, true),
    t(".u8", TypeKind::Unsigned, 8, true),
    t(".u16", TypeKind::Unsigned, 16, true),
    t(".u32", TypeKind::Unsigned, 32, true),
    t(".u64", TypeKind::Unsigned, 64, true),
    t(".f16", TypeKind::Float, 16, true),
    t(".f16x2", TypeKind::Float, 32, true),
    t(".f32", TypeKind::Float, 32, true),
    t(".f64", TypeKind::Float, 64, true),
    t(".b8", TypeKind::Bits, 8, true),
    t(".b16", TypeKind::Bits, 16, true),
    t(".b32", TypeKind::Bits, 32, true),
    t(".b64", TypeKind::Bits, 64, true),
    t(".b128", TypeKind::Bits, 128, true),
    t(".pred", TypeKind::Predicate, 1, true),
    t(".bf16", TypeKind::AltFloat, 16, false),
    t(".tf32", TypeKind::AltFloat, 32, false),
    t(".e4m3", TypeKind::AltFloat, 8, false),
    t(".e5m2", TypeKind::AltFloat, 8, false),
    t(".e2m3", TypeKind::AltFloat, 6, false),
    t(".e3m2", TypeKind::AltFloat, 6, false),
    t(".e2m1", TypeKind::AltFloat, 4, false),
    t(".ue8m0", TypeKind::AltFloat, 8, false),
    t(".ue4m3", TypeKind::AltFloat, 8, false),
    t(".bf16x2", TypeKind::Packed, 32, false),
    t(".e4m3x2", TypeKind::Packed, 16, false),
    t(".e5m2x2", TypeKind::Packed, 16, false),
    t(".e2m3x2", TypeKind::Packed, 16, false),
    t(".e3m2x2", TypeKind::Packed, 16, false),
    t(".e2m1x2", TypeKind::Packed, 8, false),
    t(".ue8m0x2", TypeKind::Packed, 16, false),
    t(".e4m3x4", TypeKind::Packed, 32, false),
    t(".e5m2x4", TypeKind::Packed, 32, false),
    t(".e2m3x4", TypeKind::Packed, 32, false),
    t(".e3m2x4", TypeKind::Packed, 32, false),
    t(".e2m1x4", TypeKind::Packed, 16, false),
    t(".u16x2", TypeKind::Packed, 32, false),
    t(".s16x2", TypeKind::Packed, 32, false),
    t(".s2f6x2", TypeKind::Packed, 16, false),
    t(".texref", TypeKind::Opaque, 0, true),
    t(".samplerref", TypeKind::Opaque, 0, true),
    t(".surfref", TypeKind::Opaque, 0, true),
];

/// State spaces of section 5.1.
pub const STATE_SPACES: &[StateSpace] = &[
    StateSpace {
        name: ".reg",
        variants: &[],
        addressable: false,
        section: "5.1.1",
    },
    StateSpace {
        name: ".sreg",
        variants: &[],
        addressable: false,
        section: "5.1.2",
    },
    StateSpace {
        name: ".const",
        variants: &[],
        addressable: true,
        section: "5.1.3",
    },
    StateSpace {
        name: ".global",
        variants: &[],
        addressable: true,
        section: "5.1.4",
    },
    StateSpace {
        name: ".local",
        variants: &[],
        addressable: true,
        section: "5.1.5",
    },
    StateSpace {
        name: ".param",
        variants: &[".param::entry", ".param::func"],
        addressable: true,
        section: "5.1.6",
    },
    StateSpace {
        name: ".shared",
        variants: &[".shared::cta", ".shared::cluster"],
        addressable: true,
        section: "5.1.7",
    },
    StateSpace {
        name: ".tex",
        variants: &[],
        addressable: false,
        section: "5.1.8",
    },
];

/// Parsed catalog.
#[derive(Debug, Default)]
pub struct Catalog {
    pub special_registers: Vec<SpecialRegister>,
    pub directives: Vec<Directive>,
    pub types: Vec<TypeInfo>,
    pub state_spaces: Vec<StateSpace>,
    /// Index into `special_registers` by base name and by component name
    /// (the checker looks up every register operand).
    special_index: std::collections::HashMap<String, usize>,
}

/// Base requirement of a section plus the facts naming `name`.
fn requirement_for(sec: &SectionRef<'_>, name: &str) -> Requirement {
    let mut req = Requirement::default();
    let mut base_since: Option<PtxVersion> = None;
    for f in &sec.facts {
        let applies = f.subjects.is_empty() || f.subjects.iter().any(|s| *s == name);
        if !applies {
            continue;
        }
        match &f.kind {
            FactKind::Since(v) if f.subjects.is_empty() => {
                base_since = Some(base_since.map_or(*v, |b| b.min(*v)))
            }
            FactKind::Since(v) => req.since = req.since.max(*v),
            FactKind::Target(t) => req.targets = std::mem::take(&mut req.targets).and(t.clone()),
            FactKind::Dropped(v, t) => req.removed.push((*v, t.clone())),
        }
    }
    if let Some(b) = base_since {
        req.since = req.since.max(b);
    }
    req
}

/// Expand `%pm<8>` into `%pm0` .. `%pm7`.
fn expand_param(name: &str) -> Vec<String> {
    if let (Some(open), true) = (name.find('<'), name.ends_with('>')) {
        if let Ok(n) = name[open + 1..name.len() - 1].parse::<u32>() {
            return (0..n).map(|i| format!("{}{i}", &name[..open])).collect();
        }
    }
    vec![name.to_string()]
}

impl Catalog {
    pub(crate) fn load() -> Result<Catalog, String> {
        let mut cat = Catalog {
            types: TYPES.to_vec(),
            state_spaces: STATE_SPACES.to_vec(),
            ..Catalog::default()
        };
        for sec in parse_section_refs("10.isa", SREGS)? {
            for form in sec.groups.iter().flat_map(|g| &g.forms) {
                let body = form.trim_end_matches(';');
                let mut words = body.split_whitespace().skip(1);
                let mut ty = Vec::new();
                let mut names = Vec::new();
                for w in words.by_ref() {
                    if w.starts_with('%') {
                        names.push(w.trim_end_matches(',').to_string());
                        break;
                    }
                    ty.push(w);
                }
                // `%nctaid.x,%nctaid.y,%nctaid.z` may come without spaces, and a second
                // declaration (`.sreg .u32 ...`) may follow on the same line: keep only names.
                names.extend(
                    words
                        .flat_map(|w| w.split(','))
                        .filter(|w| w.starts_with('%'))
                        .map(str::to_string),
                );
                for n in names.iter().flat_map(|n| expand_param(n)) {
                    let (base, comp) = match n.split_once('.') {
                        Some((b, _)) => (b.to_string(), Some(n.clone())),
                        None => (n.clone(), None),
                    };
                    let entry = match cat.special_registers.iter_mut().find(|r| r.name == base) {
                        Some(e) => e,
                        None => {
                            cat.special_registers.push(SpecialRegister {
                                name: base.clone(),
                                ty: ty.join(" "),
                                components: Vec::new(),
                                section: sec.number.to_string(),
                                anchor: sec.anchor.to_string(),
                                requirement: requirement_for(&sec, &base),
                            });
                            cat.special_registers.last_mut().expect("pushed")
                        }
                    };
                    if let Some(c) = comp {
                        if !entry.components.contains(&c) {
                            entry.components.push(c);
                        }
                    }
                }
            }
        }
        for sec in parse_section_refs("11.isa", DIRECTIVES)? {
            let syntax: Vec<String> = sec
                .groups
                .iter()
                .flat_map(|g| g.forms.iter().map(|f| f.to_string()))
                .collect();
            for name in &sec.opcodes {
                cat.directives.push(Directive {
                    name: name.to_string(),
                    syntax: syntax.clone(),
                    section: sec.number.to_string(),
                    anchor: sec.anchor.to_string(),
                    requirement: requirement_for(&sec, name),
                });
            }
        }
        for (i, r) in cat.special_registers.iter().enumerate() {
            for name in std::iter::once(&r.name).chain(&r.components) {
                cat.special_index.entry(name.clone()).or_insert(i);
            }
        }
        Ok(cat)
    }

    /// Find by base name or component (`%tid`, `%tid.x`, `%pm3`).
    pub fn special_register(&self, name: &str) -> Option<&SpecialRegister> {
        // Ordinary registers (`%r1`, `%rd2`) are most lookups: no match, no hashing
        // of names that cannot be special (they all start with `%`).
        if !name.starts_with('%') {
            return None;
        }
        self.special_index
            .get(name)
            .map(|&i| &self.special_registers[i])
    }
}

#[cfg(test)]
mod tests {
    use super::Catalog;

    #[test]
    fn every_special_register_has_a_name_and_its_components() {
        let cat = Catalog::load().unwrap();
        assert!(cat
            .special_registers
            .iter()
            .all(|r| r.name.starts_with('%')));
        let nctaid = cat.special_register("%nctaid").unwrap();
        assert_eq!(
            nctaid.components,
            vec!["%nctaid.x", "%nctaid.y", "%nctaid.z"]
        );
        assert!(cat.special_register("%nctaid.y").is_some());
    }
}
