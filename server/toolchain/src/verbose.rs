//! What `ptxas -v` printed: figures per function and diagnostics.
//!
//! The lines read (ptxas 12.x and 13.x spell them the same way):
//!
//! ```text
//! ptxas info    : 48 bytes gmem
//! ptxas info    : Compiling entry function 'k' for 'sm_90'
//! ptxas info    : Function properties for k
//!     64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//! ptxas info    : Used 6 registers, used 1 barriers, 64 bytes cumulative stack size, 1000 bytes smem
//! ptxas input.ptx, line 17; error   : Arguments mismatch for instruction 'mov'
//! ptxas warning : Too big maxrregcount value specified 300, will be ignored
//! ```
//!
//! "Used …" belongs to the entry function named by the "Compiling entry function" line before
//! it; "Function properties" names entries and `.func`s alike. Parts of "Used" that a version
//! does not print (older ones add `N bytes cmem[0]`) are kept when present and `None` otherwise.

use serde::Serialize;

/// The figures of one function.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FunctionResources {
    pub name: String,
    /// An `.entry` (compiled on its own) or a `.func` (only its frame figures are printed).
    pub entry: bool,
    pub registers: Option<u32>,
    pub barriers: Option<u32>,
    pub stack_frame: Option<u64>,
    pub spill_stores: Option<u64>,
    pub spill_loads: Option<u64>,
    /// The stack of the entry and every function it calls.
    pub cumulative_stack: Option<u64>,
    /// Static shared memory.
    pub shared: Option<u64>,
    /// Constant memory by bank (`cmem[0]`), where ptxas prints it.
    pub constant: Vec<(u32, u64)>,
    pub textures: Option<u32>,
    pub samplers: Option<u32>,
    pub surfaces: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PtxasSeverity {
    Error,
    Warning,
}

/// One error or warning of `ptxas`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PtxasDiagnostic {
    /// 1-based, where ptxas names a line.
    pub line: Option<u32>,
    pub severity: PtxasSeverity,
    pub message: String,
}

/// Everything read from one log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PtxasReport {
    /// Global memory of the module (`N bytes gmem`).
    pub global: Option<u64>,
    /// In the order ptxas printed them.
    pub functions: Vec<FunctionResources>,
    pub diagnostics: Vec<PtxasDiagnostic>,
}

impl PtxasReport {
    pub fn function(&self, name: &str) -> Option<&FunctionResources> {
        self.functions.iter().find(|f| f.name == name)
    }
}

/// Reads a `ptxas -v` log.
pub fn parse_log(log: &str) -> PtxasReport {
    let mut report = PtxasReport::default();
    let mut current_entry: Option<usize> = None;
    let mut properties_of: Option<usize> = None;
    for raw in log.lines() {
        let line = raw.trim_end();
        if let Some(index) = properties_of.take() {
            // The line after "Function properties for NAME".
            if line.starts_with(char::is_whitespace) {
                frame_figures(&mut report.functions[index], line);
                continue;
            }
        }
        let Some(rest) = line.strip_prefix("ptxas") else {
            continue;
        };
        if let Some(info) = tagged(rest, "info") {
            if let Some(name) = quoted_after(info, "Compiling entry function") {
                current_entry = Some(function_index(&mut report, name, true));
            } else if let Some(name) = info.strip_prefix("Function properties for ") {
                let name = name.trim();
                properties_of = Some(function_index(&mut report, name, false));
            } else if let Some(used) = info.strip_prefix("Used ") {
                if let Some(index) = current_entry {
                    used_figures(&mut report.functions[index], used);
                }
            } else if let Some(bytes) = info.strip_suffix(" bytes gmem") {
                report.global = bytes.trim().parse().ok();
            }
        } else if let Some(message) = tagged(rest, "warning") {
            report.diagnostics.push(PtxasDiagnostic {
                line: None,
                severity: PtxasSeverity::Warning,
                message: message.trim().to_owned(),
            });
        } else if let Some(message) = tagged(rest, "fatal") {
            // "Ptx assembly aborted due to errors" repeats what the errors said.
            if !message.contains("aborted due to errors") {
                report.diagnostics.push(PtxasDiagnostic {
                    line: None,
                    severity: PtxasSeverity::Error,
                    message: message.trim().to_owned(),
                });
            }
        } else if let Some(d) = located(rest) {
            report.diagnostics.push(d);
        }
    }
    report
}

/// `"    info    : TEXT"` → `TEXT`.
fn tagged<'a>(rest: &'a str, tag: &str) -> Option<&'a str> {
    let rest = rest.trim_start().strip_prefix(tag)?;
    rest.trim_start().strip_prefix(':').map(str::trim_start)
}

/// `" FILE, line N; error   : MESSAGE"`.
fn located(rest: &str) -> Option<PtxasDiagnostic> {
    let (head, tail) = rest.split_once("; ")?;
    let line = head.rsplit_once(", line ")?.1.trim().parse().ok()?;
    let (severity, message) = tail.split_once(':')?;
    let severity = match severity.trim() {
        "error" | "fatal" => PtxasSeverity::Error,
        "warning" => PtxasSeverity::Warning,
        _ => return None,
    };
    Some(PtxasDiagnostic {
        line: Some(line),
        severity,
        message: message.trim().to_owned(),
    })
}

