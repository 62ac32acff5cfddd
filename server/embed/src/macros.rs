//! Project macros that stand for targets in `#if` guards, as nvcc's preprocessor sees them.
//!
//! Real code rarely tests `__CUDA_ARCH__` right around its asm. It defines its own macro under
//! such a test, in the same file or a header:
//!
//! ```c
//! #if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
//! #  define CUTE_ARCH_TMA_SM90_ENABLED
//! #endif
//! ...
//! #if defined(CUTE_ARCH_TMA_SM90_ENABLED)
//!   asm volatile("cp.async.bulk.tensor...");
//! #endif
//! ```
//!
//! and compares `__CUDA_ARCH__` with named numbers (`__CUDA_ARCH__ >= GGML_CUDA_CC_AMPERE`).
//! [`GuardMacros`] collects both from the text of the file and of the headers it includes,
//! and the macros the build defines (`-D` in `compile_commands.json`), so that the guard
//! readers of [`crate::target`] can evaluate such conditions.
//!
//! A macro is a target macro when every one of its definitions lies inside `#if` branches
//! whose conditions read as a target requirement; it then admits the weakest of those
//! requirements (`||` over its definitions). One definition anywhere else (unconditional,
//! under `#else`, under a condition that is not a target) makes it say nothing. Macros may
//! be defined from other such macros (CUTLASS's `CUTE_ARCH_*` from `CUTLASS_ARCH_MMA_*`):
//! the definitions are evaluated again until nothing changes.

use std::collections::{BTreeMap, BTreeSet};

use crate::target::ArchReq;

/// Macros that tell something about the target in `#if` conditions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GuardMacros {
    /// Defined only where a target guard holds: the weakest requirement of its definitions.
    pub arch: BTreeMap<String, ArchReq>,
    /// Object-like macros whose value is one decimal integer (`#define GGML_CUDA_CC_AMPERE
    /// 800`), read in comparisons with `__CUDA_ARCH__`.
    pub numbers: BTreeMap<String, u32>,
    /// Defined for every compilation by the build (`-DNAME`): `defined(NAME)` holds.
    pub defined: BTreeSet<String>,
    /// Defined only in compilations for AMD GPUs (under `defined(GGML_USE_HIP)`, `__gfx906__`
    /// …): code under them is not compiled by nvcc.
    pub amd: BTreeSet<String>,
}

/// One `#define` of an object-like macro and the conditions of the branches around it
/// (`None` for a branch whose condition cannot be stated: `#else`, `#ifndef`).
#[derive(Debug, Clone)]
pub(crate) struct Definition {
    name: String,
    body: String,
    conditions: Vec<Option<String>>,
}

/// Rounds of re-evaluation for macros defined from other macros.
const MAX_ROUNDS: usize = 6;

impl GuardMacros {
    /// Is anything known at all? (Most files have no such macro: the guard readers then
    /// skip every lookup.)
    pub fn is_empty(&self) -> bool {
        self.arch.is_empty()
            && self.numbers.is_empty()
            && self.defined.is_empty()
            && self.amd.is_empty()
    }

