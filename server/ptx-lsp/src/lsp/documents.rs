//! The open documents, and immutable snapshots of them for analyses.
//!
//! A [`Document`] (rope + the tree of an earlier version) lives in a `DashMap`
//! keyed by URI. Notification handlers edit it synchronously, on the message
//! loop; that costs only the edits, never a parse. Request handlers take a
//! [`Snapshot`] (a few reference counts) on the loop, and the text is parsed on
//! the worker thread that first reads the snapshot's parse: a slow parse (a
//! megabyte of random bytes) delays the requests that need it, never the loop.
//! All snapshots of one version share that one parse.

use std::ops::Deref;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use dashmap::DashMap;
use ptx_syntax::{Document, LineIndex, Parse, PendingParse, PositionEncoding, TextEdit};
use tower_lsp::lsp_types::Url;

/// Files larger than this are kept in sync but not analysed (nor parsed): a
/// clear diagnostic says so, and every other request answers nothing, instead
/// of the server spending seconds and gigabytes per keystroke.
pub(crate) const MAX_ANALYZED_BYTES: usize = 32 * 1024 * 1024;

/// One open document and what is cached for its current version.
pub(crate) struct OpenDocument {
    pub document: Document,
    /// Unique across opens and changes of every document: results computed
    /// for another generation are stale, even if the version number repeats
    /// after a close and reopen.
    pub generation: u64,
    /// The parse and line index of the current version, made on first use.
    pub current: Arc<Version>,
    /// The last semantic tokens sent, for delta requests: result id and data.
    pub semantic_tokens: Option<(String, Arc<Vec<u32>>)>,
    /// A CUDA/C++ file: only its asm statements are analysed (see `ptx_embed`).
    pub host: bool,
}

/// One version of a document's text, with its parse and line index made by
/// the first thread that needs them.
pub(crate) struct Version {
    pending: Arc<PendingParse>,
    line_index: OnceLock<LineIndex>,
}

impl Version {
    fn new(pending: Arc<PendingParse>) -> Arc<Self> {
        Arc::new(Version {
            pending,
            line_index: OnceLock::new(),
        })
    }
}

/// The parse of a snapshot's version: reading it (`&snapshot.parse` where a
/// `&Parse` is expected) parses the text if no one has yet. Only worker
/// threads read it.
#[derive(Clone)]
pub(crate) struct LazyParse(Arc<Version>);

impl Deref for LazyParse {
    type Target = Parse;

    fn deref(&self) -> &Parse {
        self.0.pending.get()
    }
}

/// The line index of a snapshot's version, made on first use.
#[derive(Clone)]
pub(crate) struct LazyLineIndex(Arc<Version>);

impl Deref for LazyLineIndex {
    type Target = LineIndex;

    fn deref(&self) -> &LineIndex {
        self.0
            .line_index
            .get_or_init(|| LineIndex::new(self.0.pending.text()))
    }
}

/// An immutable view of one version of a document.
#[derive(Clone)]
pub(crate) struct Snapshot {
    pub uri: Url,
    pub version: i32,
    pub generation: u64,
    pub parse: LazyParse,
    pub line_index: LazyLineIndex,
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
    /// The text (made into one string on first use, without parsing it).
    pub fn text(&self) -> &str {
        self.parse.0.pending.text()
    }

    /// A snapshot of a text that is not open anywhere (for tests).
    #[cfg(test)]
    pub fn of_text(text: &str, encoding: PositionEncoding) -> Snapshot {
        let version = Version::new(Document::new(text, 1).pending());
        Snapshot {
            uri: "file:///t.ptx".parse().expect("a valid URL"),
            version: 1,
            generation: 1,
            parse: LazyParse(version.clone()),
            line_index: LazyLineIndex(version),
            encoding,
            host: false,
        }
    }

    /// The length of the text in bytes, known without parsing.
    pub fn len(&self) -> usize {
        self.parse.0.pending.len()
    }

    pub fn too_large(&self) -> bool {
        self.len() > MAX_ANALYZED_BYTES
    }

    /// Whether the features may walk this version: not too large, and (this
    /// parses it) not nesting deeper than the analyses' stacks allow. The
    /// checker reports either case with a diagnostic.
    /// A CUDA/C++ file is never walked as PTX (its asm statements are gated
    /// one by one).
    pub fn analysable(&self) -> bool {
        !self.too_large() && (self.host || self.parse.too_deep().is_none())
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
        let generation = self.next_generation();
        self.map.insert(
            uri,
            OpenDocument {
                current: Version::new(document.pending()),
                document,
                generation,
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
        open.document.edit(edits, encoding, version);
        open.generation = self.next_generation();
        open.current = Version::new(open.document.pending());
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
            parse: LazyParse(open.current.clone()),
            line_index: LazyLineIndex(open.current.clone()),
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
