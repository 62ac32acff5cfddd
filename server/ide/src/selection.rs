//! Selection ranges: from the token under the cursor outwards through the
//! operand, the instruction, the block and the function to the whole file.

use ptx_syntax::{Parse, TextRange};

/// For each offset, the ranges to grow the selection through, innermost first.
pub fn selection_ranges(parse: &Parse, offsets: &[usize]) -> Vec<Vec<TextRange>> {
    offsets
        .iter()
        .map(|&offset| {
            let mut ranges = parse.enclosing_ranges(offset.min(parse.text().len()));
            // Each range must contain the next smaller one; the syntax layer
            // guarantees nesting, this guards against an empty first range.
            ranges.retain(|r| r.start <= offset && offset <= r.end);
            ranges
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn grows_from_register_to_file() {
        let text = ".version 9.0\n.entry k()\n{\n  ld.global.v2.f32 {%f1, %f2}, [%rd1+8];\n}\n";
        let parse = Parse::new(text);
        let offset = text.find("%rd1").unwrap() + 2;
        let ranges: Vec<&str> = selection_ranges(&parse, &[offset])[0]
            .iter()
            .map(|r| &text[r.clone()])
            .collect();
        expect![[r#"
            [
                "%rd1",
                "%rd1+8",
                "[%rd1+8]",
                "{%f1, %f2}, [%rd1+8]",
                "ld.global.v2.f32 {%f1, %f2}, [%rd1+8];",
                "{\n  ld.global.v2.f32 {%f1, %f2}, [%rd1+8];\n}",
                ".entry k()\n{\n  ld.global.v2.f32 {%f1, %f2}, [%rd1+8];\n}",
                ".version 9.0\n.entry k()\n{\n  ld.global.v2.f32 {%f1, %f2}, [%rd1+8];\n}\n",
            ]
        "#]]
        .assert_debug_eq(&ranges);
    }

    #[test]
    fn each_range_contains_the_previous_one() {
        let text = ".entry k() { @!%p bra L; L: ret; } garbage {{";
        let parse = Parse::new(text);
        for offset in 0..=text.len() {
            let ranges = &selection_ranges(&parse, &[offset])[0];
            assert!(!ranges.is_empty());
            for pair in ranges.windows(2) {
                assert!(pair[1].start <= pair[0].start && pair[0].end <= pair[1].end);
            }
        }
    }
}
