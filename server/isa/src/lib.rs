//! Knowledge base of the PTX ISA 9.1: instructions, qualifiers, versions and targets.
//!
//! The facts live in `data/` in a format close to the spec's own notation (see [`datafile`]):
//! `data/gen/*.isa` is generated from the spec by `isa-gen` (see [`specgen`]), and
//! `data/overlay.isa` and `data/overlay/*.isa` hold hand-made corrections. Everything is parsed once, on first use of
//! [`Isa::get`].
//!
//! ```
//! let isa = ptx_isa::Isa::get();
//! let ld = isa.instruction("tcgen05.ld").unwrap();
//! assert_eq!(ld.since().to_string(), "8.6");
//! let m = isa.match_qualifiers(&["tcgen05", "ld", "sync", "aligned", "16x128b", "x4", "b32"]);
//! assert_eq!(m.matches.len(), 1);
//! ```

pub mod availability;
pub mod catalog;
pub mod datafile;
pub mod floors;
pub mod matcher;
pub mod model;
pub mod notation;
pub mod specgen;
pub mod specmd;
pub mod target;
pub mod version;

use std::sync::OnceLock;

pub use availability::Availability;
pub use catalog::{Directive, SpecialRegister, StateSpace, TypeInfo};
pub use datafile::SectionData;
pub use floors::{
    ComparisonClass, FixedOperand, FragmentFloor, MemoryCombinations, OperandForms, OperandRefusal,
    OperandShape, OperandShapeRule, OrderWithScope, PolicyAfter, PolicyOperand, QualifierRule,
    RefusedForm, RulesOut, ShapePosition, SpaceCheck, SpaceRule, WideQualifier,
};
pub use matcher::{FormMatch, MatchError, MatchOutcome};
pub use model::{Feature, Form, Instruction, QualSlot, Requirement, SlotKind, Unmet};
pub use notation::{OperandKind, OperandSpec};
pub use target::{target_supports, SmName, TargetAtom, TargetInfo, TargetKind, TargetReq, Variant};
pub use version::PtxVersion;

/// Generated data files, one per spec chapter 9.7.N (keep in sync with `data/gen`; the drift
/// test fails when a file is missing here).
pub const GEN_FILES: &[(&str, &str)] = &[
    ("9.7.1.isa", include_str!("../data/gen/9.7.1.isa")),
    ("9.7.2.isa", include_str!("../data/gen/9.7.2.isa")),
    ("9.7.3.isa", include_str!("../data/gen/9.7.3.isa")),
    ("9.7.4.isa", include_str!("../data/gen/9.7.4.isa")),
    ("9.7.5.isa", include_str!("../data/gen/9.7.5.isa")),
    ("9.7.6.isa", include_str!("../data/gen/9.7.6.isa")),
    ("9.7.7.isa", include_str!("../data/gen/9.7.7.isa")),
    ("9.7.8.isa", include_str!("../data/gen/9.7.8.isa")),
    ("9.7.9.isa", include_str!("../data/gen/9.7.9.isa")),
    ("9.7.10.isa", include_str!("../data/gen/9.7.10.isa")),
    ("9.7.11.isa", include_str!("../data/gen/9.7.11.isa")),
    ("9.7.12.isa", include_str!("../data/gen/9.7.12.isa")),
    ("9.7.13.isa", include_str!("../data/gen/9.7.13.isa")),
    ("9.7.14.isa", include_str!("../data/gen/9.7.14.isa")),
    ("9.7.15.isa", include_str!("../data/gen/9.7.15.isa")),
    ("9.7.16.isa", include_str!("../data/gen/9.7.16.isa")),
    ("9.7.17.isa", include_str!("../data/gen/9.7.17.isa")),
    ("9.7.18.isa", include_str!("../data/gen/9.7.18.isa")),
    ("9.7.19.isa", include_str!("../data/gen/9.7.19.isa")),
];

