//! Where one instruction form can be used, said in plain words: "needs sm_90 or newer and
//! PTX 8.0", "available on this target". The set of targets and the oldest version are found
//! elsewhere (the checker judges the form in hand); this module only holds them and phrases
//! them, so every tool words availability the same way.

use crate::target::{SmName, TargetKind, Variant};
use crate::{Isa, PtxVersion};

/// The targets and the oldest PTX ISA version with which one form is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Availability {
    /// `sm_*` targets (renamed spellings such as `sm_101a` left out) that take the form.
    pub targets: Vec<String>,
    /// The oldest PTX ISA version that takes the form; `None` when no target does.
    pub since: Option<PtxVersion>,
}

/// Every `sm_*` target a form can be judged on, oldest first (`sm_90`, `sm_90a`, `sm_100`,
/// `sm_100a`, `sm_100f`, …); the old spellings of renamed targets are left out.
pub fn judged_targets(isa: &Isa) -> Vec<&str> {
    let mut out: Vec<(SmName, &str)> = isa
        .targets()
        .iter()
        .filter(|t| t.renamed_to.is_none())
        .filter_map(|t| match t.kind {
            TargetKind::Sm(sm) => Some((sm, t.name.as_str())),
            TargetKind::Option => None,
        })
        .collect();
    out.sort_by_key(|(sm, _)| (sm.canonical_number(), variant_rank(sm.variant)));
    out.into_iter().map(|(_, name)| name).collect()
}

fn variant_rank(v: Variant) -> u8 {
    match v {
        Variant::Base => 0,
        Variant::Arch => 1,
        Variant::Family => 2,
    }
}

/// `sm_101a` -> `sm_110a`; other names unchanged.
fn canonical(target: &str) -> String {
    match SmName::parse(target) {
        Some(sm) if sm.number != sm.canonical_number() => {
            let suffix = match sm.variant {
                Variant::Base => "",
                Variant::Arch => "a",
                Variant::Family => "f",
            };
            format!("sm_{}{suffix}", sm.canonical_number())
        }
        _ => target.to_owned(),
    }
}

impl Availability {
    /// Whether the form is accepted on `target` (renamed spellings count as their new name).
    pub fn available_on(&self, target: &str) -> bool {
        let target = canonical(target);
        self.targets.contains(&target)
    }

    /// The targets in words: "sm_90 or newer", "sm_90a", "sm_100a, sm_103a or sm_110a",
    /// "sm_90a, or sm_100 or newer", "any target"; "no target" when none takes it.
    pub fn targets_in_words(&self) -> String {
        let all = judged_targets(Isa::get());
        if self.targets.is_empty() {
            return "no target".to_owned();
        }
        let has = |t: &str| self.targets.iter().any(|x| x == t);
        if all.iter().all(|t| has(t)) {
            return "any target".to_owned();
        }
        // The longest run of the newest targets that all take the form: "sm_N or newer".
        let mut tail_start = all.len();
        while tail_start > 0 && has(all[tail_start - 1]) {
            tail_start -= 1;
        }
        // The run must start at a whole architecture (`sm_90`, not `sm_90f`).
        while tail_start < all.len()
            && SmName::parse(all[tail_start]).is_some_and(|sm| sm.variant != Variant::Base)
        {
            tail_start += 1;
        }
        let listed: Vec<&str> = all[..tail_start]
            .iter()
            .copied()
            .filter(|t| has(t))
            .collect();
        let tail = (tail_start < all.len()).then(|| format!("{} or newer", all[tail_start]));
        match (listed.as_slice(), tail) {
            ([], Some(tail)) => tail,
            (names, Some(tail)) => format!("{}, or {tail}", names.join(", ")),
            (names, None) => one_of(names),
        }
    }

    /// "needs sm_90 or newer and PTX 8.0"; "needs PTX 7.0" when every target takes the form;
    /// "is not available on any target" when none does.
    pub fn needs(&self) -> String {
        let Some(since) = self.since.filter(|_| !self.targets.is_empty()) else {
            return "is not available on any target".to_owned();
        };
        let targets = self.targets_in_words();
        if targets == "any target" {
            format!("needs PTX {since}")
        } else {
            format!("needs {targets} and PTX {since}")
        }
    }

    /// The verdict for one target: "available on this target" or "not available on sm_80:
    /// it needs sm_90 or newer and PTX 8.0".
    pub fn verdict(&self, target: &str) -> String {
        if self.available_on(target) {
            "available on this target".to_owned()
        } else {
            format!("not available on {target}: it {}", self.needs())
        }
    }
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(since: &str, pred: impl Fn(&str) -> bool) -> Availability {
        Availability {
            targets: judged_targets(Isa::get())
                .into_iter()
                .filter(|t| pred(t))
                .map(str::to_owned)
                .collect(),
            since: PtxVersion::parse(since),
        }
    }

    fn number(t: &str) -> u32 {
        SmName::parse(t).map_or(0, SmName::canonical_number)
    }

    #[test]
    fn plain_words() {
        let newer = from("8.0", |t| number(t) >= 90);
        assert_eq!(newer.needs(), "needs sm_90 or newer and PTX 8.0");
        assert_eq!(newer.verdict("sm_90a"), "available on this target");
        assert_eq!(
            newer.verdict("sm_80"),
            "not available on sm_80: it needs sm_90 or newer and PTX 8.0"
        );
        let one = from("8.0", |t| t == "sm_90a");
        assert_eq!(one.needs(), "needs sm_90a and PTX 8.0");
        let arch = from("8.6", |t| matches!(t, "sm_100a" | "sm_103a" | "sm_110a"));
        assert_eq!(
            arch.needs(),
            "needs sm_100a, sm_103a or sm_110a and PTX 8.6"
        );
        assert!(arch.available_on("sm_101a"));
        let mixed = from("8.0", |t| t == "sm_90a" || number(t) >= 100);
        assert_eq!(
            mixed.needs(),
            "needs sm_90a, or sm_100 or newer and PTX 8.0"
        );
        let everywhere = from("1.0", |_| true);
        assert_eq!(everywhere.needs(), "needs PTX 1.0");
        let nowhere = from("1.0", |_| false);
        assert_eq!(nowhere.needs(), "is not available on any target");
    }
}
