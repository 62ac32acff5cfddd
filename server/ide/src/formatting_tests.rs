//! Formatting tests: snapshots of small inputs, and the round-trip proof on
//! every corpus file (same tokens before and after, and formatting twice
//! changes nothing).

use super::*;
use expect_test::{expect, Expect};

fn check(text: &str, expect: Expect) {
    let formatted = format_text(&Parse::new(text), &FormatOptions::default())
        .unwrap_or_else(|| "(refused)".into());
    // Show tabs so that the snapshot says what was written.
    expect.assert_eq(&formatted.replace('\t', "→"));
}

/// The token stream that meaning depends on: kinds and texts, blanks ignored.
fn token_stream(parse: &Parse) -> Vec<(TokenKind, String)> {
    parse
        .tokens()
        .into_iter()
        .map(|t| (t.kind, parse.text()[t.range].trim().to_owned()))
        .collect()
}

#[test]
fn messy_input_in_nvcc_layout() {
    check(
        r#"

.version 9.0
.target   sm_90a
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1) .maxntid 128, 1, 1 {
.reg .pred %p<3>; .reg .b32   %r<4>;
  // a comment on its own line
    ld.param.u64 %rd1,[k_param_0];   // after code
@%p1   bra   $L__BB0_2;
  mov.u32 %r1, %tid.x; add.s32 %r2,%r1,   1;
$L__BB0_2: ret;


        {
.reg .pred P1;
WAIT:
@!P1 bra WAIT;
}
 .loc 1 20 0
}
.func (.param .b32 r) f() { ret; }
.extern .func g(.param .b64 a, .param .b64 b);
.global .align 4 .b8 data[4] = {1,2, 3,4};
"#,
        expect![[r#"
            .version 9.0
            .target sm_90a
            .address_size 64
            .visible .entry k(
            →.param .u64 k_param_0,
            →.param .u32 k_param_1
            )
            .maxntid 128, 1, 1
            {
            →.reg .pred →%p<3>;
            →.reg .b32 →%r<4>;
            →// a comment on its own line
            →ld.param.u64 →%rd1, [k_param_0];   // after code
            →@%p1 bra →$L__BB0_2;
            →mov.u32 →%r1, %tid.x;
            →add.s32 →%r2, %r1, 1;
            $L__BB0_2:
            →ret;

            →{
            →→.reg .pred →P1;
            WAIT:
            →→@!P1 bra →WAIT;
            →}
            →.loc→1 20 0
            }
            .func (.param .b32 r) f()
            {
            →ret;
            }
            .extern .func g(
            →.param .b64 a,
            →.param .b64 b
            );
            .global .align 4 .b8 data[4] = {1, 2, 3, 4};
        "#]],
    );
}

#[test]
fn comments_inside_statements_keep_their_lines() {
    check(
        ".entry k() {\nadd.s32 %r1, // first\n %r2, /* second */ %r3;\n}\n",
        expect![[r#"
            .entry k()
            {
            →add.s32 →%r1, // first
            →→%r2, /* second */ %r3;
            }
        "#]],
    );
}

#[test]
fn expressions_keep_the_blanks_that_matter() {
    // `%r2 % 3` needs the blank after `%` (else it reads as a register).
    check(
        "mov.u32 %r1, (%r2 % 3)+(1<<4);\n",
        expect![[r#"
            mov.u32 →%r1, (%r2 % 3)+(1<<4);
        "#]],
    );
}

#[test]
fn files_with_syntax_errors_are_not_formatted() {
    check(".entry k() { add.s32 %r1, %r2 %r3; }", expect!["(refused)"]);
    assert_eq!(
        format_document(&Parse::new("ret"), &FormatOptions::default()),
        None
    );
}

#[test]
fn formatted_text_needs_no_edits() {
    let text = ".version 9.0\n.entry k()\n{\n\tret;\n}\n";
    let edits = format_document(&Parse::new(text), &FormatOptions::default()).unwrap();
    assert_eq!(edits, vec![]);
    assert_eq!(
        format_document(&Parse::new(""), &FormatOptions::default()),
        Some(vec![])
    );
}

#[test]
fn range_formatting_touches_only_the_range() {
    let text = ".entry k()\n{\nmov.u32 %r1,1;\nmov.u32 %r2,2;\n}\n";
    let parse = Parse::new(text);
    let second = text.find("mov.u32 %r2").unwrap();
    let edits = format_range(&parse, second..second + 3, &FormatOptions::default()).unwrap();
    let mut result = text.to_owned();
    for edit in edits.iter().rev() {
        result.replace_range(edit.range.clone(), &edit.new_text);
    }
    assert_eq!(
        result,
        ".entry k()\n{\nmov.u32 %r1,1;\n\tmov.u32 \t%r2, 2;\n}\n"
    );
}

#[test]
fn spaces_instead_of_tabs() {
    let options = FormatOptions {
        indent: "    ".into(),
    };
    let text = format_text(&Parse::new(".entry k() { ret; }"), &options).unwrap();
    assert_eq!(text, ".entry k()\n{\n    ret;\n}\n");
}

/// The proof that formatting never changes meaning: on every corpus file the
/// token stream is unchanged, the result parses without errors, and a second
/// formatting changes nothing.
#[test]
fn corpus_round_trip() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut checked = 0;
    for dir in ["nvcc", "triton"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("corpus folder")
            .map(|e| e.expect("entry").path())
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).expect("corpus file");
            let parse = Parse::new(text.as_str());
            let options = FormatOptions::default();
            let formatted = format_text(&parse, &options)
                .unwrap_or_else(|| panic!("{} was refused", path.display()));
            let reparsed = Parse::new(formatted.as_str());
            assert!(
                !reparsed.tree().root_node().has_error(),
                "{}: formatted text has syntax errors",
                path.display()
            );
            let (before, after) = (token_stream(&parse), token_stream(&reparsed));
            if let Some(i) = (0..before.len().min(after.len())).find(|&i| before[i] != after[i]) {
                panic!(
                    "{}: token {i} changed from {:?} to {:?}",
                    path.display(),
                    before[i],
                    after[i]
                );
            }
            assert_eq!(before.len(), after.len(), "{}", path.display());
            let again = format_text(&reparsed, &options).expect("formatted text parses");
            assert!(again == formatted, "{}: not idempotent", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 20);
}

/// nvcc output is already close to the target layout. What changes: inline
/// assembly (which nvcc leaves unindented and without the tab after the
/// opcode), the two-space padding nvcc puts after a few 7-character opcodes,
/// runs of blank lines, and `// .globl` comments at the top level.
#[test]
fn nvcc_output_is_nearly_unchanged() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/nvcc");
    let text = std::fs::read_to_string(root.join("device_intrinsics_sm_80.ptx")).unwrap();
    let formatted = format_text(&Parse::new(text.as_str()), &FormatOptions::default()).unwrap();
    let original: std::collections::HashSet<&str> = text.lines().collect();
    let changed = formatted.lines().filter(|l| !original.contains(l)).count();
    // Lines of the output not in the input, out of 2573.
    expect!["612"].assert_eq(&changed.to_string());
}

/// Range formatting reads only the items around the range; its edits must be
/// exactly those of whole-document formatting that overlap the range. Checked
/// on corpus files and on text with comments between and inside items, over
/// ranges from a fixed seed (empty ones, ones inside gaps, ones past the end).
#[test]
fn range_formatting_equals_the_whole_document_filtered() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut texts: Vec<String> = [
        "nvcc/device_intrinsics_sm_80.ptx",
        "triton/triton_softmax_native.ptx",
    ]
    .iter()
    .map(|p| std::fs::read_to_string(root.join(p)).expect("corpus file"))
    .collect();
    texts.push(
        "// head\n.version 8.0\n.target sm_80   // t\n\n\n.address_size 64\n/* between */\n\
         .global .b32 g[2] = {1,2};\n.visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<3>;// a\n\
         add.s32 %r1,%r2,  1;\n  // own line\n{\nmov.u32 %r1, 0;}\nret;\n}\n// between functions\n\
         .func f()\n{\n  ret;\n}\n\n// tail comment"
            .into(),
    );
    let options = FormatOptions::default();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |bound: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % bound.max(1)
    };
    let mut compared = 0;
    for text in &texts {
        let parse = Parse::new(text.as_str());
        let whole = segments(&parse, &options).expect("formats");
        for _ in 0..300 {
            let start = next(text.len() + 1);
            let len = match next(4) {
                0 => 0,
                1 => next(40),
                2 => next(2_000),
                _ => next(text.len() + 1),
            };
            let range = start..(start + len).min(text.len());
            let expected: Vec<FormatEdit> = edits(
                text,
                whole
                    .iter()
                    .map(|s| Segment {
                        orig: s.orig.clone(),
                        content_start: s.content_start,
                        text: s.text.clone(),
                    })
                    .collect(),
                |s| {
                    s.content_start <= range.end
                        && range.start < s.orig.end.max(s.content_start + 1)
                },
            );
            let got = format_range(&parse, range.clone(), &options).expect("formats");
            assert_eq!(
                got,
                expected,
                "range {range:?} of a {}-byte text",
                text.len()
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 900);
}

thread_local! {
    /// Set by a test to format without the item memo (in its own thread only).
    pub(super) static MEMO_OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Formatting an edited document reuses the memoized output of its unchanged items; the
/// result must be what formatting it from scratch gives, after every one of a seeded
/// series of edits (blanks, line breaks, comments, removed and duplicated lines).
#[test]
fn memoized_items_format_like_fresh_ones() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let original = std::fs::read_to_string(root.join("nvcc/device_intrinsics_sm_80.ptx")).unwrap();
    let options = FormatOptions::default();
    format_text(&Parse::new(original.as_str()), &options).expect("the corpus file formats");
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |bound: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as usize) % bound.max(1)
    };
    let mut formatted_some = 0;
    for _ in 0..60 {
        // Edits at line starts and after `;`, which keep the text parsing.
        let mut text = original.clone();
        let at = next(text.len());
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let semicolon = text[at..].find(";\n").map_or(line_start, |i| at + i + 1);
        match next(5) {
            0 => text.insert_str(semicolon, "   "),
            1 => text.insert_str(line_start, "\n\n"),
            2 => text.insert_str(line_start, "// note\n"),
            3 => text.insert_str(semicolon, " // after"),
            _ => {
                let line = text[line_start..line_end].to_owned();
                if line.trim_start().starts_with("mov") || line.trim_start().starts_with("ld") {
                    text.insert_str(line_start, &line);
                }
            }
        }
        let parse = Parse::new(text.as_str());
        let memoized = format_text(&parse, &options);
        MEMO_OFF.with(|off| off.set(true));
        let fresh = format_text(&parse, &options);
        MEMO_OFF.with(|off| off.set(false));
        assert!(memoized == fresh, "memoized and fresh formatting differ");
        formatted_some += usize::from(fresh.is_some());
    }
    assert!(formatted_some > 10, "{formatted_some}");
}