/// Hand-made corrections, applied in this order: the general file, then one per family of
/// instructions.
pub const OVERLAYS: &[(&str, &str)] = &[
    ("overlay.isa", include_str!("../data/overlay.isa")),
    (
        "overlay/atomics.isa",
        include_str!("../data/overlay/atomics.isa"),
    ),
    (
        "overlay/texture.isa",
        include_str!("../data/overlay/texture.isa"),
    ),
    (
        "overlay/memory.isa",
        include_str!("../data/overlay/memory.isa"),
    ),
    (
        "overlay/arith.isa",
        include_str!("../data/overlay/arith.isa"),
    ),
];
const TARGETS: &str = include_str!("../data/targets.txt");
const SUMMARIES: &str = include_str!("../data/summaries.txt");
const FRAGMENT_FLOORS: &str = include_str!("../data/fragment-floors.txt");
const QUALIFIER_RULES: &str = include_str!("../data/qualifier-rules.txt");
const OPERAND_SHAPES: &str = include_str!("../data/operand-shapes.txt");
const COMPARISONS: &str = include_str!("../data/comparisons.txt");
const MEMORY_COMBINATIONS: &str = include_str!("../data/memory-combinations.txt");
const OPERAND_FORMS: &str = include_str!("../data/operand-forms.txt");

/// The whole knowledge base.
#[derive(Debug)]
pub struct Isa {
    instructions: Vec<Instruction>,
    targets: Vec<TargetInfo>,
    catalog: catalog::Catalog,
    fragment_floors: Vec<FragmentFloor>,
    qualifier_rules: Vec<QualifierRule>,
    operand_shapes: Vec<OperandShapeRule>,
    comparisons: Vec<ComparisonClass>,
    memory_combinations: MemoryCombinations,
    operand_forms: OperandForms,
}

