//! The instruction model (plain data) and its construction from parsed data sections.

use std::borrow::Cow;

use crate::datafile::{FactKind, SectionData, SectionRef};
use crate::notation::{parse_form_ref, ElemRef, FormRef, OperandSpec, SetRef};
use crate::target::TargetReq;
use crate::version::PtxVersion;

/// Whether a slot is a fixed literal or one of a named set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotKind {
    /// A literal such as `.sync` (possibly with brace-suffix spellings: `.shared{::cta}`).
    Fixed,
    /// One value of a named set such as `.shape1`.
    Set,
}

/// One qualifier position of a form, in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QualSlot {
    /// As written in the form: `.shape1`, `.sync`, `.shared`.
    pub name: String,
    pub kind: SlotKind,
    pub optional: bool,
    /// Slots of one optional `{.a.b}` group are present or absent together.
    pub group: Option<u16>,
    /// Allowed spellings without the leading dot (`16x64b`, `shared::cta`, `u8.s8`).
    pub values: Vec<String>,
}

impl QualSlot {
    /// Whether this slot accepts `value` (given without leading dot).
    pub fn accepts(&self, value: &str) -> bool {
        self.values.iter().any(|v| v == value)
    }
}

/// Minimum PTX version and targets.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Requirement {
    pub since: PtxVersion,
    pub targets: TargetReq,
    /// `(from version, for targets)`: the feature is no longer accepted there.
    pub removed: Vec<(PtxVersion, TargetReq)>,
}

impl Default for Requirement {
    fn default() -> Self {
        Requirement {
            since: PtxVersion::MIN,
            targets: TargetReq::All,
            removed: Vec::new(),
        }
    }
}

/// Why a requirement is not met by a module's `.version` / `.target`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unmet {
    /// Needs a newer `.version`.
    Version { needed: PtxVersion },
    /// Not supported on the module's targets.
    Target { needed: TargetReq },
    /// Removed from this version on for these targets.
    Removed { since: PtxVersion, on: TargetReq },
}

impl Requirement {
    /// A version and target floor written as text (`"8.6"`, `"sm_100f | sm_110f"`), as the
    /// checker's rule tables give them; text that does not parse imposes nothing.
    pub fn floor(since: &str, targets: &str) -> Requirement {
        Requirement {
            since: PtxVersion::parse(since).unwrap_or(PtxVersion::MIN),
            targets: TargetReq::parse(targets).unwrap_or_default(),
            removed: Vec::new(),
        }
    }

    /// Merge another requirement (both must hold).
    pub fn and(&mut self, other: &Requirement) {
        self.since = self.since.max(other.since);
        self.targets = std::mem::take(&mut self.targets).and(other.targets.clone());
        for r in &other.removed {
            if !self.removed.contains(r) {
                self.removed.push(r.clone());
            }
        }
    }

    /// Check against a module's `.version` and `.target` entries.
    pub fn check(&self, version: PtxVersion, targets: &[&str]) -> Vec<Unmet> {
        let mut out = Vec::new();
        if version < self.since {
            out.push(Unmet::Version { needed: self.since });
        }
        if !targets.is_empty() && !self.targets.satisfied_by_any(targets) {
            out.push(Unmet::Target {
                needed: self.targets.clone(),
            });
        }
        for (v, t) in &self.removed {
            if version >= *v && t.satisfied_by_any(targets) {
                out.push(Unmet::Removed {
                    since: *v,
                    on: t.clone(),
                });
            }
        }
        out
    }
}

/// A requirement that applies when certain qualifiers are used (`add.u16x2`, `.sem`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Feature {
    /// Subject as written in the data (`tcgen05.ld.red`, `.level::cache_hint`).
    pub subject: String,
    /// Qualifier tokens (no dot) or set names (with dot) that must all be used.
    pub pattern: Vec<String>,
    pub since: Option<PtxVersion>,
    pub targets: Option<TargetReq>,
    pub removed: Vec<(PtxVersion, TargetReq)>,
}

