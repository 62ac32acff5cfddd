//! `ptx-lsp.toml`: the settings a repository keeps for `ptx-lsp check` and the language
//! server. The nearest file at or above a checked file's folder applies to it:
//!
//! ```toml
//! target = "sm_90a"              # as if every file said `.target sm_90a`
//! version = "8.7"                # as if every file said `.version 8.7`
//! disabled = ["qualifier-order"] # rule codes not to report (`ptx-lsp check --list-rules`)
//! include = ["kernels/"]         # when given, folder walks check only matching files
//! exclude = ["third_party/", "*.generated.ptx"]
//!
//! [extensions]                   # more file name extensions for folder walks
//! ptx = ["ptxasm"]
//! cuda = ["impl"]
//! ```
//!
//! `include` and `exclude` are gitignore-style patterns relative to the file's folder: a
//! pattern without a `/` matches a name at any depth, a trailing `/` matches only folders, and
//! a matched folder covers everything below it. Settings given on the command line or by the
//! editor take precedence over the file's target and version; disabled codes add up.
//!
//! Nothing here knows LSP; unknown keys, malformed values, unknown targets, versions and rule
//! codes are errors naming the file, line and column.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde::Deserialize;
use toml::Spanned;

/// The name of the settings file.
pub(crate) const FILE_NAME: &str = "ptx-lsp.toml";

/// What a settings file says, ready to apply.
#[derive(Debug)]
pub(crate) struct Project {
    /// Its folder, which `include`/`exclude` patterns are relative to (absolute).
    pub root: PathBuf,
    pub target: Option<String>,
    pub version: Option<String>,
    pub disabled: Vec<String>,
    include: Option<Gitignore>,
    exclude: Gitignore,
    /// Extra extensions, lower case without the dot.
    ptx_extensions: Vec<String>,
    cuda_extensions: Vec<String>,
}

/// What an extra extension makes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExtraKind {
    Ptx,
    Cuda,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct RawProject {
    target: Option<Spanned<String>>,
    version: Option<Spanned<String>>,
    disabled: Vec<Spanned<String>>,
    include: Vec<Spanned<String>>,
    exclude: Vec<Spanned<String>>,
    extensions: RawExtensions,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct RawExtensions {
    ptx: Vec<Spanned<String>>,
    cuda: Vec<Spanned<String>>,
}

/// Every rule code a diagnostic can carry: the checker's and the inline-asm rules', each
/// with a one-line description.
pub(crate) fn rule_codes() -> impl Iterator<Item = (&'static str, &'static str)> {
    ptx_check::CODES
        .iter()
        .chain(ptx_embed::check::CODES)
        .copied()
}

/// The description of a rule code, if it is one.
pub(crate) fn rule_description(code: &str) -> Option<&'static str> {
    rule_codes().find(|(c, _)| *c == code).map(|(_, d)| d)
}

/// The nearest settings file at or above `dir` (an absolute folder).
pub(crate) fn find(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join(FILE_NAME))
        .find(|candidate| candidate.is_file())
}

/// The settings that apply to the file at `path`: those of the nearest settings file, or
/// `None` where there is none.
pub(crate) fn for_file(path: &Path) -> Result<Option<Project>, String> {
    let Ok(path) = std::path::absolute(path) else {
        return Ok(None);
    };
    match path.parent().and_then(find) {
        Some(file) => Project::load(&file).map(Some),
        None => Ok(None),
    }
}

impl Project {
    /// Reads and validates a settings file. The error names the file, and the line and
    /// column where the file says it.
    pub fn load(path: &Path) -> Result<Project, String> {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let text = std::fs::read_to_string(&path)
            .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
        Project::parse(&path, &text)
    }

