//! `ptx-docs`: imports a user's copy of the PTX ISA document and indexes it for editor hovers.
//!
//! The project ships none of the document's text. `ptx-lsp docs import PATH` calls [`import`]
//! on the user's copy (a folder of markdown sections, a single markdown file, or the single
//! HTML page of the official document), which writes an index into the user's cache directory
//! ([`default_cache_dir`]). The server then loads it lazily ([`LazyIndex`]) and asks it for the
//! section of an instruction, qualifier, directive, special register or table, rendered as
//! hover markdown by [`Entry::hover_markdown`].
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::path::Path;
//! let cache = ptx_docs::default_cache_dir().unwrap();
//! let report = ptx_docs::import(Path::new("ptx-isa-9.1"), &cache)?;
//! println!("PTX ISA {}: {} instructions", report.doc_version, report.instructions);
//! let index = ptx_docs::SpecIndex::load(&cache)?;
//! if let Some(e) = index.instruction("tcgen05.ld") {
//!     println!("{}", e.hover_markdown(ptx_docs::Part::Qualifier(".pack::16b")));
//! }
//! # Ok(()) }
//! ```

mod bench;
mod build;
mod error;
mod html;
mod index;
mod markdown;
mod model;

pub use bench::{measure_lookups, LookupTiming};
pub use error::{ImportError, LoadError};
pub use index::{
    default_cache_dir, index_path, status, IndexStatus, LazyIndex, SpecIndex, FORMAT_VERSION,
    INDEX_FILE,
};
pub use model::{anchor_url, Block, Entry, EntryKind, Part, Rubric, Span, Table, SPEC_URL};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportReport {
    /// Version of the imported document ("9.1").
    pub doc_version: String,
    /// Whether the version was inferred from the text rather than stated by it.
    pub doc_version_inferred: bool,
    /// Number of files read.
    pub files: usize,
    /// Number of numbered sections indexed.
    pub sections: usize,
    /// Number of distinct instruction names.
    pub instructions: usize,
    /// Number of distinct directive names.
    pub directives: usize,
    /// Number of distinct special register names.
    pub special_registers: usize,
    /// Number of numbered tables.
    pub tables: usize,
    /// Time spent reading, indexing and writing.
    pub elapsed: Duration,
    /// Size of the index file.
    pub index_bytes: u64,
    /// Where the index was written.
    pub index_path: PathBuf,
}

/// Options of [`import_with`].
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Replace an index of a newer document version too.
    pub force: bool,
}

/// Imports a document (file or folder) into the index of `cache`, replacing an index of the same
/// or an older document version. On any error the previous index is left as it was.
pub fn import(path: &Path, cache: &Path) -> Result<ImportReport, ImportError> {
    import_with(path, cache, &ImportOptions::default())
}

/// [`import`] with options.
pub fn import_with(
    path: &Path,
    cache: &Path,
    options: &ImportOptions,
) -> Result<ImportReport, ImportError> {
    let start = Instant::now();
    let (index, files) = parse_input(path)?;
    let st = index.status().clone();
    if !options.force {
        if let Some(existing) = status(cache) {
            if build::version_cmp(&existing.doc_version, &st.doc_version).is_gt() {
                return Err(ImportError::NewerIndexExists {
                    existing: existing.doc_version,
                    new: st.doc_version,
                });
            }
        }
    }
    let file = index::IndexFile {
        status: st.clone(),
        entries: index.entries().to_vec(),
    };
    let bytes = serde_json::to_vec(&file).map_err(|e| ImportError::Write {
        path: index_path(cache),
        source: std::io::Error::other(e),
    })?;
    let target = index_path(cache);
    index::write_atomically(&target, &bytes).map_err(|source| ImportError::Write {
        path: target.clone(),
        source,
    })?;
    Ok(ImportReport {
        doc_version: st.doc_version,
        doc_version_inferred: st.doc_version_inferred,
        files,
        sections: st.sections,
        instructions: st.instructions,
        directives: st.directives,
        special_registers: st.special_registers,
        tables: index
            .entries()
            .iter()
            .flat_map(Entry::tables)
            .filter(|t| t.number.is_some())
            .count(),
        elapsed: start.elapsed(),
        index_bytes: bytes.len() as u64,
        index_path: target,
    })
}

/// Reads and indexes a document without writing anything; returns the index and the number of
/// files read.
pub fn parse_input(path: &Path) -> Result<(SpecIndex, usize), ImportError> {
    let files = input_files(path)?;
    let mut parsed = Vec::with_capacity(files.len());
    for f in &files {
        parsed.push(parse_file(f)?);
    }
    let (entries, version) = build::build(parsed);
    if entries.is_empty() {
        return Err(ImportError::NoSections {
            path: path.to_path_buf(),
        });
    }
    if entries.iter().all(|e| e.kind == EntryKind::Section) {
        return Err(ImportError::NotPtxIsa {
            path: path.to_path_buf(),
            sections: entries.len(),
        });
    }
    let (v, inferred) = match version {
        Some(v) => (v.version, v.inferred),
        None => ("unknown".to_string(), true),
    };
    let mut st = index::new_status(v, inferred, path);
    st.sections = entries.len();
    let file = index::IndexFile {
        status: st,
        entries,
    };
    let mut ix = SpecIndex::from_file(file);
    let counts = (
        ix.instruction_names().len(),
        ix.directive_names().len(),
        ix.special_register_names().len(),
    );
    ix.set_counts(counts);
    Ok((ix, files.len()))
}

