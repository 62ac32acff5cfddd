//! Per-function resource figures of a document: what `ptxas -v` reported, placed on the
//! document's `.entry`/`.func` definitions, with occupancy for each kernel's block size.
//!
//! The block size of a kernel is, in this order: its `.reqntid` (exact), its `.maxntid` (the
//! most it may be launched with, which ptxas allocated registers for), the caller's block size,
//! or 256 threads (said to be assumed).

use serde::Serialize;

use ptx_syntax::{DirectiveKind, FunctionKind, Parse};

use crate::occupancy::{bytes, occupancy, Occupancy, SmLimits};
use crate::verbose::{FunctionResources, PtxasDiagnostic, PtxasReport};

/// The block size used when nothing gives one.
pub const ASSUMED_BLOCK: u32 = 256;

/// What the caller knows beyond the document.
#[derive(Debug, Clone, Default)]
pub struct ResourceOptions {
    /// Threads per block for kernels without `.reqntid`/`.maxntid`.
    pub block: Option<u32>,
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_shared: u64,
}

/// Where a kernel's block size came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockSource {
    Reqntid,
    Maxntid,
    Option,
    Assumed,
}

/// One `.entry` or `.func` definition with its figures.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionView {
    pub name: String,
    pub entry: bool,
    /// Byte range of the name in the document.
    pub name_start: usize,
    pub name_end: usize,
    /// What ptxas reported; `None` when it reported nothing for this function (inlined into
    /// every caller, or the compilation failed).
    pub figures: Option<FunctionResources>,
    pub block: Option<u32>,
    pub block_source: Option<BlockSource>,
    pub occupancy: Option<Occupancy>,
}

impl FunctionView {
    /// The code lens text: `168 registers · no spills · 4 KB shared · occupancy 12% (registers)`.
    pub fn lens(&self) -> String {
        let Some(f) = &self.figures else {
            return if self.entry {
                "ptxas: no figures".to_owned()
            } else {
                "ptxas: inlined (no code of its own)".to_owned()
            };
        };
        let mut parts = Vec::new();
        if let Some(r) = f.registers {
            parts.push(format!("{r} registers"));
        }
        let spills = f.spill_stores.unwrap_or(0) + f.spill_loads.unwrap_or(0);
        if spills == 0 {
            parts.push("no spills".to_owned());
        } else {
            parts.push(format!(
                "spills: {} stored, {} loaded",
                bytes(f.spill_stores.unwrap_or(0)),
                bytes(f.spill_loads.unwrap_or(0))
            ));
        }
        if let Some(stack) = f.stack_frame.filter(|s| *s > 0) {
            parts.push(format!("{} stack", bytes(stack)));
        }
        if let Some(shared) = f.shared.filter(|s| *s > 0) {
            parts.push(format!("{} shared", bytes(shared)));
        }
        if let Some(o) = &self.occupancy {
            let assumed = if self.block_source == Some(BlockSource::Assumed) {
                ", block 256 assumed"
            } else {
                ""
            };
            parts.push(format!(
                "occupancy {:.0}% ({}{assumed})",
                o.fraction * 100.0,
                o.limiter.name()
            ));
        }
        parts.join(" · ")
    }

