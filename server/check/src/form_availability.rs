//! Availability of the one form an instruction matches, judged by the checker itself: the
//! instruction is checked alone on each target, and the targets on which no availability
//! rule (`unsupported-target`) fires are the ones that take it; the oldest `.version` with
//! no `version-too-old` error is its version. `regs --target` and hover use this, so they
//! agree with `check` on every form by construction; the words come from
//! [`ptx_isa::Availability`].

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use ptx_isa::availability::judged_targets;
use ptx_isa::{Availability, Isa, PtxVersion, Unmet};
use ptx_regs::{RegCounts, RegError};

use crate::util::describe_targets;
use crate::{check_text, CheckOptions, Diagnostic};

/// Text before the instruction, so that diagnostics about the (overridden) module header
/// can be told from those about the instruction.
const PREFIX: &str = "// one instruction\n";

/// The newest PTX ISA version known, used when only the target is judged.
fn newest() -> PtxVersion {
    PtxVersion::all().max().unwrap_or(PtxVersion::SPEC)
}

/// The checker's availability errors for `opcode` (dotted opcode, no operands) on `target`
/// with `.version version`.
fn availability_errors(opcode: &str, target: &str, version: PtxVersion) -> Vec<Diagnostic> {
    let text = format!("{PREFIX}{opcode};\n");
    let options = CheckOptions {
        target_override: Some(target.to_owned()),
        version_override: Some(version.to_string()),
        disabled_codes: Vec::new(),
    };
    let mut found: Vec<Diagnostic> = check_text(&text, &options)
        .into_iter()
        .filter(|d| d.range.start >= PREFIX.len())
        .filter(|d| matches!(d.code, "unsupported-target" | "version-too-old"))
        .collect();
    // The fragment floors also judge spellings that the checker's syntax forms do not list
    // (it stops at the opcode error there, before any availability rule).
    let words: Vec<&str> = opcode.split('.').collect();
    let range = PREFIX.len()..PREFIX.len() + opcode.len();
    for floor in crate::handlers::fragment_floors::matching(&words) {
        for unmet in floor.requirement.check(version, &[target]) {
            let (code, message) = match unmet {
                Unmet::Version { needed } => (
                    "version-too-old",
                    format!("{} needs `.version {needed}` or newer", floor.feature),
                ),
                Unmet::Target { needed } => (
                    "unsupported-target",
                    format!(
                        "{} needs .target {}",
                        floor.feature,
                        describe_targets(&needed)
                    ),
                ),
                Unmet::Removed { .. } => continue,
            };
            // One reason of each kind is enough: the checker's own comes first.
            if !found.iter().any(|d| d.code == code) {
                found.push(Diagnostic::error(code, range.clone(), message));
            }
        }
    }
    found
}

/// The dotted opcode of an instruction written with or without guard and operands.
fn opcode_of(instruction: &str) -> Option<String> {
    ptx_regs::Opcode::parse(instruction).ok().map(|op| op.text)
}

/// The most opcodes [`availability`] remembers.
const CACHE_LIMIT: usize = 4096;

/// Where the form of `instruction` (with or without operands) is available: every target on
/// which `check` accepts it, and the oldest version it accepts it with. Cached per opcode.
pub fn availability(instruction: &str) -> Availability {
    static CACHE: OnceLock<Mutex<HashMap<String, Availability>>> = OnceLock::new();
    let opcode = opcode_of(instruction).unwrap_or_else(|| instruction.trim().to_owned());
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&opcode).cloned()) {
        return hit;
    }
    let newest = newest();
    let targets: Vec<String> = judged_targets(Isa::get())
        .into_iter()
        .filter(|t| {
            availability_errors(&opcode, t, newest)
                .iter()
                .all(|d| d.code != "unsupported-target")
        })
        .map(str::to_owned)
        .collect();
    // The oldest version without a version error, on the newest target that takes the form
    // (versions are ordered, so the first good one is found by bisection).
    let since = targets.last().and_then(|target| {
        let versions: Vec<PtxVersion> = PtxVersion::all().filter(|v| *v <= newest).collect();
        let first_good = versions.partition_point(|v| {
            availability_errors(&opcode, target, *v)
                .iter()
                .any(|d| d.code == "version-too-old")
        });
        versions.get(first_good).copied()
    });
    let result = Availability { targets, since };
    if let Ok(mut c) = cache.lock() {
        // Bounded: a long session that hovers many distinct forms starts over instead of
        // growing without end (an entry costs a few checks to rebuild).
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(opcode, result.clone());
    }
    result
}

/// Why `instruction` is not available on `target` (with the newest `.version`): the
/// checker's messages, without their "(this file targets …)" tail. Empty when it is.
pub fn unavailable_reasons(instruction: &str, target: &str) -> Vec<String> {
    let opcode = opcode_of(instruction).unwrap_or_else(|| instruction.trim().to_owned());
    availability_errors(&opcode, target, newest())
        .into_iter()
        .filter(|d| d.code == "unsupported-target")
        .map(|d| match d.message.find(" (this file targets") {
            Some(at) => d.message[..at].to_owned(),
            None => d.message,
        })
        .collect()
}

/// Register counts of `instruction`'s fragment operands if its form is available on
/// `target`, else the checker's reasons (see [`unavailable_reasons`]); a form the counts
/// reject gives their error as its one reason.
pub fn counts_if_available(instruction: &str, target: &str) -> Result<RegCounts, Vec<String>> {
    let counts = ptx_regs::register_counts(instruction).map_err(|e| vec![e.message])?;
    let reasons = unavailable_reasons(&counts.instruction, target);
    if reasons.is_empty() {
        Ok(counts)
    } else {
        Err(reasons)
    }
}

/// Register counts of `instruction`'s fragment operands, and, with a target, an error when
/// the form is not available there, saying where it is (the `regs --target` answer).
pub fn register_counts_on(instruction: &str, target: Option<&str>) -> Result<RegCounts, RegError> {
    let counts = ptx_regs::register_counts(instruction)?;
    let Some(target) = target else {
        return Ok(counts);
    };
    if Isa::get().target(target).is_none() {
        return Err(RegError {
            message: format!("unknown target `{target}`"),
            component: None,
        });
    }
    let reasons = unavailable_reasons(&counts.instruction, target);
    if reasons.is_empty() {
        return Ok(counts);
    }
    let needs = availability(&counts.instruction).needs();
    Err(RegError {
        message: format!(
            "`{}` is not available on {target}: it {needs} ({})",
            counts.instruction,
            reasons.join("; ")
        ),
        component: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_in_hand_decides() {
        let bf16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
        assert!(register_counts_on(bf16, Some("sm_80")).is_ok());
        assert_eq!(
            availability(bf16).needs(),
            "needs sm_80 or newer and PTX 7.0"
        );
        let e4m3 = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32";
        let err = register_counts_on(e4m3, Some("sm_80")).unwrap_err();
        assert!(
            err.message.starts_with(&format!(
                "`{e4m3}` is not available on sm_80: it needs sm_89 or newer and PTX 8.4"
            )),
            "{}",
            err.message
        );
        let wide = "ld.global.nc.v8.f32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1];";
        assert!(register_counts_on(wide, Some("sm_90a")).is_err());
        assert!(register_counts_on(wide, Some("sm_100")).is_ok());
        assert_eq!(
            availability(wide).verdict("sm_100a"),
            "available on this target"
        );
        assert!(register_counts_on(bf16, Some("sm_999")).is_err());
    }
}
