//! The index on disk and in memory: [`SpecIndex`] with hash maps from names to entries, its
//! JSON file in the cache directory (written atomically), and [`LazyIndex`] for a server that
//! loads it on the first hover and picks up a new import.

use crate::error::LoadError;
use crate::model::{normalize_qualifier, Block, Entry, EntryKind, Table};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// Bumped when the file layout changes; an index of another version is not loaded.
pub const FORMAT_VERSION: u32 = 1;
/// File name of the index inside the cache directory.
pub const INDEX_FILE: &str = "spec-index-v1.json";
const FORMAT_TAG: &str = "ptx-lsp spec index";

/// The index file's path inside a cache directory.
pub fn index_path(cache: &Path) -> PathBuf {
    cache.join(INDEX_FILE)
}

/// The default cache directory: `$PTX_LSP_CACHE_DIR`, else `$XDG_CACHE_HOME/ptx-lsp`, else
/// `~/.cache/ptx-lsp` (`%LOCALAPPDATA%\ptx-lsp` on Windows).
pub fn default_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(p) = env("PTX_LSP_CACHE_DIR") {
        return Some(p);
    }
    if let Some(p) = env("XDG_CACHE_HOME") {
        return Some(p.join("ptx-lsp"));
    }
    if cfg!(windows) {
        if let Some(p) = env("LOCALAPPDATA") {
            return Some(p.join("ptx-lsp"));
        }
    }
    env("HOME").map(|h| h.join(".cache").join("ptx-lsp"))
}

