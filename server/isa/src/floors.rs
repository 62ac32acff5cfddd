//! Version and target floors of matrix-fragment forms, matched on an instruction's written
//! words (data/fragment-floors.txt). They cover spellings that the syntax blocks do not list,
//! so they are kept apart from the forms' own requirements. Also the qualifier rules
//! (data/qualifier-rules.txt): floors of single qualifiers that ptxas enforces as written.

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

/// One line of a ` ; `-separated data file: its fields, and where it stands for errors.
struct Record<'t> {
    name: &'t str,
    number: usize,
    line: &'t str,
    fields: Vec<&'t str>,
}

impl Record<'_> {
    fn error(&self, why: &str) -> String {
        format!("{}:{}: {why}: `{}`", self.name, self.number, self.line)
    }
}

/// The records of a data file: every line but `#` comments and blank lines, split at ` ; `.
fn records<'t>(name: &'t str, text: &'t str) -> impl Iterator<Item = Record<'t>> {
    text.lines().enumerate().filter_map(move |(n, line)| {
        let line = line.trim();
        (!line.is_empty() && !line.starts_with('#')).then(|| Record {
            name,
            number: n + 1,
            line,
            fields: line.split(" ; ").map(str::trim).collect(),
        })
    })
}

/// Reads data/fragment-floors.txt: `WORDS ; SINCE ; TARGETS ; SECTION ; FEATURE` per line,
/// `#` comment lines and blank lines skipped.
pub(crate) fn parse(name: &str, text: &str) -> Result<Vec<FragmentFloor>, String> {
    let mut out = Vec::new();
    for record in records(name, text) {
        let bad = |why: &str| record.error(why);
        let fields = &record.fields;
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

/// A qualifier rule: an instruction with opcode [`QualifierRule::opcode`] that writes every one
/// of [`QualifierRule::qualifiers`] needs [`QualifierRule::requirement`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QualifierRule {
    /// The whole opcode (`ld`, `tcgen05.mma.sp`, `mbarrier.arrive`).
    pub opcode: String,
    /// The qualifiers that must all be written, without their dots (none: the opcode alone).
    pub qualifiers: Vec<String>,
    pub requirement: Requirement,
    /// The spec section that describes the feature.
    pub section: String,
}

/// Reads data/qualifier-rules.txt: `OPCODE QUALIFIERS... ; SINCE ; TARGETS ; SECTION` per line,
/// then optionally ` ; removed VERSION [TARGETS]` (no longer accepted from that version on, on
/// those targets or on any); `#` comment lines and blank lines skipped.
pub(crate) fn parse_qualifier_rules(name: &str, text: &str) -> Result<Vec<QualifierRule>, String> {
    let mut out = Vec::new();
    for record in records(name, text) {
        let bad = |why: &str| record.error(why);
        let fields = &record.fields;
        let (words, since, targets, section, removal) = match fields[..] {
            [w, s, t, sec] => (w, s, t, sec, None),
            [w, s, t, sec, r] => (w, s, t, sec, Some(r)),
            _ => return Err(bad("expected four or five fields separated by ` ; `")),
        };
        let mut removed = Vec::new();
        if let Some(removal) = removal {
            let mut parts = removal.split_whitespace();
            if parts.next() != Some("removed") {
                return Err(bad("the fifth field is `removed VERSION [TARGETS]`"));
            }
            let version = parts
                .next()
                .and_then(PtxVersion::parse)
                .ok_or_else(|| bad("bad removal version"))?;
            let rest: Vec<&str> = parts.collect();
            let on = if rest.is_empty() {
                TargetReq::All
            } else {
                TargetReq::parse(&rest.join(" ")).ok_or_else(|| bad("bad removal targets"))?
            };
            removed.push((version, on));
        }
        let mut words = words.split_whitespace().map(str::to_owned);
        let opcode = words.next().ok_or_else(|| bad("no opcode"))?;
        let since = PtxVersion::parse(since).ok_or_else(|| bad("bad version"))?;
        let targets = TargetReq::parse(targets).ok_or_else(|| bad("bad targets"))?;
        if section.is_empty() {
            return Err(bad("empty section"));
        }
        out.push(QualifierRule {
            opcode,
            qualifiers: words.collect(),
            requirement: Requirement {
                since,
                targets,
                removed,
            },
            section: section.to_owned(),
        });
    }
    Ok(out)
}

/// Which operand an [`OperandShapeRule`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapePosition {
    /// The last operand.
    Last,
    /// The operand on the `.global` side of a `.dst.src` copy (operand 0 when `.global` is the
    /// only state space).
    GlobalSide,
    /// `call`'s first operand that is not a parenthesised list.
    Callee,
    /// The operand at this index (from 0).
    Index(usize),
}