fn quoted_after<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(prefix)?.trim_start().strip_prefix('\'')?;
    rest.split_once('\'').map(|(name, _)| name)
}

fn function_index(report: &mut PtxasReport, name: &str, entry: bool) -> usize {
    if let Some(i) = report.functions.iter().position(|f| f.name == name) {
        report.functions[i].entry |= entry;
        return i;
    }
    report.functions.push(FunctionResources {
        name: name.to_owned(),
        entry,
        ..FunctionResources::default()
    });
    report.functions.len() - 1
}

/// `64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads`.
fn frame_figures(f: &mut FunctionResources, line: &str) {
    for part in line.split(',') {
        let part = part.trim();
        let (number, what) = number_and_rest(part);
        match what {
            "bytes stack frame" => f.stack_frame = number,
            "bytes spill stores" => f.spill_stores = number,
            "bytes spill loads" => f.spill_loads = number,
            _ => {}
        }
    }
}

/// `6 registers, used 1 barriers, 64 bytes cumulative stack size, 1000 bytes smem, 380 bytes cmem[0]`.
fn used_figures(f: &mut FunctionResources, used: &str) {
    for part in used.split(',') {
        let part = part.trim().trim_start_matches("used ").trim();
        let (number, what) = number_and_rest(part);
        let small = number.and_then(|n| u32::try_from(n).ok());
        match what {
            "registers" => f.registers = small,
            "barriers" => f.barriers = small,
            "bytes cumulative stack size" => f.cumulative_stack = number,
            "bytes smem" => f.shared = number,
            "textures" => f.textures = small,
            "samplers" => f.samplers = small,
            "surfaces" => f.surfaces = small,
            other => {
                let bank = other
                    .strip_prefix("bytes cmem[")
                    .and_then(|b| b.strip_suffix(']'))
                    .and_then(|b| b.parse().ok());
                if let (Some(bank), Some(n)) = (bank, number) {
                    f.constant.push((bank, n));
                }
            }
        }
    }
}

fn number_and_rest(part: &str) -> (Option<u64>, &str) {
    match part.split_once(' ') {
        Some((n, rest)) => (n.parse().ok(), rest.trim()),
        None => (None, part),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn figures_and_diagnostics() {
        let log = "ptxas warning : Too big maxrregcount value specified 300, will be ignored\n\
ptxas info    : 12854 bytes gmem\n\
ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
ptxas info    : Function properties for k\n    \
64 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Used 6 registers, used 1 barriers, 64 bytes cumulative stack size, 1000 bytes smem, 380 bytes cmem[0], 2 textures\n\
ptxas info    : Compile time = 8.976 ms\n\
ptxas info    : Function properties for f\n    \
0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas <input>, line 17; error   : Arguments mismatch for instruction 'mov'\n\
ptxas <input>, line 5; warning : Unused register\n\
ptxas fatal   : Ptx assembly aborted due to errors\n";
        let report = parse_log(log);
        expect![[r#"
            PtxasReport {
                global: Some(
                    12854,
                ),
                functions: [
                    FunctionResources {
                        name: "k",
                        entry: true,
                        registers: Some(
                            6,
                        ),
                        barriers: Some(
                            1,
                        ),
                        stack_frame: Some(
                            64,
                        ),
                        spill_stores: Some(
                            8,
                        ),
                        spill_loads: Some(
                            4,
                        ),
                        cumulative_stack: Some(
                            64,
                        ),
                        shared: Some(
                            1000,
                        ),
                        constant: [
                            (
                                0,
                                380,
                            ),
                        ],
                        textures: Some(
                            2,
                        ),
                        samplers: None,
                        surfaces: None,
                    },
                    FunctionResources {
                        name: "f",
                        entry: false,
                        registers: None,
                        barriers: None,
                        stack_frame: Some(
                            0,
                        ),
                        spill_stores: Some(
                            0,
                        ),
                        spill_loads: Some(
                            0,
                        ),
                        cumulative_stack: None,
                        shared: None,
                        constant: [],
                        textures: None,
                        samplers: None,
                        surfaces: None,
                    },
                ],
                diagnostics: [
                    PtxasDiagnostic {
                        line: None,
                        severity: Warning,
                        message: "Too big maxrregcount value specified 300, will be ignored",
                    },
                    PtxasDiagnostic {
                        line: Some(
                            17,
                        ),
                        severity: Error,
                        message: "Arguments mismatch for instruction 'mov'",
                    },
                    PtxasDiagnostic {
                        line: Some(
                            5,
                        ),
                        severity: Warning,
                        message: "Unused register",
                    },
                ],
            }
        "#]]
        .assert_debug_eq(&report);
    }

    #[test]
    fn garbage_is_ignored() {
        let report = parse_log("ptxas\nptxas info\nptxas info    : Used x registers\n\u{0}\n");
        assert_eq!(report, PtxasReport::default());
    }
}
