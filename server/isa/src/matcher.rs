//! Matching a written opcode (`ld.global.v4.f32`) against the forms of the knowledge base,
//! with structured failure reasons, and "which qualifiers may come next" for completion.

use crate::model::{pattern_token_present, Form, Instruction, QualSlot, Requirement};
use crate::Isa;

/// A successful match of a qualifier list against one form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormMatch<'a> {
    pub instruction: &'a Instruction,
    pub form: &'a Form,
    /// `(slot index, value)` for each used slot, in order; values without dots.
    pub used: Vec<(usize, String)>,
    /// Requirement of this use: the form's plus every feature its qualifiers trigger.
    pub requirement: Requirement,
}

/// Why a qualifier list matches no form. Indices refer to the caller's token list
/// (index 0 is the opcode root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// No instruction has this first component.
    UnknownOpcode { root: String },
    /// The qualifier is not used by any form of this opcode.
    UnknownQualifier {
        index: usize,
        qualifier: String,
        expected: Vec<String>,
    },
    /// A required slot is missing (at `index`, the position where it should appear).
    MissingRequired {
        index: usize,
        slot: String,
        allowed: Vec<String>,
    },
    /// The qualifier exists in this form but must come before the one at `before_index`.
    OutOfOrder {
        index: usize,
        qualifier: String,
        before_index: usize,
    },
    /// Two qualifiers fill the same slot (`.global` and `.shared` for `.ss`).
    MutuallyExclusive {
        index: usize,
        qualifier: String,
        other_index: usize,
        slot: String,
    },
    /// Known qualifier, but not valid in this combination.
    NotAllowedHere {
        index: usize,
        qualifier: String,
        expected: Vec<String>,
    },
}

/// Result of [`Isa::match_qualifiers`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchOutcome<'a> {
    /// All forms that accept the tokens (usually one).
    pub matches: Vec<FormMatch<'a>>,
    /// When `matches` is empty: the reasons from the closest form.
    pub errors: Vec<MatchError>,
    /// The closest form when nothing matched.
    pub closest: Option<(&'a Instruction, &'a Form)>,
}

/// A used slot: (slot index, token index, value).
type Used = (usize, usize, String);

/// A search state: next slot index and the slots used so far.
type State = (usize, Vec<Used>);

/// A used slot while searching: (slot index, token index, value), the value borrowed from
/// the form's slot.
type UsedRef<'s> = (usize, usize, &'s str);

/// Deepest point a search reached in one form.
#[derive(Clone, Debug, Default)]
struct Best<'s> {
    consumed: usize,
    slot: usize,
    used: Vec<UsedRef<'s>>,
}

struct Search<'t, 's> {
    tokens: &'t [String],
    best: Best<'s>,
    found: Vec<Vec<UsedRef<'s>>>,
}

impl<'s> Search<'_, 's> {
    fn record(&mut self, si: usize, ti: usize, used: &[UsedRef<'s>]) {
        if ti > self.best.consumed || (ti == self.best.consumed && si > self.best.slot) {
            self.best.consumed = ti;
            self.best.slot = si;
            self.best.used.clear();
            self.best.used.extend_from_slice(used);
        }
    }

    fn run(&mut self, slots: &'s [QualSlot], si: usize, ti: usize, used: &mut Vec<UsedRef<'s>>) {
        self.record(si, ti, used);
        if si == slots.len() {
            if ti == self.tokens.len() {
                self.found.push(used.clone());
            }
            return;
        }
        let slot = &slots[si];
        // Option: skip an optional slot (a whole group at once).
        if slot.optional {
            let mut end = si + 1;
            if let Some(g) = slot.group {
                while end < slots.len() && slots[end].group == Some(g) {
                    end += 1;
                }
            }
            // Entering a group: its members become required.
            self.run_group(slots, si, end, ti, used);
            self.run(slots, end, ti, used);
            return;
        }
        self.take(slots, si, ti, used, |s, slots, ti, used| {
            s.run(slots, si + 1, ti, used)
        });
    }

    fn run_group(
        &mut self,
        slots: &'s [QualSlot],
        si: usize,
        end: usize,
        ti: usize,
        used: &mut Vec<UsedRef<'s>>,
    ) {
        if si == end {
            self.run(slots, end, ti, used);
            return;
        }
        self.take(slots, si, ti, used, |s, slots, ti, used| {
            s.run_group(slots, si + 1, end, ti, used)
        });
    }

    /// Try every value of slot `si` at token `ti`, continuing with `k`.
    fn take(
        &mut self,
        slots: &'s [QualSlot],
        si: usize,
        ti: usize,
        used: &mut Vec<UsedRef<'s>>,
        k: impl Fn(&mut Self, &'s [QualSlot], usize, &mut Vec<UsedRef<'s>>),
    ) {
        for v in &slots[si].values {
            // A value of several dot-separated parts (`L2.256B`) takes as many tokens.
            let mut next = ti;
            let fits = v.split('.').all(|part| {
                let fits = self.tokens.get(next).is_some_and(|t| t == part);
                next += 1;
                fits
            });
            if fits {
                used.push((si, ti, v.as_str()));
                k(self, slots, next, used);
                used.pop();
            }
        }
    }
}