/// What an operand must be (data/operand-shapes.txt).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandShape {
    /// A 64-bit cache policy: a `.b64`/`.u64`/`.s64` register or an integer constant.
    Policy64,
    /// `[tensorMap, {coordinates}]`: an address with a vector of coordinates.
    TensorCoordinates,
    /// A label (or other name), not a register or constant.
    Label,
    /// An integer constant.
    Constant,
    /// The sink `_`.
    Sink,
    /// A vector of N elements when the instruction has `.vN`, else a single value.
    VectorQualifier,
    /// `call`'s callee: a function name, or a 32- or 64-bit integer register followed (last)
    /// by the name of a prototype or of a `.calltargets` list.
    Callee,
    /// A 32-bit integer or bit-size register (`.b32`, `.u32`, `.s32`).
    Register32,
    /// An address held (if in a register) in a 32- or 64-bit register, not an 8- or 16-bit one.
    WideAddress,
}

/// A row of data/operand-shapes.txt: an instruction whose words start with
/// [`OperandShapeRule::opcode`] and that has [`OperandShapeRule::when`] must have
/// [`OperandShapeRule::shape`] at [`OperandShapeRule::position`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandShapeRule {
    /// The opcode's first words; empty for every opcode.
    pub opcode: Vec<String>,
    /// A qualifier (without its dot) the rule needs.
    pub when: Option<String>,
    pub position: ShapePosition,
    pub shape: OperandShape,
    /// The spec section; `None` for the section of the instruction's form.
    pub section: Option<String>,
}

/// Reads data/operand-shapes.txt: `OPCODE ; WHEN ; POSITION ; SHAPE ; SECTION` per line.
pub(crate) fn parse_operand_shapes(
    name: &str,
    text: &str,
) -> Result<Vec<OperandShapeRule>, String> {
    let mut out = Vec::new();
    for record in records(name, text) {
        let bad = |why: &str| record.error(why);
        let fields = &record.fields;
        let [opcode, when, position, shape, section] = fields[..] else {
            return Err(bad("expected five fields separated by ` ; `"));
        };
        let dash = |f: &str| (f != "-").then(|| f.to_owned());
        let opcode = match opcode {
            "*" => Vec::new(),
            _ => opcode.split('.').map(str::to_owned).collect(),
        };
        if opcode.iter().any(String::is_empty) {
            return Err(bad("empty opcode word"));
        }
        let position = match position {
            "last" => ShapePosition::Last,
            "global-side" => ShapePosition::GlobalSide,
            "callee" => ShapePosition::Callee,
            i => ShapePosition::Index(i.parse().map_err(|_| bad("bad position"))?),
        };
        let shape = match shape {
            "policy64" => OperandShape::Policy64,
            "tensor-coordinates" => OperandShape::TensorCoordinates,
            "label" => OperandShape::Label,
            "constant" => OperandShape::Constant,
            "sink" => OperandShape::Sink,
            "vector-qualifier" => OperandShape::VectorQualifier,
            "callee" => OperandShape::Callee,
            "register32" => OperandShape::Register32,
            "wide-address" => OperandShape::WideAddress,
            _ => return Err(bad("unknown shape")),
        };
        out.push(OperandShapeRule {
            opcode,
            when: dash(when),
            position,
            shape,
            section: dash(section),
        });
    }
    Ok(out)
}

/// One class of compared types of `set`/`setp` and the operators it takes
/// (data/comparisons.txt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComparisonClass {
    /// `bits`, `signed`, `unsigned`, `float`, `half`, or `ftz` (the types `.ftz` flushes).
    pub class: String,
    pub types: Vec<String>,
    /// The spec sections of `set` and of `setp` for this class.
    pub sections: [String; 2],
    pub operators: Vec<String>,
    /// What the class takes, in words (for messages).
    pub takes: String,
}

/// Reads data/comparisons.txt: `CLASS ; TYPES ; SET-SECTION SETP-SECTION ; OPERATORS ; WORDS`.
pub(crate) fn parse_comparisons(name: &str, text: &str) -> Result<Vec<ComparisonClass>, String> {
    let mut out = Vec::new();
    for record in records(name, text) {
        let bad = |why: &str| record.error(why);
        let [class, types, sections, operators, takes] = record.fields[..] else {
            return Err(bad("expected five fields separated by ` ; `"));
        };
        let words = |f: &str| -> Vec<String> {
            f.split_whitespace()
                .filter(|w| *w != "-")
                .map(str::to_owned)
                .collect()
        };
        let [set, setp] = sections.split_whitespace().collect::<Vec<_>>()[..] else {
            return Err(bad("expected two sections"));
        };
        let types = words(types);
        if class.is_empty() || types.is_empty() {
            return Err(bad("empty class or types"));
        }
        out.push(ComparisonClass {
            class: class.to_owned(),
            types,
            sections: [set.to_owned(), setp.to_owned()],
            operators: words(operators),
            takes: takes.to_owned(),
        });
    }
    Ok(out)
}

/// The operand forms of data/operand-forms.txt: which instructions take a sink destination or
/// a variable's name as a plain operand.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperandForms {
    /// Opcodes (first words joined by dots) whose whole destination may be `_`.
    pub sink_destination: Vec<String>,
    /// Opcodes that take a variable's name as a plain operand (its address).
    pub variable_operand: Vec<String>,
    /// Operands that refuse forms the instruction type's operand typing would take.
    pub refusals: Vec<OperandRefusal>,
}

