//! The machine code (SASS) of the asm statements of a CUDA file, for `ptx-lsp sass FILE.cu`
//! and `ptx/sass` on CUDA documents.
//!
//! Each statement becomes a kernel of its own ([`ptx_embed::machine`]); the statements with
//! the same `.version` and `.target` are compiled together (one `ptxas -lineinfo` run and one
//! `nvdisasm` run per target). When ptxas rejects such a module, its statements are compiled
//! one by one, so that one statement ptxas refuses does not hide the machine code of the
//! others, and its errors are told for that statement. Every SASS line is given the host line
//! it came from.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use ptx_embed::machine::{MachineModule, StatementKernel};
use ptx_embed::HostDocument;
use ptx_toolchain::{compile, disassemble, parse_log, CompileOptions, Sass, SassLine};

/// One statement's machine code, or why there is none.
#[derive(Debug, Clone)]
pub(crate) struct StatementSass {
    /// The statement's host range (its `asm` keyword to the closing parenthesis).
    pub range: std::ops::Range<usize>,
    /// Its 1-based host line.
    pub line: u32,
    pub target: String,
    /// The view of its kernel, `ptx_line` being 1-based host lines.
    pub outcome: Result<Sass, String>,
}

/// The tools and limits of one run.
pub(crate) struct Tools<'a> {
    pub ptxas: &'a Path,
    pub nvdisasm: &'a Path,
    pub cancel: &'a AtomicBool,
    pub time_limit: Duration,
}

/// The 1-based host line of an offset of the host text.
struct Lines<'a> {
    text: &'a str,
    index: ptx_syntax::LineIndex,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        Lines {
            text,
            index: ptx_syntax::LineIndex::new(text),
        }
    }

    fn line(&self, offset: usize) -> u32 {
        let position = self
            .index
            .line_col(self.text, offset, ptx_syntax::PositionEncoding::Utf8);
        position.line + 1
    }
}

/// The machine code of every asm statement of `doc` (the host text being `text`), in the
/// order of the file.
pub(crate) fn host_sass(text: &str, doc: &HostDocument, tools: &Tools<'_>) -> Vec<StatementSass> {
    let lines = Lines::new(text);
    let mut out: Vec<StatementSass> = Vec::new();
    // (version, target) → indices into `out` and their kernels.
    let mut groups: BTreeMap<(String, String), Vec<(usize, StatementKernel)>> = BTreeMap::new();
    for (i, statement) in doc.statements.iter().enumerate() {
        let target = statement.target_name();
        let name = format!("__asm_line{}_{i}", lines.line(statement.raw.range.start));
        let outcome = statement.machine_kernel(&name);
        let index = out.len();
        out.push(StatementSass {
            range: statement.raw.range.clone(),
            line: lines.line(statement.raw.range.start),
            target: target.clone(),
            outcome: Err(String::new()),
        });
        match outcome {
            Ok(kernel) => groups
                .entry((statement.version.clone(), target))
                .or_default()
                .push((index, kernel)),
            Err(why) => out[index].outcome = Err(format!("not compiled: {why}")),
        }
    }
    for ((version, target), kernels) in groups {
        let all: Vec<&StatementKernel> = kernels.iter().map(|(_, k)| k).collect();
        match compile_module(&MachineModule::new(&version, &target, &all), &lines, tools) {
            Ok(views) => {
                for ((index, kernel), view) in kernels.iter().zip(views) {
                    out[*index].outcome = view
                        .ok_or_else(|| format!("ptxas made no machine code for `{}`", kernel.name));
                }
            }
            Err(_) if kernels.len() > 1 => {
                for (index, kernel) in &kernels {
                    let module = MachineModule::new(&version, &target, &[kernel]);
                    out[*index].outcome = compile_module(&module, &lines, tools)
                        .and_then(|mut views| views.remove(0).ok_or_else(String::new));
                }
            }
            Err(message) => out[kernels[0].0].outcome = Err(message),
        }
    }
    out
}

/// Compiles `module` and returns the view of each of its kernels (host lines), or ptxas's
/// errors.
fn compile_module(
    module: &MachineModule,
    lines: &Lines<'_>,
    tools: &Tools<'_>,
) -> Result<Vec<Option<Sass>>, String> {
    let options = CompileOptions {
        target: module.target.clone(),
        line_info: true,
        time_limit: tools.time_limit,
    };
    let compiled =
        compile(tools.ptxas, &module.text, &options, tools.cancel).map_err(|e| e.to_string())?;
    let Some(cubin) = compiled.cubins.first().filter(|_| compiled.success) else {
        let report = parse_log(&compiled.log);
        let errors: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == ptx_toolchain::PtxasSeverity::Error)
            .map(
                |d| match d.line.and_then(|l| module.host_offset_of_line(l)) {
                    Some(offset) => format!("line {}: {}", lines.line(offset), d.message),
                    None => d.message.clone(),
                },
            )
            .collect();
        return Err(if errors.is_empty() {
            format!("ptxas failed: {}", compiled.log.trim())
        } else {
            format!("ptxas: {}", errors.join("; "))
        });
    };
    let sass = disassemble(tools.nvdisasm, cubin, tools.cancel, tools.time_limit)
        .map_err(|e| e.to_string())?;
    Ok(module
        .kernels
        .iter()
        .map(|name| {
            let mut view = sass.only(name)?;
            for line in &mut view.lines {
                *line = SassLine {
                    ptx_line: line
                        .ptx_line
                        .and_then(|l| module.host_offset_of_line(l))
                        .map(|offset| lines.line(offset)),
                    instruction: line.instruction,
                };
            }
            Some(statement_only(&view))
        })
        .collect())
}

/// The part of a kernel's view that the statement became: its header, and the instructions
/// compiled from its lines with the labels between them. The loads and stores around the
/// template, the exit and the padding are the kernel's, not the statement's.
fn statement_only(view: &Sass) -> Sass {
    let kept = |l: &SassLine| l.instruction && l.ptx_line.is_some();
    let first = view.lines.iter().position(kept);
    let last = view.lines.iter().rposition(kept);
    let text: Vec<&str> = view.text.lines().collect();
    let mut out = Sass::default();
    let mut instructions = 0;
    for (i, line) in view.lines.iter().enumerate() {
        let inside = first.is_some_and(|f| f <= i) && last.is_some_and(|l| i <= l);
        let header = view.functions.first().is_some_and(|f| i == f.first_line);
        if kept(line) || (header && !line.instruction) || (inside && !line.instruction) {
            instructions += u32::from(kept(line));
            out.text.push_str(text.get(i).copied().unwrap_or(""));
            out.text.push('\n');
            out.lines.push(line.clone());
        }
    }
    if let Some(f) = view.functions.first() {
        out.functions.push(ptx_toolchain::SassFunction {
            name: f.name.clone(),
            first_line: 0,
            last_line: out.lines.len().saturating_sub(1),
            instructions,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Lines;

    #[test]
    fn lines_of_offsets() {
        let lines = Lines::new("ab\ncd\n\nx");
        let got: Vec<u32> = (0..9).map(|o| lines.line(o)).collect();
        assert_eq!(got, [1, 1, 1, 2, 2, 2, 3, 4, 4]);
    }
}
