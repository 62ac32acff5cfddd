//! Syntax errors: every ERROR and MISSING node of the tree, in the syntax layer's plain words
//! (PTX ISA chapter 4, "Syntax").

use crate::context::Ctx;
use crate::Diagnostic;

pub(crate) fn check(ctx: &mut Ctx<'_>) {
    for error in ctx.parse.syntax_errors() {
        let mut range = error.range.clone();
        if range.is_empty() {
            // A missing token: point at the character before, so editors show something.
            let start = ctx.text[..range.start]
                .char_indices()
                .next_back()
                .map_or(range.start, |(i, _)| i);
            range = start
                ..range
                    .end
                    .max(start + ctx.text[start..].chars().next().map_or(0, char::len_utf8));
        }
        ctx.report(Diagnostic::error("syntax-error", range, error.message).section("4"));
    }
    preprocessor_lines(ctx);
}

/// ptxas 13.5 runs no preprocessor: of the `#` lines the spec lets through (4.1) it reads only
/// the line markers that `cpp` leaves, `# 12 "file.cu"` and `#line 12 "file.cu"`, and stops at
/// any other (`#define`, `#include`, `#pragma`, `#line 3` without a file).
fn preprocessor_lines(ctx: &mut Ctx<'_>) {
    let text = ctx.text;
    if !text.contains('#') {
        return;
    }
    // One walk over the tokens, not one per `#`: a tree of garbage text has flat error nodes
    // whose children a look-up per `#` would walk again each time.
    let lines: Vec<usize> = ctx
        .parse
        .tokens()
        .iter()
        .filter(|t| t.kind == ptx_syntax::TokenKind::Preprocessor)
        .map(|t| t.range.start)
        .filter(|&start| text[start..].starts_with('#'))
        .collect();
    for start in lines {
        let end = start
            + text[start..]
                .find(['\n', '\r'])
                .unwrap_or(text.len() - start);
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        // A `#` after a statement on its line is no line marker either (`ret; # done`).
        let first_on_line = text[line_start..start]
            .trim_start_matches([' ', '\t'])
            .is_empty();
        if first_on_line && line_marker(&text[start..end]) {
            continue;
        }
        ctx.report(
            Diagnostic::error(
                "syntax-error",
                start..end.max(start + 1),
                "ptxas runs no C preprocessor and reads only line markers (`# 12 \"file.cu\"`, \
                 alone on their line) among `#` lines: run the file through `cpp` first",
            )
            .section("4.1"),
        );
    }
}

/// `# 12 "file"`, `#12 "file" 2`, `#line 12 "file"`.
fn line_marker(line: &str) -> bool {
    let rest = line[1..].trim_start();
    let rest = rest.strip_prefix("line").map_or(rest, str::trim_start);
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && rest[digits..].trim_start().starts_with('"')
}

#[cfg(test)]
mod tests {
    use crate::test_support::check_diagnostics;

    #[test]
    fn missing_semicolon_and_stray_token() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  add.s32 %r1, %r2 %r3;
//                 ^^^ error: unexpected `%r3` in this instruction
  ret;
}
"#,
        );
    }

    /// Each `#` line confirmed with ptxas 13.5 on sm_90a.
    #[test]
    fn only_line_markers_among_hash_lines() {
        check_diagnostics(
            r#"
.version 8.8
.target sm_90a
.address_size 64
# 1 "kernel.cu"
.visible .entry k()
{
  .reg .b32 %r<4>;
#line 12 "kernel.cu"
  mov.u32 %r1, 1;
  #pragma unroll
//^^^^^^^^^^^^^^ error: ptxas runs no C preprocessor and reads only line markers (`# 12 "file.cu"`, alone on their line) among `#` lines: run the file through `cpp` first
  ret; # done
//     ^^^^^^ error: ptxas runs no C preprocessor and reads only line markers (`# 12 "file.cu"`, alone on their line) among `#` lines: run the file through `cpp` first
}
"#,
        );
    }
}
