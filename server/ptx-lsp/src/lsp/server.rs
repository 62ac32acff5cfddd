//! The server's shared state and the `LanguageServer` implementation, which
//! only dispatches each message to its handler under `requests/` or
//! `notifications/`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ptx_docs::LazyIndex;

use ptx_syntax::PositionEncoding;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, ClientSocket, LanguageServer, LspService};

use super::config::Config;
use super::diagnostics::DiagnosticsState;
use super::documents::{Documents, Snapshot};
use super::runs::Runs;
use super::{notifications, requests};

/// Everything the handlers share. Handlers that spawn work clone the `Arc`.
pub(crate) struct State {
    pub client: Client,
    pub documents: Documents,
    pub diagnostics: DiagnosticsState,
    config: RwLock<Config>,
    encoding: RwLock<PositionEncoding>,
    /// The client pulls diagnostics (`textDocument/diagnostic`), so they are
    /// not pushed as well (a client showing both would show them twice).
    pull_diagnostics: AtomicBool,
    /// The client can be asked to refresh inlay hints / pulled diagnostics.
    refresh_inlay_hints: AtomicBool,
    refresh_diagnostics: AtomicBool,
    /// The client accepts snippet completions.
    snippet_support: AtomicBool,
    /// The imported spec index, for hover text (loaded on first use).
    spec: Mutex<Option<(Option<PathBuf>, Arc<LazyIndex>)>>,
    /// `shutdown` was received (the exit code depends on it).
    shutdown: Arc<AtomicBool>,
    /// The asm statements of each open CUDA/C++ document, for the generation they were read
    /// from.
    hosts: dashmap::DashMap<Url, (u64, Arc<ptx_embed::HostDocument>)>,
    /// The `ptx/run` requests in progress.
    pub runs: Arc<Runs>,
    /// The background ptxas compilations and the tools found.
    pub compiler: super::compiler::CompilerViews,
    /// The client can be asked to refresh code lenses.
    refresh_code_lenses: AtomicBool,
    /// Per document, the semantic tokens of its unchanged pieces.
    pub semantic_caches: dashmap::DashMap<Url, Arc<Mutex<ptx_ide::semantic_tokens::SemanticCache>>>,
}

impl State {
    pub fn config(&self) -> Config {
        self.config.read().map(|c| c.clone()).unwrap_or_default()
    }

    pub fn set_config(&self, config: Config) {
        if let Ok(mut current) = self.config.write() {
            *current = config;
        }
    }

    pub fn encoding(&self) -> PositionEncoding {
        self.encoding.read().map(|e| *e).unwrap_or_default()
    }

    pub fn set_encoding(&self, encoding: PositionEncoding) {
        if let Ok(mut current) = self.encoding.write() {
            *current = encoding;
        }
    }

    pub fn push_diagnostics(&self) -> bool {
        !self.pull_diagnostics.load(Ordering::Relaxed)
    }

    pub fn set_pull_diagnostics(&self, pull: bool) {
        self.pull_diagnostics.store(pull, Ordering::Relaxed);
    }

    pub fn snapshot(&self, uri: &Url) -> Option<Snapshot> {
        self.documents.snapshot(uri, self.encoding())
    }

    pub fn set_refresh_support(&self, inlay_hints: bool, diagnostics: bool) {
        self.refresh_inlay_hints
            .store(inlay_hints, Ordering::Relaxed);
        self.refresh_diagnostics
            .store(diagnostics, Ordering::Relaxed);
    }

    /// Asks the client to re-request what depends on the settings. Each
    /// request is sent from its own task: a client that never answers must
    /// not hold up a handler.
    pub fn refresh_client_views(self: &Arc<Self>) {
        if self.refresh_inlay_hints.load(Ordering::Relaxed) {
            let state = self.clone();
            tokio::spawn(async move {
                let _ = state.client.inlay_hint_refresh().await;
            });
        }
        if !self.push_diagnostics() && self.refresh_diagnostics.load(Ordering::Relaxed) {
            let state = self.clone();
            tokio::spawn(async move {
                let _ = state.client.workspace_diagnostic_refresh().await;
            });
        }
    }

    pub fn set_code_lens_refresh(&self, supported: bool) {
        self.refresh_code_lenses.store(supported, Ordering::Relaxed);
    }

    /// After a background compilation of `uri`: the client re-requests code lenses (and inlay
    /// hints), and ptxas's diagnostics, when shown, are published again.
    pub async fn refresh_compiler_views(self: &Arc<Self>, uri: &Url) {
        if self.refresh_code_lenses.load(Ordering::Relaxed) {
            let state = self.clone();
            tokio::spawn(async move {
                let _ = state.client.code_lens_refresh().await;
            });
        }
        if self.config().compiler.sass_counts {
            self.refresh_client_views();
        }
        if self.config().compiler.diagnostics {
            if self.push_diagnostics() {
                super::diagnostics::publish_current(self, uri).await;
            } else {
                self.refresh_client_views();
            }
        }
    }

    pub fn snippet_support(&self) -> bool {
        self.snippet_support.load(Ordering::Relaxed)
    }