    /// The macros of `texts` (a file and the headers it includes), on top of what the build
    /// defines (`defines`: `-D` flags, name and value).
    pub fn from_texts<'a>(
        texts: impl IntoIterator<Item = &'a str>,
        defines: &[(String, String)],
    ) -> GuardMacros {
        let definitions: Vec<Definition> = texts.into_iter().flat_map(definitions).collect();
        GuardMacros::from_definitions(&definitions, defines)
    }

    /// Like [`from_texts`](Self::from_texts), from the definitions already read.
    pub(crate) fn from_definitions(
        definitions: &[Definition],
        defines: &[(String, String)],
    ) -> GuardMacros {
        let mut base = GuardMacros::default();
        for (name, value) in defines {
            base.defined.insert(name.clone());
            if let Ok(n) = value.trim().parse::<u32>() {
                base.numbers.insert(name.clone(), n);
            }
        }
        base.extended(definitions)
    }

    /// These macros with the definitions of one more text (the file itself) added: a macro
    /// it defines again is a target macro only if both the earlier and the new definitions
    /// say so.
    pub fn with_text(&self, text: &str) -> GuardMacros {
        if !text.contains("define") {
            return self.clone();
        }
        let definitions = definitions(text);
        if definitions.is_empty() {
            return self.clone();
        }
        self.extended(&definitions)
    }

    fn extended(&self, definitions: &[Definition]) -> GuardMacros {
        let mut out = self.clone();
        // Numbers: every definition of the name gives the same integer.
        let mut numbers: BTreeMap<&str, Option<u32>> = BTreeMap::new();
        for d in definitions {
            let value = d.body.trim().parse::<u32>().ok();
            numbers
                .entry(d.name.as_str())
                .and_modify(|v| {
                    if *v != value {
                        *v = None;
                    }
                })
                .or_insert(value);
        }
        for (name, value) in numbers {
            if self.defined.contains(name) {
                continue;
            }
            match (value, self.numbers.get(name)) {
                (Some(v), None) => {
                    out.numbers.insert(name.to_string(), v);
                }
                (Some(v), Some(&old)) if v == old => {}
                _ => {
                    out.numbers.remove(name);
                }
            }
        }
        // Target macros: evaluated again while the table changes.
        let names: BTreeSet<&str> = definitions
            .iter()
            .map(|d| d.name.as_str())
            .filter(|n| !self.defined.contains(*n))
            .collect();
        for _ in 0..MAX_ROUNDS {
            let mut next = self.clone();
            next.numbers = out.numbers.clone();
            for &name in &names {
                next.arch.remove(name);
                next.amd.remove(name);
            }
            // AMD-only: every definition lies in a branch that only an AMD compilation takes.
            let mut amd: BTreeMap<&str, bool> = BTreeMap::new();
            for d in definitions
                .iter()
                .filter(|d| names.contains(d.name.as_str()))
            {
                let only = d
                    .conditions
                    .iter()
                    .flatten()
                    .any(|c| crate::target::amd_only(c, &out));
                amd.entry(d.name.as_str())
                    .and_modify(|all| *all &= only)
                    .or_insert(only);
            }
            for (name, only) in amd {
                if only && (self.amd.contains(name) || !self.arch.contains_key(name)) {
                    next.amd.insert(name.to_string());
                }
            }
            let mut unknown: BTreeSet<&str> = BTreeSet::new();
            let mut found: BTreeMap<&str, ArchReq> = BTreeMap::new();
            for d in definitions
                .iter()
                .filter(|d| names.contains(d.name.as_str()))
            {
                match d.requirement(&out) {
                    Some(r) => {
                        found
                            .entry(d.name.as_str())
                            .and_modify(|old| *old = weaker(*old, r))
                            .or_insert(r);
                    }
                    None => {
                        unknown.insert(d.name.as_str());
                    }
                }
            }
            for (name, r) in found {
                if unknown.contains(name) {
                    continue;
                }
                // A macro the earlier texts define too keeps the weaker of both.
                let r = match self.arch.get(name) {
                    Some(&old) => weaker(old, r),
                    None => r,
                };
                next.arch.insert(name.to_string(), r);
            }
            if next == out {
                break;
            }
            out = next;
        }
        out
    }
}

/// The weaker of two requirements: what either admits (`||`).
fn weaker(a: ArchReq, b: ArchReq) -> ArchReq {
    std::cmp::min_by_key(a, b, |r| (r.number, r.suffix.is_some()))
}

impl Definition {
    /// The requirement of the branches around the definition, under `macros`; `None` when
    /// none of them reads as a target.
    fn requirement(&self, macros: &GuardMacros) -> Option<ArchReq> {
        self.conditions
            .iter()
            .flatten()
            .filter_map(|c| crate::target::condition_with(c, macros))
            .reduce(|a, b| ArchReq {
                number: a.number.max(b.number),
                suffix: a.suffix.or(b.suffix),
            })
    }
}