    /// Markdown for a hover on the function's name.
    pub fn markdown(&self, target: &str, dynamic_shared: u64) -> String {
        let Some(f) = &self.figures else {
            return format!("**ptxas** (`{target}`): {}\n", self.lens());
        };
        let mut out = format!("**ptxas** (`{target}`)\n\n");
        let mut row = |what: &str, value: String| out.push_str(&format!("- {what}: {value}\n"));
        if let Some(r) = f.registers {
            row("registers per thread", r.to_string());
        }
        if let Some(b) = f.barriers {
            row("barriers", b.to_string());
        }
        row("stack frame", bytes(f.stack_frame.unwrap_or(0)));
        row(
            "spill stores / loads",
            format!(
                "{} / {}",
                bytes(f.spill_stores.unwrap_or(0)),
                bytes(f.spill_loads.unwrap_or(0))
            ),
        );
        if let Some(c) = f.cumulative_stack {
            row("stack with callees", bytes(c));
        }
        if f.entry {
            row("static shared memory", bytes(f.shared.unwrap_or(0)));
        }
        for (bank, n) in &f.constant {
            row(&format!("constant bank {bank}"), bytes(*n));
        }
        if let (Some(o), Some(block), Some(source)) =
            (&self.occupancy, self.block, self.block_source)
        {
            let from = match source {
                BlockSource::Reqntid => "from `.reqntid`",
                BlockSource::Maxntid => "from `.maxntid`",
                BlockSource::Option => "as set",
                BlockSource::Assumed => "assumed: no `.reqntid`/`.maxntid`",
            };
            let dynamic = if dynamic_shared > 0 {
                format!(", {} dynamic shared memory", bytes(dynamic_shared))
            } else {
                String::new()
            };
            out.push_str(&format!(
                "\n**Occupancy** (block of {block}, {from}{dynamic}): {}\n",
                o.summary(
                    f.registers.unwrap_or(0),
                    f.shared.unwrap_or(0) + dynamic_shared
                )
            ));
        }
        out
    }
}

/// The compiler's view of a whole document.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleView {
    pub target: String,
    /// Global memory of the module.
    pub global: Option<u64>,
    pub functions: Vec<FunctionView>,
    pub diagnostics: Vec<PtxasDiagnostic>,
    /// Whether the architecture's per-SM limits are known (occupancy is shown only then).
    pub limits_known: bool,
}

/// The first `sm_*` target of the document's `.target`.
pub fn document_target(parse: &Parse) -> Option<String> {
    parse
        .module()
        .directives(DirectiveKind::Target)
        .iter()
        .flat_map(|d| d.targets())
        .map(|t| t.text.to_owned())
        .find(|t| t.starts_with("sm_"))
}

/// The text to give ptxas for `target`: the document itself, or, when it has no `.target`
/// directive (ptxas requires one), the document with ` .target TARGET` at the end of its
/// `.version` line, so that every line keeps its number.
pub fn text_for_target<'a>(parse: &'a Parse, target: &str) -> std::borrow::Cow<'a, str> {
    let text = parse.text();
    match target_insertion(parse, target) {
        Some((at, added)) => format!("{}{added}{}", &text[..at], &text[at..]).into(),
        None => text.into(),
    }
}

/// Where [`text_for_target`] adds ` .target TARGET`, and that text; `None` when it adds nothing.
pub(crate) fn target_insertion(parse: &Parse, target: &str) -> Option<(usize, String)> {
    if !parse.module().directives(DirectiveKind::Target).is_empty() {
        return None;
    }
    let version = parse
        .module()
        .directives(DirectiveKind::Version)
        .first()
        .map(|d| d.range())?;
    Some((version.end, format!(" .target {target}")))
}

/// Places `report` (of compiling `parse`'s text for `target`) on the document's functions.
pub fn module_view(
    parse: &Parse,
    report: &PtxasReport,
    target: &str,
    options: &ResourceOptions,
) -> ModuleView {
    let limits = SmLimits::of(target);
    let mut functions = Vec::new();
    for function in parse.module().functions() {
        if function.body().is_none() {
            continue;
        }
        let Some(name) = function.name() else {
            continue;
        };
        let entry = function.kind() == FunctionKind::Entry;
        let figures = report.function(name.text).cloned();
        let (block, block_source) = if entry {
            let dims = |directive: &str| {
                function
                    .attributes()
                    .into_iter()
                    .find(|(d, _)| d.text == directive)
                    .map(|(_, values)| {
                        values
                            .iter()
                            .filter_map(|v| parse_int(v.text))
                            .product::<u64>()
                    })
            };
            let (n, source) = if let Some(n) = dims(".reqntid") {
                (n, BlockSource::Reqntid)
            } else if let Some(n) = dims(".maxntid") {
                (n, BlockSource::Maxntid)
            } else if let Some(n) = options.block {
                (u64::from(n), BlockSource::Option)
            } else {
                (u64::from(ASSUMED_BLOCK), BlockSource::Assumed)
            };
            (Some(u32::try_from(n).unwrap_or(u32::MAX)), Some(source))
        } else {
            (None, None)
        };
        let occupancy = match (&limits, &figures, block) {
            (Some(limits), Some(f), Some(block)) if f.registers.is_some() => Some(occupancy(
                limits,
                block,
                f.registers.unwrap_or(0),
                f.shared.unwrap_or(0) + options.dynamic_shared,
            )),
            _ => None,
        };
        functions.push(FunctionView {
            name: name.text.to_owned(),
            entry,
            name_start: name.start,
            name_end: name.end,
            figures,
            block,
            block_source,
            occupancy,
        });
    }
    ModuleView {
        target: target.to_owned(),
        global: report.global,
        functions,
        diagnostics: report.diagnostics.clone(),
        limits_known: limits.is_some(),
    }
}

