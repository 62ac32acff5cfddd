//! Settings: from `initializationOptions` and `workspace/didChangeConfiguration`.
//!
//! Both accept the same object, either as it is or nested under a `ptx` key
//! (VS Code sends the `ptx` section of its settings):
//!
//! ```json
//! { "target": "sm_100a", "version": "8.7",
//!   "diagnostics": { "enable": true, "disabled": ["qualifier-order"] },
//!   "docs": { "indexPath": "/home/me/.cache/ptx-lsp/spec" },
//!   "inlayHints": { "registerCounts": true },
//!   "hostExtensions": ["impl", "cu.inc"], "hostSemanticTokens": false,
//!   "run": { "timeLimitMs": 10000, "debugLens": false },
//!   "compiler": { "enable": true, "path": "/usr/local/cuda", "diagnostics": false,
//!                 "blockSize": 256, "dynamicSharedBytes": 0, "sassCounts": false,
//!                 "jobs": 0 } }
//! ```
//!
//! Unknown keys are ignored; a malformed value leaves the previous setting in
//! place and is reported in the log.
//!
//! A repository's `ptx-lsp.toml` (see [`crate::project`]) applies to the documents below
//! it: [`Config::with_project_file`] fills in the target and version the client leaves
//! unset and adds the codes it disables.

use serde::Deserialize;
use serde_json::Value;

/// The server's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct Config {
    /// Check and complete as if the file said `.target` this.
    pub target: Option<String>,
    /// Check and complete as if the file said `.version` this.
    pub version: Option<String>,
    pub diagnostics: DiagnosticsConfig,
    pub docs: DocsConfig,
    pub inlay_hints: InlayHintsConfig,
    /// File extensions (without the dot) read as CUDA C++ whatever their text, besides
    /// the C/C++/CUDA ones; other files are read by their content.
    pub host_extensions: Vec<String>,
    /// Semantic tokens for the asm templates of CUDA/C++ files (off by default: editors that
    /// keep one semantic-token provider per file would drop the C++ server's).
    pub host_semantic_tokens: bool,
    pub run: RunConfig,
    pub compiler: CompilerConfig,
}

/// The compiler view (see [`crate::lsp::compiler`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct CompilerConfig {
    /// Compile PTX documents with the user's ptxas on open and save (nothing happens when
    /// no ptxas is found).
    pub enable: bool,
    /// A ptxas, or a CUDA toolkit folder (or its `bin/`), to use before the usual places.
    pub path: Option<String>,
    /// Show ptxas's errors and warnings that the checker does not report (source `ptxas`).
    pub diagnostics: bool,
    /// Threads per block for occupancy, for kernels without `.reqntid`/`.maxntid`.
    pub block_size: Option<u32>,
    /// Dynamic shared memory per block, in bytes, for occupancy.
    pub dynamic_shared_bytes: u64,
    /// Inlay hints with the number of SASS instructions each PTX line became.
    pub sass_counts: bool,
    /// How many `ptxas` runs may compile one large document side by side (its functions
    /// spread over them); 0: one per core, up to 8.
    pub jobs: usize,
}