impl Isa {
    /// The embedded knowledge base, parsed on first use.
    ///
    /// # Panics
    /// If the embedded data is malformed (caught by this crate's tests).
    pub fn get() -> &'static Isa {
        static ISA: OnceLock<Isa> = OnceLock::new();
        ISA.get_or_init(|| Isa::load().unwrap_or_else(|e| panic!("ptx-isa data: {e}")))
    }

    /// Parse the embedded data.
    pub fn load() -> Result<Isa, String> {
        // The sections borrow their text from the embedded files: only what the model keeps
        // is copied.
        let mut sections = Vec::new();
        for (name, text) in GEN_FILES {
            sections.extend(datafile::parse_section_refs(name, text)?);
        }
        for (name, text) in OVERLAYS {
            datafile::apply_overlay_refs(&mut sections, name, text)?;
        }
        let mut instructions = model::build_from_refs(&sections);
        drop(sections);
        for line in SUMMARIES.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (op, text) = line
                .split_once(": ")
                .ok_or_else(|| format!("summaries.txt: bad line `{line}`"))?;
            let mut found = false;
            for i in instructions.iter_mut().filter(|i| i.opcode == op) {
                i.summary.get_or_insert_with(|| text.to_string());
                found = true;
            }
            if !found {
                return Err(format!("summaries.txt: unknown opcode `{op}`"));
            }
        }
        Ok(Isa {
            instructions,
            targets: target::parse_targets(TARGETS)?,
            catalog: catalog::Catalog::load()?,
            fragment_floors: floors::parse("fragment-floors.txt", FRAGMENT_FLOORS)?,
            qualifier_rules: floors::parse_qualifier_rules("qualifier-rules.txt", QUALIFIER_RULES)?,
            operand_shapes: floors::parse_operand_shapes("operand-shapes.txt", OPERAND_SHAPES)?,
            comparisons: floors::parse_comparisons("comparisons.txt", COMPARISONS)?,
            memory_combinations: floors::parse_memory_combinations(
                "memory-combinations.txt",
                MEMORY_COMBINATIONS,
            )?,
            operand_forms: floors::parse_operand_forms("operand-forms.txt", OPERAND_FORMS)?,
        })
    }

    /// All instructions, in spec section order.
    pub fn instructions(&self) -> &[Instruction] {
        &self.instructions
    }

    /// The first instruction named exactly `opcode` (`add`, `tcgen05.ld`); an opcode described
    /// in several sections (integer/float `add`) has more: see [`Isa::instructions_named`].
    pub fn instruction(&self, opcode: &str) -> Option<&Instruction> {
        self.instructions.iter().find(|i| i.opcode == opcode)
    }

    /// Every instruction named exactly `opcode`.
    pub fn instructions_named<'a>(
        &'a self,
        opcode: &'a str,
    ) -> impl Iterator<Item = &'a Instruction> {
        self.instructions.iter().filter(move |i| i.opcode == opcode)
    }

    /// Every instruction whose first opcode component is `root` (`tcgen05` -> all tcgen05.*).
    pub fn instructions_with_root<'a>(
        &'a self,
        root: &'a str,
    ) -> impl Iterator<Item = &'a Instruction> {
        self.instructions.iter().filter(move |i| i.has_root(root))
    }

    /// Instructions whose opcode starts with the dotted prefix (`cp.async` -> `cp.async`,
    /// `cp.async.bulk`, `cp.async.bulk.tensor`, ...).
    pub fn instructions_with_prefix<'a>(
        &'a self,
        prefix: &'a str,
    ) -> impl Iterator<Item = &'a Instruction> {
        self.instructions.iter().filter(move |i| {
            i.opcode == prefix
                || (i.opcode.starts_with(prefix) && i.opcode[prefix.len()..].starts_with('.'))
        })
    }

    /// The instruction whose opcode is the longest dotted prefix of `written`
    /// (`tcgen05.ld.sync.aligned.32x32b.x2.b32` -> `tcgen05.ld`).
    pub fn instruction_for(&self, written: &str) -> Option<&Instruction> {
        self.instructions
            .iter()
            .filter(|i| {
                written == i.opcode
                    || (written.starts_with(&i.opcode)
                        && written[i.opcode.len()..].starts_with('.'))
            })
            .max_by_key(|i| i.opcode.len())
    }

    /// Whether ptxas 13.5 reads `name` (`mul.lo`, `mbarrier.init`) as one instruction word,
    /// so that no blank may stand before its last dotted part (data/ptxas-fused-names.txt).
    pub fn ptxas_fused_name(&self, name: &str) -> bool {
        static NAMES: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
        NAMES
            .get_or_init(|| {
                include_str!("../data/ptxas-fused-names.txt")
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .collect()
            })
            .contains(name)
    }

    /// Whether ptxas 13.5 resolves a call of `name` itself when the module only declares it
    /// `.extern` (`vprintf`, `malloc`, the device runtime's `cudaGraphLaunch`, ...;
    /// data/ptxas-system-calls.txt).
    pub fn ptxas_system_call(&self, name: &str) -> bool {
        static NAMES: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
        NAMES
            .get_or_init(|| {
                include_str!("../data/ptxas-system-calls.txt")
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .collect()
            })
            .contains(name)
    }

    /// The kind of function (`entry`, `func`, or `any` for both) that ptxas 13.5 takes a
    /// directive on between its signature and its body (data/function-directives.txt); `None`
    /// for other names.
    pub fn function_directive_kind(&self, directive: &str) -> Option<&'static str> {
        function_directive(directive).map(|row| row.kind)
    }

    /// The fewest and the most values that a directive between a function's signature and
    /// its body takes (data/function-directives.txt).
    pub fn function_directive_values(&self, directive: &str) -> Option<(usize, usize)> {
        function_directive(directive).map(|row| (row.min, row.max))
    }

    /// The `.version` that introduced a function directive the spec does not describe
    /// (data/function-directives.txt).
    pub fn function_directive_since(&self, directive: &str) -> Option<PtxVersion> {
        function_directive(directive).and_then(|row| PtxVersion::parse(row.since?))
    }

    /// What ptxas 13.5 takes of the pragma string `name` (data/pragmas.txt), or `None` for a
    /// string it does not know.
    pub fn pragma(&self, name: &str) -> Option<&'static Pragma> {
        static ROWS: OnceLock<Vec<Pragma>> = OnceLock::new();
        ROWS.get_or_init(|| {
            include_str!("../data/pragmas.txt")
                .lines()
                .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
                .filter_map(|l| {
                    let mut words = l.split_whitespace();
                    Some(Pragma {
                        name: words.next()?,
                        since: PtxVersion::parse(words.next()?)?,
                        places: words.next()?.split(',').collect(),
                        argument: words.next()?,
                    })
                })
                .collect()
        })
        .iter()
        .find(|p| p.name == name)
    }

    /// The bytes a kernel's parameters may take at PTX ISA `version` (the newest rule when none
    /// is known), and the version and bytes of the next raise of that limit, if any
    /// (data/kernel-parameters.txt).
    pub fn kernel_parameter_bytes(
        &self,
        version: Option<PtxVersion>,
    ) -> (u64, Option<(PtxVersion, u64)>) {
        static ROWS: OnceLock<Vec<(Option<PtxVersion>, u64)>> = OnceLock::new();
        let rows = ROWS.get_or_init(|| {
            include_str!("../data/kernel-parameters.txt")
                .lines()
                .filter(|l| !l.starts_with('#'))
                .filter_map(|l| {
                    let (since, bytes) = l.split_once(' ')?;
                    Some((PtxVersion::parse(since), bytes.trim().parse().ok()?))
                })
                .collect()
        });
        let at = rows
            .iter()
            .position(|(since, _)| match (version, since) {
                (Some(v), Some(since)) => v >= *since,
                _ => true,
            })
            .unwrap_or(rows.len().saturating_sub(1));
        let limit = rows.get(at).map_or(u64::MAX, |row| row.1);
        let raise = at
            .checked_sub(1)
            .and_then(|newer| rows.get(newer))
            .and_then(|(since, bytes)| Some(((*since)?, *bytes)));
        (limit, raise)
    }

    /// The place of a directive among those of a `.func`, which ptxas 13.5 takes only in rising
    /// order and each once (data/function-directives.txt); `None` for a directive without one.
    pub fn function_directive_slot(&self, directive: &str) -> Option<u8> {
        function_directive(directive).and_then(|row| row.slot)
    }

    /// Version and target floors of matrix-fragment forms, matched on the written words
    /// (data/fragment-floors.txt), most specific first.
    pub fn fragment_floors(&self) -> &[FragmentFloor] {
        &self.fragment_floors
    }

    /// Qualifier rules that ptxas enforces as written, on top of each instruction's floor
    /// (data/qualifier-rules.txt), in the file's order.
    pub fn qualifier_rules(&self) -> &[QualifierRule] {
        &self.qualifier_rules
    }

    /// The comparison operators of `set`/`setp` per class of compared type, and the types
    /// `.ftz` flushes (class `ftz`) (data/comparisons.txt), in the file's order.
    pub fn comparisons(&self) -> &[ComparisonClass] {
        &self.comparisons
    }

    /// Memory qualifier combinations ptxas rejects: cache qualifiers of `.global` only and
    /// vector size limits (data/memory-combinations.txt).
    pub fn memory_combinations(&self) -> &MemoryCombinations {
        &self.memory_combinations
    }

    /// Which instructions take a sink destination or a variable's name as a plain operand
    /// (data/operand-forms.txt).
    pub fn operand_forms(&self) -> &OperandForms {
        &self.operand_forms
    }

    /// Operand shapes that a qualifier or an opcode imposes on one operand
    /// (data/operand-shapes.txt), in the file's order.
    pub fn operand_shapes(&self) -> &[OperandShapeRule] {
        &self.operand_shapes
    }

    /// The field `field` of an opaque type (`.texref`, `.samplerref`, `.surfref`) that an
    /// initial value may set, with the symbols it takes (empty: a number); `None` when the type
    /// has no such field (data/opaque-fields.txt).
    pub fn opaque_field(&self, ty: &str, field: &str) -> Option<&'static [&'static str]> {
        type Fields = Vec<(&'static str, &'static str, Vec<&'static str>)>;
        static FIELDS: OnceLock<Fields> = OnceLock::new();
        FIELDS
            .get_or_init(|| {
                include_str!("../data/opaque-fields.txt")
                    .lines()
                    .filter(|l| !l.starts_with('#'))
                    .filter_map(|l| {
                        let mut words = l.split_whitespace();
                        Some((words.next()?, words.next()?, words.collect()))
                    })
                    .collect()
            })
            .iter()
            .find(|(t, f, _)| *t == ty && *f == field)
            .map(|(_, _, values)| values.as_slice())
    }

    /// Whether a variable of type `ty` may take an address in its initial value, unmasked
    /// (`form` `address`) or a byte of one (`masked`) (data/initializer-addresses.txt).
    pub fn initializer_takes_address(&self, ty: &str, form: &str) -> bool {
        static TYPES: OnceLock<Vec<(&'static str, Vec<&'static str>)>> = OnceLock::new();
        TYPES
            .get_or_init(|| {
                include_str!("../data/initializer-addresses.txt")
                    .lines()
                    .filter(|l| !l.starts_with('#'))
                    .filter_map(|l| {
                        let mut words = l.split_whitespace();
                        Some((words.next()?, words.collect()))
                    })
                    .collect()
            })
            .iter()
            .any(|(t, forms)| *t == ty && forms.contains(&form))
    }

    /// All `.target` strings.
    pub fn targets(&self) -> &[TargetInfo] {
        &self.targets
    }

    /// One `.target` string.
    /// `compute_XX` names the same target as `sm_XX` (11.1.2, Notes).
    pub fn target(&self, name: &str) -> Option<&TargetInfo> {
        let name = match name.strip_prefix("compute_") {
            Some(rest) => {
                return self
                    .targets
                    .iter()
                    .find(|t| t.name.strip_prefix("sm_") == Some(rest))
            }
            None => name,
        };
        self.targets.iter().find(|t| t.name == name)
    }

    /// Special registers (chapter 10).
    pub fn special_registers(&self) -> &[SpecialRegister] {
        &self.catalog.special_registers
    }

    /// A special register by name: `%tid`, also `%tid.x` and `%pm3`.
    pub fn special_register(&self, name: &str) -> Option<&SpecialRegister> {
        self.catalog.special_register(name)
    }

    /// Directives (chapter 11).
    pub fn directives(&self) -> &[Directive] {
        &self.catalog.directives
    }

    /// A directive by name, with the dot: `.maxnreg`.
    pub fn directive(&self, name: &str) -> Option<&Directive> {
        self.catalog.directives.iter().find(|d| d.name == name)
    }

    /// Fundamental types (section 5.2.1) and the other type names of chapter 5.
    pub fn types(&self) -> &[TypeInfo] {
        &self.catalog.types
    }

    /// State spaces (section 5.1).
    pub fn state_spaces(&self) -> &[StateSpace] {
        &self.catalog.state_spaces
    }

    /// What an instruction's qualifier names: a type (`.u32`, or a vector count `.v4`), a state
    /// space (`.global`, `.shared::cta`), or something else (`.rn`, `.sync`). Editors colour and
    /// list the three differently.
    pub fn qualifier_class(&self, dotted: &str) -> QualifierClass {
        if matches!(dotted, ".v2" | ".v4" | ".v8" | ".v16")
            || self.types().iter().any(|t| t.name == dotted)
        {
            return QualifierClass::Type;
        }
        let space = dotted.split_once("::").map_or(dotted, |(space, _)| space);
        if self.state_spaces().iter().any(|s| s.name == space) {
            QualifierClass::StateSpace
        } else {
            QualifierClass::Other
        }
    }
}