/// The header of an index: what `ptx-lsp docs status` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStatus {
    /// Always "ptx-lsp spec index".
    pub format: String,
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// The document's version, like "9.1".
    pub doc_version: String,
    /// Whether the version was inferred from the text ("introduced in PTX ISA version …")
    /// rather than stated by the document.
    #[serde(default)]
    pub doc_version_inferred: bool,
    /// The file or folder that was imported.
    pub source: String,
    /// When it was imported, in seconds since the Unix epoch.
    pub imported_unix: u64,
    /// Number of sections.
    pub sections: usize,
    /// Number of distinct instruction names.
    pub instructions: usize,
    /// Number of distinct directive names.
    pub directives: usize,
    /// Number of distinct special register names.
    pub special_registers: usize,
    /// Where the index file is (filled in when read, not stored).
    #[serde(skip)]
    pub path: PathBuf,
    /// Size of the index file in bytes (filled in when read, not stored).
    #[serde(skip)]
    pub bytes: u64,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct IndexFile {
    #[serde(flatten)]
    pub status: IndexStatus,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
struct StatusOnly {
    #[serde(flatten)]
    status: IndexStatus,
}

/// The loaded index: entries and maps from names, numbers, anchors and table numbers.
#[derive(Debug)]
pub struct SpecIndex {
    status: IndexStatus,
    entries: Vec<Entry>,
    instructions: HashMap<String, Vec<u32>>,
    directives: HashMap<String, u32>,
    registers: HashMap<String, u32>,
    sections: HashMap<String, u32>,
    anchors: HashMap<String, u32>,
    tables: HashMap<u32, (u32, u32, u32)>,
}

impl SpecIndex {
    /// Builds the maps over entries.
    pub(crate) fn from_file(file: IndexFile) -> SpecIndex {
        let mut ix = SpecIndex {
            status: file.status,
            entries: file.entries,
            instructions: HashMap::new(),
            directives: HashMap::new(),
            registers: HashMap::new(),
            sections: HashMap::new(),
            anchors: HashMap::new(),
            tables: HashMap::new(),
        };
        for (i, e) in ix.entries.iter().enumerate() {
            let i = i as u32;
            ix.sections.entry(e.number.clone()).or_insert(i);
            if let Some(a) = &e.anchor {
                ix.anchors.entry(a.clone()).or_insert(i);
            }
            for n in &e.names {
                match e.kind {
                    EntryKind::Instruction => ix.instructions.entry(n.clone()).or_default().push(i),
                    EntryKind::Directive => {
                        ix.directives.entry(n.clone()).or_insert(i);
                    }
                    EntryKind::SpecialRegister => {
                        ix.registers.entry(n.clone()).or_insert(i);
                    }
                    EntryKind::Section => {}
                }
            }
            for (&r, blocks) in &e.parts {
                for (bi, b) in blocks.iter().enumerate() {
                    if let Block::Table(Table {
                        number: Some(n), ..
                    }) = b
                    {
                        ix.tables.entry(*n).or_insert((i, r as u32, bi as u32));
                    }
                }
            }
        }
        ix
    }

    /// Reads the index of a cache directory.
    pub fn load(cache: &Path) -> Result<SpecIndex, LoadError> {
        let path = index_path(cache);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(LoadError::Missing { path });
            }
            Err(source) => return Err(LoadError::Io { path, source }),
        };
        let mut file: IndexFile =
            serde_json::from_slice(&bytes).map_err(|e| LoadError::Invalid {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        check_header(&file.status).map_err(|reason| LoadError::Invalid {
            path: path.clone(),
            reason,
        })?;
        file.status.bytes = bytes.len() as u64;
        file.status.path = path;
        Ok(SpecIndex::from_file(file))
    }

    pub(crate) fn set_counts(&mut self, (i, d, r): (usize, usize, usize)) {
        self.status.instructions = i;
        self.status.directives = d;
        self.status.special_registers = r;
    }

    /// The header: versions, source, counts.
    pub fn status(&self) -> &IndexStatus {
        &self.status
    }

    /// All entries (one per section), in section order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The section documenting an instruction (`tcgen05.ld`, `mma`); for names documented in
    /// several sections (`add`), the first.
    pub fn instruction(&self, name: &str) -> Option<&Entry> {
        self.instructions
            .get(name)
            .and_then(|v| v.first())
            .map(|&i| &self.entries[i as usize])
    }

    /// Every section documenting an instruction name (integer, float, half `add`…).
    pub fn instruction_all(&self, name: &str) -> Vec<&Entry> {
        self.instructions
            .get(name)
            .map(|v| v.iter().map(|&i| &self.entries[i as usize]).collect())
            .unwrap_or_default()
    }

    /// The section for a full opcode as written in PTX (`tcgen05.ld.sync.aligned.32x32b.x2.b32`,
    /// `add.f32`): the longest documented name that prefixes it; among sections of that name,
    /// the one whose Syntax names the most of the remaining qualifiers.
    pub fn lookup(&self, opcode: &str) -> Option<&Entry> {
        let opcode = opcode.trim();
        let comps: Vec<&str> = opcode.split('.').collect();
        for k in (1..=comps.len()).rev() {
            let name = comps[..k].join(".");
            let Some(ids) = self.instructions.get(&name) else {
                continue;
            };
            let rest: Vec<String> = comps[k..].iter().map(|c| format!(".{c}")).collect();
            let best = ids.iter().copied().enumerate().max_by_key(|&(pos, i)| {
                let syntax = self.entries[i as usize].syntax();
                let hits = rest
                    .iter()
                    .filter(|q| crate::model::contains_token(&syntax, q))
                    .count();
                (hits, usize::MAX - pos)
            });
            return best.map(|(_, i)| &self.entries[i as usize]);
        }
        None
    }

    /// Sentences of an instruction's section that mention a qualifier (`.pack::16b`).
    pub fn qualifier(&self, instruction: &str, qualifier: &str) -> Vec<&str> {
        let q = normalize_qualifier(qualifier);
        let entries = match self.instructions.get(instruction) {
            Some(ids) => ids.iter().map(|&i| &self.entries[i as usize]).collect(),
            None => self.lookup(instruction).into_iter().collect::<Vec<_>>(),
        };
        entries
            .into_iter()
            .map(|e| e.qualifier_sentences(&q))
            .find(|v| !v.is_empty())
            .unwrap_or_default()
    }

    /// The entry and table numbered `n` ("Table 49").
    pub fn table(&self, n: u32) -> Option<(&Entry, &Table)> {
        let &(i, r, b) = self.tables.get(&n)?;
        let e = &self.entries[i as usize];
        let rubric = *e.parts.keys().find(|k| **k as u32 == r)?;
        match e.part(rubric).get(b as usize)? {
            Block::Table(t) => Some((e, t)),
            _ => None,
        }
    }

    /// The section of a directive (`.maxnreg`, with or without the dot).
    pub fn directive(&self, name: &str) -> Option<&Entry> {
        let key = if name.starts_with('.') || name.starts_with('@') {
            name.to_string()
        } else {
            format!(".{name}")
        };
        self.directives
            .get(&key)
            .map(|&i| &self.entries[i as usize])
    }

    /// The section of a special register (`%tid`, also `%tid.x`, `%envreg3`).
    pub fn special_register(&self, name: &str) -> Option<&Entry> {
        let key = if name.starts_with('%') {
            name.to_string()
        } else {
            format!("%{name}")
        };
        let get = |k: &str| self.registers.get(k).map(|&i| &self.entries[i as usize]);
        get(&key)
            .or_else(|| key.split_once('.').and_then(|(base, _)| get(base)))
            .or_else(|| get(key.trim_end_matches(|c: char| c.is_ascii_digit())))
    }

    /// A section by number (`9.7.16.8.3`).
    pub fn section(&self, number: &str) -> Option<&Entry> {
        self.sections
            .get(number.trim_end_matches('.'))
            .map(|&i| &self.entries[i as usize])
    }

    /// A section by its anchor in the official document.
    pub fn anchor(&self, anchor: &str) -> Option<&Entry> {
        self.anchors
            .get(anchor.trim_start_matches('#'))
            .map(|&i| &self.entries[i as usize])
    }

    /// Distinct instruction names, sorted.
    pub fn instruction_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.instructions.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }

    /// Distinct directive names, sorted.
    pub fn directive_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.directives.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }

    /// Distinct special register names, sorted.
    pub fn special_register_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.registers.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    }
}

