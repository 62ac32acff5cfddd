//! Folding ranges: function headers and bodies, nested blocks, debug
//! sections, comment runs, and the `// begin inline asm` … `// end inline asm`
//! regions that nvcc writes around inline assembly.

use ptx_syntax::{Block, Item, Parse, Statement, TextRange};

/// What a fold hides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FoldKind {
    /// Code: a block, a parameter list, a section.
    Code,
    Comment,
    /// A region marked by comments (inline assembly).
    Region,
}

/// One folding range. Only ranges that span more than one line are returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    pub range: TextRange,
    pub kind: FoldKind,
}

/// Every fold of the document, ordered by start.
pub fn folding_ranges(parse: &Parse) -> Vec<Fold> {
    let src = parse.text();
    let mut folds = Vec::new();
    let code = |range: TextRange, folds: &mut Vec<Fold>| {
        folds.push(Fold {
            range,
            kind: FoldKind::Code,
        })
    };
    for item in parse.module().items() {
        match item {
            Item::Function(function) => {
                let params = function.parameters();
                if let Some(last) = params.last() {
                    code(function.range().start..last.range().end, &mut folds);
                }
                if let Some(body) = function.body() {
                    block_folds(body, &mut folds);
                }
            }
            Item::Variable(decl) => code(decl.range(), &mut folds),
            Item::Directive(directive) => code(directive.range(), &mut folds),
            Item::Statement(Statement::Block(block)) => block_folds(block, &mut folds),
            Item::Statement(_) => {}
        }
    }
    comment_folds(parse, &mut folds);
    folds.retain(|f| src[f.range.clone()].trim_end().contains('\n'));
    folds.sort_by_key(|f| (f.range.start, std::cmp::Reverse(f.range.end)));
    folds
}

fn block_folds(block: Block<'_>, folds: &mut Vec<Fold>) {
    folds.push(Fold {
        range: block.range(),
        kind: FoldKind::Code,
    });
    for statement in block.statements() {
        if let Statement::Block(inner) = statement {
            block_folds(inner, folds);
        }
    }
}

/// Runs of line comments on consecutive lines, block comments, and inline
/// assembly regions. Only the comments are read ([`Parse::comments`]): a
/// run is broken by any token between two comments, which shows as text
/// other than blanks in the gap between them.
fn comment_folds(parse: &Parse, folds: &mut Vec<Fold>) {
    let src = parse.text();
    let mut run: Option<TextRange> = None;
    let mut open_regions: Vec<usize> = Vec::new();
    let flush = |run: &mut Option<TextRange>, folds: &mut Vec<Fold>| {
        if let Some(range) = run.take() {
            folds.push(Fold {
                range,
                kind: FoldKind::Comment,
            });
        }
    };
    let mut previous_end = 0;
    for range in parse.comments() {
        let text = &src[range.clone()];
        let gap = &src[previous_end..range.start];
        let token_between = !gap.trim().is_empty();
        if token_between {
            flush(&mut run, folds);
        }
        let line_start = src[..range.start].rfind('\n').map_or(0, |n| n + 1);
        let own_line = src[line_start..range.start].trim().is_empty();
        previous_end = range.end;
        match text.trim_start_matches('/').trim() {
            "begin inline asm" => {
                flush(&mut run, folds);
                open_regions.push(range.start);
                continue;
            }
            "end inline asm" => {
                flush(&mut run, folds);
                if let Some(start) = open_regions.pop() {
                    folds.push(Fold {
                        range: start..range.end,
                        kind: FoldKind::Region,
                    });
                }
                continue;
            }
            _ => {}
        }
        if text.starts_with("/*") {
            flush(&mut run, folds);
            folds.push(Fold {
                range,
                kind: FoldKind::Comment,
            });
            continue;
        }
        let continues = own_line && !token_between && gap.matches('\n').count() == 1;
        match &mut run {
            Some(run) if continues => run.end = range.end,
            _ => {
                flush(&mut run, folds);
                if own_line {
                    run = Some(range);
                }
            }
        }
    }
    flush(&mut run, folds);
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(text: &str, expect: Expect) {
        let parse = Parse::new(text);
        let out: String = folding_ranges(&parse)
            .iter()
            .map(|f| {
                let line = |offset: usize| text[..offset].matches('\n').count() + 1;
                format!(
                    "{:?} lines {}-{}\n",
                    f.kind,
                    line(f.range.start),
                    line(f.range.end)
                )
            })
            .collect();
        expect.assert_eq(&out);
    }

    #[test]
    fn functions_blocks_comments_and_inline_asm() {
        check(
            r#"//
// Generated
//

.version 9.0
.visible .entry k(
	.param .u64 a,
	.param .u64 b
)
{
	.reg .b32 %r<2>;
	// begin inline asm
	{
	.reg .pred p;
	}
	// end inline asm
	ret; // one
	     // two
}
.global .b8 data[4] = {
	1, 2, 3, 4
};
"#,
            expect![[r#"
                Comment lines 1-3
                Code lines 6-8
                Code lines 10-19
                Region lines 12-16
                Code lines 13-15
                Code lines 20-22
            "#]],
        );
    }

    #[test]
    fn single_line_constructs_do_not_fold() {
        check(".entry k() { ret; } // a\n// b\n", expect![[""]]);
    }
}