impl Feature {
    /// Fold this feature into a requirement.
    pub fn apply_to(&self, req: &mut Requirement) {
        if let Some(v) = self.since {
            req.since = req.since.max(v);
        }
        if let Some(t) = &self.targets {
            req.targets = std::mem::take(&mut req.targets).and(t.clone());
        }
        req.removed.extend(self.removed.iter().cloned());
    }
}

/// One syntax form of an instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Form {
    /// The form in spec notation, e.g. `tcgen05.ld.sync.aligned.shape1.num{.pack}.b32 r, [taddr];`.
    pub syntax: String,
    /// First component (`tcgen05`).
    pub root: String,
    /// Qualifier slots after the root, in order (the opcode's own parts are fixed slots).
    pub qualifier_slots: Vec<QualSlot>,
    pub operands: Vec<OperandSpec>,
    /// Requirement of the form itself (instruction base plus features fixed by this form).
    pub requirement: Requirement,
    /// True for pseudo forms without an opcode (`{ ... }`, `@p instr`).
    pub pseudo: bool,
}

impl Form {
    /// PTX ISA version that introduced this form.
    pub fn since(&self) -> PtxVersion {
        self.requirement.since
    }

    /// Targets that support this form.
    pub fn targets(&self) -> &TargetReq {
        &self.requirement.targets
    }
}

/// One instruction (opcode) of the spec; an opcode described in several sections (integer and
/// floating-point `add`) has one `Instruction` per section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// Full dotted opcode as the spec names it: `add`, `tcgen05.ld`, `mbarrier.try_wait`.
    pub opcode: String,
    /// Spec section number (`9.7.16.8.3`) and anchor in the NVIDIA documentation.
    pub section: String,
    pub anchor: String,
    /// Section heading (facts only: it names the instruction group).
    pub title: String,
    pub forms: Vec<Form>,
    /// Base requirement of the instruction (no qualifier features applied).
    pub requirement: Requirement,
    /// Requirements that apply to particular qualifiers / variants.
    pub features: Vec<Feature>,
    /// Number of version/target facts the generator could not attribute.
    pub unattributed_facts: usize,
    /// The least that any use of the instruction needs: the earliest `since` and the union of
    /// the targets of every fact of its section that applies to it. The merged requirements
    /// above can be too strict where the spec's notes describe later extensions of an older
    /// instruction (`since 8.8 : min` is about the three-input form); a checker that must
    /// not reject valid code uses this floor.
    pub floor: Requirement,
    /// One-line summary in this project's own words, if written.
    pub summary: Option<String>,
}

impl Instruction {
    /// First component of the opcode (`tcgen05` for `tcgen05.ld`).
    pub fn root(&self) -> &str {
        self.opcode.split('.').next().unwrap_or(&self.opcode)
    }

    /// Whether [`Instruction::root`] is `root` (without splitting the opcode).
    pub fn has_root(&self, root: &str) -> bool {
        self.opcode
            .strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    }

    /// PTX ISA version that introduced the instruction.
    pub fn since(&self) -> PtxVersion {
        self.requirement.since
    }

    /// Targets supporting the instruction in its base form.
    pub fn targets(&self) -> &TargetReq {
        &self.requirement.targets
    }
}

fn bare(s: &str) -> &str {
    s.strip_prefix('.').unwrap_or(s)
}

/// The qualifier sets of one section, indexed for the many lookups that resolving its forms
/// makes; resolves each set's values once (a set such as `.type` serves most forms). One is
/// reused from section to section.
#[derive(Default)]
struct SectionSets<'a> {
    /// Bare name (no leading `.`), group, set number; in the order of the groups and their
    /// sets, as [`SectionData::find_set`] searches them.
    names: Vec<(&'a str, usize, usize)>,
    sets: Vec<&'a SetRef<'a>>,
    /// Per set, once resolved: the range of `values` holding its distinct values without dot
    /// or `none`, and whether `none` was among them.
    resolved: Vec<Option<(usize, usize, bool)>>,
    values: Vec<&'a str>,
}

