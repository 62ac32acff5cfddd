//! The machine-readable reports of `ptx-lsp check`:
//!
//! - `json`: the array of the command-line contract.
//! - `github`: one GitHub Actions workflow command per diagnostic,
//!   `::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=T::MESSAGE` (`warning` and
//!   `notice` for the milder severities), which annotates the lines of a pull request. In
//!   the message `%`, CR and LF are escaped as `%25`, `%0D` and `%0A`; in the properties `:`
//!   and `,` too (`%3A`, `%2C`), as the runner's parser expects.
//! - `sarif`: a SARIF 2.1.0 log with one run: `tool.driver` lists a rule for every code that
//!   appears (sorted, with its description), and each result points at its rule and its
//!   region. Columns are counted in Unicode code points (`columnKind`), as in the JSON output;
//!   relative paths are relative to `%SRCROOT%`, the folder the command ran in.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use ptx_check::Severity;
use serde::Serialize;
use serde_json::{json, Value};

use super::Located;

/// The JSON output of the command-line contract.
pub(super) fn json(diagnostics: &[Located]) -> String {
    #[derive(Serialize)]
    struct JsonDiagnostic<'a> {
        file: &'a str,
        line: u32,
        column: u32,
        end_line: u32,
        end_column: u32,
        severity: &'static str,
        code: &'static str,
        message: &'a str,
    }
    let items: Vec<JsonDiagnostic> = diagnostics
        .iter()
        .map(|d| JsonDiagnostic {
            file: &d.file,
            line: d.line,
            column: d.column,
            end_line: d.end_line,
            end_column: d.end_column,
            severity: d.severity.as_str(),
            code: d.code,
            message: &d.message,
        })
        .collect();
    serde_json::to_string_pretty(&items).expect("plain data serializes")
}

/// GitHub Actions workflow commands, one line per diagnostic.
pub(super) fn github(diagnostics: &[Located]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information | Severity::Hint => "notice",
        };
        let _ = writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            escape_property(&d.file),
            d.line,
            d.column,
            d.end_line,
            d.end_column,
            escape_property(&format!("ptx-lsp ({})", d.code)),
            escape_data(&d.message)
        );
    }
    out
}

/// A workflow command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The URI of the SARIF 2.1.0 schema (errata 01, the OASIS standard).
const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A SARIF 2.1.0 log of the diagnostics.
pub(super) fn sarif(diagnostics: &[Located]) -> String {
    let codes: Vec<&str> = diagnostics
        .iter()
        .map(|d| d.code)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let rules: Vec<Value> = codes
        .iter()
        .map(|code| {
            let mut rule = json!({ "id": code });
            if let Some(description) = crate::project::rule_description(code) {
                rule["shortDescription"] = json!({ "text": description });
            }
            rule
        })
        .collect();
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let mut artifact = json!({ "uri": file_uri(&d.file) });
            if !is_absolute(&d.file) {
                artifact["uriBaseId"] = json!("%SRCROOT%");
            }
            json!({
                "ruleId": d.code,
                "ruleIndex": codes.binary_search(&d.code).unwrap_or(0),
                "level": match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Information | Severity::Hint => "note",
                },
                "message": { "text": d.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": artifact,
                        "region": {
                            "startLine": d.line,
                            "startColumn": d.column,
                            "endLine": d.end_line,
                            "endColumn": d.end_column,
                        }
                    }
                }]
            })
        })
        .collect();
    let log = json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "ptx-lsp",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    serde_json::to_string_pretty(&log).expect("plain data serializes")
}

fn is_absolute(path: &str) -> bool {
    std::path::Path::new(path).is_absolute()
}

/// A path as a URI reference: `/` separators, and every byte outside the unreserved set and
/// `/` percent-encoded; an absolute path becomes a `file://` URI (which keeps its colons: only
/// in a relative reference could one be taken for a scheme's).
fn file_uri(path: &str) -> String {
    let slashed = path.replace('\\', "/");
    let absolute = is_absolute(path);
    let mut out = String::new();
    if absolute {
        out.push_str("file://");
        if !slashed.starts_with('/') {
            // A Windows path such as `C:/x`.
            out.push('/');
        }
    }
    for byte in slashed.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else if byte == b':' && absolute {
            out.push(':');
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_command_escapes() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn uris() {
        assert_eq!(file_uri("a/b c.ptx"), "a/b%20c.ptx");
        assert_eq!(file_uri("dir/ü#1.cu"), "dir/%C3%BC%231.cu");
        assert_eq!(file_uri("/tmp/x:y.ptx"), "file:///tmp/x:y.ptx");
    }
}
