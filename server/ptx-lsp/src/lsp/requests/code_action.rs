//! `textDocument/codeAction`: the checker's quick fixes for the diagnostics
//! in the requested range.

use std::collections::HashMap;
use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
    WorkspaceEdit,
};

use crate::lsp::server::State;
use crate::lsp::{diagnostics, dispatch, from_proto, to_proto};

pub(crate) async fn handle(
    state: &Arc<State>,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let checked = diagnostics::for_snapshot(state, snapshot.clone()).await?;
    dispatch::analysis("textDocument/codeAction", move || {
        let range = from_proto::text_range(&snapshot, params.range);
        let mut actions = Vec::new();
        for (diagnostic, lsp_diagnostic) in checked.diagnostics.iter().zip(checked.lsp.iter()) {
            let overlaps =
                diagnostic.range.start <= range.end && range.start <= diagnostic.range.end;
            if !overlaps {
                continue;
            }
            for (i, fix) in diagnostic.fixes.iter().enumerate() {
                let edits = fix
                    .edits
                    .iter()
                    .map(|e| to_proto::text_edit(&snapshot, &e.range, e.new_text.clone()))
                    .collect();
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title.clone(),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![lsp_diagnostic.clone()]),
                    edit: Some(WorkspaceEdit {
                        changes: Some(HashMap::from([(snapshot.uri.clone(), edits)])),
                        ..Default::default()
                    }),
                    is_preferred: Some(i == 0 && diagnostic.fixes.len() == 1),
                    ..Default::default()
                }));
            }
        }
        // On a kernel's line without a `// @run` comment above it: add one, with argument
        // placeholders typed by the kernel's use of its parameters.
        let text = snapshot.text();
        for function in snapshot.parse.module().functions() {
            let Some(name) = function.name() else {
                continue;
            };
            // From the kernel's first word to the end of the line of its name.
            let name_line_end = text[name.range().end..]
                .find('\n')
                .map_or(text.len(), |i| name.range().end + i);
            let header = function.range().start..name_line_end;
            let on_it = header.start <= range.end && range.start <= header.end;
            if function.kind() != ptx_syntax::FunctionKind::Entry || !on_it {
                continue;
            }
            let line_start = text[..header.start].rfind('\n').map_or(0, |i| i + 1);
            let above = text[..line_start.saturating_sub(1)]
                .rsplit('\n')
                .next()
                .unwrap_or("");
            if above
                .trim_start()
                .trim_start_matches('/')
                .trim_start()
                .starts_with("@run")
            {
                continue;
            }
            let Some(line) = ptx_ide::run_template::run_template(&snapshot.parse, name.text) else {
                continue;
            };
            let edit =
                to_proto::text_edit(&snapshot, &(line_start..line_start), format!("{line}\n"));
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Add a `// @run` line for {}", name.text),
                kind: Some(CodeActionKind::REFACTOR),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(snapshot.uri.clone(), vec![edit])])),
                    ..Default::default()
                }),
                ..Default::default()
            }));
        }
        Some(actions)
    })
    .await
}
