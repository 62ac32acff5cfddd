//! Test helpers: fixtures annotated with the diagnostics they must produce, rust-analyzer
//! style. An annotation is a comment line under the line it talks about:
//!
//! ```text
//!   ad.s32 %r1, %r2, %r3;
//! //^^ error: unknown instruction `ad`; did you mean `add`?
//! ```
//!
//! The carets mark the exact range; `// <- error: ...` marks a range that starts at column 0.

use crate::{check, CheckOptions, Diagnostic};
use ptx_syntax::Parse;

struct Annotation {
    start: usize,
    end: Option<usize>,
    text: String,
}

fn annotations(fixture: &str) -> Vec<Annotation> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut target: Option<usize> = None;
    for line in fixture.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let trimmed = body.trim_start();
        let parsed = trimmed.strip_prefix("//").and_then(|rest| {
            let rest_start = body.len() - rest.len();
            let text = rest.trim_start();
            if let Some(label) = text.strip_prefix("<-") {
                return Some((None, label.trim().to_owned()));
            }
            let carets = text.len() - text.trim_start_matches('^').len();
            if carets == 0 {
                return None;
            }
            let col = rest_start + (rest.len() - text.len());
            Some((Some((col, carets)), text[carets..].trim().to_owned()))
        });
        match (parsed, target) {
            (Some((span, text)), Some(line_start)) => out.push(match span {
                Some((col, len)) => Annotation {
                    start: line_start + col,
                    end: Some(line_start + col + len),
                    text,
                },
                None => Annotation {
                    start: line_start,
                    end: None,
                    text,
                },
            }),
            _ => target = Some(offset),
        }
        offset += line.len();
    }
    out
}

fn render(d: &Diagnostic) -> String {
    format!("{}: {}", d.severity.as_str(), d.message)
}

/// Checks `fixture` and compares every diagnostic with the annotations.
#[track_caller]
pub(crate) fn check_diagnostics(fixture: &str) {
    check_diagnostics_with(fixture, &CheckOptions::default());
}

#[track_caller]
pub(crate) fn check_diagnostics_with(fixture: &str, options: &CheckOptions) {
    let diagnostics = check(&Parse::new(fixture), options);
    let mut expected: Vec<String> = annotations(fixture)
        .iter()
        .map(|a| match a.end {
            Some(end) => format!("{}..{} {}", a.start, end, a.text),
            None => format!("{}.. {}", a.start, a.text),
        })
        .collect();
    let open_ended: Vec<usize> = annotations(fixture)
        .iter()
        .filter(|a| a.end.is_none())
        .map(|a| a.start)
        .collect();
    let mut actual: Vec<String> = diagnostics
        .iter()
        .map(|d| {
            if open_ended.contains(&d.range.start) {
                format!("{}.. {}", d.range.start, render(d))
            } else {
                format!("{}..{} {}", d.range.start, d.range.end, render(d))
            }
        })
        .collect();
    expected.sort();
    actual.sort();
    if expected != actual {
        let show = |v: &[String]| {
            v.iter()
                .map(|s| {
                    let start: usize = s.split("..").next().unwrap().parse().unwrap();
                    let line = fixture[..start].matches('\n').count() + 1;
                    format!("  line {line}: {s}")
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "diagnostics differ\nexpected:\n{}\nactual:\n{}",
            show(&expected),
            show(&actual)
        );
    }
}

/// Applies the first fix of the first diagnostic with `code` and compares the edited line.
#[track_caller]
pub(crate) fn check_fix(fixture: &str, code: &str, expect: expect_test::Expect) {
    let diagnostics = check(&Parse::new(fixture), &CheckOptions::default());
    let d = diagnostics
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no `{code}` diagnostic in {diagnostics:#?}"));
    let fix = d.fixes.first().expect("the diagnostic has a fix");
    let mut text = fixture.to_owned();
    let mut edits = fix.edits.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    for edit in &edits {
        text.replace_range(edit.range.clone(), &edit.new_text);
    }
    let at = edits.last().map_or(0, |e| e.range.start);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    expect.assert_eq(text[line_start..line_end].trim());
}
