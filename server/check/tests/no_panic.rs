//! The checker never panics: mutated corpus text (characters deleted, inserted, lines
//! swapped, cut anywhere) always yields a list of diagnostics.

use proptest::prelude::*;
use ptx_check::{check_text, CheckOptions};

const BASE: &str = include_str!("../../../tests/corpus/nvcc/blackwell_asm_sm_100a.ptx");
const TRITON: &str = include_str!("../../../tests/corpus/triton/triton_softmax_sm80.ptx");

/// Characters that tend to break PTX in interesting ways.
const NOISE: &[char] = &[
    '.', ';', ',', '{', '}', '[', ']', '(', ')', '%', '@', '!', '|', '<', '>', ':', '_', '-', '+',
    '0', '7', 'x', 'v', '4', ' ', '\n', '"', '/', '*', 'é',
];

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, char),
    SwapLines(usize, usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), prop::sample::select(NOISE)).prop_map(|(a, c)| Mutation::Insert(a, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
    ]
}

fn boundary(text: &str, at: usize) -> usize {
    let mut at = at % (text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut text = text.to_owned();
    for m in mutations {
        match *m {
            Mutation::Delete(a, n) => {
                let start = boundary(&text, a);
                let end = boundary(&text, start + n);
                text.replace_range(start..end.max(start), "");
            }
            Mutation::Insert(a, c) => {
                let at = boundary(&text, a);
                text.insert(at, c);
            }
            Mutation::SwapLines(a, b) => {
                let mut lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let (a, b) = (a % lines.len(), b % lines.len());
                    lines.swap(a, b);
                }
                text = lines.join("\n");
            }
            Mutation::Truncate(a) => {
                let at = boundary(&text, a);
                text.truncate(at);
            }
            Mutation::Duplicate(a, n) => {
                let start = boundary(&text, a);
                let end = boundary(&text, start + n);
                let piece = text[start..end.max(start)].to_owned();
                text.insert_str(start, &piece);
            }
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn mutated_blackwell_file_never_panics(mutations in prop::collection::vec(mutation(), 1..8)) {
        let text = apply(BASE, &mutations);
        let diagnostics = check_text(&text, &CheckOptions::default());
        for d in diagnostics {
            prop_assert!(d.range.end <= text.len() && d.range.start <= d.range.end);
            prop_assert!(text.is_char_boundary(d.range.start) && text.is_char_boundary(d.range.end));
        }
    }

    #[test]
    fn mutated_triton_file_never_panics(mutations in prop::collection::vec(mutation(), 1..8)) {
        let text = apply(TRITON, &mutations);
        let _ = check_text(&text, &CheckOptions { target_override: Some("sm_100a".into()), ..CheckOptions::default() });
    }
}

#[test]
fn degenerate_inputs() {
    for text in [
        "",
        "\n",
        ".",
        "{",
        "}",
        ".version",
        ".entry",
        "%r1",
        "@",
        "ld.",
        ".version 8.0\n.target",
        "\u{feff}",
        "ld.global.v4.f32 {,,,}, [];",
        // Found by the `analyses` fuzz target: a `.section` data width of 0 bits.
        ".version 8.6\n.target sm_90\n.section .debug_info\n{\n  .b0 1\n  .b72 -1\n}\n",
    ] {
        let _ = check_text(text, &CheckOptions::default());
    }
}
