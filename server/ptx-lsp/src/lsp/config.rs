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
//!   "run": { "timeLimitMs": 10000 } }
//! ```
//!
//! Unknown keys are ignored; a malformed value leaves the previous setting in
//! place and is reported in the log.

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
    pub run: RunConfig,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct RunConfig {
    /// A `ptx/run` still running after this many milliseconds is stopped.
    pub time_limit_ms: u64,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            time_limit_ms: 10_000,
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
}
