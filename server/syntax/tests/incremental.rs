//! Random edit sequences applied to a `Document` give the same text and tree
//! as a fresh parse of the edited text, whatever the characters (multi-byte,
//! astral, CRLF) and the position unit.

use proptest::prelude::*;
use ptx_syntax::{Document, LineCol, LineIndex, Parse, PositionEncoding, TextEdit};

const SEED: &str = ".version 9.1\r\n.target sm_90a\n.entry k(.param .u64 p)\n{\n  .reg .b32 %r<4>;\r\n  // é 𝄞 comment\n  @%p1 ld.global.v2.u32 {%r1, %r2}, [%rd1+8];\n$L1:\n  ret;\n}\n";

/// Pieces that edits insert: PTX tokens, line breaks and multi-byte text.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(";".to_owned()),
        Just("\r\n".to_owned()),
        Just("\n".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just(" add.s32 %r1, %r2, 3;".to_owned()),
        Just(".reg .pred %p<2>;".to_owned()),
        Just("é".to_owned()),
        Just("𝄞".to_owned()),
        Just("// 中文\n".to_owned()),
        Just("/*".to_owned()),
        "[a-z%.0-9 ]{0,6}",
    ]
}

fn encoding() -> impl Strategy<Value = PositionEncoding> {
    prop_oneof![Just(PositionEncoding::Utf16), Just(PositionEncoding::Utf8)]
}

/// An edit expressed as fractions of the current text, resolved against it.
#[derive(Debug, Clone)]
struct RawEdit {
    start: f64,
    len: f64,
    text: String,
}

fn raw_edit() -> impl Strategy<Value = RawEdit> {
    (0.0..1.0f64, 0.0..0.2f64, fragment()).prop_map(|(start, len, text)| RawEdit {
        start,
        len,
        text,
    })
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Resolves a raw edit to byte offsets that sit on character boundaries and
/// not inside a `\r\n` pair (LSP clients never split one).
fn resolve(text: &str, raw: &RawEdit) -> (usize, usize) {
    let clamp = |i: usize| {
        let mut i = floor_boundary(text, i.min(text.len()));
        if i > 0 && text.as_bytes()[i - 1] == b'\r' && text.as_bytes().get(i) == Some(&b'\n') {
            i -= 1;
        }
        i
    };
    let start = clamp((raw.start * text.len() as f64) as usize);
    let end = clamp(start + (raw.len * text.len() as f64) as usize).max(start);
    (start, end)
}

/// Applies `batches` of edits to a document holding `seed`, checking after
/// each batch that the text and the tree equal those of a fresh parse.
fn check_edits(
    seed: &str,
    batches: &[Vec<RawEdit>],
    encoding: PositionEncoding,
) -> Result<(), TestCaseError> {
    let mut doc = Document::new(seed, 0);
    let mut expected = seed.to_owned();
    for (version, batch) in batches.iter().enumerate() {
        let mut edits = Vec::new();
        for raw in batch {
            // Each edit's positions refer to the text after the previous edits.
            let (start, end) = resolve(&expected, raw);
            let index = LineIndex::new(&expected);
            let range = (
                index.line_col(&expected, start, encoding),
                index.line_col(&expected, end, encoding),
            );
            expected.replace_range(start..end, &raw.text);
            edits.push(TextEdit {
                range: Some(range),
                text: raw.text.clone(),
            });
        }
        doc.apply_edits(&edits, encoding, version as i32 + 1);
        prop_assert_eq!(doc.text(), expected.as_str());
        prop_assert_eq!(doc.parse().sexp(), Parse::new(expected.as_str()).sexp());
    }
    Ok(())
}

/// A debug section: runs of integer lines (one `data_block` token each, whose
/// extent depends on the lines after it) between lines with labels.
const SECTION_SEED: &str = ".section .debug_info\n{\n.b32 10415 // DW_AT_type\n.b8 95,90,0x4e\n\
                            .b64 $L__func_begin0\n$L__info0:\n.b8 1\r\n.b16 7\n}\n";

/// Pieces that edits insert into a section: whole and partial data lines.
fn section_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\n.b8 5".to_owned()),
        Just(".b64 $L__tmp1\n".to_owned()),
        Just("$L__info1:".to_owned()),
        Just(", 7".to_owned()),
        Just(" // DW_AT_name".to_owned()),
        Just("}".to_owned()),
        "[0-9a-z.,$ ]{0,4}",
    ]
}

fn section_edit() -> impl Strategy<Value = RawEdit> {
    (0.0..1.0f64, 0.0..0.2f64, section_fragment()).prop_map(|(start, len, text)| RawEdit {
        start,
        len,
        text,
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn incremental_reparse_matches_a_fresh_parse(
        batches in prop::collection::vec(prop::collection::vec(raw_edit(), 1..4), 1..5),
        encoding in encoding(),
    ) {
        check_edits(SEED, &batches, encoding)?;
    }

    #[test]
    fn incremental_reparse_of_a_section_matches_a_fresh_parse(
        batches in prop::collection::vec(prop::collection::vec(section_edit(), 1..4), 1..5),
        encoding in encoding(),
    ) {
        check_edits(SECTION_SEED, &batches, encoding)?;
    }
}

#[test]
fn positions_past_line_end_clamp_before_crlf() {
    let mut doc = Document::new("ret;\r\nexit;\r\n", 0);
    let at = |line, col| LineCol { line, col };
    doc.apply_edits(
        &[TextEdit {
            range: Some((at(0, 40), at(0, 40))),
            text: " // x".into(),
        }],
        PositionEncoding::Utf16,
        1,
    );
    assert_eq!(doc.text(), "ret; // x\r\nexit;\r\n");
}
