//! Errors of the importer and of the index store.
//!
//! Every way an import can fail is one variant of [`ImportError`], with the path that caused it,
//! so the CLI can print one clear line. A failed import never touches the previous index.

use std::path::PathBuf;

/// Why an import did not produce an index.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The path to import does not exist or cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A folder without any `.md`, `.txt`, `.markdown`, `.html` or `.htm` file in it.
    #[error("{path}: no .md, .txt or .html files found")]
    NoInputFiles {
        /// The folder.
        path: PathBuf,
    },
    /// A file far larger than the document could be.
    #[error("{path}: {bytes} bytes is too large to be the PTX ISA document")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// Not a regular file: a device (`/dev/zero`), a pipe, a socket, or a link to one.
    #[error("{path}: not a regular file (a device, a pipe or a socket); nothing was read")]
    NotRegular {
        /// The path given or found.
        path: PathBuf,
    },
    /// A file with no content at all.
    #[error("{path}: the file is empty")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A file that is not text (NUL bytes or invalid UTF-8 in the middle).
    #[error("{path}: not a text file (binary data at byte {offset})")]
    NotText {
        /// The file.
        path: PathBuf,
        /// Where the first offending byte is.
        offset: usize,
    },
    /// A file that ends in the middle of something (front matter, code block, HTML document,
    /// UTF-8 character).
    #[error("{path}: the file looks truncated: {what}")]
    Truncated {
        /// The file.
        path: PathBuf,
        /// What was left open at the end of the file.
        what: String,
    },
    /// Text without any numbered section heading (`9.7.1.1. Title`).
    #[error("{path}: no numbered PTX ISA sections found (is this the PTX ISA document?)")]
    NoSections {
        /// The file or folder.
        path: PathBuf,
    },
    /// Numbered sections, but no instruction, directive or special register among them.
    #[error(
        "{path}: {sections} numbered sections but no PTX instruction, directive or special \
         register: this does not look like the PTX ISA document"
    )]
    NotPtxIsa {
        /// The file or folder.
        path: PathBuf,
        /// How many numbered sections were found.
        sections: usize,
    },
    /// The cache already holds an index of a newer document; pass `force` to replace it.
    #[error(
        "the existing index is of PTX ISA {existing}, newer than this document ({new}); \
         import with --force to replace it"
    )]
    NewerIndexExists {
        /// Version of the document in the existing index.
        existing: String,
        /// Version of the document being imported.
        new: String,
    },
    /// Writing the index failed (the previous index, if any, is intact).
    #[error("cannot write the index to {path}: {source}")]
    Write {
        /// The index file or its temporary file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// Why an index could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No index in the cache directory: run `ptx-lsp docs import PATH`.
    #[error(
        "no spec index at {path}: run `ptx-lsp docs import PATH` with your copy of the PTX ISA"
    )]
    Missing {
        /// The index file that was looked for.
        path: PathBuf,
    },
    /// The file exists but cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The index file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not a valid index (corrupt, or written by an incompatible version).
    #[error("{path} is not a valid spec index ({reason}): import the document again")]
    Invalid {
        /// The index file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}