impl Default for CompilerConfig {
    fn default() -> Self {
        CompilerConfig {
            enable: true,
            path: None,
            diagnostics: false,
            block_size: None,
            dynamic_shared_bytes: 0,
            sass_counts: false,
            jobs: 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct RunConfig {
    /// A `ptx/run` still running after this many milliseconds is stopped.
    pub time_limit_ms: u64,
    /// Beside each "Run" lens, a "Debug" lens whose command `ptx.debug` takes
    /// the same arguments (for clients that start `ptx-lsp dap` from it).
    pub debug_lens: bool,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            time_limit_ms: 10_000,
            debug_lens: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct DiagnosticsConfig {
    /// No diagnostics at all when false.
    pub enable: bool,
    /// Diagnostic codes not to report (`qualifier-order`, ...).
    pub disabled: Vec<String>,
}

impl Default for DiagnosticsConfig {
    fn default() -> Self {
        DiagnosticsConfig {
            enable: true,
            disabled: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct DocsConfig {
    /// Where `ptx-lsp docs import` stored the spec index (for hover text).
    pub index_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct InlayHintsConfig {
    pub register_counts: bool,
}

impl Default for InlayHintsConfig {
    fn default() -> Self {
        InlayHintsConfig {
            register_counts: true,
        }
    }
}

impl Config {
    /// Reads settings from a client's JSON value; `Ok(None)` when the value
    /// holds no settings of ours (null, or an unrelated object).
    pub fn from_json(value: &Value) -> Result<Option<Config>, String> {
        let value = match value.get("ptx") {
            Some(section) => section,
            None => value,
        };
        match value {
            Value::Null => Ok(None),
            Value::Object(map) if map.is_empty() => Ok(None),
            value => serde_json::from_value(value.clone())
                .map(|mut config: Config| {
                    config.normalize();
                    Some(config)
                })
                .map_err(|error| format!("ignoring malformed settings: {error}")),
        }
    }

    /// Empty strings mean "no override" (what an editor's settings UI sends).
    fn normalize(&mut self) {
        for field in [&mut self.target, &mut self.version] {
            if field.as_deref().is_some_and(|s| s.trim().is_empty()) {
                *field = None;
            }
        }
    }

    /// These settings for one document: those of the nearest `ptx-lsp.toml` above its file
    /// under the client's (read afresh each time, so an edit of the file applies at the next
    /// check). A malformed settings file is reported in the log and changes nothing.
    pub fn with_project_file(mut self, uri: &tower_lsp::lsp_types::Url) -> Config {
        let Ok(path) = uri.to_file_path() else {
            return self;
        };
        match crate::project::for_file(&path) {
            Ok(Some(project)) => self.apply_project(&project),
            Ok(None) => {}
            Err(error) => eprintln!("ptx-lsp: ignoring {error}"),
        }
        self
    }

    fn apply_project(&mut self, project: &crate::project::Project) {
        if self.target.is_none() {
            self.target.clone_from(&project.target);
        }
        if self.version.is_none() {
            self.version.clone_from(&project.version);
        }
        for code in &project.disabled {
            if !self.diagnostics.disabled.contains(code) {
                self.diagnostics.disabled.push(code.clone());
            }
        }
    }

    /// The options of the rule checker.
    pub fn check_options(&self) -> ptx_check::CheckOptions {
        ptx_check::CheckOptions {
            target_override: self.target.clone(),
            version_override: self.version.clone(),
            disabled_codes: self.diagnostics.disabled.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flat_or_nested_under_ptx() {
        let flat =
            Config::from_json(&json!({"target": "sm_80", "diagnostics": {"disabled": ["x"]}}))
                .unwrap()
                .unwrap();
        let nested = Config::from_json(
            &json!({"ptx": {"target": "sm_80", "diagnostics": {"disabled": ["x"]}}}),
        )
        .unwrap()
        .unwrap();
        assert_eq!(flat, nested);
        assert_eq!(flat.target.as_deref(), Some("sm_80"));
        assert!(flat.diagnostics.enable);
        assert_eq!(flat.check_options().disabled_codes, ["x"]);
    }

    #[test]
    fn empty_and_malformed_values() {
        assert_eq!(Config::from_json(&Value::Null), Ok(None));
        assert_eq!(Config::from_json(&json!({})), Ok(None));
        let cleared = Config::from_json(&json!({"target": "", "version": " "}))
            .unwrap()
            .unwrap();
        assert_eq!(cleared.target, None);
        assert_eq!(cleared.version, None);
        assert!(Config::from_json(&json!({"target": 5})).is_err());
    }

    #[test]
    fn a_project_file_fills_in_what_the_client_leaves_unset() {
        let project = crate::project::Project::parse(
            std::path::Path::new("/repo/ptx-lsp.toml"),
            "target = \"sm_90a\"\nversion = \"8.7\"\ndisabled = [\"qualifier-order\"]\n",
        )
        .unwrap();
        let mut from_file = Config::default();
        from_file.apply_project(&project);
        assert_eq!(from_file.target.as_deref(), Some("sm_90a"));
        assert_eq!(from_file.version.as_deref(), Some("8.7"));
        assert_eq!(from_file.diagnostics.disabled, ["qualifier-order"]);
        let mut client = Config::from_json(
            &json!({"target": "sm_100a", "diagnostics": {"disabled": ["operand-type"]}}),
        )
        .unwrap()
        .unwrap();
        client.apply_project(&project);
        assert_eq!(client.target.as_deref(), Some("sm_100a"));
        assert_eq!(client.version.as_deref(), Some("8.7"));
        assert_eq!(
            client.diagnostics.disabled,
            ["operand-type", "qualifier-order"]
        );
    }
}
