//! `textDocument/diagnostic` (pull diagnostics). The result id is the
//! document's generation, so an unchanged document is answered "unchanged".

use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    DocumentDiagnosticParams, DocumentDiagnosticReport, DocumentDiagnosticReportResult,
    FullDocumentDiagnosticReport, RelatedFullDocumentDiagnosticReport,
    RelatedUnchangedDocumentDiagnosticReport, UnchangedDocumentDiagnosticReport,
};

use crate::lsp::diagnostics;
use crate::lsp::server::State;

pub(crate) async fn handle(
    state: &Arc<State>,
    params: DocumentDiagnosticParams,
) -> Result<DocumentDiagnosticReportResult> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let run_serial = state
        .diagnostics
        .run_marks(&params.text_document.uri, snapshot.generation)
        .map_or(0, |m| m.serial);
    let result_id = format!("{}.{run_serial}", snapshot.generation);
    if params.previous_result_id.as_deref() == Some(result_id.as_str()) {
        return Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
                related_documents: None,
                unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                    result_id,
                },
            }),
        ));
    }
    let uri = snapshot.uri.clone();
    let checked = diagnostics::for_snapshot(state, snapshot).await?;
    Ok(DocumentDiagnosticReportResult::Report(
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items: diagnostics::shown(state, &uri, &checked),
            },
        }),
    ))
}
