//! Reuse of per-function results between checks of an edited document.
//!
//! Everything a function's diagnostics depend on is its own text and the
//! module-level context: the options, the directives, the global variables
//! and the headers (names and parameters) of all functions. A check keyed by
//! a hash of both can therefore be reused after an edit elsewhere, shifted to
//! the function's new position. A result that points outside its function
//! (related information at a global declaration, say) is never reused.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use ptx_syntax::{Function, Item, Module, TextRange};

use crate::{CheckOptions, Diagnostic};

/// Results of earlier checks, per function; pass the same cache to
/// [`crate::check_incremental`] for successive versions of one document.
#[derive(Debug, Default)]
pub struct CheckCache {
    entries: HashMap<u64, Vec<Diagnostic>>,
    /// Keys used by the latest check: everything else is dropped after it.
    used: Vec<u64>,
    /// How many functions the latest check took from the cache, and how many it checked.
    pub(crate) stats: (usize, usize),
}

impl CheckCache {
    /// `(reused, checked)` function counts of the latest check.
    pub fn last_stats(&self) -> (usize, usize) {
        self.stats
    }

    pub(crate) fn begin(&mut self) {
        self.used.clear();
        self.stats = (0, 0);
    }

    pub(crate) fn end(&mut self) {
        let used: std::collections::HashSet<u64> = self.used.iter().copied().collect();
        self.entries.retain(|key, _| used.contains(key));
    }

    /// The diagnostics cached for `key`, moved to a function starting at `start`.
    pub(crate) fn get(&mut self, key: u64, start: usize) -> Option<Vec<Diagnostic>> {
        let cached = self.entries.get(&key)?;
        self.used.push(key);
        self.stats.0 += 1;
        Some(cached.iter().map(|d| shifted(d, 0, start)).collect())
    }

    /// Stores the diagnostics of a function at `function`, unless one of them
    /// points outside it.
    pub(crate) fn put(&mut self, key: u64, function: TextRange, diagnostics: &[Diagnostic]) {
        self.stats.1 += 1;
        let inside = |r: &TextRange| r.start >= function.start && r.end <= function.end;
        let all_inside = diagnostics.iter().all(|d| {
            inside(&d.range)
                && d.related.iter().all(|(r, _)| inside(r))
                && d.fixes
                    .iter()
                    .all(|f| f.edits.iter().all(|e| inside(&e.range)))
        });
        if all_inside {
            self.used.push(key);
            let relative = diagnostics
                .iter()
                .map(|d| shifted(d, function.start, 0))
                .collect();
            self.entries.insert(key, relative);
        }
    }
}

fn shifted(d: &Diagnostic, from: usize, to: usize) -> Diagnostic {
    let move_range = |r: &TextRange| (r.start - from + to)..(r.end - from + to);
    let mut out = d.clone();
    out.range = move_range(&d.range);
    for (range, _) in &mut out.related {
        *range = move_range(range);
    }
    for fix in &mut out.fixes {
        for edit in &mut fix.edits {
            edit.range = move_range(&edit.range);
        }
    }
    out
}

/// A hash of everything outside function bodies that a body's diagnostics can depend on.
pub(crate) fn environment(module: &Module<'_>, options: &CheckOptions) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    options.hash(&mut hasher);
    for item in module.items() {
        match item {
            Item::Function(function) => header(&function).hash(&mut hasher),
            Item::Variable(var) => var.text().hash(&mut hasher),
            Item::Directive(directive) => directive.text().hash(&mut hasher),
            Item::Statement(statement) => {
                let range = statement.range();
                (range.end - range.start).hash(&mut hasher);
            }
        }
    }
    hasher.finish()
}

/// The key of one function's check in a given environment.
pub(crate) fn key(environment: u64, function: &Function<'_>) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    environment.hash(&mut hasher);
    function.text().hash(&mut hasher);
    hasher.finish()
}

/// A function's text up to its body: linkage, kind, name, parameters, attributes.
fn header<'a>(function: &Function<'a>) -> &'a str {
    let text = function.text();
    match function.body() {
        Some(body) => &text[..body.range().start - function.range().start],
        None => text,
    }
}
