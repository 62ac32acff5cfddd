//! The open documents, and immutable snapshots of them for analyses.
//!
//! A [`Document`] (rope + incrementally parsed tree) lives in a `DashMap`
//! keyed by URI. Notification handlers mutate it synchronously; request
//! handlers take a [`Snapshot`] (a cheap clone of the parse and line index)
//! and run the analysis without holding any lock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use dashmap::DashMap;
use ptx_syntax::{Document, LineIndex, Parse, PositionEncoding, TextEdit};
use tower_lsp::lsp_types::Url;

/// Files larger than this are kept in sync but not analysed: a clear
/// diagnostic says so instead of the server spending seconds per keystroke.
pub(crate) const MAX_ANALYZED_BYTES: usize = 32 * 1024 * 1024;

/// One open document and what is cached for its current version.
pub(crate) struct OpenDocument {
    pub document: Document,
    /// Unique across opens and changes of every document: results computed
    /// for another generation are stale, even if the version number repeats
    /// after a close and reopen.
    pub generation: u64,
    pub line_index: Arc<LineIndex>,
    /// The last semantic tokens sent, for delta requests: result id and data.
    pub semantic_tokens: Option<(String, Arc<Vec<u32>>)>,
    /// A CUDA/C++ file: only its asm statements are analysed (see `ptx_embed`).
    pub host: bool,
}

/// An immutable view of one version of a document.
#[derive(Clone)]
pub(crate) struct Snapshot {
    pub uri: Url,
    pub version: i32,
    pub generation: u64,
    pub parse: Parse,
    pub line_index: Arc<LineIndex>,
    pub encoding: PositionEncoding,
    /// A CUDA/C++ file (see [`OpenDocument::host`]).
    pub host: bool,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("uri", &self.uri.as_str())
            .field("version", &self.version)
            .finish()
    }
}

impl Snapshot {
    pub fn text(&self) -> &str {
        self.parse.text()
    }

    pub fn too_large(&self) -> bool {
        self.text().len() > MAX_ANALYZED_BYTES
    }
}

/// All open documents.
#[derive(Default)]
pub(crate) struct Documents {
    map: DashMap<Url, OpenDocument>,
    generations: AtomicU64,
}

impl Documents {
    /// Opens a document; `language_id` (or, failing that, the file's name and text, with the
    /// `hostExtensions` setting) says whether it is PTX or a CUDA/C++ host file.
    pub fn open(
        &self,
        uri: Url,
        text: &str,
        version: i32,
        language_id: &str,
        host_extensions: &[String],
    ) {
        let host = ptx_embed::is_host_language(language_id)
            || (language_id != "ptx"
                && ptx_embed::file_kind(uri.path(), text, host_extensions)
                    == ptx_embed::FileKind::Host);
        let document = Document::new(text, version);
        let line_index = Arc::new(LineIndex::new(document.text()));
        let generation = self.next_generation();
        self.map.insert(
            uri,
            OpenDocument {
                document,
                generation,
                line_index,
                semantic_tokens: None,
                host,
            },
        );
    }

    /// Applies edits in order; returns false when the document is not open.
    pub fn change(
        &self,
        uri: &Url,
        edits: &[TextEdit],
        encoding: PositionEncoding,
        version: i32,
    ) -> bool {
        let Some(mut open) = self.map.get_mut(uri) else {
            return false;
        };
        open.document.apply_edits(edits, encoding, version);
        open.generation = self.next_generation();
        open.line_index = Arc::new(LineIndex::new(open.document.text()));
        true
    }

    fn next_generation(&self) -> u64 {
        self.generations.fetch_add(1, Ordering::Relaxed) + 1
    }

    pub fn close(&self, uri: &Url) {
        self.map.remove(uri);
    }

    pub fn snapshot(&self, uri: &Url, encoding: PositionEncoding) -> Option<Snapshot> {
        let open = self.map.get(uri)?;
        Some(Snapshot {
            uri: uri.clone(),
            version: open.document.version(),
            generation: open.generation,
            parse: open.document.parse().clone(),
            line_index: open.line_index.clone(),
            encoding,
            host: open.host,
        })
    }

    /// The generation of an open document (see [`OpenDocument::generation`]).
    pub fn generation(&self, uri: &Url) -> Option<u64> {
        self.map.get(uri).map(|open| open.generation)
    }

    /// Snapshots of every open document (for workspace symbols).
    pub fn all(&self, encoding: PositionEncoding) -> Vec<Snapshot> {
        let uris: Vec<Url> = self.map.iter().map(|entry| entry.key().clone()).collect();
        uris.iter()
            .filter_map(|uri| self.snapshot(uri, encoding))
            .collect()
    }

    /// The cached semantic tokens of a document.
    pub fn semantic_tokens(&self, uri: &Url) -> Option<(String, Arc<Vec<u32>>)> {
        self.map.get(uri)?.semantic_tokens.clone()
    }

    pub fn set_semantic_tokens(&self, uri: &Url, result_id: String, data: Arc<Vec<u32>>) {
        if let Some(mut open) = self.map.get_mut(uri) {
            open.semantic_tokens = Some((result_id, data));
        }
    }
}
