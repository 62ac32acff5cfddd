//! SASS of a cubin with each instruction linked to the PTX line it came from.
//!
//! `ptxas -lineinfo` writes a `.nv_debug_line_sass` section that maps every SASS instruction to
//! a line of the PTX text it compiled (whatever `.loc` records the PTX carries for its own
//! source), and `nvdisasm -gp` prints it as `//## File ".nv_debug_ptx_txt", line N` before the
//! instructions of that line. [`parse_nvdisasm`] turns that listing into a view: the code of each
//! function, one instruction per line, and for every view line the PTX line (1-based) it belongs to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;

use crate::compile::{run_until_done, CompileError, Scratch};

/// One line of the view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SassLine {
    /// The PTX line (1-based) the instruction was compiled from; `None` for headers and labels.
    pub ptx_line: Option<u32>,
    /// An instruction (not a header, label or blank line).
    pub instruction: bool,
}

/// A function of the view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SassFunction {
    pub name: String,
    /// View lines (0-based, inclusive) of its header and code.
    pub first_line: usize,
    pub last_line: usize,
    pub instructions: u32,
}

/// The view: its text and what each line is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Sass {
    pub text: String,
    pub lines: Vec<SassLine>,
    pub functions: Vec<SassFunction>,
}

impl Sass {
    /// How many SASS instructions each PTX line became.
    pub fn counts_per_ptx_line(&self) -> BTreeMap<u32, u32> {
        let mut counts = BTreeMap::new();
        for line in &self.lines {
            if let (true, Some(ptx)) = (line.instruction, line.ptx_line) {
                *counts.entry(ptx).or_insert(0) += 1;
            }
        }
        counts
    }

    /// The view lines (0-based) of the instructions compiled from PTX line `ptx_line`.
    pub fn lines_of_ptx(&self, ptx_line: u32) -> Vec<usize> {
        self.lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.instruction && l.ptx_line == Some(ptx_line))
            .map(|(i, _)| i)
            .collect()
    }

    /// The view of one function, or `None` when there is none of that name.
    pub fn only(&self, name: &str) -> Option<Sass> {
        let f = self.functions.iter().find(|f| f.name == name)?;
        let text: Vec<&str> = self.text.lines().collect();
        let mut out = Sass::default();
        for i in f.first_line..=f.last_line {
            out.text.push_str(text.get(i).copied().unwrap_or(""));
            out.text.push('\n');
            out.lines.push(self.lines[i].clone());
        }
        out.functions.push(SassFunction {
            name: f.name.clone(),
            first_line: 0,
            last_line: f.last_line - f.first_line,
            instructions: f.instructions,
        });
        Some(out)
    }
}