fn norm(tokens: &[&str]) -> Vec<String> {
    tokens
        .iter()
        .map(|t| t.trim_start_matches('.').to_string())
        .collect()
}

/// Requirement of a concrete use of `form`.
pub(crate) fn use_requirement(
    inst: &Instruction,
    form: &Form,
    used: &[(usize, String)],
) -> Requirement {
    let mut req = form.requirement.clone();
    for f in &inst.features {
        if !f.pattern.is_empty()
            && f.pattern
                .iter()
                .all(|p| pattern_token_present(p, form, used))
        {
            f.apply_to(&mut req);
        }
    }
    req
}

impl Isa {
    /// Forms of every instruction whose opcode root is `root`.
    fn forms_for_root<'a>(&'a self, root: &str) -> Vec<(&'a Instruction, &'a Form)> {
        let mut out = Vec::new();
        for inst in self.instructions().iter().filter(|i| i.has_root(root)) {
            out.extend(
                inst.forms
                    .iter()
                    .filter(|f| f.root == root)
                    .map(|f| (inst, f)),
            );
        }
        out
    }

    /// Match an opcode written as components, e.g. `["ld", "global", "v4", "f32"]`
    /// (leading dots on qualifiers are ignored).
    pub fn match_qualifiers<'a>(&'a self, tokens: &[&str]) -> MatchOutcome<'a> {
        let toks = norm(tokens);
        let Some(root) = toks.first() else {
            return MatchOutcome {
                matches: Vec::new(),
                errors: vec![MatchError::UnknownOpcode {
                    root: String::new(),
                }],
                closest: None,
            };
        };
        let forms = self.forms_for_root(root);
        if forms.is_empty() {
            return MatchOutcome {
                matches: Vec::new(),
                errors: vec![MatchError::UnknownOpcode { root: root.clone() }],
                closest: None,
            };
        }
        let quals = &toks[1..];
        let mut matches = Vec::new();
        let mut best: Option<(Best, &Instruction, &Form)> = None;
        for (inst, form) in &forms {
            let mut s = Search {
                tokens: quals,
                best: Best::default(),
                found: Vec::new(),
            };
            s.run(&form.qualifier_slots, 0, 0, &mut Vec::new());
            for f in s.found {
                let used: Vec<(usize, String)> =
                    f.into_iter().map(|(si, _, v)| (si, v.to_owned())).collect();
                if matches
                    .iter()
                    .any(|m: &FormMatch| std::ptr::eq(m.form, *form) && m.used == used)
                {
                    continue;
                }
                let requirement = use_requirement(inst, form, &used);
                matches.push(FormMatch {
                    instruction: inst,
                    form,
                    used,
                    requirement,
                });
            }
            let better = match &best {
                None => true,
                Some((b, _, _)) => {
                    s.best.consumed > b.consumed
                        || (s.best.consumed == b.consumed && s.best.slot > b.slot)
                }
            };
            if better {
                best = Some((s.best, inst, form));
            }
        }
        if !matches.is_empty() {
            return MatchOutcome {
                matches,
                errors: Vec::new(),
                closest: None,
            };
        }
        let (b, inst, form) = best.expect("at least one form");
        let errors = vec![diagnose(&forms, form, quals, &b)];
        MatchOutcome {
            matches,
            errors,
            closest: Some((inst, form)),
        }
    }

    /// Qualifiers that may follow `prefix` (root first, e.g. `["tcgen05", "ld"]`), in slot
    /// order, each with the requirement of the use it leads to. Optional slots are listed
    /// together with the required slot that follows them.
    pub fn next_qualifiers(&self, prefix: &[&str]) -> Vec<(String, Requirement)> {
        let toks = norm(prefix);
        let Some(root) = toks.first() else {
            return Vec::new();
        };
        let quals = &toks[1..];
        let mut out: Vec<(String, Requirement)> = Vec::new();
        for (inst, form) in self.forms_for_root(root) {
            let slots = &form.qualifier_slots;
            let mut states: Vec<State> = Vec::new();
            collect_states(slots, quals, 0, 0, &mut Vec::new(), &mut states);
            for (si, used) in states {
                let used: Vec<(usize, String)> = used.into_iter().map(|(s, _, v)| (s, v)).collect();
                let mut next = si;
                while next < slots.len() {
                    let slot = &slots[next];
                    for v in &slot.values {
                        if out.iter().any(|(x, _)| x == v) {
                            continue;
                        }
                        let mut u = used.clone();
                        u.push((next, v.clone()));
                        out.push((v.clone(), use_requirement(inst, form, &u)));
                    }
                    if !slot.optional {
                        break;
                    }
                    next += 1;
                }
            }
        }
        out
    }
}