impl<'a> SectionSets<'a> {
    /// Index the sets of `sec`, forgetting the previous section's.
    fn reset(&mut self, sec: &'a SectionRef<'a>) {
        self.names.clear();
        self.sets.clear();
        self.values.clear();
        for (gi, group) in sec.groups.iter().enumerate() {
            for def in &group.sets {
                for n in &def.names {
                    self.names
                        .push((n.trim_start_matches('.'), gi, self.sets.len()));
                }
                self.sets.push(def);
            }
        }
        self.resolved.clear();
        self.resolved.resize(self.sets.len(), None);
    }

    /// The set named `name` (with or without leading `.`), as [`SectionData::find_set`]
    /// finds it: first in `group`, then in any group.
    fn find(&self, group: usize, name: &str) -> Option<usize> {
        let bare = name.trim_start_matches('.');
        // Most names differ in length or last byte: compare those before the bytes.
        let last = bare.as_bytes().last();
        let mut first = None;
        for &(n, g, set) in &self.names {
            if n.len() == bare.len() && n.as_bytes().last() == last && n == bare {
                if g == group {
                    return Some(set);
                }
                first = first.or(Some(set));
            }
        }
        first
    }

    fn def(&self, set: usize) -> &'a SetRef<'a> {
        self.sets[set]
    }

    /// A set's values as slot values: without dot, each once, `none` left out (and reported).
    fn values(&mut self, set: usize) -> (Vec<String>, bool) {
        let (start, end, none) = match self.resolved[set] {
            Some(range) => range,
            None => {
                let start = self.values.len();
                for v in &self.sets[set].values {
                    let v = bare(v);
                    if !self.values[start..].contains(&v) {
                        self.values.push(v);
                    }
                }
                // `.vec = { none, .v2, .v4 }` (suld/sust): `none` means the slot is left out.
                let none = self.values[start..].contains(&"none");
                if let Some(i) = self.values[start..].iter().position(|v| *v == "none") {
                    // Values are distinct: `none` is there once.
                    self.values.remove(start + i);
                }
                let range = (start, self.values.len(), none);
                self.resolved[set] = Some(range);
                range
            }
        };
        let values = self.values[start..end]
            .iter()
            .map(|v| v.to_string())
            .collect();
        (values, none)
    }
}

/// Resolve raw head elements into slots using the section's sets.
fn resolve_slots(
    sets: &mut SectionSets<'_>,
    group: usize,
    elems: &mut Vec<ElemRef<'_>>,
) -> Vec<QualSlot> {
    elems
        .drain(..)
        .map(|e| {
            let set = if e.alts.len() == 1 {
                sets.find(group, e.alts.first())
            } else {
                None
            };
            let (kind, values, none) = match set {
                Some(set) => {
                    let (values, none) = sets.values(set);
                    (SlotKind::Set, values, none)
                }
                None => {
                    let values: Vec<String> = e.alts.iter().map(|a| bare(a).to_string()).collect();
                    // `none` means the slot is left out (as in a set, above).
                    let none = values.iter().any(|v| v == "none");
                    let values = if none {
                        values.into_iter().filter(|v| v != "none").collect()
                    } else {
                        values
                    };
                    (SlotKind::Fixed, values, none)
                }
            };
            QualSlot {
                name: e.alts.into_first(),
                kind,
                optional: e.group.is_some() || none,
                group: e.group,
                values,
            }
        })
        .collect()
}

/// How many opcode components (after the root) a form spells out, if it spells all of them
/// in order (`match.sync` matches `match.any.sync`; `tcgen05.wait` matches `tcgen05.wait::ld`).
fn opcode_match_len(opcode: &str, root: &str, slots: &[QualSlot]) -> Option<usize> {
    let mut comps = opcode.split('.');
    if comps.next() != Some(root) {
        return None;
    }
    let mut it = slots.iter().filter(|s| !s.optional);
    let mut len = 0;
    for c in comps {
        // `c` itself, or `c::suffix`.
        it.find(|slot| {
            slot.values.iter().any(|v| {
                v.strip_prefix(c)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
            })
        })?;
        len += 1;
    }
    Some(len)
}