/// A form of operand that [`OperandRefusal`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusedForm {
    /// A `.f16x2` register.
    HalfPair,
    /// A function's name (its address).
    Function,
    /// An address expression, a variable's name plus or minus a constant (`v+4`).
    AddressExpression,
    /// An integer constant, or a constant expression of integers (`-1`).
    Integer,
    /// A negated predicate (`!p`).
    Negation,
}

impl RefusedForm {
    fn parse(word: &str) -> Option<RefusedForm> {
        Some(match word {
            "half-pair" => RefusedForm::HalfPair,
            "function" => RefusedForm::Function,
            "address-expression" => RefusedForm::AddressExpression,
            "integer" => RefusedForm::Integer,
            "negation" => RefusedForm::Negation,
            _ => return None,
        })
    }
}

/// A `refuses` line of data/operand-forms.txt: the operands at [`OperandRefusal::operands`] of
/// an instruction whose words start with [`OperandRefusal::opcode`] and that has every
/// qualifier of [`OperandRefusal::when`] refuse [`OperandRefusal::forms`], on targets below
/// [`OperandRefusal::below`] when it is set, else on every target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperandRefusal {
    pub opcode: Vec<String>,
    pub when: Vec<String>,
    pub operands: Vec<usize>,
    pub forms: Vec<RefusedForm>,
    /// The sm number (`90` for `below sm_90`) from which on the rule no longer holds.
    pub below: Option<u32>,
}

impl OperandRefusal {
    /// Whether the rule is about the instruction `words` (`["bar", "red", "popc", "u32"]`).
    pub fn matches(&self, words: &[&str]) -> bool {
        words.len() >= self.opcode.len()
            && self.opcode.iter().zip(words).all(|(a, b)| a == b)
            && self.when.iter().all(|q| words[1..].contains(&q.as_str()))
    }

    /// Whether the rule holds on a target of this sm number (`None`: no architecture target).
    pub fn holds_on(&self, sm: Option<u32>) -> bool {
        match (self.below, sm) {
            (None, _) => true,
            (Some(below), Some(sm)) => sm < below,
            (Some(_), None) => false,
        }
    }
}

impl OperandForms {
    fn listed(list: &[String], words: &[&str]) -> bool {
        list.iter().any(|entry| starts_with_opcode(words, entry))
    }

    /// Whether the instruction `words` (`["mbarrier", "arrive", "shared", "b64"]`) may discard
    /// its whole result with `_`.
    pub fn sink_destination(&self, words: &[&str]) -> bool {
        Self::listed(&self.sink_destination, words)
    }

    /// Whether the instruction `words` takes a variable's name as a plain operand.
    pub fn variable_operand(&self, words: &[&str]) -> bool {
        Self::listed(&self.variable_operand, words)
    }
}

/// Reads data/operand-forms.txt.
pub(crate) fn parse_operand_forms(name: &str, text: &str) -> Result<OperandForms, String> {
    let mut out = OperandForms::default();
    for record in records(name, text) {
        let words = |f: &str| -> Vec<String> { f.split_whitespace().map(str::to_owned).collect() };
        match record.fields[..] {
            ["sink-destination", list] => out.sink_destination.extend(words(list)),
            ["variable-operand", list] => out.variable_operand.extend(words(list)),
            ["refuses", opcode, when, operands, forms, targets] => {
                let bad = |why: &str| record.error(why);
                let opcode: Vec<String> = opcode.split('.').map(str::to_owned).collect();
                if opcode.iter().any(String::is_empty) {
                    return Err(bad("empty opcode word"));
                }
                let when = if when == "-" { Vec::new() } else { words(when) };
                let operands = operands
                    .split_whitespace()
                    .map(|i| i.parse().map_err(|_| bad("bad operand index")))
                    .collect::<Result<Vec<usize>, String>>()?;
                let forms = forms
                    .split_whitespace()
                    .map(|f| RefusedForm::parse(f).ok_or_else(|| bad("unknown form")))
                    .collect::<Result<Vec<RefusedForm>, String>>()?;
                if operands.is_empty() || forms.is_empty() {
                    return Err(bad("no operands or no forms"));
                }
                let below = match targets {
                    "all" => None,
                    t => Some(
                        t.strip_prefix("below sm_")
                            .and_then(|n| n.parse().ok())
                            .ok_or_else(|| bad("expected `all` or `below sm_NN`"))?,
                    ),
                };
                out.refusals.push(OperandRefusal {
                    opcode,
                    when,
                    operands,
                    forms,
                    below,
                });
            }
            _ => {
                return Err(record.error(
                    "expected `sink-destination ; OPCODES`, `variable-operand ; OPCODES` or `refuses ; OPCODE ; WHEN ; OPERANDS ; FORMS ; TARGETS`",
                ))
            }
        }
    }
    Ok(out)
}