/// The object-like `#define`s of `text` with the conditions of the branches around them.
pub(crate) fn definitions(text: &str) -> Vec<Definition> {
    let mut out = Vec::new();
    if !text.contains("define") {
        return out;
    }
    let mut stack: Vec<Option<String>> = Vec::new();
    let mut lines = text.lines();
    while let Some(first) = lines.next() {
        let Some(rest) = first.trim_start().strip_prefix('#') else {
            continue;
        };
        let mut line = rest.trim_start().to_string();
        while line.trim_end().ends_with('\\') {
            let kept = line.trim_end().trim_end_matches('\\').to_string();
            line = kept;
            match lines.next() {
                Some(next) => {
                    line.push(' ');
                    line.push_str(next);
                }
                None => break,
            }
        }
        let line = strip_comments(&line);
        let word_end = line
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(line.len());
        let (directive, rest) = (&line[..word_end], line[word_end..].trim());
        match directive {
            "if" => stack.push(Some(rest.to_string())),
            "ifdef" => stack.push(Some(format!("defined({rest})"))),
            "ifndef" => stack.push(None),
            "elif" => {
                if let Some(top) = stack.last_mut() {
                    *top = Some(rest.to_string());
                }
            }
            "elifdef" => {
                if let Some(top) = stack.last_mut() {
                    *top = Some(format!("defined({rest})"));
                }
            }
            "else" | "elifndef" => {
                if let Some(top) = stack.last_mut() {
                    *top = None;
                }
            }
            "endif" => {
                stack.pop();
            }
            "define" => {
                let name_end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let (name, body) = (&rest[..name_end], &rest[name_end..]);
                if name.is_empty() || body.starts_with('(') {
                    continue;
                }
                out.push(Definition {
                    name: name.to_string(),
                    body: body.trim().to_string(),
                    conditions: stack.clone(),
                });
            }
            _ => {}
        }
    }
    out
}

/// A preprocessor line without its `//` and `/* */` comments.
fn strip_comments(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    loop {
        let line_comment = rest.find("//");
        let block = rest.find("/*");
        match (line_comment, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                return out;
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                match rest[b + 2..].find("*/") {
                    Some(e) => rest = &rest[b + 2 + e + 2..],
                    None => return out,
                }
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(m: &GuardMacros) -> Vec<String> {
        m.arch
            .iter()
            .map(|(n, r)| format!("{n}={}", r.name()))
            .collect()
    }

    #[test]
    fn macros_defined_under_target_guards() {
        let header = "\
#if (__CUDACC_VER_MAJOR__ >= 12)
  #if (!defined(LIB_SM90_ENABLED) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900)
    #define LIB_SM90_ENABLED 1
    #if defined(__CUDA_ARCH_FEAT_SM90_ALL)
      #define LIB_SM90A_ENABLED 1
    #endif
  #endif
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 1000
#  define LIB_SM100_ENABLED 1
#endif
";
        let config = "\
#if defined(LIB_SM90_ENABLED)   // TMA
#  define CUTE_TMA_ENABLED
#endif
#if defined(LIB_SM100_ENABLED) || \\
    defined(LIB_SM90A_ENABLED)
#  define CUTE_TMA_ENABLED
#  define CUTE_WIDE_ENABLED
#endif
#define ALWAYS_ON
#if defined(LIB_SM100_ENABLED)
#  define HALF_KNOWN
#else
#  define HALF_KNOWN
#endif
#if __CUDA_ARCH__ >= CC_AMPERE
#  define HAS_CP_ASYNC
#endif
#define CC_AMPERE 800
#define CC_BLACKWELL 1200
#define CC_RUBIN 1300
#if !defined(LIB_USE_HIP) && __CUDA_ARCH__ >= CC_BLACKWELL && __CUDA_ARCH__ < CC_RUBIN
#  define HAS_BLOCK_SCALED_MMA
#endif
";
        let m = GuardMacros::from_texts([config, header], &[]);
        assert_eq!(
            names(&m),
            [
                "CUTE_TMA_ENABLED=sm_90",
                "CUTE_WIDE_ENABLED=sm_90a",
                "HAS_BLOCK_SCALED_MMA=sm_120",
                "HAS_CP_ASYNC=sm_80",
                "LIB_SM100_ENABLED=sm_100",
                "LIB_SM90A_ENABLED=sm_90a",
                "LIB_SM90_ENABLED=sm_90",
            ]
        );
        assert_eq!(m.numbers.get("CC_AMPERE"), Some(&800));
        // The file redefines one macro without a guard: it says nothing any more.
        let own = m.with_text("#define CUTE_WIDE_ENABLED\n");
        assert!(!own.arch.contains_key("CUTE_WIDE_ENABLED"));
        assert!(own.arch.contains_key("CUTE_TMA_ENABLED"));
        // The build defines one for every target.
        let built = GuardMacros::from_texts(
            [config, header],
            &[("LIB_SM90_ENABLED".to_string(), "1".to_string())],
        );
        assert!(!built.arch.contains_key("LIB_SM90_ENABLED"));
        assert!(built.defined.contains("LIB_SM90_ENABLED"));
    }
}