fn parse_int(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex.trim_end_matches(['U', 'u']), 16).ok()
    } else {
        t.trim_end_matches(['U', 'u']).parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbose::parse_log;

    const PTX: &str = ".version 8.0\n.target sm_90a\n.address_size 64\n\
.func (.reg .b32 r) helper(.reg .b32 a)\n{\n\tmov.b32 r, a;\n\tret;\n}\n\
.visible .entry a() .reqntid 32, 4\n{\n\tret;\n}\n\
.visible .entry b() .maxntid 1024\n{\n\tret;\n}\n\
.visible .entry c()\n{\n\tret;\n}\n";

    const LOG: &str = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'a' for 'sm_90a'\n\
ptxas info    : Function properties for a\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 168 registers, used 0 barriers\n\
ptxas info    : Compiling entry function 'b' for 'sm_90a'\n\
ptxas info    : Function properties for b\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 32 registers, used 1 barriers, 40000 bytes smem\n\
ptxas info    : Compiling entry function 'c' for 'sm_90a'\n\
ptxas info    : Function properties for c\n    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n\
ptxas info    : Used 255 registers, used 0 barriers\n";

    #[test]
    fn functions_get_their_figures_and_block_sizes() {
        let parse = Parse::new(PTX);
        assert_eq!(document_target(&parse).as_deref(), Some("sm_90a"));
        let view = module_view(
            &parse,
            &parse_log(LOG),
            "sm_90a",
            &ResourceOptions::default(),
        );
        let lenses: Vec<String> = view
            .functions
            .iter()
            .map(|f| format!("{}: {}", f.name, f.lens()))
            .collect();
        assert_eq!(
            lenses,
            [
                "helper: ptxas: inlined (no code of its own)",
                "a: 168 registers · no spills · occupancy 19% (registers)",
                "b: 32 registers · no spills · 39.1 KB shared · occupancy 100% (warps)",
                "c: 255 registers · spills: 8 B stored, 8 B loaded · occupancy 12% (registers, block 256 assumed)",
            ]
        );
        let a = &view.functions[1];
        assert_eq!(
            (a.block, a.block_source),
            (Some(128), Some(BlockSource::Reqntid))
        );
        assert_eq!(&PTX[a.name_start..a.name_end], "a");
        let md = view.functions[3].markdown("sm_90a", 0);
        assert!(md.contains("- registers per thread: 255"), "{md}");
        assert!(
            md.contains("**Occupancy** (block of 256, assumed: no `.reqntid`/`.maxntid`): registers: 255/thread → 1 block of 256 per SM (8/64 warps, 12%)"),
            "{md}"
        );
        let with_block = module_view(
            &parse,
            &parse_log(LOG),
            "sm_90a",
            &ResourceOptions {
                block: Some(64),
                dynamic_shared: 0,
            },
        );
        assert_eq!(
            with_block.functions[3].block_source,
            Some(BlockSource::Option)
        );
        assert_eq!(with_block.functions[3].block, Some(64));
    }

    #[test]
    fn a_target_is_added_on_the_version_line() {
        let bare = Parse::new(".version 8.0\n.address_size 64\n.entry k()\n{\n\tret;\n}\n");
        assert_eq!(
            text_for_target(&bare, "sm_80"),
            ".version 8.0 .target sm_80\n.address_size 64\n.entry k()\n{\n\tret;\n}\n"
        );
        let with = Parse::new(PTX);
        assert_eq!(text_for_target(&with, "sm_100a"), PTX);
    }
}
