//! One module compiled as several `ptxas` runs side by side.
//!
//! `ptxas` optimises one function after another on one core, so a large module (the 1.9 MB CUB
//! file of the corpus has 40 kernels) keeps a machine of several cores mostly idle. Functions
//! that do not reach each other can be compiled apart: [`split_for_target`] groups the defined
//! functions by what they name (calls, function addresses), spreads the groups over up to N
//! texts by size, and blanks in each text the functions of the other texts, space for space, so
//! that every line keeps its number and `-lineinfo` and diagnostics point at the same lines.
//! Everything at module scope (directives, variables, declarations of functions defined
//! elsewhere) stays in every text.
//!
//! A module is not split when something at module scope names a function or a label of a body
//! (an initializer with a function's address, `.alias`, DWARF sections pointing into code), when
//! it has syntax errors, or when it is small: then one text is the whole module.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ptx_syntax::Item;
use ptx_syntax::Parse;

use crate::compile::{compile, compile_with, CompileError, CompileOptions, Compiled};

/// Below this many bytes per text a module is not split further: the saving would be smaller
/// than the cost of starting another `ptxas`.
const MIN_PART_BYTES: usize = 128 * 1024;

/// The texts to give `ptxas` for `target` (as [`crate::text_for_target`] makes them), at most
/// `max_parts` of them, together defining every function of the module once.
pub fn split_for_target(parse: &Parse, target: &str, max_parts: usize) -> Vec<String> {
    let whole = || vec![crate::text_for_target(parse, target).into_owned()];
    let text = parse.text();
    let wanted = max_parts.min(text.len() / MIN_PART_BYTES);
    if wanted < 2 || !parse.syntax_errors().is_empty() {
        return whole();
    }
    let module = parse.module();
    // The defined functions, and what the rest of the module names.
    let mut bodies: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    let mut elsewhere: Vec<std::ops::Range<usize>> = Vec::new();
    let mut declarations: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    for item in module.items() {
        match item {
            Item::Function(function) => {
                let Some(name) = function.name() else {
                    return whole();
                };
                if function.body().is_some() {
                    bodies.push((name.text.to_owned(), function.range()));
                } else {
                    declarations.push((name.text.to_owned(), function.range()));
                }
            }
            other => elsewhere.push(other.range()),
        }
    }
    if bodies.len() < 2 {
        return whole();
    }
    let index: HashMap<&str, usize> = bodies
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (name.as_str(), i))
        .collect();
    if index.len() != bodies.len() {
        // A function defined twice: leave the verdict to ptxas on the whole module.
        return whole();
    }
    // Labels of bodies: something at module scope that names one ties the module together.
    let mut labels: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (_, range) in &bodies {
        let body = &text[range.clone()];
        for (word, end) in words(body) {
            if body[end..].trim_start().starts_with(':') {
                labels.insert(word);
            }
        }
    }
    for range in &elsewhere {
        if words(&text[range.clone()]).any(|(w, _)| index.contains_key(w) || labels.contains(w)) {
            return whole();
        }
    }
    // Functions that name each other go together (union-find over the names in each body).
    let mut group: Vec<usize> = (0..bodies.len()).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for (i, (_, range)) in bodies.iter().enumerate() {
        for (word, _) in words(&text[range.clone()]) {
            if let Some(&j) = index.get(word) {
                let (a, b) = (root(&mut group, i), root(&mut group, j));
                group[a] = b;
            }
        }
    }
    let mut sizes: HashMap<usize, usize> = HashMap::new();
    for (i, (_, range)) in bodies.iter().enumerate() {
        *sizes.entry(root(&mut group, i)).or_default() += range.len();
    }
    if sizes.len() < 2 {
        return whole();
    }
    // The largest groups first, each to the lightest text.
    let mut groups: Vec<(usize, usize)> = sizes.into_iter().collect();
    groups.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let parts = wanted.min(groups.len());
    let mut load = vec![0usize; parts];
    let mut part_of_group: HashMap<usize, usize> = HashMap::new();
    for (g, size) in groups {
        let lightest = (0..parts).min_by_key(|&p| (load[p], p)).unwrap_or(0);
        load[lightest] += size;
        part_of_group.insert(g, lightest);
    }
    let part_of: Vec<usize> = (0..bodies.len())
        .map(|i| part_of_group[&root(&mut group, i)])
        .collect();
    (0..parts)
        .map(|p| {
            let mut bytes = text.as_bytes().to_vec();
            for (i, (_, range)) in bodies.iter().enumerate() {
                if part_of[i] != p {
                    blank(&mut bytes[range.clone()]);
                }
            }
            // A declaration of a function another text defines would be a function without a
            // body in this one.
            for (name, range) in &declarations {
                if index.get(name.as_str()).is_some_and(|&i| part_of[i] != p) {
                    blank(&mut bytes[range.clone()]);
                }
            }
            // Only ASCII spaces replaced whole characters: still UTF-8.
            let blanked = String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned());
            match crate::resources::target_insertion(parse, target) {
                Some((at, added)) => format!("{}{added}{}", &blanked[..at], &blanked[at..]),
                None => blanked,
            }
        })
        .collect()
}

