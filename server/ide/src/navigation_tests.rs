//! Fixture tests of navigation: `$0` marks the cursor; results are rendered
//! as `line:column text` (1-based, like the CLI) with their access kind.

use super::*;
use expect_test::{expect, Expect};

/// Removes the `$0` marker, returning the text and the cursor's byte offset.
fn fixture(text: &str) -> (Parse, usize) {
    let offset = text.find("$0").expect("fixture has a $0 cursor");
    (Parse::new(text.replacen("$0", "", 1)), offset)
}

fn at(text: &str, range: &TextRange) -> String {
    let line = text[..range.start].matches('\n').count() + 1;
    let col = range.start - text[..range.start].rfind('\n').map_or(0, |i| i + 1) + 1;
    format!("{line}:{col} {}", &text[range.clone()])
}

fn check_definition(text: &str, expect: Expect) {
    let (parse, offset) = fixture(text);
    let out: Vec<String> = goto_definition(&parse, offset)
        .iter()
        .map(|t| at(parse.text(), &t.name_range))
        .collect();
    expect.assert_debug_eq(&out);
}

fn check_references(text: &str, expect: Expect) {
    let (parse, offset) = fixture(text);
    let out: Vec<String> = find_references(&parse, offset, true)
        .iter()
        .map(|r| format!("{} {:?}", at(parse.text(), &r.range), r.access))
        .collect();
    expect.assert_debug_eq(&out);
}

fn check_rename(text: &str, new_name: &str, expect: Expect) {
    let (parse, offset) = fixture(text);
    let out = match rename(&parse, offset, new_name) {
        Ok(mut edits) => {
            edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
            let mut result = parse.text().to_owned();
            for (range, new_text) in edits {
                result.replace_range(range, &new_text);
            }
            result
        }
        Err(error) => format!("error: {error}"),
    };
    expect.assert_eq(&out);
}

const KERNEL: &str = r#".version 9.0
.target sm_90
.global .align 4 .b32 counter;
.func (.param .b32 r) helper(.param .b32 x)
{
  ld.param.b32 %r1, [x];
  st.param.b32 [r], %r1;
  ret;
}
.entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .pred %p;
$L__loop:
  ld.global.u32 %r1, [counter];
  add.s32 %r1, %r1, 1;
  setp.lt.s32 %p, %r1, 10;
  @%p bra $L__loop;
  ret;
}
"#;

fn with_cursor(text: &str, needle: &str, nth: usize) -> String {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .expect("needle present")
        .0;
    format!("{}$0{}", &text[..offset], &text[offset..])
}

