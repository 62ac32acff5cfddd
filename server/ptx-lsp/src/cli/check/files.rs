//! Which files `ptx-lsp check` reads: the files named on the command line, and the PTX and
//! CUDA/C++ files below the folders named there.
//!
//! Folders are walked with the rules of git and ripgrep (the `ignore` crate): `.gitignore`,
//! `.ignore` and `.git/info/exclude` are respected (in a git repository or not), hidden files
//! and folders are skipped, and symbolic links are followed. The nearest `ptx-lsp.toml` of each
//! folder adds its `include`/`exclude` patterns and extra extensions. A named file is checked
//! whatever those rules say, unless `--force-exclude` applies the `exclude` patterns to it too.
//!
//! A walk lists each folder's files in sorted order, so the report's order does not depend on
//! the file system. What cannot be read (a folder without permission, a symbolic link loop, a
//! dangling link named like a file to check) is an error of its own, never a checked file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::project::{self, ExtraKind, Project};

/// How a file is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileKind {
    /// A PTX module.
    Ptx,
    /// A CUDA/C++ file: its inline `asm()` statements.
    Host,
}

/// One file to read and check.
#[derive(Debug)]
pub(super) struct Job {
    pub path: PathBuf,
    /// The path as reports show it.
    pub display: String,
    /// Named on the command line (checked whatever its name or content).
    pub named: bool,
    /// The settings file that applies, if any.
    pub project: Option<Arc<Project>>,
}

/// What the command line names, resolved.
#[derive(Debug, Default)]
pub(super) struct Files {
    pub jobs: Vec<Job>,
    /// Paths that cannot be read, each with the reason (reported as errors, exit 2).
    pub unreadable: Vec<(String, String)>,
    /// Settings files that are malformed (reported as errors, exit 2).
    pub bad_settings: Vec<String>,
    /// Named folders in which no file to check was found.
    pub empty_folders: Vec<String>,
}

// --- File kinds ------------------------------------------------------------------------------
//
// The two functions below are the only place that decides which files are PTX and which are
// CUDA/C++: by name first (cheap, before reading), then by content once read. Switching to
// content detection for host files with unusual names means changing these two.

/// Could a walked file at `path` be one to check, judging by its name? Only such files are
/// read.
pub(super) fn may_check(path: &Path, project: Option<&Project>) -> bool {
    let Some(extension) = path.extension().and_then(|e| e.to_str()) else {
        return false;
    };
    extension.eq_ignore_ascii_case("ptx")
        || ptx_embed::is_host_path(&path.to_string_lossy())
        || BY_CONTENT_EXTENSIONS
            .iter()
            .any(|e| extension.eq_ignore_ascii_case(e))
        || project.is_some_and(|p| p.extra_extension(extension).is_some())
}

/// Extensions that projects use for C/C++ fragments included elsewhere (`foo.impl`,
/// `bar.cu.inc`): a walked file named so is read, and checked when its text is CUDA/C++.
const BY_CONTENT_EXTENSIONS: &[&str] = &["impl", "inc"];

/// How the file at `path` with these first bytes is checked; `None` for a walked file that is
/// not one to check (binary content: a NUL byte in its first 8 KiB, as git judges). A named
/// file is always checked: as CUDA/C++ when its name says so, else as PTX.
pub(super) fn kind_of(
    path: &Path,
    head: &[u8],
    named: bool,
    project: Option<&Project>,
) -> Option<FileKind> {
    if !named && head[..head.len().min(8192)].contains(&0) {
        return None;
    }
    let extra = path
        .extension()
        .and_then(|e| e.to_str())
        .and_then(|e| project.and_then(|p| p.extra_extension(e)));
    match extra {
        Some(ExtraKind::Ptx) => return Some(FileKind::Ptx),
        Some(ExtraKind::Cuda) => return Some(FileKind::Host),
        None => {}
    }
    let name = path.to_string_lossy();
    if ptx_embed::is_host_path(&name) {
        return Some(FileKind::Host);
    }
    // Anything else goes by its text, as the editor reads it: C/C++ with asm statements is
    // CUDA/C++, whatever the name (`.impl`, `.cu.inc`).
    let text = String::from_utf8_lossy(&head[..head.len().min(1 << 16)]);
    let is_ptx_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ptx"));
    match ptx_embed::file_kind(&name, &text, &[]) {
        ptx_embed::FileKind::Host => Some(FileKind::Host),
        ptx_embed::FileKind::Ptx if named || is_ptx_name => Some(FileKind::Ptx),
        // A walked fragment file whose text is not C/C++: not ours to check.
        ptx_embed::FileKind::Ptx => None,
    }
}

// --- Settings files --------------------------------------------------------------------------

/// The settings that apply in each folder, each file read once.
#[derive(Debug, Default)]
struct Settings {
    /// Absolute folder → the settings file that applies there.
    by_folder: HashMap<PathBuf, Option<Arc<Project>>>,
    /// Settings file → what it says (or why it cannot be used).
    loaded: HashMap<PathBuf, Option<Arc<Project>>>,
    bad: Vec<String>,
    /// What applies in the current folder: the settings of files outside any settings
    /// file's reach.
    fallback: Option<Option<Arc<Project>>>,
}