fn check_header(s: &IndexStatus) -> Result<(), String> {
    if s.format != FORMAT_TAG {
        return Err(format!("format is {:?}", s.format));
    }
    if s.format_version != FORMAT_VERSION {
        return Err(format!(
            "format version {} (expected {FORMAT_VERSION})",
            s.format_version
        ));
    }
    Ok(())
}

pub(crate) fn new_status(doc_version: String, inferred: bool, source: &Path) -> IndexStatus {
    IndexStatus {
        format: FORMAT_TAG.to_string(),
        format_version: FORMAT_VERSION,
        doc_version,
        doc_version_inferred: inferred,
        source: source.display().to_string(),
        imported_unix: SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        sections: 0,
        instructions: 0,
        directives: 0,
        special_registers: 0,
        path: PathBuf::new(),
        bytes: 0,
    }
}

/// The header of the index in a cache directory, if there is a valid one.
pub fn status(cache: &Path) -> Option<IndexStatus> {
    let path = index_path(cache);
    let bytes = std::fs::read(&path).ok()?;
    let s: StatusOnly = serde_json::from_slice(&bytes).ok()?;
    check_header(&s.status).ok()?;
    Some(IndexStatus {
        path,
        bytes: bytes.len() as u64,
        ..s.status
    })
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so that
/// readers see the old file or the new one, never a part.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let tmp = dir.join(format!(
        ".{}.tmp-{}-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("index"),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Modification time and length of the index file, to notice a new import.
type Stamp = (SystemTime, u64);
/// The stamp of the file when it was loaded, and what loading it gave.
type Loaded = (Option<Stamp>, Option<Arc<SpecIndex>>);

/// An index loaded on first use and reloaded when the file changes (a new import).
#[derive(Debug)]
pub struct LazyIndex {
    cache: PathBuf,
    state: Mutex<Option<Loaded>>,
}

impl LazyIndex {
    /// An index for a cache directory; nothing is read until [`LazyIndex::get`].
    pub fn new(cache: impl Into<PathBuf>) -> LazyIndex {
        LazyIndex {
            cache: cache.into(),
            state: Mutex::new(None),
        }
    }

    /// The index, loading it if it has not been loaded or the file has changed since; `None`
    /// when there is no valid index.
    pub fn get(&self) -> Option<Arc<SpecIndex>> {
        let stamp = std::fs::metadata(index_path(&self.cache))
            .ok()
            .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()));
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((old, ix)) = guard.as_ref() {
            if *old == stamp {
                return ix.clone();
            }
        }
        let ix = stamp
            .and_then(|_| SpecIndex::load(&self.cache).ok())
            .map(Arc::new);
        *guard = Some((stamp, ix.clone()));
        ix
    }
}