#[test]
fn definition_of_a_range_register() {
    check_definition(
        &with_cursor(KERNEL, "%r1, %r1, 1", 0),
        expect![[r#"
            [
                "12:13 %r",
            ]
        "#]],
    );
}

#[test]
fn definition_of_label_parameter_global_and_function() {
    check_definition(
        &with_cursor(KERNEL, "$L__loop;", 0),
        expect![[r#"
            [
                "14:1 $L__loop",
            ]
        "#]],
    );
    check_definition(
        &with_cursor(KERNEL, "x];", 0),
        expect![[r#"
            [
                "4:42 x",
            ]
        "#]],
    );
    check_definition(
        &with_cursor(KERNEL, "counter];", 0),
        expect![[r#"
            [
                "3:23 counter",
            ]
        "#]],
    );
    check_definition(
        r#".func f();
.func f() { ret; }
.entry k() { call f$0, (); }
"#,
        expect![[r#"
            [
                "1:7 f",
                "2:7 f",
            ]
        "#]],
    );
}

#[test]
fn registers_are_local_to_their_function() {
    // `%r1` of `helper` is not declared there: it resolves to nothing, and
    // `k`'s `%r1` does not leak into it.
    check_definition(
        &with_cursor(KERNEL, "%r1, [x]", 0),
        expect![[r#"
        []
    "#]],
    );
    check_references(
        &with_cursor(KERNEL, "%r1, [counter]", 0),
        expect![[r#"
            [
                "12:13 %r Declaration",
                "15:17 %r1 Write",
                "16:11 %r1 Write",
                "16:16 %r1 Read",
                "17:19 %r1 Read",
            ]
        "#]],
    );
}

#[test]
fn inner_blocks_shadow_outer_names() {
    let text = r#".entry k()
{
  .reg .pred p;
  {
    .reg .pred p;
    setp.eq.s32 p, 1, 1;
  }
  @p$0 ret;
}
"#;
    check_references(
        text,
        expect![[r#"
            [
                "3:14 p Declaration",
                "8:4 p Read",
            ]
        "#]],
    );
}

#[test]
fn special_registers_match_by_spelling_in_the_function() {
    check_references(
        ".entry a() { mov.u32 %r1, %tid$0.x; mov.u32 %r2, %tid.y; }\n.entry b() { mov.u32 %r1, %tid.x; }\n",
        expect![[r#"
            [
                "1:27 %tid Read",
                "1:48 %tid Read",
            ]
        "#]],
    );
}

#[test]
fn references_of_a_range_declaration_cover_every_register() {
    check_references(
        ".entry k() { .reg .b32 %r$0<3>; mov.b32 %r0, %r2; mov.b32 %r3, %r10; }\n",
        expect![[r#"
            [
                "1:24 %r Declaration",
                "1:39 %r0 Write",
                "1:44 %r2 Read",
            ]
        "#]],
    );
}

#[test]
fn rename_a_function_everywhere() {
    check_rename(
        ".func f$0();\n.func f() { ret; }\n.entry k() { call f, (); }\n.alias g, f;\n",
        "helper",
        expect![[r#"
            .func helper();
            .func helper() { ret; }
            .entry k() { call helper, (); }
            .alias g, helper;
        "#]],
    );
}

#[test]
fn rename_a_label_only_in_its_block() {
    check_rename(
        ".entry a() { L: bra L$0; }\n.entry b() { L: bra L; }\n",
        "top",
        expect![[r#"
            .entry a() { top: bra top; }
            .entry b() { L: bra L; }
        "#]],
    );
}

#[test]
fn rename_a_register_and_a_parameter() {
    check_rename(
        ".entry k(.param .u64 p)\n{\n.reg .b64 %rd;\nld.param.u64 %rd$0, [p];\nst.global.u64 [%rd], %rd;\n}\n",
        "%addr",
        expect![[r#"
            .entry k(.param .u64 p)
            {
            .reg .b64 %addr;
            ld.param.u64 %addr, [p];
            st.global.u64 [%addr], %addr;
            }
        "#]],
    );
    check_rename(
        ".entry k(.param .u64 p$0)\n{\nld.param.u64 %rd1, [p];\n}\n",
        "out_ptr",
        expect![[r#"
            .entry k(.param .u64 out_ptr)
            {
            ld.param.u64 %rd1, [out_ptr];
            }
        "#]],
    );
}

#[test]
fn rename_a_whole_register_range() {
    check_rename(
        ".entry k()\n{\n  .reg .f32 %f<4>;\n  .reg .b32 %r<2>;\n  mov.f32 %f1, 0f3F800000;\n  add.f32 %f3, %f1, %f1;\n  mov.b32 %r1, %f3;\n  { .reg .f32 %f<2>; mov.f32 %f1, 0f00000000; }\n}\n"
            .replacen("%f<4>", "%f$0<4>", 1)
            .as_str(),
        "%acc",
        expect![[r#"
            .entry k()
            {
              .reg .f32 %acc<4>;
              .reg .b32 %r<2>;
              mov.f32 %acc1, 0f3F800000;
              add.f32 %acc3, %acc1, %acc1;
              mov.b32 %r1, %acc3;
              { .reg .f32 %f<2>; mov.f32 %f1, 0f00000000; }
            }
        "#]],
    );
}

#[test]
fn rename_one_register_of_a_range() {
    check_rename(
        ".entry k()\n{\n  .reg .f32 %f<4>;\n  mov.f32 %f1$0, 0f3F800000;\n  add.f32 %f3, %f1, %f2;\n}\n",
        "%scale",
        expect![[r#"
            .entry k()
            {
              .reg .f32 %f<4>;
              .reg .f32 %scale;
              mov.f32 %scale, 0f3F800000;
              add.f32 %f3, %scale, %f2;
            }
        "#]],
    );
    // nvcc declares several ranges in one statement; the new name gets the range's type.
    check_rename(
        ".entry k()\n{\n\t.reg .b64 %rd<3>, %x;\n\tcvta.to.global.u64 %rd2, %rd1$0;\n}\n",
        "%base",
        expect![[r#"
            .entry k()
            {
            	.reg .b64 %rd<3>, %x;
            	.reg .b64 %base;
            	cvta.to.global.u64 %rd2, %base;
            }
        "#]],
    );
    let (parse, offset) = fixture(".entry k() { .reg .b32 %r<4>; mov.b32 %r1$0, 0; }\n");
    assert_eq!(prepare_rename(&parse, offset), Ok(offset - 3..offset));
    let (parse, offset) = fixture(".entry k() { .reg .b32 %r$0<4>; mov.b32 %r1, 0; }\n");
    assert_eq!(prepare_rename(&parse, offset), Ok(offset - 2..offset));
}

#[test]
fn rename_is_refused_when_it_would_change_meaning() {
    check_rename(
        ".entry k() { .reg .b32 %r$0<4>, %acc1; mov.b32 %r1, 0; }\n",
        "%acc",
        expect!["error: `%r<4>` cannot become `%acc<4>`: `%acc1` is already declared (at byte 30) where the range is visible"],
    );
    check_rename(
        ".entry k() { .reg .b32 %r$0<4>; mov.b32 %r1, 0; }\n",
        "%q2",
        expect!["error: the name of a register range cannot end in a digit: `%q2<4>` would make `%q20` ambiguous"],
    );
    check_rename(
        ".entry k() { .reg .b32 %r<4>; mov.b32 %r1$0, 0; }\n",
        "%r2",
        expect!["error: `%r2` is already declared (at byte 23) where `%r1` is visible"],
    );
    check_rename(
        ".entry k() { .reg .b32 %r<4>, %x<2>; mov.b32 %r1$0, 0; }\n",
        "%x1",
        expect!["error: `%x1` is already declared (at byte 30) where `%r1` is visible"],
    );
    check_rename(
        ".entry k() { mov.u32 %r1, %tid$0.x; }\n",
        "%x",
        expect!["error: `%tid` is not declared in this file, so it cannot be renamed"],
    );
    check_rename(
        ".entry k() { .reg .b32 %a, %b; mov.b32 %a$0, %b; }\n",
        "%b",
        expect!["error: `%b` is already declared (at byte 27) where `%a` is visible"],
    );
    check_rename(
        ".entry k() { .reg .b32 %a; mov.b32 %a$0, 1; }\n",
        "b c",
        expect![
            "error: `b c` is not a register name (`%` followed by letters, digits, `_` or `$`)"
        ],
    );
    check_rename(
        ".entry k() { L: bra L$0; }\n",
        "%L",
        expect!["error: `%L` is not a name (a letter followed by letters, digits, `_` or `$`, or `_`/`$` followed by at least one of those)"],
    );
}

#[test]
fn navigation_survives_broken_code() {
    check_definition(
        ".entry k() { .reg .b32 %r1; add.s32 %r1, %r1$0 %r2 }}\n",
        expect![[r#"
            [
                "1:24 %r1",
            ]
        "#]],
    );
    assert!(goto_definition(&Parse::new(""), 0).is_empty());
    assert!(prepare_rename(&Parse::new("ret;"), 1).is_err());
}

/// Requests look only at the declarations around the cursor (all of them
/// for module-wide names); on a real file every name must get the same
/// references as with the whole file's declarations.
#[test]
fn local_declarations_give_the_same_references_as_all() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/nvcc/hopper_asm_sm_90a.ptx");
    let text = std::fs::read_to_string(path).unwrap();
    let parse = Parse::new(text.as_str());
    let all = Declarations::of(&parse);
    let names: Vec<SyntaxToken> = parse
        .tokens()
        .into_iter()
        .filter(|t| is_name(t.kind))
        .collect();
    assert!(names.len() > 100);
    for token in names.iter().step_by(3) {
        let expected = occurrences(&parse, &all, token);
        let got = find_references(&parse, token.range.start, true);
        assert_eq!(got, expected, "at {}", at(&text, &token.range));
    }
}