/// See [`Isa::qualifier_class`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QualifierClass {
    Type,
    StateSpace,
    Other,
}

/// A line of data/function-directives.txt.
struct FunctionDirective {
    name: &'static str,
    /// `entry`, `func` or `any`.
    kind: &'static str,
    min: usize,
    max: usize,
    /// The version that introduced the directive where the spec's directive facts do not give it.
    since: Option<&'static str>,
    /// The directive's place among the directives of a `.func` (taken in rising order, each once).
    slot: Option<u8>,
}

fn function_directive(directive: &str) -> Option<&'static FunctionDirective> {
    static ROWS: OnceLock<Vec<FunctionDirective>> = OnceLock::new();
    ROWS.get_or_init(|| {
        include_str!("../data/function-directives.txt")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let mut words = l.split_whitespace();
                let (name, kind, counts) = (words.next()?, words.next()?, words.next()?);
                let (min, max) = counts.split_once('-').unwrap_or((counts, counts));
                Some(FunctionDirective {
                    name,
                    kind,
                    min: min.parse().ok()?,
                    max: max.parse().ok()?,
                    since: words.next().filter(|w| *w != "-"),
                    slot: words.next().and_then(|w| w.parse().ok()),
                })
            })
            .collect()
    })
    .iter()
    .find(|row| row.name == directive)
}

/// One pragma string of data/pragmas.txt.
#[derive(Debug, Clone)]
pub struct Pragma {
    pub name: &'static str,
    /// The `.version` ptxas asks for.
    pub since: PtxVersion,
    /// `module`, `header`, `body`, `kernel-body`.
    pub places: Vec<&'static str>,
    /// `none`, `integer` or `positive`.
    pub argument: &'static str,
}