/// Reads `nvdisasm -gp -c` output.
pub fn parse_nvdisasm(listing: &str) -> Sass {
    let mut sass = Sass::default();
    let mut ptx_line: Option<u32> = None;
    let push = |sass: &mut Sass, text: &str, line: SassLine| {
        sass.text.push_str(text);
        sass.text.push('\n');
        sass.lines.push(line);
    };
    for raw in listing.lines() {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if let Some(section) = trimmed
            .strip_prefix("//---------------------")
            .map(|r| r.trim_matches(|c: char| c == '-' || c.is_whitespace()))
        {
            let Some(name) = section.strip_prefix(".text.") else {
                ptx_line = None;
                continue;
            };
            if let Some(last) = sass.functions.last_mut() {
                last.last_line = sass.lines.len().saturating_sub(1);
            }
            if !sass.lines.is_empty() {
                push(&mut sass, "", blank());
            }
            sass.functions.push(SassFunction {
                name: name.to_owned(),
                first_line: sass.lines.len(),
                last_line: sass.lines.len(),
                instructions: 0,
            });
            push(&mut sass, &format!("// {name}"), blank());
            ptx_line = None;
            continue;
        }
        if sass.functions.is_empty() {
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("//## File") {
            ptx_line = rest
                .rsplit_once("line ")
                .and_then(|(_, n)| n.split(',').next())
                .and_then(|n| n.trim().parse().ok());
            continue;
        }
        if trimmed.starts_with("/*") && trimmed.contains("*/") {
            // `/*0040*/   IMAD.WIDE.U32 R2, R5, 0x4, R2 ;`
            let (offset, code) = trimmed[2..].split_once("*/").unwrap_or(("", trimmed));
            let code = code.trim();
            push(
                &mut sass,
                &format!("/*{offset}*/  {code}"),
                SassLine {
                    ptx_line,
                    instruction: true,
                },
            );
            if let Some(f) = sass.functions.last_mut() {
                f.instructions += 1;
            }
            continue;
        }
        if trimmed.ends_with(':') && !trimmed.starts_with('.') || trimmed.starts_with(".L_") {
            // Labels of the code (`.L_x_1:`); the function's own name and section labels
            // (`k:`, `.text.k:`) repeat the header.
            if trimmed.starts_with(".L_") {
                push(&mut sass, trimmed, blank());
            }
            continue;
        }
    }
    if let Some(last) = sass.functions.last_mut() {
        last.last_line = sass.lines.len().saturating_sub(1);
    }
    sass
}

fn blank() -> SassLine {
    SassLine {
        ptx_line: None,
        instruction: false,
    }
}

/// Disassembles `cubin` with `nvdisasm -gp -c` (killed on `cancel` or after `time_limit`).
pub fn disassemble(
    nvdisasm: &Path,
    cubin: &[u8],
    cancel: &AtomicBool,
    time_limit: Duration,
) -> Result<Sass, CompileError> {
    let scratch = Scratch::new()?;
    let input = scratch.path.join("code.cubin");
    let output = scratch.path.join("code.sass");
    let errors = scratch.path.join("errors.txt");
    let io = |what: &str, e: std::io::Error| CompileError::Io(format!("{what}: {e}"));
    std::fs::write(&input, cubin).map_err(|e| io("cannot write the cubin", e))?;
    let out = std::fs::File::create(&output).map_err(|e| io("cannot create the listing", e))?;
    let err = std::fs::File::create(&errors).map_err(|e| io("cannot create the listing", e))?;
    let mut command = Command::new(nvdisasm);
    command
        .args(["-gp", "-c"])
        .arg(&input)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    let status = run_until_done(&mut command, nvdisasm, cancel, time_limit)?;
    if !status.success() {
        let text = std::fs::read_to_string(&errors).unwrap_or_default();
        return Err(CompileError::Io(format!(
            "nvdisasm failed: {}",
            text.trim()
        )));
    }
    let listing = std::fs::read(&output).map_err(|e| io("cannot read the listing", e))?;
    Ok(parse_nvdisasm(&String::from_utf8_lossy(&listing)))
}

/// Disassemblies started while a module is still compiling: [`Early::start`] runs `nvdisasm`
/// on one cubin in a thread of its own (give it [`crate::split::compile_module`]'s cubins
/// as they are made), and [`Early::finish`] gives the view of a compilation's cubins, waiting
/// for the runs started on them and disassembling any cubin that was not started. Dropping it
/// stops the runs still going.
#[derive(Debug)]
pub struct Early {
    nvdisasm: PathBuf,
    time_limit: Duration,
    cancel: Arc<AtomicBool>,
    started: Mutex<Vec<(Arc<[u8]>, EarlyRun)>>,
}

type EarlyRun = std::thread::JoinHandle<Result<Sass, CompileError>>;

impl Early {
    pub fn new(nvdisasm: &Path, time_limit: Duration) -> Early {
        Early {
            nvdisasm: nvdisasm.to_owned(),
            time_limit,
            cancel: Arc::new(AtomicBool::new(false)),
            started: Mutex::new(Vec::new()),
        }
    }

    /// Starts disassembling `cubin` (a copy of it) in the background.
    pub fn start(&self, cubin: &[u8]) {
        let (nvdisasm, time_limit) = (self.nvdisasm.clone(), self.time_limit);
        let cancel = self.cancel.clone();
        // One copy, shared by the run and the list `finish` matches against.
        let shared: Arc<[u8]> = cubin.into();
        let owned = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("ptx-lsp-nvdisasm".into())
            .spawn(move || {
                if crate::pause::tools_in_background() {
                    crate::pause::lower_this_threads_priority();
                }
                disassemble(&nvdisasm, &owned, &cancel, time_limit)
            });
        // A thread that cannot start leaves the cubin to `finish`.
        if let Ok(run) = spawned {
            self.lock().push((shared, run));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Arc<[u8]>, EarlyRun)>> {
        self.started.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The view of `cubins` (the parts of one module, in order): the functions of each part
    /// after those of the part before. The cubins not started are disassembled side by side
    /// now. A started run is used once.
    pub fn finish(&self, cubins: &[Vec<u8>], cancel: &AtomicBool) -> Result<Sass, CompileError> {
        let mut runs: Vec<Option<EarlyRun>> = Vec::with_capacity(cubins.len());
        {
            let mut started = self.lock();
            for cubin in cubins {
                let found = started.iter().position(|(bytes, _)| **bytes == **cubin);
                runs.push(found.map(|i| started.swap_remove(i).1));
            }
        }
        let views: Vec<Result<Sass, CompileError>> = std::thread::scope(|scope| {
            let pending: Vec<_> = cubins
                .iter()
                .zip(runs)
                .map(|(cubin, run)| match run {
                    Some(run) => Ok(run),
                    None => Err(scope.spawn(move || {
                        disassemble(&self.nvdisasm, cubin, cancel, self.time_limit)
                    })),
                })
                .collect();
            pending
                .into_iter()
                .map(|run| {
                    let joined = match run {
                        Ok(early) => early.join(),
                        Err(now) => now.join(),
                    };
                    joined.unwrap_or_else(|_| {
                        Err(CompileError::Io("an nvdisasm run panicked".into()))
                    })
                })
                .collect()
        });
        let mut out = Sass::default();
        for view in views {
            out.append(view?);
        }
        Ok(out)
    }
}

impl Drop for Early {
    fn drop(&mut self) {
        self.cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Sass {
    /// Adds `other`'s functions after these, a blank line between.
    pub fn append(&mut self, other: Sass) {
        if other.lines.is_empty() {
            return;
        }
        if !self.lines.is_empty() {
            self.text.push('\n');
            self.lines.push(blank());
        }
        let offset = self.lines.len();
        self.text.push_str(&other.text);
        if !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.lines.extend(other.lines);
        self.functions
            .extend(other.functions.into_iter().map(|f| SassFunction {
                first_line: f.first_line + offset,
                last_line: f.last_line + offset,
                ..f
            }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    const LISTING: &str = r#"	.target	sm_90

	.elftype	@"ET_EXEC"


//--------------------- .text.k                   --------------------------
	.section	.text.k,"ax",@progbits
	.align	128
        .global         k
k:
.text.k:
	//## File ".nv_debug_ptx_txt", line 5
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File ".nv_debug_ptx_txt", line 10
        /*0010*/                   S2R R5, SR_TID.X ;
	//## File ".nv_debug_ptx_txt", line 12
        /*0020*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0040*/                   IMAD.WIDE.U32 R2, R5, 0x4, R2 ;
.L_x_1:
	//## File ".nv_debug_ptx_txt", line 14
        /*0060*/                   EXIT ;
//--------------------- .text.f                   --------------------------
f:
        /*0000*/                   RET.ABS.NODEC R20 0x0 ;
"#;

    #[test]
    fn listing_to_view() {
        let sass = parse_nvdisasm(LISTING);
        expect![[r#"
            // k
            /*0000*/  LDC R1, c[0x0][0x28] ;
            /*0010*/  S2R R5, SR_TID.X ;
            /*0020*/  LDC.64 R2, c[0x0][0x210] ;
            /*0040*/  IMAD.WIDE.U32 R2, R5, 0x4, R2 ;
            .L_x_1:
            /*0060*/  EXIT ;

            // f
            /*0000*/  RET.ABS.NODEC R20 0x0 ;
        "#]]
        .assert_eq(&sass.text);
        assert_eq!(sass.lines.len(), sass.text.lines().count());
        assert_eq!(
            sass.counts_per_ptx_line().into_iter().collect::<Vec<_>>(),
            [(5, 1), (10, 1), (12, 2), (14, 1)]
        );
        assert_eq!(sass.lines_of_ptx(12), [3, 4]);
        assert_eq!(sass.functions[0].instructions, 5);
        assert_eq!(
            (sass.functions[1].first_line, sass.functions[1].last_line),
            (8, 9)
        );
        let f = sass.only("f").unwrap();
        assert_eq!(f.text, "// f\n/*0000*/  RET.ABS.NODEC R20 0x0 ;\n");
        assert!(sass.only("nothing").is_none());
    }

    #[test]
    fn views_appended_keep_their_lines_and_functions() {
        let mut both = parse_nvdisasm(LISTING);
        let first = both.clone();
        both.append(parse_nvdisasm(LISTING));
        assert_eq!(both.lines.len(), both.text.lines().count());
        assert_eq!(both.lines.len(), 2 * first.lines.len() + 1);
        assert_eq!(both.functions.len(), 4);
        let k2 = &both.functions[2];
        assert_eq!(k2.first_line, first.lines.len() + 1);
        assert_eq!(both.text.lines().nth(k2.first_line), Some("// k"));
        assert_eq!(both.lines_of_ptx(12).len(), 4);
    }
}