/// The memory qualifier combinations of data/memory-combinations.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryCombinations {
    /// Cache qualifiers (without their dot) that only `.global` or a generic address takes; a
    /// trailing `*` matches any ending.
    pub global_cache: Vec<String>,
    /// (opcodes, most bits of a vector, whether only the non-`.async` forms), first match
    /// applies.
    pub vector_limits: Vec<(Vec<String>, u32, bool)>,
    /// (opcode, spec section) of the memory instructions' combination rules.
    pub sections: Vec<(String, String)>,
    /// Instructions whose memory order and scope come together.
    pub order_with_scope: Vec<OrderWithScope>,
    /// Operands that are one integer constant only.
    pub fixed_operands: Vec<FixedOperand>,
    /// (opcode, spec section) of the instructions whose address is an image and its
    /// coordinates.
    pub image_address: Vec<(String, String)>,
    /// Instructions whose cache-policy operand comes last, after a given one.
    pub policy_after: Vec<PolicyAfter>,
    /// Where a last operand is a cache policy that needs `.L2::cache_hint`.
    pub policy_operands: Vec<PolicyOperand>,
    /// Qualifiers that need data of given vector and element sizes.
    pub wide_qualifiers: Vec<WideQualifier>,
    /// State spaces other than `.global` that an instruction may name (the part before any
    /// `::`).
    pub explicit_spaces: Vec<String>,
    /// What an explicit state space rules out.
    pub space_rules: Vec<SpaceRule>,
    /// Words that other words of an instruction rule out.
    pub rules_out: Vec<RulesOut>,
}

/// A `rules-out` line of data/memory-combinations.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RulesOut {
    /// Opcodes, their first words joined by dots (`st.async`).
    pub opcodes: Vec<String>,
    /// Words the instruction has, every one.
    pub with: Vec<String>,
    /// Words the instruction lacks, every one.
    pub without: Vec<String>,
    /// The words ruled out.
    pub words: Vec<String>,
    /// The message, with `{word}` for the word ruled out, `{opcode}` for the listed opcode and
    /// `{instruction}` for the instruction's whole opcode.
    pub message: String,
}

/// A `space-rule` line of data/memory-combinations.txt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpaceRule {
    pub opcodes: Vec<String>,
    /// The spaces it applies to, without `::` sub-spaces (`shared` for `.shared::cta` too).
    pub spaces: Vec<String>,
    /// Words whose forms it leaves alone.
    pub unless: Vec<String>,
    pub check: SpaceCheck,
}

/// What a [`SpaceRule`] rules out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpaceCheck {
    /// These memory-order words.
    Order(Vec<String>),
    /// Data of these (vector word, element bits) sizes.
    Wide(Vec<(String, u32)>),
    /// A `.unified` address.
    Unified,
}

/// A `wide-qualifier` line of data/memory-combinations.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WideQualifier {
    pub opcodes: Vec<String>,
    /// The qualifier without its dot; a trailing `*` matches any ending.
    pub qualifier: String,
    /// (vector word, element bits) pairs that make the data wide enough (`v8`, 32).
    pub widths: Vec<(String, u32)>,
}

impl WideQualifier {
    /// Whether `word` is this rule's qualifier.
    pub fn matches(&self, word: &str) -> bool {
        match self.qualifier.strip_suffix('*') {
            Some(prefix) => word.starts_with(prefix),
            None => word == self.qualifier,
        }
    }
}

/// A `policy-operand` line of data/memory-combinations.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyOperand {
    pub opcodes: Vec<String>,
    /// The policy's operand index (from 0) when it is the last operand.
    pub index: usize,
    /// Words whose forms take an operand there that is no policy.
    pub unless: Vec<String>,
}

/// A `policy-after` line of data/memory-combinations.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyAfter {
    /// Opcodes, their first words joined by dots (`cp.async.ca`).
    pub opcodes: Vec<String>,
    /// The operand the policy follows (from 0).
    pub after: usize,
    /// The last operand's index, which without `.L2::cache_hint` is no policy.
    pub last: usize,
    pub section: String,
}

/// A `order-with-scope` line of data/memory-combinations.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderWithScope {
    /// Opcodes, their first words joined by dots (`multimem.st`).
    pub opcodes: Vec<String>,
    pub orders: Vec<String>,
    pub scopes: Vec<String>,
    pub section: String,
}

/// A `fixed-operand` line of data/memory-combinations.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FixedOperand {
    /// The opcode's first words joined by dots (`cp.async.cg`).
    pub opcode: String,
    pub index: usize,
    pub value: u64,
    pub section: String,
}

/// Whether the instruction `words` starts with the dot-joined `opcode`.
fn starts_with_opcode(words: &[&str], opcode: &str) -> bool {
    let mut words = words.iter();
    opcode
        .split('.')
        .all(|part| words.next().is_some_and(|word| *word == part))
}

impl MemoryCombinations {
    /// The spec section of `opcode`'s combination rules (`ld` → 9.7.9.8).
    pub fn section(&self, opcode: &str) -> Option<&str> {
        self.sections
            .iter()
            .find(|(o, _)| o == opcode)
            .map(|(_, s)| s.as_str())
    }