/// Spaces over every byte but line breaks (a multi-byte character becomes as many spaces).
fn blank(bytes: &mut [u8]) {
    for b in bytes {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// The identifiers of `text` (PTX's: letters, digits, `_`, `$`, `%`, not starting with a digit)
/// with the offset just past each. Comments and strings are not told apart: a name in a
/// comment only joins groups that need not be joined.
fn words(text: &str) -> impl Iterator<Item = (&str, usize)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let b = bytes[i];
            if b.is_ascii_alphabetic() || b == b'_' || b == b'$' || b == b'%' {
                let start = i;
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric()
                        || bytes[i] == b'_'
                        || bytes[i] == b'$'
                        || bytes[i] == b'%')
                {
                    i += 1;
                }
                return Some((&text[start..i], i));
            }
            if b.is_ascii_digit() {
                // A number (its suffix letters included) is not a name.
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
                continue;
            }
            i += 1;
        }
        None
    })
}

/// [`compile`] of `parse`'s module for `options.target`, as up to `max_parts` `ptxas` runs side
/// by side ([`split_for_target`]). The result has one cubin per run and their logs one after
/// the other (a line that every run printed, such as a warning about a module-scope variable,
/// once). When a split build fails, the whole module is compiled again in one run, so that
/// its errors are exactly those of the module.
///
/// `made` is called with each cubin as soon as its `ptxas` run has made it, from that run's
/// thread, while the other runs may still go on: the caller can start on a part (disassemble
/// it) before the whole module is compiled. A part whose run fails is not given; when the
/// module is then compiled whole, that cubin is given too. The cubins of the result are those
/// given last.
pub fn compile_module(
    ptxas: &std::path::Path,
    parse: &Parse,
    options: &CompileOptions,
    max_parts: usize,
    cancel: &AtomicBool,
    made: &(dyn Fn(&[u8]) + Sync),
) -> Result<Compiled, CompileError> {
    let start = Instant::now();
    let texts = split_for_target(parse, &options.target, max_parts);
    let announce = |result: Result<Compiled, CompileError>| {
        if let Ok(compiled) = &result {
            if compiled.success {
                compiled.cubins.iter().for_each(|cubin| made(cubin));
            }
        }
        result
    };
    if texts.len() == 1 {
        return announce(compile(ptxas, &texts[0], options, cancel));
    }
    let results: Vec<Result<Compiled, CompileError>> = std::thread::scope(|scope| {
        let runs: Vec<_> = texts
            .iter()
            .map(|text| {
                scope.spawn(move || announce(compile_with(ptxas, text, options, cancel, false)))
            })
            .collect();
        runs.into_iter()
            .map(|run| {
                run.join()
                    .unwrap_or_else(|_| Err(CompileError::Io("a ptxas run panicked".into())))
            })
            .collect()
    });
    let mut parts = Vec::with_capacity(results.len());
    for result in results {
        parts.push(result?);
    }
    if parts.iter().any(|p| !p.success) {
        let remaining = options
            .time_limit
            .checked_sub(start.elapsed())
            .unwrap_or(Duration::ZERO);
        let whole = crate::text_for_target(parse, &options.target);
        let options = CompileOptions {
            time_limit: remaining,
            ..options.clone()
        };
        return announce(compile(ptxas, &whole, &options, cancel));
    }
    let mut log = String::new();
    let mut seen = std::collections::HashSet::new();
    for part in &parts {
        for line in part.log.lines() {
            // Per-function blocks differ; a repeated module-wide line is told once.
            let per_function = line.contains("Compiling")
                || line.contains("Function properties")
                || line.contains("bytes stack frame")
                || line.contains("Used ");
            if per_function || seen.insert(line.to_owned()) {
                log.push_str(line);
                log.push('\n');
            }
        }
    }
    Ok(Compiled {
        cubins: parts.into_iter().flat_map(|p| p.cubins).collect(),
        log,
        success: true,
        elapsed: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(name: &str, calls: &str, filler: usize) -> String {
        let mut body = String::new();
        for i in 0..filler {
            body.push_str(&format!("    add.u32 %r1, %r1, {i};\n"));
        }
        format!(".visible .entry {name}()\n{{\n    .reg .b32 %r<2>;\n{calls}{body}    ret;\n}}\n")
    }

    fn module(pieces: &[String]) -> Parse {
        let mut text = String::from(".version 8.0\n.target sm_90\n.address_size 64\n\n");
        for p in pieces {
            text.push_str(p);
        }
        Parse::new(text)
    }

    fn defined(text: &str) -> Vec<String> {
        Parse::new(text.to_owned())
            .module()
            .functions()
            .into_iter()
            .filter(|f| f.body().is_some())
            .filter_map(|f| f.name().map(|n| n.text.to_owned()))
            .collect()
    }

    #[test]
    fn independent_kernels_spread_over_texts_with_their_lines_kept() {
        let parse = module(&[
            kernel("a", "", 6000),
            kernel("b", "", 6000),
            kernel("c", "", 3000),
            kernel("d", "", 3000),
        ]);
        let texts = split_for_target(&parse, "sm_90", 2);
        assert_eq!(texts.len(), 2);
        for t in &texts {
            assert_eq!(t.len(), parse.text().len());
            assert_eq!(t.lines().count(), parse.text().lines().count());
        }
        let mut names: Vec<Vec<String>> = texts.iter().map(|t| defined(t)).collect();
        names.sort();
        assert_eq!(names, [vec!["a", "c"], vec!["b", "d"]]);
    }

    #[test]
    fn functions_that_call_each_other_stay_together() {
        let helper =
            ".func (.reg .b32 out) helper(.reg .b32 x)\n{\n    mov.b32 out, x;\n    ret;\n}\n";
        let parse = module(&[
            ".func (.reg .b32 out) helper(.reg .b32 x);\n".to_owned(),
            kernel("a", "    call (%r1), helper, (%r1);\n", 6000),
            kernel("b", "", 6000),
            helper.to_owned(),
            kernel("c", "", 3000),
        ]);
        let texts = split_for_target(&parse, "sm_90", 2);
        assert_eq!(texts.len(), 2);
        let with_a = texts
            .iter()
            .find(|t| defined(t).contains(&"a".into()))
            .unwrap();
        assert!(defined(with_a).contains(&"helper".to_owned()));
        assert!(with_a.contains("helper(.reg .b32 x);"));
        let other = texts
            .iter()
            .find(|t| !defined(t).contains(&"a".into()))
            .unwrap();
        assert!(
            !other.contains("helper"),
            "the declaration goes with the definition"
        );
    }

    #[test]
    fn module_scope_names_of_functions_or_labels_keep_one_text() {
        let table = ".global .u64 table[1] = {a};\n".to_owned();
        let parse = module(&[kernel("a", "", 6000), kernel("b", "", 6000), table]);
        assert_eq!(split_for_target(&parse, "sm_90", 2).len(), 1);
        let dwarf = ".section .debug_info\n{\n.b64 $L__start\n}\n".to_owned();
        let parse = module(&[
            kernel("a", "$L__start:\n", 6000),
            kernel("b", "", 6000),
            dwarf,
        ]);
        assert_eq!(split_for_target(&parse, "sm_90", 2).len(), 1);
    }

    #[test]
    fn small_modules_and_one_part_are_left_whole() {
        let parse = module(&[kernel("a", "", 10), kernel("b", "", 10)]);
        assert_eq!(split_for_target(&parse, "sm_90", 8), [parse.text()]);
        let parse = module(&[kernel("a", "", 6000), kernel("b", "", 6000)]);
        assert_eq!(split_for_target(&parse, "sm_90", 1), [parse.text()]);
    }

    #[test]
    fn the_added_target_is_in_every_text() {
        let mut text = String::from(".version 8.0\n.address_size 64\n");
        text.push_str(&kernel("a", "", 6000));
        text.push_str(&kernel("b", "", 6000));
        let parse = Parse::new(text);
        let texts = split_for_target(&parse, "sm_90", 2);
        assert_eq!(texts.len(), 2);
        for t in texts {
            assert!(
                t.starts_with(".version 8.0 .target sm_90\n"),
                "{}",
                &t[..40]
            );
        }
    }
}