    /// Validates the text of the settings file at `path` (absolute).
    pub fn parse(path: &Path, text: &str) -> Result<Project, String> {
        let at = |span: std::ops::Range<usize>, message: &str| {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("{}:{line}:{column}: {message}", path.display())
        };
        let raw: RawProject = toml::from_str(text).map_err(|error| {
            at(
                error.span().unwrap_or(0..0),
                error.message().trim_end_matches('\n'),
            )
        })?;
        let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        if let Some(target) = &raw.target {
            if ptx_isa::Isa::get().target(target.get_ref()).is_none() {
                return Err(at(
                    target.span(),
                    &format!(
                        "`{}` is not a target ptxas knows (e.g. sm_90a, sm_100a)",
                        target.get_ref()
                    ),
                ));
            }
        }
        if let Some(version) = &raw.version {
            if ptx_isa::PtxVersion::parse(version.get_ref()).is_none() {
                return Err(at(
                    version.span(),
                    &format!(
                        "`{}` is not a PTX ISA version (write MAJOR.MINOR, e.g. 8.7)",
                        version.get_ref()
                    ),
                ));
            }
        }
        for code in &raw.disabled {
            if rule_description(code.get_ref()).is_none() {
                return Err(at(
                    code.span(),
                    &format!(
                        "`{}` is not a rule code (`ptx-lsp check --list-rules` lists them)",
                        code.get_ref()
                    ),
                ));
            }
        }
        let patterns = |list: &[Spanned<String>]| -> Result<Gitignore, String> {
            let mut builder = GitignoreBuilder::new(&root);
            for pattern in list {
                builder
                    .add_line(None, pattern.get_ref())
                    .map_err(|error| at(pattern.span(), &error.to_string()))?;
            }
            builder
                .build()
                .map_err(|error| at(0..0, &error.to_string()))
        };
        let include = if raw.include.is_empty() {
            None
        } else {
            Some(patterns(&raw.include)?)
        };
        let exclude = patterns(&raw.exclude)?;
        let extensions = |list: &[Spanned<String>]| -> Result<Vec<String>, String> {
            list.iter()
                .map(|ext| {
                    let e = ext.get_ref().trim_start_matches('.');
                    if e.is_empty() || e.contains(['/', '\\']) {
                        Err(at(
                            ext.span(),
                            &format!("`{}` is not a file name extension", ext.get_ref()),
                        ))
                    } else {
                        Ok(e.to_ascii_lowercase())
                    }
                })
                .collect()
        };
        Ok(Project {
            target: raw.target.map(Spanned::into_inner),
            version: raw.version.map(Spanned::into_inner),
            disabled: raw.disabled.into_iter().map(Spanned::into_inner).collect(),
            include,
            exclude,
            ptx_extensions: extensions(&raw.extensions.ptx)?,
            cuda_extensions: extensions(&raw.extensions.cuda)?,
            root,
        })
    }

