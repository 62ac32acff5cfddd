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
}