impl Settings {
    /// The settings that apply in `folder` (relative or absolute).
    fn for_folder(&mut self, folder: &Path) -> Option<Arc<Project>> {
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        let absolute = std::path::absolute(folder).ok()?;
        let found = self.nearest(&absolute);
        if found.is_some() {
            return found;
        }
        if self.fallback.is_none() {
            let cwd = std::env::current_dir().ok();
            let fallback = cwd.and_then(|cwd| self.nearest(&cwd));
            self.fallback = Some(fallback);
        }
        self.fallback.clone().flatten()
    }

    fn nearest(&mut self, absolute: &Path) -> Option<Arc<Project>> {
        if let Some(known) = self.by_folder.get(absolute) {
            return known.clone();
        }
        let file = absolute.join(project::FILE_NAME);
        let found = if file.is_file() {
            self.load(&file)
        } else {
            absolute.parent().and_then(|parent| self.nearest(parent))
        };
        self.by_folder.insert(absolute.to_path_buf(), found.clone());
        found
    }

    fn load(&mut self, file: &Path) -> Option<Arc<Project>> {
        if let Some(known) = self.loaded.get(file) {
            return known.clone();
        }
        let project = match Project::load(file) {
            Ok(project) => Some(Arc::new(project)),
            Err(error) => {
                self.bad.push(error);
                None
            }
        };
        self.loaded.insert(file.to_path_buf(), project.clone());
        project
    }
}

// --- Collecting ------------------------------------------------------------------------------

/// Resolves the command line's paths into files to check, in the order given; each folder's
/// files in sorted order.
pub(super) fn collect(paths: &[PathBuf], force_exclude: bool) -> Files {
    let settings = Arc::new(Mutex::new(Settings::default()));
    let mut files = Files::default();
    for path in paths {
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            walk(path, &settings, &mut files);
            continue;
        }
        // A named file (or a path that does not exist: reading it reports why).
        let project = lock(&settings).for_folder(path.parent().unwrap_or(Path::new(".")));
        if force_exclude && project.as_ref().is_some_and(|p| excluded(p, path, false)) {
            continue;
        }
        files.jobs.push(Job {
            path: path.clone(),
            display: path.display().to_string(),
            named: true,
            project,
        });
    }
    files.bad_settings = std::mem::take(&mut lock(&settings).bad);
    files
}

fn lock(settings: &Mutex<Settings>) -> std::sync::MutexGuard<'_, Settings> {
    settings
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn excluded(project: &Project, path: &Path, is_dir: bool) -> bool {
    std::path::absolute(path).is_ok_and(|absolute| project.excludes(&absolute, is_dir))
}

fn walk(root: &Path, settings: &Arc<Mutex<Settings>>, files: &mut Files) {
    let filter_settings = settings.clone();
    let walker = ignore::WalkBuilder::new(root)
        .follow_links(true)
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            // The root was named: it is walked whatever the patterns say.
            if entry.depth() == 0 {
                return true;
            }
            let path = entry.path();
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let folder = path.parent().unwrap_or(Path::new("."));
            let project = lock(&filter_settings).for_folder(folder);
            !project.is_some_and(|p| excluded(&p, path, is_dir))
        })
        .build();
    let before = files.jobs.len();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                if let Some((path, reason)) = walk_error(&error) {
                    files.unreadable.push((display(&path), reason));
                }
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.into_path();
        let project = lock(settings).for_folder(path.parent().unwrap_or(Path::new(".")));
        if !may_check(&path, project.as_deref()) {
            continue;
        }
        if project
            .as_ref()
            .is_some_and(|p| !std::path::absolute(&path).is_ok_and(|a| p.includes(&a)))
        {
            continue;
        }
        files.jobs.push(Job {
            display: display(&path),
            path,
            named: false,
            project,
        });
    }
    if files.jobs.len() == before {
        files.empty_folders.push(root.display().to_string());
    }
}

/// A walked path as reports show it: `./a/b.ptx` as `a/b.ptx`.
fn display(path: &Path) -> String {
    path.strip_prefix(".")
        .ok()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The path and the reason of an error met while walking, or `None` for one that keeps no
/// file to check from being read (a dangling link whose name no checked file has).
fn walk_error(error: &ignore::Error) -> Option<(PathBuf, String)> {
    match error {
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error(err)
        }
        ignore::Error::Loop { ancestor, child } => Some((
            child.clone(),
            format!(
                "a symbolic link loop (it leads back to {})",
                display(ancestor)
            ),
        )),
        ignore::Error::WithPath { path, err } => {
            let dangling = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink())
                && std::fs::metadata(path).is_err();
            if dangling && !may_check(path, None) {
                return None;
            }
            let reason = match (err.as_ref(), std::fs::read_link(path)) {
                (_, Ok(to)) if dangling => {
                    format!("a symbolic link to nothing ({})", to.display())
                }
                (ignore::Error::Io(io), _) => io_reason(io),
                (other, _) => other.to_string(),
            };
            Some((path.clone(), reason))
        }
        ignore::Error::Partial(errors) => errors.iter().find_map(walk_error),
        other => Some((PathBuf::from("."), other.to_string())),
    }
}

/// An I/O error's reason without the path (which the report names already).
fn io_reason(error: &std::io::Error) -> String {
    match error.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
        None => error.to_string(),
    }
}