/// The single HTML page of the document is about 10 MB; anything far larger is something else.
const MAX_FILE_BYTES: u64 = 256 << 20;

const EXTENSIONS: [&str; 5] = ["md", "markdown", "txt", "html", "htm"];

/// The files to read: the file itself, or the folder's document files, recursively, sorted.
fn input_files(path: &Path) -> Result<Vec<PathBuf>, ImportError> {
    let meta = std::fs::metadata(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        if !meta.is_file() {
            return Err(ImportError::NotRegular {
                path: path.to_path_buf(),
            });
        }
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    // Folders already read (by canonical path), so that symlink loops end.
    let mut seen = std::collections::HashSet::new();
    while let Some(dir) = stack.pop() {
        if !seen.insert(std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone())) {
            continue;
        }
        let rd = std::fs::read_dir(&dir).map_err(|source| ImportError::Io {
            path: dir.clone(),
            source,
        })?;
        for ent in rd {
            let ent = ent.map_err(|source| ImportError::Io {
                path: dir.clone(),
                source,
            })?;
            let p = ent.path();
            let name = ent.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            // Links are followed; devices, pipes and sockets in the folder are passed over.
            if p.is_dir() {
                stack.push(p);
            } else if p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
            {
                out.push(p);
            }
        }
    }
    if out.is_empty() {
        return Err(ImportError::NoInputFiles {
            path: path.to_path_buf(),
        });
    }
    out.sort();
    Ok(out)
}

fn parse_file(path: &Path) -> Result<markdown::ParsedFile, ImportError> {
    let io = |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        return Err(ImportError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    let too_large = |bytes| ImportError::TooLarge {
        path: path.to_path_buf(),
        bytes,
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(meta.len()));
    }
    // The size may have changed since (or be unknown, as for files under /proc): the read
    // itself stops past the limit.
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::fs::File::open(path).map_err(io)?, MAX_FILE_BYTES + 1),
        &mut bytes,
    )
    .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let text = check_text(path, &bytes)?;
    let owned;
    let text = if text.contains('\r') {
        owned = text.replace("\r\n", "\n").replace('\r', "\n");
        owned.as_str()
    } else {
        text
    };
    let truncated = |what: String| ImportError::Truncated {
        path: path.to_path_buf(),
        what,
    };
    if html::looks_like_html(text) {
        let (md, version) = html::to_markdown(text).map_err(truncated)?;
        let mut f = markdown::parse(&md).map_err(|markdown::MdError::Truncated(w)| truncated(w))?;
        f.version = version;
        Ok(f)
    } else {
        markdown::parse(text).map_err(|markdown::MdError::Truncated(w)| truncated(w))
    }
}

/// The file as text, or why it is not.
fn check_text<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, ImportError> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ImportError::Empty {
            path: path.to_path_buf(),
        });
    }
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(ImportError::NotText {
            path: path.to_path_buf(),
            offset,
        });
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) if e.error_len().is_none() => Err(ImportError::Truncated {
            path: path.to_path_buf(),
            what: "the file ends inside a UTF-8 character".into(),
        }),
        Err(e) => Err(ImportError::NotText {
            path: path.to_path_buf(),
            offset: e.valid_up_to(),
        }),
    }
}

impl std::fmt::Display for ImportReport {
    /// One line for `ptx-lsp docs import`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "indexed PTX ISA {}{} from {} file{}: {} sections, {} instructions, {} directives, \
             {} special registers, {} tables ({:.1} MB in {} ms) -> {}",
            self.doc_version,
            if self.doc_version_inferred {
                " (version inferred)"
            } else {
                ""
            },
            self.files,
            if self.files == 1 { "" } else { "s" },
            self.sections,
            self.instructions,
            self.directives,
            self.special_registers,
            self.tables,
            self.index_bytes as f64 / 1e6,
            self.elapsed.as_millis(),
            self.index_path.display()
        )
    }
}

impl std::fmt::Display for IndexStatus {
    /// One line for `ptx-lsp docs status`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PTX ISA {}{} imported from {} (unix time {}): {} sections, {} instructions, {} \
             directives, {} special registers; index {} ({:.1} MB)",
            self.doc_version,
            if self.doc_version_inferred {
                " (version inferred)"
            } else {
                ""
            },
            self.source,
            self.imported_unix,
            self.sections,
            self.instructions,
            self.directives,
            self.special_registers,
            self.path.display(),
            self.bytes as f64 / 1e6
        )
    }
}