/// All slot positions reachable after consuming exactly `tokens`.
fn collect_states(
    slots: &[QualSlot],
    tokens: &[String],
    si: usize,
    ti: usize,
    used: &mut Vec<(usize, usize, String)>,
    out: &mut Vec<State>,
) {
    if ti == tokens.len() {
        out.push((si, used.clone()));
        return;
    }
    if si >= slots.len() {
        return;
    }
    let slot = &slots[si];
    for v in &slot.values {
        let parts: Vec<&str> = v.split('.').collect();
        if ti + parts.len() <= tokens.len()
            && parts
                .iter()
                .zip(&tokens[ti..])
                .all(|(p, t)| *p == t.as_str())
        {
            used.push((si, ti, v.clone()));
            collect_states(slots, tokens, si + 1, ti + parts.len(), used, out);
            used.pop();
        }
    }
    if slot.optional {
        collect_states(slots, tokens, si + 1, ti, used, out);
    }
}

fn diagnose(
    all: &[(&Instruction, &Form)],
    form: &Form,
    quals: &[String],
    best: &Best,
) -> MatchError {
    let slots = &form.qualifier_slots;
    let p = best.consumed;
    let index = p + 1;
    let expected = || -> Vec<String> {
        let mut v = Vec::new();
        for s in &slots[best.slot.min(slots.len())..] {
            v.extend(s.values.iter().cloned());
            if !s.optional {
                break;
            }
        }
        v
    };
    if p >= quals.len() {
        let missing = slots[best.slot..]
            .iter()
            .find(|s| !s.optional)
            .unwrap_or(&slots[slots.len() - 1]);
        return MatchError::MissingRequired {
            index,
            slot: missing.name.clone(),
            allowed: missing.values.clone(),
        };
    }
    let tok = &quals[p];
    let is_value = |s: &QualSlot| s.values.iter().any(|v| v.split('.').next() == Some(tok));
    // Same slot already filled by an earlier token?
    if let Some((si, ti, _)) = best.used.iter().find(|(si, _, _)| is_value(&slots[*si])) {
        return MatchError::MutuallyExclusive {
            index,
            qualifier: tok.clone(),
            other_index: ti + 1,
            slot: slots[*si].name.clone(),
        };
    }
    // Belongs to an earlier slot that was skipped: order problem.
    if let Some(si) = (0..best.slot.min(slots.len())).find(|&i| is_value(&slots[i])) {
        let before = best
            .used
            .iter()
            .find(|(s, _, _)| *s > si)
            .map_or(index, |(_, ti, _)| ti + 1);
        return MatchError::OutOfOrder {
            index,
            qualifier: tok.clone(),
            before_index: before,
        };
    }
    // Belongs to a later slot, with a required slot in between.
    if let Some(later) = (best.slot..slots.len()).find(|&i| is_value(&slots[i])) {
        if let Some(missing) = slots[best.slot..later].iter().find(|s| !s.optional) {
            return MatchError::MissingRequired {
                index,
                slot: missing.name.clone(),
                allowed: missing.values.clone(),
            };
        }
    }
    let known = all
        .iter()
        .any(|(_, f)| f.qualifier_slots.iter().any(is_value));
    if known {
        MatchError::NotAllowedHere {
            index,
            qualifier: tok.clone(),
            expected: expected(),
        }
    } else {
        MatchError::UnknownQualifier {
            index,
            qualifier: tok.clone(),
            expected: expected(),
        }
    }
}