    /// The section of `opcode` if its address operand is an image and its coordinates
    /// (`tex` → 9.7.10.3).
    pub fn image_address(&self, opcode: &str) -> Option<&str> {
        self.image_address
            .iter()
            .find(|(o, _)| o == opcode)
            .map(|(_, s)| s.as_str())
    }

    /// The cache-policy rule of the instruction `words`, if it has one.
    pub fn policy_after(&self, words: &[&str]) -> Option<&PolicyAfter> {
        self.policy_after
            .iter()
            .find(|r| r.opcodes.iter().any(|o| starts_with_opcode(words, o)))
    }

    /// The cache-policy operand rule of `opcode`, if it has one.
    pub fn policy_operand(&self, opcode: &str) -> Option<&PolicyOperand> {
        self.policy_operands
            .iter()
            .find(|r| r.opcodes.iter().any(|o| o == opcode))
    }

    /// The wide-qualifier rules of `opcode`.
    pub fn wide_qualifiers<'s>(
        &'s self,
        opcode: &'s str,
    ) -> impl Iterator<Item = &'s WideQualifier> + 's {
        self.wide_qualifiers
            .iter()
            .filter(move |r| r.opcodes.iter().any(|o| o == opcode))
    }

    /// The order-and-scope rule of the instruction `words`, if it has one.
    pub fn order_with_scope(&self, words: &[&str]) -> Option<&OrderWithScope> {
        self.order_with_scope
            .iter()
            .find(|r| r.opcodes.iter().any(|o| starts_with_opcode(words, o)))
    }

    /// The fixed operands of the instruction `words`.
    pub fn fixed_operands<'s>(
        &'s self,
        words: &'s [&'s str],
    ) -> impl Iterator<Item = &'s FixedOperand> + 's {
        self.fixed_operands
            .iter()
            .filter(move |f| starts_with_opcode(words, &f.opcode))
    }

    /// The first of the instruction `words` after the opcode that names a state space other
    /// than `.global` (`shared::cta`), if any.
    pub fn explicit_space<'w>(&self, words: &[&'w str]) -> Option<&'w str> {
        words.iter().skip(1).copied().find(|w| {
            let base = w.split("::").next().unwrap_or(w);
            self.explicit_spaces.iter().any(|s| s == base)
        })
    }

    /// The space rules of `opcode` that apply to the explicit state space `space`.
    pub fn space_rules<'s>(
        &'s self,
        opcode: &'s str,
        space: &'s str,
    ) -> impl Iterator<Item = &'s SpaceRule> + 's {
        let base = space.split("::").next().unwrap_or(space);
        self.space_rules.iter().filter(move |r| {
            r.opcodes.iter().any(|o| o == opcode) && r.spaces.iter().any(|s| s == base)
        })
    }

    /// The `rules-out` lines that apply to the instruction `words` (every `with` word and no
    /// `without` word among them), each with the listed opcode it has and that opcode's section.
    pub fn rules_out<'s>(
        &'s self,
        words: &'s [&'s str],
    ) -> impl Iterator<Item = (&'s RulesOut, &'s str, &'s str)> + 's {
        self.rules_out.iter().filter_map(move |r| {
            let opcode = r.opcodes.iter().find(|o| starts_with_opcode(words, o))?;
            let has = |w: &String| words.contains(&w.as_str());
            if !r.with.iter().all(has) || r.without.iter().any(has) {
                return None;
            }
            Some((r, opcode.as_str(), self.section(opcode).unwrap_or_default()))
        })
    }

    /// Whether `word` is a cache qualifier of `.global` only.
    pub fn global_cache(&self, word: &str) -> bool {
        self.global_cache.iter().any(|q| match q.strip_suffix('*') {
            Some(prefix) => word.starts_with(prefix),
            None => word == q,
        })
    }

    /// The most bits a vector of `opcode` holds, if it is limited.
    pub fn vector_limit(&self, opcode: &str, is_async: bool) -> Option<u32> {
        self.vector_limits
            .iter()
            .find(|(ops, _, sync_only)| {
                ops.iter().any(|o| o == opcode) && !(*sync_only && is_async)
            })
            .map(|(_, bits, _)| *bits)
    }
}

/// `v8.32 v4.64`: (vector word, element bits) pairs.
fn vector_widths(text: &str) -> Result<Vec<(String, u32)>, &'static str> {
    let mut pairs = Vec::new();
    for pair in text.split_whitespace() {
        let (vector, bits) = pair.split_once('.').ok_or("expected VECTOR.BITS")?;
        let bits = bits.parse().map_err(|_| "bad bit count")?;
        pairs.push((vector.to_owned(), bits));
    }
    Ok(pairs)
}

