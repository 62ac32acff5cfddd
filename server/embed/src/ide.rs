//! Editor features inside asm templates: the PTX hover, completion and register-count inlay
//! hints, run unchanged on the virtual documents, with ranges and inserted text mapped back
//! into the host file (text inserted into a literal is escaped, `%` doubled in extended asm).
//! Nothing is offered outside asm templates: the C++ around them belongs to the C++ server.

use ptx_ide::completion::{CompletionConfig, CompletionItem};
use ptx_ide::hover::HoverConfig;
use ptx_syntax::TextRange;

use crate::check::escape_for_literal;
use crate::{describe_operand, HostDocument, Statement};

/// A hover in the host file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    pub range: TextRange,
    pub markdown: String,
}

/// The hover at a host offset: the operand behind a placeholder (its C++ expression and
/// constraint), or the PTX hover of the opcode, qualifier or register under the cursor.
pub fn hover(doc: &HostDocument, offset: usize, config: &HoverConfig<'_>) -> Option<Hover> {
    let stmt = doc.statement_at(offset)?;
    if let Some(p) = stmt
        .placeholders
        .iter()
        .find(|p| p.host.start <= offset && offset <= p.host.end)
    {
        let markdown = match p.operand {
            Some(k) => {
                let op = &stmt.raw.operands[k];
                format!(
                    "**`{}`**: asm operand {} — {}",
                    p.written,
                    op.index,
                    describe_operand(op, stmt.target.as_deref())
                )
            }
            None => format!(
                "**`{}`** names no operand of this asm statement ({} operands)",
                p.written,
                stmt.raw.operands.len()
            ),
        };
        return Some(Hover {
            range: p.host.clone(),
            markdown,
        });
    }
    let virt = stmt.to_virtual(offset)?;
    let config = HoverConfig {
        spec: config.spec,
        target_unknown: stmt.target.is_none(),
        ..HoverConfig::default()
    };
    let result = ptx_ide::hover::hover(&stmt.parse, virt, &config)?;
    let range = stmt.map.range_to_host(result.range)?;
    let mut markdown = result.markdown;
    markdown.push_str(&target_note(stmt));
    Some(Hover { range, markdown })
}

/// Which target the statement was read for, and where that came from.
fn target_note(stmt: &Statement) -> String {
    match (&stmt.target, stmt.guard) {
        (Some(t), Some(g)) => format!(
            "\n\n---\nInline asm checked for `{t}` (enclosing guard needs {}).",
            g.name()
        ),
        (Some(t), None) => format!("\n\n---\nInline asm checked for `{t}`."),
        (None, _) => "\n\n---\nNo target is known for this file (set one, add a \
             `compile_commands.json`, or guard the code with `#if __CUDA_ARCH__ >= …`): the \
             targets named above are what the form needs; availability is not checked."
            .to_string(),
    }
}

/// Completions at a host offset inside an asm template; empty elsewhere.
pub fn complete(doc: &HostDocument, offset: usize) -> Vec<CompletionItem> {
    let Some(stmt) = doc.statement_at(offset) else {
        return Vec::new();
    };
    let Some(virt) = stmt.to_virtual(offset) else {
        return Vec::new();
    };
    let config = CompletionConfig::default();
    ptx_ide::completion::complete(&stmt.parse, virt, &config)
        .into_iter()
        .filter(|item| !item.is_snippet)
        .filter_map(|mut item| {
            let start = stmt.map.offset_to_host(item.replace_range.start).or(
                // An empty range right at the cursor.
                (item.replace_range.start == virt).then_some(offset),
            )?;
            let end = if item.replace_range.end == virt {
                offset
            } else {
                stmt.map.range_to_host(item.replace_range.clone())?.end
            };
            item.replace_range = start..end.max(start);
            item.insert_text = escape_for_literal(&item.insert_text, stmt.raw.extended);
            // Operand registers of the wrapper are written as placeholders.
            if item.label.starts_with("%op") {
                return None;
            }
            Some(item)
        })
        .collect()
}

/// A register-count hint in the host file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlayHint {
    pub offset: usize,
    pub label: String,
    pub tooltip: String,
}

/// The register-count hints of the asm statements that overlap the host `range`.
pub fn inlay_hints(doc: &HostDocument, range: TextRange) -> Vec<InlayHint> {
    let mut out = Vec::new();
    for stmt in &doc.statements {
        if stmt.raw.range.end < range.start
            || range.end < stmt.raw.range.start
            || stmt.parse.too_deep().is_some()
        {
            continue;
        }
        let all = stmt.body_start..stmt.parse.text().len();
        for hint in ptx_ide::inlay_hints::inlay_hints(&stmt.parse, all) {
            // A hint at the end of a mapped token: map its last byte and step past it.
            let Some(offset) = hint
                .offset
                .checked_sub(1)
                .and_then(|v| stmt.map.range_to_host(v..v + 1))
                .map(|r| r.end)
            else {
                continue;
            };
            out.push(InlayHint {
                offset,
                label: hint.label,
                tooltip: hint.tooltip,
            });
        }
    }
    out
}

/// The PTX semantic tokens of the asm templates of `doc`, in host ranges and host order:
/// tokens of the virtual documents that map onto the literal text one to one (placeholders
/// map onto `%N` as written; tokens cut by an escape or a string boundary are left out).
pub fn semantic_tokens(doc: &HostDocument) -> Vec<ptx_ide::semantic_tokens::HighlightToken> {
    let mut out = Vec::new();
    for stmt in &doc.statements {
        if stmt.raw.opaque.is_some() {
            continue;
        }
        let body = stmt.body_start..stmt.parse.text().len();
        for mut token in ptx_ide::semantic_tokens::semantic_tokens(&stmt.parse, Some(body)) {
            if token.range.start < stmt.body_start {
                continue;
            }
            let Some(host) = stmt.map.range_to_host(token.range.clone()) else {
                continue;
            };
            let placeholder = stmt.placeholder_at_virtual(token.range.start).is_some();
            // A token that maps exactly, byte for byte, or a whole placeholder.
            let exact = host.len() == token.range.len()
                && stmt.map.offset_to_virtual(host.start) == Some(token.range.start);
            if !(exact || placeholder) || host.is_empty() {
                continue;
            }
            token.range = host;
            out.push(token);
        }
    }
    out.sort_by_key(|t| (t.range.start, t.range.end));
    out.dedup_by(|a, b| a.range.start < b.range.end);
    out
}