    pub fn set_snippet_support(&self, supported: bool) {
        self.snippet_support.store(supported, Ordering::Relaxed);
    }

    /// The spec index of the configured cache directory (`docs.indexPath`,
    /// a directory or the index file in it), else of the default one.
    pub fn spec_index(&self) -> Option<Arc<LazyIndex>> {
        let configured = self.config().docs.index_path.map(PathBuf::from);
        let mut spec = self.spec.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((path, index)) = spec.as_ref() {
            if *path == configured {
                return Some(index.clone());
            }
        }
        let cache = match &configured {
            Some(path) if path.is_file() => path.parent().map(PathBuf::from),
            Some(path) => Some(path.clone()),
            None => ptx_docs::default_cache_dir(),
        }?;
        let index = Arc::new(LazyIndex::new(cache));
        *spec = Some((configured, index.clone()));
        Some(index)
    }

    /// The asm statements of a CUDA/C++ snapshot (`None` for PTX), read once per generation.
    pub fn host_document(&self, snapshot: &Snapshot) -> Option<Arc<ptx_embed::HostDocument>> {
        if !snapshot.host {
            return None;
        }
        let previous = self.hosts.get(&snapshot.uri).map(|entry| entry.clone());
        if let Some((generation, host)) = &previous {
            if *generation == snapshot.generation {
                return Some(host.clone());
            }
        }
        let config = self.config().with_project_file(&snapshot.uri);
        let path = snapshot.uri.to_file_path().ok();
        let build = path
            .as_deref()
            .map(ptx_embed::compile_commands_flags)
            .unwrap_or_default();
        // The included headers are read when the document is first analysed (or when the
        // build's `-D` macros change); later versions keep what was found then.
        let included = match previous.as_ref() {
            Some((_, host)) if host.options().build_defines == build.defines => {
                ptx_embed::IncludedMacros {
                    inline: host.options().inline_macros.clone(),
                    guards: host.options().guard_macros.clone(),
                }
            }
            _ => path
                .as_deref()
                .map(|p| ptx_embed::included_macros(p, snapshot.text(), &build.defines))
                .unwrap_or_default(),
        };
        let options = ptx_embed::EmbedOptions {
            target: config.target.clone(),
            version: config.version.clone(),
            build_targets: build.targets,
            build_defines: build.defines,
            inline_macros: included.inline,
            guard_macros: included.guards,
        };
        // Only the statements an edit touched are parsed and checked again.
        let host = Arc::new(ptx_embed::HostDocument::new_incremental(
            snapshot.text(),
            &options,
            previous.as_ref().map(|(_, host)| host.as_ref()),
        ));
        if self.documents.generation(&snapshot.uri) == Some(snapshot.generation) {
            self.hosts
                .insert(snapshot.uri.clone(), (snapshot.generation, host.clone()));
        }
        Some(host)
    }

    /// Is this open document a CUDA/C++ file? PTX-only requests answer nothing for it.
    pub fn is_host(&self, uri: &Url) -> bool {
        self.snapshot(uri).is_some_and(|s| s.host)
    }

    /// Forgets what was read from a closed document.
    pub fn forget_host(&self, uri: &Url) {
        self.hosts.remove(uri);
    }

    pub fn mark_shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
    }
}

/// The tower-lsp backend.
pub(crate) struct Server {
    state: Arc<State>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").finish_non_exhaustive()
    }
}

impl Server {
    /// The flag that says whether `shutdown` was received.
    pub fn shutdown_flag(&self) -> Arc<AtomicBool> {
        self.state.shutdown.clone()
    }

    async fn register_count(
        &self,
        params: requests::register_count::Params,
    ) -> Result<serde_json::Value> {
        requests::register_count::handle(&self.state, params).await
    }

    async fn sass(&self, params: requests::sass::Params) -> Result<serde_json::Value> {
        requests::sass::handle(&self.state, params).await
    }

    async fn toolchain(&self) -> Result<serde_json::Value> {
        requests::sass::toolchain(&self.state).await
    }

    async fn run(&self, params: serde_json::Value) -> Result<serde_json::Value> {
        requests::run::handle(&self.state, params).await
    }

    async fn test_panic(&self, params: serde_json::Value) -> Result<serde_json::Value> {
        requests::test_panic::handle(params).await
    }
}

/// The service and the socket for server-to-client messages.
pub(crate) fn build() -> (LspService<Server>, ClientSocket) {
    let builder = LspService::build(|client| Server {
        state: Arc::new(State {
            client,
            documents: Documents::default(),
            diagnostics: DiagnosticsState::default(),
            config: RwLock::new(Config::default()),
            encoding: RwLock::new(PositionEncoding::Utf16),
            pull_diagnostics: AtomicBool::new(false),
            refresh_inlay_hints: AtomicBool::new(false),
            refresh_diagnostics: AtomicBool::new(false),
            snippet_support: AtomicBool::new(false),
            spec: Mutex::new(None),
            shutdown: Arc::new(AtomicBool::new(false)),
            hosts: dashmap::DashMap::new(),
            runs: Arc::default(),
            compiler: Default::default(),
            refresh_code_lenses: AtomicBool::new(false),
            semantic_caches: dashmap::DashMap::new(),
        }),
    })
    .custom_method("ptx/registerCount", Server::register_count)
    .custom_method("ptx/run", Server::run)
    .custom_method("ptx/sass", Server::sass)
    .custom_method("ptx/toolchain", Server::toolchain);
    let builder = if super::test_requests_enabled() {
        builder.custom_method("ptx/internal/panic", Server::test_panic)
    } else {
        builder
    };
    builder.finish()
}