/// Whether `subject` names an opcode of the section that is longer than `opcode` (itself or
/// one of its qualified uses): such a fact is about that other instruction.
fn names_longer_opcode(sec: &SectionRef<'_>, opcode: &str, subject: &str) -> bool {
    sec.opcodes.iter().any(|o| {
        o != opcode
            && o.len() > opcode.len()
            && subject
                .strip_prefix(o.as_ref())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    })
}

/// Split a subject into (root-or-none, remaining tokens).
fn subject_pattern(subject: &str, opcode: &str) -> Option<Vec<String>> {
    if subject.starts_with('.') || subject.starts_with("::") {
        // Qualifier or set name on its own.
        let toks: Vec<String> = if subject.starts_with("::") {
            vec![subject.to_string()]
        } else {
            subject
                .split('.')
                .filter(|t| !t.is_empty())
                .map(|t| {
                    let mut token = String::with_capacity(t.len() + 1);
                    token.push('.');
                    token.push_str(t);
                    token
                })
                .collect()
        };
        return Some(toks);
    }
    let mut comps = subject.split('.');
    let mut op = opcode.split('.');
    if comps.next() != op.next() {
        // An operand name or a foreign opcode: not expressible as qualifiers.
        return Some(vec![subject.to_string()]);
    }
    for c in op {
        if comps.next() != Some(c) {
            return None;
        }
    }
    Some(comps.map(str::to_string).collect())
}

/// Build instructions from data sections.
pub fn build_instructions(sections: &[SectionData]) -> Vec<Instruction> {
    let refs: Vec<SectionRef<'_>> = sections.iter().map(SectionRef::borrow).collect();
    build_from_refs(&refs)
}