    /// `path` (absolute) relative to this file's folder, if it is below it.
    fn relative<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.strip_prefix(&self.root)
            .ok()
            .filter(|p| !p.as_os_str().is_empty())
    }

    /// Do the `exclude` patterns cover `path` (absolute), or a folder above it?
    pub fn excludes(&self, path: &Path, is_dir: bool) -> bool {
        self.relative(path).is_some_and(|relative| {
            self.exclude
                .matched_path_or_any_parents(relative, is_dir)
                .is_ignore()
        })
    }

    /// Is the file at `path` (absolute) one that folder walks check: no `include` patterns,
    /// or one of them covers it?
    pub fn includes(&self, path: &Path) -> bool {
        match &self.include {
            None => true,
            Some(include) => self.relative(path).is_some_and(|relative| {
                include
                    .matched_path_or_any_parents(relative, false)
                    .is_ignore()
            }),
        }
    }

    /// What the `[extensions]` table makes a file with this extension (any case).
    pub fn extra_extension(&self, extension: &str) -> Option<ExtraKind> {
        let extension = extension.to_ascii_lowercase();
        if self.ptx_extensions.contains(&extension) {
            Some(ExtraKind::Ptx)
        } else if self.cuda_extensions.contains(&extension) {
            Some(ExtraKind::Cuda)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Project, String> {
        Project::parse(Path::new("/repo/ptx-lsp.toml"), text)
    }

    #[test]
    fn every_setting() {
        let project = parse(
            "target = \"sm_90a\"\nversion = \"8.7\"\ndisabled = [\"qualifier-order\"]\n\
             include = [\"kernels/\"]\nexclude = [\"third_party/\", \"*.gen.ptx\"]\n\
             [extensions]\nptx = [\".PTXASM\"]\ncuda = [\"impl\"]\n",
        )
        .unwrap();
        assert_eq!(project.target.as_deref(), Some("sm_90a"));
        assert_eq!(project.version.as_deref(), Some("8.7"));
        assert_eq!(project.disabled, ["qualifier-order"]);
        assert!(project.excludes(Path::new("/repo/third_party"), true));
        assert!(project.excludes(Path::new("/repo/third_party/a/b.ptx"), false));
        assert!(project.excludes(Path::new("/repo/x/y.gen.ptx"), false));
        assert!(!project.excludes(Path::new("/repo/x/y.ptx"), false));
        assert!(!project.excludes(Path::new("/elsewhere/third_party/b.ptx"), false));
        // A trailing slash matches folders only.
        assert!(!project.excludes(Path::new("/repo/third_party"), false));
        assert!(project.includes(Path::new("/repo/kernels/a/b.ptx")));
        assert!(!project.includes(Path::new("/repo/other/b.ptx")));
        assert_eq!(project.extra_extension("ptxasm"), Some(ExtraKind::Ptx));
        assert_eq!(project.extra_extension("IMPL"), Some(ExtraKind::Cuda));
        assert_eq!(project.extra_extension("ptx"), None);
    }

    #[test]
    fn an_empty_file_changes_nothing() {
        let project = parse("").unwrap();
        assert_eq!(project.target, None);
        assert!(project.includes(Path::new("/repo/a.ptx")));
        assert!(!project.excludes(Path::new("/repo/a.ptx"), false));
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let errors: Vec<String> = [
            "target = \"sm_999\"\n",
            "version = \"x\"\n",
            "\ndisabled = [\"no-such-rule\"]\n",
            "colour = 1\n",
            "target = 5\n",
            "exclude = [\"a/**b{\"]\n",
            "[extensions]\nptx = [\"\"]\n",
            "target = \n",
        ]
        .iter()
        .map(|text| parse(text).unwrap_err())
        .collect();
        expect_test::expect![[r#"
            [
                "/repo/ptx-lsp.toml:1:10: `sm_999` is not a target ptxas knows (e.g. sm_90a, sm_100a)",
                "/repo/ptx-lsp.toml:1:11: `x` is not a PTX ISA version (write MAJOR.MINOR, e.g. 8.7)",
                "/repo/ptx-lsp.toml:2:13: `no-such-rule` is not a rule code (`ptx-lsp check --list-rules` lists them)",
                "/repo/ptx-lsp.toml:1:1: unknown field `colour`, expected one of `target`, `version`, `disabled`, `include`, `exclude`, `extensions`",
                "/repo/ptx-lsp.toml:1:10: invalid type: integer `5`, expected a string",
                "/repo/ptx-lsp.toml:1:12: error parsing glob 'a/**b{': unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)",
                "/repo/ptx-lsp.toml:2:8: `` is not a file name extension",
                "/repo/ptx-lsp.toml:1:10: string values must be quoted, expected literal string",
            ]
        "#]]
        .assert_debug_eq(&errors);
    }

    #[test]
    fn every_code_has_a_description() {
        assert!(rule_codes().count() > 30);
        assert_eq!(
            rule_description("asm-operand-number"),
            Some("a `%N` or `%[name]` in an asm template that names no operand")
        );
        assert_eq!(rule_description("nonsense"), None);
    }
}