/// Reads data/memory-combinations.txt.
pub(crate) fn parse_memory_combinations(
    name: &str,
    text: &str,
) -> Result<MemoryCombinations, String> {
    let mut out = MemoryCombinations::default();
    for record in records(name, text) {
        let bad = |why: &str| record.error(why);
        let words = |f: &str| -> Vec<String> { f.split_whitespace().map(str::to_owned).collect() };
        match record.fields[..] {
            ["global-cache", list] => out.global_cache.extend(words(list)),
            ["vector-limit", ops, bits, forms] => {
                let bits = bits.parse().map_err(|_| bad("bad bit count"))?;
                let sync_only = match forms {
                    "sync" => true,
                    "any" => false,
                    _ => return Err(bad("expected `sync` or `any`")),
                };
                out.vector_limits.push((words(ops), bits, sync_only));
            }
            ["section", opcode, section] => {
                out.sections.push((opcode.to_owned(), section.to_owned()));
            }
            ["order-with-scope", opcodes, orders, scopes, section] => {
                out.order_with_scope.push(OrderWithScope {
                    opcodes: words(opcodes),
                    orders: words(orders),
                    scopes: words(scopes),
                    section: section.to_owned(),
                });
            }
            ["fixed-operand", opcode, index, value, section] => {
                out.fixed_operands.push(FixedOperand {
                    opcode: opcode.to_owned(),
                    index: index.parse().map_err(|_| bad("bad operand index"))?,
                    value: value.parse().map_err(|_| bad("bad value"))?,
                    section: section.to_owned(),
                });
            }
            ["image-address", opcode, section] => {
                out.image_address
                    .push((opcode.to_owned(), section.to_owned()));
            }
            ["policy-after", opcodes, after, last, section] => {
                out.policy_after.push(PolicyAfter {
                    opcodes: words(opcodes),
                    after: after.parse().map_err(|_| bad("bad operand index"))?,
                    last: last.parse().map_err(|_| bad("bad operand index"))?,
                    section: section.to_owned(),
                });
            }
            ["policy-operand", opcodes, index, unless] => {
                out.policy_operands.push(PolicyOperand {
                    opcodes: words(opcodes),
                    index: index.parse().map_err(|_| bad("bad operand index"))?,
                    unless: if unless == "-" { Vec::new() } else { words(unless) },
                });
            }
            ["wide-qualifier", opcodes, qualifier, widths] => {
                out.wide_qualifiers.push(WideQualifier {
                    opcodes: words(opcodes),
                    qualifier: qualifier.to_owned(),
                    widths: vector_widths(widths).map_err(bad)?,
                });
            }
            ["rules-out", opcodes, with, without, ruled_out, message] => {
                let list = |f: &str| if f == "-" { Vec::new() } else { words(f) };
                out.rules_out.push(RulesOut {
                    opcodes: words(opcodes),
                    with: list(with),
                    without: list(without),
                    words: words(ruled_out),
                    message: message.to_owned(),
                });
            }
            ["explicit-space", spaces] => out.explicit_spaces.extend(words(spaces)),
            ["space-rule", opcodes, spaces, unless, check, arguments] => {
                let check = match (check, arguments) {
                    ("order", orders) => SpaceCheck::Order(words(orders)),
                    ("wide", widths) => {
                        SpaceCheck::Wide(vector_widths(widths).map_err(bad)?)
                    }
                    ("unified", "-") => SpaceCheck::Unified,
                    _ => return Err(bad("expected `order WORDS`, `wide VECTOR.BITS ...` or `unified -`")),
                };
                out.space_rules.push(SpaceRule {
                    opcodes: words(opcodes),
                    spaces: words(spaces),
                    unless: if unless == "-" { Vec::new() } else { words(unless) },
                    check,
                });
            }
            _ => {
                return Err(bad(
                    "expected `global-cache ; WORDS`, `vector-limit ; OPCODES ; BITS ; sync|any`, `section ; OPCODE ; SECTION`, `order-with-scope ; OPCODES ; ORDERS ; SCOPES ; SECTION`, `fixed-operand ; OPCODE ; INDEX ; VALUE ; SECTION`, `image-address ; OPCODE ; SECTION`, `policy-after ; OPCODES ; INDEX ; LAST ; SECTION`, `policy-operand ; OPCODES ; INDEX ; UNLESS-WORDS|-`, `wide-qualifier ; OPCODES ; QUALIFIER ; VECTOR.BITS ...`, `explicit-space ; SPACES`, `space-rule ; OPCODES ; SPACES ; UNLESS-WORDS|- ; CHECK ; ARGUMENTS` or `rules-out ; OPCODES ; WITH|- ; WITHOUT|- ; WORDS ; MESSAGE`",
                ))
            }
        }
    }
    // A `rules-out` message cites its opcode's section.
    for rule in &out.rules_out {
        if let Some(opcode) = rule.opcodes.iter().find(|o| out.section(o).is_none()) {
            return Err(format!("{name}: no `section` line for `{opcode}`"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_memory_combinations_parse() {
        let m = parse_memory_combinations(
            "memory-combinations.txt",
            include_str!("../data/memory-combinations.txt"),
        )
        .expect("parses");
        assert_eq!(m.section("red"), Some("9.7.13.6"));
        assert_eq!(m.section("mov"), None);
        let rule = m
            .order_with_scope(&["multimem", "ld_reduce", "relaxed", "global", "add", "u32"])
            .expect("multimem.ld_reduce");
        assert_eq!(rule.scopes, ["cta", "cluster", "gpu", "sys"]);
        assert!(m
            .order_with_scope(&["ld", "relaxed", "gpu", "u32"])
            .is_none());
        let fixed: Vec<_> = m
            .fixed_operands(&["cp", "async", "cg", "shared", "global"])
            .collect();
        assert_eq!((fixed.len(), fixed[0].index, fixed[0].value), (1, 2, 16));
        let err =
            parse_memory_combinations("m.txt", "fixed-operand ; cp.async.cg ; two ; 16 ; 1\n")
                .unwrap_err();
        assert!(err.starts_with("m.txt:1: bad operand index"), "{err}");
        assert_eq!(m.image_address("sured"), Some("9.7.11.3"));
        assert_eq!(m.image_address("ld"), None);
        let err = parse_memory_combinations("m.txt", "image-address ; tex\n").unwrap_err();
        assert!(err.starts_with("m.txt:1: expected"), "{err}");
        let policy = m
            .policy_after(&["cp", "async", "ca", "shared", "global"])
            .expect("cp.async.ca");
        assert_eq!((policy.after, policy.last), (2, 4));
        assert!(m.policy_after(&["cp", "async", "bulk"]).is_none());
        let atom = m.policy_operand("atom").expect("atom");
        assert_eq!((atom.index, atom.unless.len()), (3, 5));
        assert!(m.policy_operand("st").is_some_and(|r| r.unless.is_empty()));
        assert!(m.policy_operand("mov").is_none());
        let wide: Vec<_> = m.wide_qualifiers("st").collect();
        assert_eq!(wide.len(), 1);
        assert!(wide[0].matches("L2::evict_last") && !wide[0].matches("L2::cache_hint"));
        assert_eq!(
            wide[0].widths,
            [("v8".to_owned(), 32), ("v4".to_owned(), 64)]
        );
        assert_eq!(m.wide_qualifiers("atom").count(), 0);
        let err = parse_memory_combinations("m.txt", "wide-qualifier ; ld ; L2::evict_* ; v8\n")
            .unwrap_err();
        assert!(err.starts_with("m.txt:1: expected VECTOR.BITS"), "{err}");
        let err = parse_memory_combinations("m.txt", "policy-after ; cp.async.ca ; 2 ; x ; 1\n")
            .unwrap_err();
        assert!(err.starts_with("m.txt:1: bad operand index"), "{err}");
        assert_eq!(
            m.explicit_space(&["ld", "relaxed", "gpu", "shared::cta", "u32"]),
            Some("shared::cta")
        );
        assert_eq!(m.explicit_space(&["ld", "global", "u32"]), None);
        assert_eq!(m.explicit_space(&["local", "u32"]), None);
        let checks = |op, space| -> Vec<&SpaceCheck> {
            m.space_rules(op, space).map(|r| &r.check).collect()
        };
        assert_eq!(
            checks("st", "local"),
            [
                &SpaceCheck::Order(vec!["acquire".to_owned(), "release".to_owned()]),
                &SpaceCheck::Wide(vec![("v8".to_owned(), 32), ("v4".to_owned(), 64)]),
                &SpaceCheck::Unified
            ]
        );
        assert_eq!(checks("ld", "shared::cluster").len(), 2);
        assert!(checks("atom", "shared").is_empty());
        assert!(m.space_rules("ld", "param").all(|r| r.unless == ["bulk"]));
        let err =
            parse_memory_combinations("m.txt", "space-rule ; ld ; local ; - ; unified ; v2\n")
                .unwrap_err();
        assert!(err.starts_with("m.txt:1: expected `order WORDS`"), "{err}");
        let err = parse_memory_combinations("m.txt", "space-rule ; ld ; local ; - ; wide ; v2.x\n")
            .unwrap_err();
        assert!(err.starts_with("m.txt:1: bad bit count"), "{err}");
        let words = [
            "red", "async", "mmio", "release", "gpu", "global", "add", "u32",
        ];
        // The two `.mmio` lines and the `.global` one; `.release` without `.mmio` does not apply.
        let rules: Vec<_> = m.rules_out(&words).collect();
        assert_eq!(rules.len(), 3, "{rules:?}");
        assert!(rules
            .iter()
            .all(|(_, opcode, section)| (*opcode, *section) == ("red.async", "9.7.13.7")));
        assert_eq!(rules[1].0.words, ["cta", "cluster", "gpu"]);
        let words = ["st", "async", "release", "cluster", "global", "b32"];
        let rules: Vec<_> = m.rules_out(&words).map(|(r, _, _)| &r.words).collect();
        assert_eq!(rules, [&["cluster"], &["mbarrier::complete_tx::bytes"]]);
        assert_eq!(m.rules_out(&["st", "global", "mmio", "b32"]).count(), 0);
        let err =
            parse_memory_combinations("m.txt", "rules-out ; st.async ; - ; - ; weak ; `.{word}`\n")
                .unwrap_err();
        assert_eq!(err, "m.txt: no `section` line for `st.async`");
    }

    #[test]
    fn the_embedded_operand_forms_parse() {
        let forms = parse_operand_forms(
            "operand-forms.txt",
            include_str!("../data/operand-forms.txt"),
        )
        .expect("parses");
        assert!(forms.sink_destination(&["mbarrier", "arrive", "shared", "b64"]));
        assert!(forms.sink_destination(&["atom", "global", "add", "u32"]));
        assert!(!forms.sink_destination(&["mbarrier", "test_wait", "shared", "b64"]));
        assert!(forms.variable_operand(&["cvta", "global", "u64"]));
        assert!(!forms.variable_operand(&["cvta", "to", "global", "u64"]));
        assert!(!forms.variable_operand(&["add", "s32"]));
        let err = parse_operand_forms("f.txt", "# c\nsink ; atom\n").unwrap_err();
        assert!(err.starts_with("f.txt:2: expected"), "{err}");
        let bar = ["bar", "red", "popc", "u32"];
        let refused: Vec<_> = forms.refusals.iter().filter(|r| r.matches(&bar)).collect();
        assert!(refused
            .iter()
            .any(|r| r.operands == [1] && r.forms.contains(&RefusedForm::HalfPair)));
        let shfl = forms
            .refusals
            .iter()
            .find(|r| r.matches(&["shfl", "sync", "idx", "b32"]) && r.below.is_some())
            .expect("shfl's rule below sm_90");
        assert!(shfl.holds_on(Some(80)) && !shfl.holds_on(Some(90)) && !shfl.holds_on(None));
        let err =
            parse_operand_forms("f.txt", "refuses ; bar ; - ; x ; half-pair ; all\n").unwrap_err();
        assert!(err.starts_with("f.txt:1: bad operand index"), "{err}");
        let err =
            parse_operand_forms("f.txt", "refuses ; bar ; - ; 0 ; register ; all\n").unwrap_err();
        assert!(err.starts_with("f.txt:1: unknown form"), "{err}");
        let err =
            parse_operand_forms("f.txt", "refuses ; bar ; - ; 0 ; function ; sm_90\n").unwrap_err();
        assert!(err.starts_with("f.txt:1: expected `all`"), "{err}");
    }

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
    fn the_embedded_qualifier_rules_parse() {
        let rules = parse_qualifier_rules(
            "qualifier-rules.txt",
            include_str!("../data/qualifier-rules.txt"),
        )
        .expect("parses");
        assert!(rules.len() >= 110, "{} rules", rules.len());
        let cp_async = rules
            .iter()
            .find(|r| r.opcode == "cp.async")
            .expect("cp.async");
        assert!(cp_async.qualifiers.is_empty());
        assert_eq!(cp_async.requirement.since, PtxVersion::new(7, 0));
        let tf32 = rules
            .iter()
            .find(|r| r.qualifiers == ["rn", "satfinite", "tf32"])
            .expect("cvt.rn.satfinite.tf32");
        assert_eq!(
            (tf32.opcode.as_str(), tf32.section.as_str()),
            ("cvt", "9.7.9.21")
        );
        let satfinite = rules
            .iter()
            .find(|r| r.opcode == "wmma.mma" && r.qualifiers == ["satfinite", "f16"])
            .expect("wmma.mma.satfinite.f16");
        assert_eq!(
            satfinite.requirement.removed,
            [(PtxVersion::new(6, 5), TargetReq::All)]
        );
        let err = parse_qualifier_rules("q.txt", "ld cluster ; 7.8 ; sm_90+\n").unwrap_err();
        assert!(
            err.starts_with("q.txt:1: expected four or five fields"),
            "{err}"
        );
        let err = parse_qualifier_rules("q.txt", "ld cluster ; 7.8 ; sm_90+ ; 1 ; gone 9.0\n")
            .unwrap_err();
        assert!(err.starts_with("q.txt:1: the fifth field"), "{err}");
        let err =
            parse_qualifier_rules("q.txt", "# c\nld cluster ; 7.8 ; nonsense!! ; 1\n").unwrap_err();
        assert!(err.starts_with("q.txt:2: bad targets"), "{err}");
    }

    #[test]
    fn the_embedded_operand_shapes_parse() {
        let rules = parse_operand_shapes(
            "operand-shapes.txt",
            include_str!("../data/operand-shapes.txt"),
        )
        .expect("parses");
        assert_eq!(rules.len(), 21);
        assert_eq!(
            rules[0],
            OperandShapeRule {
                opcode: Vec::new(),
                when: Some("L2::cache_hint".to_owned()),
                position: ShapePosition::Last,
                shape: OperandShape::Policy64,
                section: None,
            }
        );
        let brx = rules
            .iter()
            .find(|r| r.opcode == ["brx", "idx"])
            .expect("brx.idx");
        assert_eq!(brx.position, ShapePosition::Index(1));
        assert_eq!(brx.section.as_deref(), Some("9.7.12.4"));
        let err = parse_operand_shapes("s.txt", "bra ; - ; first ; label ; 1\n").unwrap_err();
        assert!(err.starts_with("s.txt:1: bad position"), "{err}");
        let err = parse_operand_shapes("s.txt", "bra ; - ; 0 ; round ; 1\n").unwrap_err();
        assert!(err.starts_with("s.txt:1: unknown shape"), "{err}");
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