/// [`build_instructions`] from sections that borrow from their data files.
pub(crate) fn build_from_refs(sections: &[SectionRef<'_>]) -> Vec<Instruction> {
    // About one instruction per section: room for them at once.
    let mut out = Vec::with_capacity(sections.len());
    // Reused across forms: the score of each instruction of the section for one form, and
    // the qualifier elements of one form; reused across sections: the index of their sets.
    let mut scores: Vec<Option<usize>> = Vec::new();
    let mut elems: Vec<ElemRef<'_>> = Vec::new();
    let mut sets = SectionSets::default();
    for sec in sections {
        let new_instruction = |opcode: String, forms: Vec<Form>| Instruction {
            opcode,
            section: sec.number.to_string(),
            anchor: sec.anchor.to_string(),
            title: sec.title.to_string(),
            forms,
            requirement: Requirement::default(),
            features: Vec::new(),
            unattributed_facts: 0,
            floor: Requirement::default(),
            summary: None,
        };
        sets.reset(sec);
        // This section's instructions are `out[first..]`.
        let first = out.len();
        // A section of one opcode gives it (nearly) every form: room for them at once.
        let room = if sec.opcodes.len() == 1 {
            sec.groups.iter().map(|g| g.forms.len()).sum()
        } else {
            0
        };
        out.extend(
            sec.opcodes
                .iter()
                .map(|op| new_instruction(op.to_string(), Vec::with_capacity(room))),
        );
        for (gi, group) in sec.groups.iter().enumerate() {
            for text in &group.forms {
                // Some syntax blocks draw a `-----` rule in front of a form; it is not syntax.
                let text = text.trim_start_matches('-').trim_start();
                let Ok(FormRef {
                    root: raw_root,
                    mut operands,
                    pseudo,
                }) = parse_form_ref(text, &mut elems)
                else {
                    continue;
                };
                // `vop.dtype ...` with `vop = { vadd, vsub }`: one form per opcode.
                let set_roots: Option<&[Cow<'_, str>]> = match sets.find(gi, raw_root) {
                    Some(set) if !pseudo => Some(&sets.def(set).values),
                    _ => None,
                };
                let root_count = set_roots.map_or(1, <[Cow<'_, str>]>::len);
                // The slots do not depend on the root: resolve them once, and let the last
                // root take them (and the operands) without a copy.
                let mut slots = resolve_slots(&mut sets, gi, &mut elems);
                for ri in 0..root_count {
                    let root = set_roots.map_or(raw_root, |r| r[ri].as_ref());
                    let last = ri + 1 == root_count;
                    let syntax = if root == raw_root {
                        text.to_string()
                    } else {
                        let mut s = String::with_capacity(root.len() + text.len());
                        s.push_str(root);
                        s.push_str(&text[raw_root.len()..]);
                        s
                    };
                    let form = Form {
                        syntax,
                        root: root.to_string(),
                        qualifier_slots: if last {
                            std::mem::take(&mut slots)
                        } else {
                            slots.clone()
                        },
                        operands: if last {
                            std::mem::take(&mut operands)
                        } else {
                            operands.clone()
                        },
                        requirement: Requirement::default(),
                        pseudo,
                    };
                    scores.clear();
                    scores.extend(out[first..].iter().map(|i| {
                        if pseudo {
                            Some(0)
                        } else {
                            opcode_match_len(&i.opcode, root, &form.qualifier_slots)
                        }
                    }));
                    // Every instruction with the best score gets the form (a pseudo form only
                    // the first); the last one takes it without a copy.
                    let best = scores.iter().flatten().max().copied();
                    let mut chosen = scores
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| best.is_some() && **s == best)
                        .map(|(i, _)| i)
                        .take(if pseudo { 1 } else { usize::MAX })
                        .peekable();
                    if chosen.peek().is_none() {
                        // The heading does not name this opcode: add it as its own instruction.
                        out.push(new_instruction(root.to_string(), vec![form]));
                        continue;
                    }
                    let mut form = Some(form);
                    while let Some(i) = chosen.next() {
                        let placed = if chosen.peek().is_some() {
                            form.clone()
                        } else {
                            form.take()
                        };
                        out[first + i].forms.extend(placed);
                    }
                }
            }
        }
        for inst in &mut out[first..] {
            apply_facts(sec, inst);
        }
    }
    out
}

/// Union of two target requirements (either suffices); `AllOf` parts count as their first part,
/// which only makes the union more permissive.
fn loosest(a: Option<TargetReq>, b: &TargetReq) -> TargetReq {
    use crate::target::TargetAtom;
    fn atoms(t: &TargetReq) -> Option<&[TargetAtom]> {
        match t {
            TargetReq::All => None,
            TargetReq::AnyOf(atoms) => Some(atoms),
            TargetReq::AllOf(parts) => parts.first().and_then(atoms),
        }
    }
    // The same atoms as `atoms`, taken rather than copied.
    fn into_atoms(t: TargetReq) -> Option<Vec<TargetAtom>> {
        match t {
            TargetReq::All => None,
            TargetReq::AnyOf(atoms) => Some(atoms),
            TargetReq::AllOf(parts) => parts.into_iter().next().and_then(into_atoms),
        }
    }
    let Some(a) = a else { return b.clone() };
    match (into_atoms(a), atoms(b)) {
        (Some(mut x), Some(y)) => {
            for atom in y {
                if !x.contains(atom) {
                    x.push(atom.clone());
                }
            }
            TargetReq::AnyOf(x)
        }
        _ => TargetReq::All,
    }
}

fn apply_facts(sec: &SectionRef<'_>, inst: &mut Instruction) {
    let mut floor_since: Option<PtxVersion> = None;
    let mut floor_targets: Option<TargetReq> = None;
    for fact in &sec.facts {
        let applies = fact.subjects.is_empty()
            || fact
                .subjects
                .iter()
                .any(|s| !names_longer_opcode(sec, &inst.opcode, s));
        if applies && !fact.is_unattributed() {
            match &fact.kind {
                FactKind::Since(v) => floor_since = Some(floor_since.map_or(*v, |x| x.min(*v))),
                FactKind::Target(t) => floor_targets = Some(loosest(floor_targets.take(), t)),
                FactKind::Dropped(..) => {}
            }
        }
    }
    inst.floor = Requirement {
        since: floor_since.unwrap_or(PtxVersion::MIN),
        targets: floor_targets.unwrap_or_default(),
        removed: Vec::new(),
    };
    for fact in &sec.facts {
        if fact.is_unattributed() {
            inst.unattributed_facts += 1;
            continue;
        }
        if fact.subjects.is_empty() {
            apply_to_instruction(&fact.kind, "", inst);
            continue;
        }
        for subject in &fact.subjects {
            // A subject naming another opcode of the section does not apply here.
            if names_longer_opcode(sec, &inst.opcode, subject) {
                continue;
            }
            // A subject seen before has its feature (its pattern is not empty: that depends
            // on the subject and opcode alone).
            let feat = match inst.features.iter().position(|f| f.subject == **subject) {
                Some(i) => &mut inst.features[i],
                None => match subject_pattern(subject, &inst.opcode) {
                    None => continue,
                    Some(pattern) if pattern.is_empty() => {
                        apply_to_instruction(&fact.kind, subject, inst);
                        continue;
                    }
                    Some(pattern) => {
                        inst.features.push(Feature {
                            subject: subject.to_string(),
                            pattern,
                            since: None,
                            targets: None,
                            removed: Vec::new(),
                        });
                        inst.features.last_mut().expect("just pushed")
                    }
                },
            };
            match &fact.kind {
                FactKind::Since(v) => feat.since = Some(feat.since.map_or(*v, |x| x.max(*v))),
                FactKind::Target(t) => {
                    feat.targets = Some(match feat.targets.take() {
                        Some(x) => x.and(t.clone()),
                        None => t.clone(),
                    })
                }
                FactKind::Dropped(v, t) => feat.removed.push((*v, t.clone())),
            }
        }
    }
    // Form-level requirements: base plus features that the form's fixed slots always trigger.
    for form in &mut inst.forms {
        let mut req = inst.requirement.clone();
        for f in &inst.features {
            if f.pattern.iter().all(|p| form_fixes(form, p)) {
                f.apply_to(&mut req);
            }
        }
        form.requirement = req;
    }
}

/// Merge a fact about the instruction as a whole (`subject` empty, or the opcode itself) into
/// its base requirement.
fn apply_to_instruction(kind: &FactKind, subject: &str, inst: &mut Instruction) {
    let req = &mut inst.requirement;
    match kind {
        FactKind::Since(v) => {
            req.since = req.since.max(*v);
            // The first `since` without subject is the instruction's introduction.
            if req.since > *v && subject.is_empty() {
                req.since = *v;
            }
        }
        FactKind::Target(t) => {
            // As `Requirement::and` with a requirement of default version.
            req.since = req.since.max(PtxVersion::MIN);
            req.targets = std::mem::take(&mut req.targets).and(t.clone());
        }
        FactKind::Dropped(v, t) => {
            req.since = req.since.max(PtxVersion::MIN);
            let removed = (*v, t.clone());
            if !req.removed.contains(&removed) {
                req.removed.push(removed);
            }
        }
    }
}

/// Whether every use of `form` necessarily includes pattern token `p`.
fn form_fixes(form: &Form, p: &str) -> bool {
    form.qualifier_slots.iter().any(|s| {
        !s.optional && s.kind == SlotKind::Fixed && s.values.len() == 1 && s.values[0] == p
    })
}

/// Whether a used qualifier list (no dots, root excluded) with its slot assignment triggers
/// a feature pattern token.
pub(crate) fn pattern_token_present(token: &str, form: &Form, used: &[(usize, String)]) -> bool {
    if let Some(name) = token.strip_prefix('.') {
        // A set name: any value of that slot used; or a literal written with a dot.
        let by_slot = used
            .iter()
            .any(|(si, _)| bare(&form.qualifier_slots[*si].name) == name);
        return by_slot || used.iter().any(|(_, v)| v == name);
    }
    if token.starts_with("::") {
        return used.iter().any(|(_, v)| v.ends_with(token));
    }
    used.iter()
        .any(|(_, v)| v == token || v.split('.').any(|c| c == token))
}