#[tower_lsp::async_trait]
impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        requests::initialize::handle(&self.state, params)
    }

    async fn initialized(&self, _: InitializedParams) {
        eprintln!("ptx-lsp: initialized");
    }

    async fn shutdown(&self) -> Result<()> {
        self.state.mark_shutdown();
        super::dispatch::cancel_all();
        self.state.runs.stop_all();
        self.state.compiler.stop_all();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        notifications::did_open::handle(&self.state, params);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        notifications::did_change::handle(&self.state, params);
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        super::compiler::schedule(&self.state, &params.text_document.uri);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        notifications::did_close::handle(&self.state, params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        notifications::did_change_configuration::handle(&self.state, params);
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self
            .state
            .is_host(&params.text_document_position_params.text_document.uri)
        {
            return Ok(None);
        }
        requests::definition::handle(&self.state, params).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self
            .state
            .is_host(&params.text_document_position.text_document.uri)
        {
            return Ok(None);
        }
        requests::references::handle(&self.state, params).await
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self
            .state
            .is_host(&params.text_document_position_params.text_document.uri)
        {
            return Ok(None);
        }
        requests::document_highlight::handle(&self.state, params).await
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self.state.is_host(&params.text_document.uri) {
            return Ok(None);
        }
        requests::rename::prepare(&self.state, params).await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self
            .state
            .is_host(&params.text_document_position.text_document.uri)
        {
            return Ok(None);
        }
        requests::rename::handle(&self.state, params).await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self.state.is_host(&params.text_document.uri) {
            return Ok(None);
        }
        requests::document_symbol::handle(&self.state, params).await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<Vec<SymbolInformation>>> {
        requests::workspace_symbol::handle(&self.state, params).await
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        // In CUDA/C++ files the C++ server's tokens colour the file; ours (the asm templates
        // only) replace them where an editor keeps one provider, so they are opt-in.
        if self.state.is_host(&params.text_document.uri)
            && !self.state.config().host_semantic_tokens
        {
            return Ok(None);
        }
        requests::semantic_tokens::full(&self.state, params).await
    }

    async fn semantic_tokens_full_delta(
        &self,
        params: SemanticTokensDeltaParams,
    ) -> Result<Option<SemanticTokensFullDeltaResult>> {
        // In CUDA/C++ files the C++ server's tokens colour the file; ours (the asm templates
        // only) replace them where an editor keeps one provider, so they are opt-in.
        if self.state.is_host(&params.text_document.uri)
            && !self.state.config().host_semantic_tokens
        {
            return Ok(None);
        }
        requests::semantic_tokens::delta(&self.state, params).await
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        // In CUDA/C++ files the C++ server's tokens colour the file; ours (the asm templates
        // only) replace them where an editor keeps one provider, so they are opt-in.
        if self.state.is_host(&params.text_document.uri)
            && !self.state.config().host_semantic_tokens
        {
            return Ok(None);
        }
        requests::semantic_tokens::range(&self.state, params).await
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self.state.is_host(&params.text_document.uri) {
            return Ok(None);
        }
        requests::folding_range::handle(&self.state, params).await
    }

    async fn selection_range(
        &self,
        params: SelectionRangeParams,
    ) -> Result<Option<Vec<SelectionRange>>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self.state.is_host(&params.text_document.uri) {
            return Ok(None);
        }
        requests::selection_range::handle(&self.state, params).await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        requests::inlay_hint::handle(&self.state, params).await
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self.state.is_host(&params.text_document.uri) {
            return Ok(None);
        }
        requests::formatting::document(&self.state, params).await
    }

    async fn range_formatting(
        &self,
        params: DocumentRangeFormattingParams,
    ) -> Result<Option<Vec<TextEdit>>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self.state.is_host(&params.text_document.uri) {
            return Ok(None);
        }
        requests::formatting::range(&self.state, params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        requests::code_action::handle(&self.state, params).await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        // In CUDA/C++ files only the asm statements get lenses (their machine code).
        if self.state.is_host(&params.text_document.uri) {
            return requests::code_lens::host(&self.state, params).await;
        }
        requests::code_lens::handle(&self.state, params).await
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        requests::hover::handle(&self.state, params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        requests::completion::handle(&self.state, params).await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        // In CUDA/C++ files only the asm features answer (the C++ server owns the rest).
        if self
            .state
            .is_host(&params.text_document_position_params.text_document.uri)
        {
            return Ok(None);
        }
        requests::signature_help::handle(&self.state, params).await
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        requests::diagnostic::handle(&self.state, params).await
    }
}
