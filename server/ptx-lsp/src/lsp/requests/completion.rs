//! `textDocument/completion`: qualifiers that may follow what is written,
//! opcodes and instruction snippets, operands, directives, state spaces and
//! types, filtered by the file's (or the configured) target and version.

use std::sync::Arc;

use ptx_ide::completion::{CompletionConfig, CompletionKind};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    CompletionItem, CompletionItemKind, CompletionList, CompletionParams, CompletionResponse,
    CompletionTextEdit, Documentation, InsertTextFormat, MarkupContent, MarkupKind,
};

use crate::lsp::server::State;
use crate::lsp::{dispatch, from_proto, to_proto};

fn kind(kind: CompletionKind) -> CompletionItemKind {
    match kind {
        CompletionKind::Opcode => CompletionItemKind::KEYWORD,
        CompletionKind::Qualifier => CompletionItemKind::ENUM_MEMBER,
        CompletionKind::Snippet => CompletionItemKind::SNIPPET,
        CompletionKind::Register => CompletionItemKind::VARIABLE,
        CompletionKind::SpecialRegister => CompletionItemKind::CONSTANT,
        CompletionKind::Label => CompletionItemKind::REFERENCE,
        CompletionKind::Function => CompletionItemKind::FUNCTION,
        CompletionKind::Variable => CompletionItemKind::VARIABLE,
        CompletionKind::Directive => CompletionItemKind::KEYWORD,
        CompletionKind::Type => CompletionItemKind::TYPE_PARAMETER,
        CompletionKind::StateSpace => CompletionItemKind::MODULE,
        CompletionKind::Target => CompletionItemKind::ENUM_MEMBER,
        CompletionKind::Value => CompletionItemKind::VALUE,
    }
}

/// The plain text of a snippet (`${1:d}` → `d`, `$0` → nothing), for
/// clients without snippet support.
pub(crate) fn strip_snippet(snippet: &str) -> String {
    let mut out = String::new();
    let mut chars = snippet.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '$' if chars.peek() == Some(&'{') => {
                chars.next();
                while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                    chars.next();
                }
                if chars.peek() == Some(&':') {
                    chars.next();
                }
                let mut depth = 1;
                for c in chars.by_ref() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    out.push(c);
                }
            }
            '$' if chars.peek().is_some_and(|c| c.is_ascii_digit()) => {
                while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                    chars.next();
                }
            }
            c => out.push(c),
        }
    }
    out
}

pub(crate) async fn handle(
    state: &Arc<State>,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>> {
    let position = params.text_document_position;
    let snapshot = super::snapshot(state, &position.text_document.uri)?;
    let config = state.config();
    let snippets = state.snippet_support();
    let state = state.clone();
    dispatch::feature("textDocument/completion", snapshot.clone(), move || {
        let offset = from_proto::offset(&snapshot, position.position);
        let completion_config = CompletionConfig {
            target_override: config.target.clone(),
            version_override: config.version.clone(),
        };
        let items = match state.host_document(&snapshot) {
            // Only inside an asm template of a CUDA/C++ file.
            Some(host) => ptx_embed::ide::complete(&host, offset),
            None => ptx_ide::completion::complete(&snapshot.parse, offset, &completion_config),
        };
        let items: Vec<CompletionItem> = items
            .into_iter()
            .map(|item| {
                let snippet = item.is_snippet && snippets;
                let new_text = if item.is_snippet && !snippets {
                    strip_snippet(&item.insert_text)
                } else {
                    item.insert_text
                };
                CompletionItem {
                    label: item.label,
                    kind: Some(kind(item.kind)),
                    detail: item.detail,
                    documentation: item.documentation.map(|value| {
                        Documentation::MarkupContent(MarkupContent {
                            kind: MarkupKind::Markdown,
                            value,
                        })
                    }),
                    sort_text: Some(item.sort_text),
                    insert_text_format: Some(if snippet {
                        InsertTextFormat::SNIPPET
                    } else {
                        InsertTextFormat::PLAIN_TEXT
                    }),
                    text_edit: Some(CompletionTextEdit::Edit(to_proto::text_edit(
                        &snapshot,
                        &item.replace_range,
                        new_text,
                    ))),
                    ..Default::default()
                }
            })
            .collect();
        Some(CompletionResponse::List(CompletionList {
            // Qualifier lists depend on every character typed: ask again.
            is_incomplete: false,
            items,
        }))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::strip_snippet;

    #[test]
    fn snippets_to_plain_text() {
        assert_eq!(
            strip_snippet("ld.global.v2.f32 {${1:%f1}, ${2:%f2}}, [${3:addr}];$0"),
            "ld.global.v2.f32 {%f1, %f2}, [addr];"
        );
        assert_eq!(strip_snippet("a \\$ b"), "a $ b");
    }
}
