//! Where an asm statement's `.target` comes from when the user did not set one: the build's
//! `compile_commands.json` (`-arch`, `--gpu-architecture`, `-gencode`) and the enclosing
//! `#if __CUDA_ARCH__ >= 900` / `#ifdef __CUDA_ARCH_FEAT_SM90_ALL` guards.
//!
//! Guards are read only where they are simple: a comparison of `__CUDA_ARCH__` (or
//! `__CUDA_ARCH_SPECIFIC__` / `__CUDA_ARCH_FAMILY_SPECIFIC__`, which name arch-specific and
//! family targets) with a number, a feature macro, and `&&`/`||` of those. Anything else
//! gives no information, and then no target is assumed at all.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use tree_sitter::{Node, Tree};

use crate::macros::GuardMacros;

/// What a guard tells about the target: the least architecture it admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ArchReq {
    /// e.g. 90 for sm_90.
    pub number: u32,
    /// `a` (arch-specific), `f` (family) or none.
    pub suffix: Option<char>,
}

impl ArchReq {
    /// Every target: a condition that always holds (a macro the build defines).
    pub const ANY: ArchReq = ArchReq {
        number: 0,
        suffix: None,
    };

    pub fn name(self) -> String {
        match self.suffix {
            Some(c) => format!("sm_{}{c}", self.number),
            None => format!("sm_{}", self.number),
        }
    }

    fn stronger(self, other: ArchReq) -> ArchReq {
        // `&&`: both hold; keep the larger number and any suffix.
        ArchReq {
            number: self.number.max(other.number),
            suffix: self.suffix.or(other.suffix),
        }
    }
}

/// The requirement that the `#if`/`#ifdef`/`#elif` branches enclosing `offset` put on the
/// target, if they are simple enough to read.
pub fn guard_requirement(tree: &Tree, text: &str, offset: usize) -> Option<ArchReq> {
    let node = tree
        .root_node()
        .descendant_for_byte_range(offset, offset + 1);
    guard_requirement_from(node, text, &GuardMacros::default())
}

/// The requirement of the `#if` guards around the statement at `keyword` (see
/// [`guard_requirement_from`]) and of an enclosing `NV_IF_TARGET(NV_PROVIDES_SM_90, …)` /
/// `NV_IF_ELSE_TARGET(…)` branch of CUDA's `<nv/target>` macros.
pub fn statement_guard(
    start: Option<Node>,
    text: &str,
    keyword: usize,
    macros: &GuardMacros,
) -> Option<ArchReq> {
    match (
        guard_requirement_from(start, text, macros),
        nv_target_guard(text, keyword),
    ) {
        (Some(a), Some(b)) => Some(a.stronger(b)),
        (a, b) => a.or(b),
    }
}

/// [`statement_guard`] of the conditionals around a statement.
/// `nv_calls`: [`has_nv_target_calls`] of `text`.
pub(crate) fn statement_guard_in(
    frames: &[PpFrame],
    text: &str,
    keyword: usize,
    macros: &GuardMacros,
    nv_calls: bool,
) -> Option<ArchReq> {
    match (
        guard_requirement_in(frames, macros),
        nv_target_guard(text, keyword).filter(|_| nv_calls),
    ) {
        (Some(a), Some(b)) => Some(a.stronger(b)),
        (a, b) => a.or(b),
    }
}

/// The first branch of `NV_IF_TARGET(QUERY, (code))` or `NV_IF_ELSE_TARGET(QUERY, (code),
/// (other))` is compiled only for the targets `QUERY` admits: `NV_PROVIDES_SM_90` (sm_90 and
/// newer), `NV_IS_EXACTLY_SM_90` (sm_90) or `NV_HAS_FEATURE_SM_90a` (sm_90a). The macro call
/// is found in the text (its arguments are statements, which a C++ parser does not take as
/// an expression).
/// Does `text` call any of CUDA's `<nv/target>` branch macros (`NV_IF_TARGET`,
/// `NV_IF_ELSE_TARGET`, `NV_DISPATCH_TARGET`)? Without one, no statement of it is in such a
/// branch, and [`nv_target_guard`] and [`nv_host_branch`] need not look.
pub fn has_nv_target_calls(text: &str) -> bool {
    ["NV_IF_TARGET", "NV_IF_ELSE_TARGET", "NV_DISPATCH_TARGET"]
        .iter()
        .any(|m| text.contains(m))
}

pub fn nv_target_guard(text: &str, keyword: usize) -> Option<ArchReq> {
    let (name, argument, inside, query) = enclosing_nv_call(text, keyword)?;
    if name == "NV_DISPATCH_TARGET" {
        // `NV_DISPATCH_TARGET(Q1, (code1), Q2, (code2), ...)`: the first query that holds
        // wins, so a branch is compiled for what its query admits (and not the earlier
        // ones, which only narrows further). `NV_ANY_TARGET` admits every target.
        if argument % 2 == 0 {
            return None;
        }
        let query = nth_argument(inside, argument - 1)?;
        return nv_query(query.trim());
    }
    if argument != 1 {
        // The query itself, or the `else` branch.
        return None;
    }
    nv_query(query.trim())
}

/// Is the statement at `keyword` in a branch of CUDA's `<nv/target>` macros that only the
/// host compilation takes: the code of `NV_IF_TARGET(NV_IS_HOST, (code))` or
/// `NV_IF_ELSE_TARGET(NV_IS_HOST, (code), ...)`, or the `else` branch of
/// `NV_IF_ELSE_TARGET(NV_IS_DEVICE, ..., (code))`? Its asm is host assembly, not PTX.
pub fn nv_host_branch(text: &str, keyword: usize) -> bool {
    let Some((name, argument, _, query)) = enclosing_nv_call(text, keyword) else {
        return false;
    };
    matches!(
        (name, argument, query.trim()),
        ("NV_IF_TARGET" | "NV_IF_ELSE_TARGET", 1, "NV_IS_HOST")
            | ("NV_IF_ELSE_TARGET", 2, "NV_IS_DEVICE")
    )
}

/// The innermost call of `NV_IF_TARGET`, `NV_IF_ELSE_TARGET` or `NV_DISPATCH_TARGET` that is
/// still open at `keyword` (within 16 KiB before it): its name, the argument `keyword` is in
/// (0: the first), the text after its `(` up to `keyword` and the first argument's text. The call is found in the text
/// (its arguments are statements, which a C++ parser does not take as an expression).
fn enclosing_nv_call(text: &str, keyword: usize) -> Option<(&'static str, usize, &str, &str)> {
    const WINDOW: usize = 16 * 1024;
    let mut from = keyword.saturating_sub(WINDOW);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let before = &text[from..keyword];
    let mut search_end = before.len();
    // Each `N` from the end (a byte search, much faster than looking for the string `NV_`
    // backwards: this runs for every statement).
    while let Some(at) = before[..search_end].rfind('N') {
        search_end = at;
        if !before[at..].starts_with("NV_") {
            continue;
        }
        let rest = &before[at..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = match &rest[..name_len] {
            "NV_IF_TARGET" => "NV_IF_TARGET",
            "NV_IF_ELSE_TARGET" => "NV_IF_ELSE_TARGET",
            "NV_DISPATCH_TARGET" => "NV_DISPATCH_TARGET",
            _ => continue,
        };
        let Some(open) = rest[name_len..].find('(').map(|o| at + name_len + o) else {
            continue;
        };
        if !before[at + name_len..open].trim().is_empty() {
            continue;
        }
        let inside = &before[open + 1..];
        let Some((argument, query)) = argument_at(inside) else {
            continue;
        };
        return Some((name, argument, inside, query));
    }
    None
}

/// The text of top-level argument `n` of a call whose arguments start `inside`.
fn nth_argument(inside: &str, n: usize) -> Option<&str> {
    let mut start = 0;
    let mut index = 0;
    let mut rest = inside;
    loop {
        // The end of the current argument: where `argument_at` counts one more.
        let mut end = None;
        let mut depth = 0i32;
        for (i, c) in rest.char_indices() {
            match c {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        if index == n {
            return Some(&inside[start..start + end.unwrap_or(rest.len())]);
        }
        let e = end?;
        start += e + 1;
        rest = &inside[start..];
        index += 1;
    }
}

/// Which top-level argument of a call the end of `inside` (the text after its `(`) is in, and
/// the first argument's text; `None` when the call is closed before the end.
fn argument_at(inside: &str) -> Option<(usize, &str)> {
    let b = inside.as_bytes();
    let (mut depth, mut argument, mut first_end) = (0usize, 0usize, None);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                let quote = b[i];
                i += 1;
                while i < b.len() && b[i] != quote {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = crate::find::line_comment_end(b, i);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b'}' | b']' => {
                if depth == 0 {
                    return None;
                }
                depth -= 1;
            }
            b',' if depth == 0 => {
                argument += 1;
                first_end.get_or_insert(i);
            }
            _ => {}
        }
        i += 1;
    }
    Some((argument, &inside[..first_end.unwrap_or(inside.len())]))
}

/// A number at the start of `rest` and what follows it.
fn leading_number(rest: &str) -> Option<(u32, &str)> {
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    Some((rest[..end].parse().ok()?, &rest[end..]))
}

/// The targets an `<nv/target>` query admits.
fn nv_query(query: &str) -> Option<ArchReq> {
    if let Some(rest) = query
        .strip_prefix("NV_PROVIDES_SM_")
        .or_else(|| query.strip_prefix("NV_IS_EXACTLY_SM_"))
    {
        let (number, tail) = leading_number(rest)?;
        return tail.is_empty().then_some(ArchReq {
            number,
            suffix: None,
        });
    }
    if let Some(rest) = query.strip_prefix("NV_HAS_FEATURE_SM_") {
        let (number, tail) = leading_number(rest)?;
        let suffix = match tail {
            "a" => Some('a'),
            "f" => Some('f'),
            _ => return None,
        };
        return Some(ArchReq { number, suffix });
    }
    None
}

/// [`guard_requirement`] from the innermost node at the statement, reading the project's
/// target macros (`macros`) as their targets.
pub fn guard_requirement_from(
    start: Option<Node>,
    text: &str,
    macros: &GuardMacros,
) -> Option<ArchReq> {
    guard_requirement_in(&pp_frames(start, text), macros)
}

/// [`guard_requirement_from`] of the conditionals around a statement.
pub(crate) fn guard_requirement_in(frames: &[PpFrame], macros: &GuardMacros) -> Option<ArchReq> {
    let mut req: Option<ArchReq> = None;
    for f in frames
        .iter()
        .filter(|f| !f.in_alternative && !f.in_condition)
    {
        let here = match f.kind {
            PpKind::If | PpKind::Elif => f.condition.and_then(|c| condition_with(c, macros)),
            PpKind::Ifdef => f
                .condition
                .filter(|_| !f.negated)
                .and_then(|c| feature_macro(c, macros)),
        };
        if let Some(h) = here {
            req = Some(req.map_or(h, |r| r.stronger(h)));
        }
    }
    req
}

/// The kind of an enclosing conditional's branch head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PpKind {
    /// `#if`
    If,
    /// `#elif`
    Elif,
    /// `#ifdef` or `#ifndef`
    Ifdef,
}

/// One `#if`/`#elif`/`#ifdef` around a statement, as a walk up the C++ tree meets it: the
/// branch the statement is in when `in_alternative` is false, else an earlier branch of the
/// same conditional (the statement is in a later `#elif` or `#else`). `#else` and `#elifdef`
/// branches are no frames of their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PpFrame<'a> {
    pub kind: PpKind,
    /// The condition of `#if`/`#elif`, the name of `#ifdef`/`#ifndef`, as written.
    pub condition: Option<&'a str>,
    /// `#ifndef`.
    pub negated: bool,
    /// The statement is in a later branch of this conditional.
    pub in_alternative: bool,
    /// The statement is in the condition itself.
    pub in_condition: bool,
}

/// The conditionals around the innermost node at a statement, innermost first.
pub(crate) fn pp_frames<'a>(start: Option<Node>, text: &'a str) -> Vec<PpFrame<'a>> {
    let mut frames = Vec::new();
    let mut node = start;
    let mut child: Option<Node> = None;
    while let Some(n) = node {
        let kind = match n.kind() {
            "preproc_if" => Some(PpKind::If),
            "preproc_elif" => Some(PpKind::Elif),
            "preproc_ifdef" => Some(PpKind::Ifdef),
            _ => None,
        };
        if let Some(kind) = kind {
            let field = |name: &str| {
                child.is_some_and(|c| {
                    n.child_by_field_name(name)
                        .is_some_and(|a| a.id() == c.id())
                })
            };
            let condition = n
                .child_by_field_name(if kind == PpKind::Ifdef {
                    "name"
                } else {
                    "condition"
                })
                .map(|c| &text[c.start_byte()..c.end_byte()]);
            frames.push(PpFrame {
                kind,
                condition,
                negated: kind == PpKind::Ifdef && text[n.start_byte()..].starts_with("#ifndef"),
                in_alternative: field("alternative"),
                in_condition: field("condition"),
            });
        }
        child = Some(n);
        node = n.parent();
    }
    frames
}

/// Macros that only a host compiler defines: asm under them is host assembly, not PTX.
const HOST_MACROS: &[&str] = &[
    "__x86_64__",
    "__i386__",
    "_M_X64",
    "_M_IX86",
    "__aarch64__",
    "_M_ARM64",
    "__arm__",
    "__powerpc__",
    "__powerpc64__",
    "__PPC64__",
    "__PPC__",
    "__ppc__",
    "__riscv",
    "_CCCL_HOST_ARCH(",
    "!defined(__CUDA_ARCH__)",
    "!defined __CUDA_ARCH__",
    "!defined(__CUDACC__)",
    "!defined __CUDACC__",
    "!defined(__NVCC__)",
    "!defined __NVCC__",
];

/// Macros that every device compilation by nvcc defines: the branch of `#ifndef NAME` (and
/// the `#else` of `#ifdef NAME` / `#if defined(NAME)`) is host code.
const DEVICE_COMPILER_MACROS: &[&str] = &["__CUDA_ARCH__", "__CUDACC__", "__NVCC__"];

/// Is `condition` exactly `defined(NAME)` / `defined NAME` / `NAME` of a macro every device
/// compilation defines ([`DEVICE_COMPILER_MACROS`])?
fn device_compiler_condition(condition: &str) -> bool {
    let t = strip_parens(condition.trim());
    let t = t
        .strip_prefix("defined")
        .map_or(t, |r| strip_parens(r.trim()));
    DEVICE_COMPILER_MACROS.contains(&t.trim())
}

/// Macros that only a compiler for AMD GPUs defines (HIP, ROCm), or that projects define for
/// their HIP builds (PyTorch's `USE_ROCM`, ggml's `GGML_USE_HIP`): asm under them is AMD GPU
/// assembly (`v_dot2_f32_f16`), not PTX. Names starting with `__gfx` (`__gfx906__`) are
/// AMD targets too.
const AMD_MACROS: &[&str] = &[
    "__HIP_PLATFORM_AMD__",
    "__HIP_PLATFORM_HCC__",
    "__HIPCC__",
    "__HIP__",
    "__HIP_DEVICE_COMPILE__",
    "__AMDGCN__",
    "__AMDGPU__",
    "USE_ROCM",
    "GGML_USE_HIP",
];

/// Is `name` a macro that only AMD GPU compilations define (see [`AMD_MACROS`]), or one the
/// project defines only under such a macro?
pub(crate) fn amd_macro(name: &str, macros: &GuardMacros) -> bool {
    AMD_MACROS.contains(&name) || name.starts_with("__gfx") || macros.amd.contains(name)
}

/// Does the condition hold only in a compilation for AMD GPUs (`defined(USE_ROCM)`,
/// `defined(GGML_USE_HIP) && defined(RDNA3)`)?
pub(crate) fn amd_only(text: &str, macros: &GuardMacros) -> bool {
    if text.contains("\\\n") {
        let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
        return amd_only_within(&joined, 0, macros);
    }
    amd_only_within(text, 0, macros)
}

fn amd_only_within(text: &str, depth: usize, macros: &GuardMacros) -> bool {
    if depth > MAX_CONDITION_DEPTH {
        return false;
    }
    let t = strip_parens(text.trim());
    let ors = split_top(t, "||");
    if ors.len() > 1 {
        return ors.iter().all(|a| amd_only_within(a, depth + 1, macros));
    }
    let ands = split_top(t, "&&");
    if ands.len() > 1 {
        return ands.iter().any(|a| amd_only_within(a, depth + 1, macros));
    }
    match t.strip_prefix("defined") {
        Some(inner) => amd_macro(strip_parens(inner.trim()), macros),
        None => amd_macro(t, macros),
    }
}

/// Is this file written for AMD GPUs alone (a HIP source): outside every `#if` (include
/// guards aside) it includes a `hip/` header or calls an AMD GPU builtin
/// (`__builtin_amdgcn_…`)? Its asm statements are AMD GPU assembly, not PTX. A file that does
/// so only under an `#if` (`#ifdef USE_ROCM`) is not: its other branches are CUDA.
pub fn amd_gpu_file(text: &str) -> bool {
    if !text.contains("__builtin_amdgcn_") && !text.contains("hip/") {
        return false;
    }
    let mut depth = 0usize;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let l = line.trim_start();
        if let Some(d) = l.strip_prefix('#') {
            let d = d.trim_start();
            if let Some(name) = d.strip_prefix("ifndef") {
                // An include guard: `#ifndef X` then `#define X`.
                let name = name.trim();
                let guard = lines.peek().is_some_and(|next| {
                    next.trim_start()
                        .strip_prefix('#')
                        .map(str::trim_start)
                        .and_then(|n| n.strip_prefix("define"))
                        .is_some_and(|n| n.trim() == name)
                });
                if !guard {
                    depth += 1;
                }
            } else if d.starts_with("if") {
                depth += 1;
            } else if d.starts_with("endif") {
                depth = depth.saturating_sub(1);
            } else if depth == 0 {
                if let Some(inc) = d.strip_prefix("include") {
                    let inc = inc.trim().trim_start_matches(['<', '"']);
                    if inc.starts_with("hip/") {
                        return true;
                    }
                }
            }
        } else if depth == 0 && l.contains("__builtin_amdgcn_") && !l.starts_with("//") {
            return true;
        }
    }
    false
}

/// Does the text show that it is CUDA code (device qualifiers, CUDA macros, a CUDA header
/// included, the qualifier macros of CUDA libraries)? A C or C++ file without any of these
/// is compiled by a host compiler: see [`host_assembly`].
pub fn cuda_signs(text: &str) -> bool {
    const SIGNS: &[&str] = &[
        "__device__",
        "__global__",
        "__CUDA_ARCH",
        "__CUDACC__",
        "__NVCC__",
        "CUTLASS_",
        "CUTE_",
        "_CCCL_",
        "__nv_",
        "NV_IF_TARGET",
        "NV_DISPATCH_TARGET",
    ];
    // A sign starts a word: `ma_job_process__device__reroute` (miniaudio, a C header with x86
    // assembly) names no CUDA qualifier.
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let starts_word = |at: usize| at == 0 || !word(text.as_bytes()[at - 1]);
    // Signs written whole (`__device__`, `NV_IF_TARGET`) also end one; the others are prefixes
    // (`__CUDA_ARCH__`, `__CUDA_ARCH_FEAT_SM90_ALL`, `CUTLASS_DEVICE`).
    let ends_word = |s: &str, at: usize| {
        !(s.ends_with("__") || s.ends_with("TARGET"))
            || text.as_bytes().get(at + s.len()).is_none_or(|&c| !word(c))
    };
    SIGNS.iter().any(|s| {
        text.match_indices(s)
            .any(|(at, _)| starts_word(at) && ends_word(s, at))
    }) || text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with('#')
            && l[1..].trim_start().starts_with("include")
            && l.to_ascii_lowercase().contains("cuda")
    })
}

/// Is the template host assembly rather than PTX? PTX shows in an instruction whose opcode
/// root is PTX's and whose every qualifier is one PTX knows for it (`ld.global.v4.u32`,
/// `mma.sync.aligned…`) or in a `.reg` declaration. Without such an instruction, a template
/// in a file with no sign of CUDA ([`cuda_signs`]) is host assembly (x86, Arm, RISC-V,
/// Power: `vsetvli`, `add t1, t2, t3`, `dmb ish`); in a CUDA file, so is one with no `;`,
/// no brace and no PTX opcode at all (`mtfprd %0,%2\n` under a host-architecture macro),
/// while a misspelt PTX instruction (`trapp;`) is still read as PTX.
pub fn host_assembly(template: &str, cuda_file: bool) -> bool {
    static ROOTS: std::sync::OnceLock<std::collections::HashSet<String>> =
        std::sync::OnceLock::new();
    let roots = ROOTS.get_or_init(|| {
        ptx_isa::Isa::get()
            .instructions()
            .iter()
            .map(|i| i.root().to_string())
            .collect()
    });
    let isa = ptx_isa::Isa::get();
    let known = |root: &str, word: &str| {
        isa.instructions_with_root(root).any(|inst| {
            inst.opcode.split('.').any(|w| w == word)
                || inst.forms.iter().any(|f| {
                    f.qualifier_slots
                        .iter()
                        .any(|slot| slot.values.iter().any(|v| v.split('.').any(|p| p == word)))
                })
        })
    };
    let mut any_root = false;
    for piece in template.split([';', '\n', '{', '}']) {
        let mut words = piece.split_whitespace();
        let mut word = words.next().unwrap_or("");
        // A label, then a predicate guard.
        if word.ends_with(':') {
            word = words.next().unwrap_or("");
        }
        if word.starts_with('@') {
            word = words.next().unwrap_or("");
        }
        if word.starts_with(".reg") {
            return false;
        }
        let mut parts = word.split('.');
        let root = parts.next().unwrap_or("");
        if !roots.contains(root) {
            continue;
        }
        if cuda_file {
            // In a CUDA file a PTX opcode is enough, whatever its qualifiers (see below).
            return false;
        }
        any_root = true;
        if word.contains('.') && parts.all(|q| known(root, q)) {
            return false;
        }
    }
    if cuda_file {
        // `}` alone closes a block an earlier statement opened.
        !any_root && !template.contains([';', '{', '}'])
    } else {
        true
    }
}

/// Is the condition exactly "not AMD" (`!defined(USE_ROCM)`), so that its `#else` branch is
/// compiled only for AMD GPUs?
fn not_amd(text: &str, macros: &GuardMacros) -> bool {
    let t = strip_parens(text.trim());
    if split_top(t, "||").len() > 1 || split_top(t, "&&").len() > 1 {
        return false;
    }
    let Some(rest) = t.strip_prefix('!') else {
        return false;
    };
    let rest = strip_parens(rest.trim());
    match rest.strip_prefix("defined") {
        Some(inner) => amd_macro(strip_parens(inner.trim()), macros),
        None => amd_macro(rest, macros),
    }
}

/// Is the statement at `offset` inside an `#if` branch that only a host compiler takes?
pub fn host_only(tree: &Tree, text: &str, offset: usize) -> bool {
    let node = tree
        .root_node()
        .descendant_for_byte_range(offset, offset + 1);
    host_only_from(node, text, &GuardMacros::default())
}

/// [`host_only`] from the innermost node at the statement; also a branch compiled only for
/// AMD GPUs, whose asm is not PTX either.
pub fn host_only_from(start: Option<Node>, text: &str, macros: &GuardMacros) -> bool {
    host_only_in(&pp_frames(start, text), macros)
}

/// [`host_only_from`] of the conditionals around a statement.
pub(crate) fn host_only_in(frames: &[PpFrame], macros: &GuardMacros) -> bool {
    for f in frames {
        let condition = f.condition.unwrap_or("");
        let ifdef = f.kind == PpKind::Ifdef;
        let ifndef = f.negated;
        let amd = if f.in_alternative {
            // The `#else` of `#if !defined(USE_ROCM)` or `#ifndef USE_ROCM`.
            (ifndef && amd_macro(condition.trim(), macros))
                || (!ifdef && not_amd(condition, macros))
        } else {
            !ifndef && amd_only(condition, macros)
        };
        if amd {
            return true;
        }
        if !f.in_alternative {
            let head = condition.replace(' ', "");
            if !ifndef && HOST_MACROS.iter().any(|m| head.contains(m)) {
                return true;
            }
            // `#ifndef __CUDACC__`: only a host compiler takes it.
            if ifndef && device_compiler_condition(&head) {
                return true;
            }
        }
        if f.in_alternative && f.kind != PpKind::Elif && !ifndef {
            // The `#else` of `#ifdef __CUDA_ARCH__` or `#if defined(__CUDACC__)`.
            if device_compiler_condition(condition) {
                return true;
            }
        }
    }
    false
}

/// Is the statement at `start` inside an `#if`/`#elif`/`#ifdef` branch whose condition is
/// not one this layer reads as a target (`#if (__CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_…__)`,
/// whose macro another header defines per architecture)? Then it may never be compiled for
/// a given target. `#ifndef` (include guards) does not count.
pub fn under_opaque_condition(start: Option<Node>, text: &str, macros: &GuardMacros) -> bool {
    under_opaque_condition_in(&pp_frames(start, text), macros)
}

/// [`under_opaque_condition`] of the conditionals around a statement.
pub(crate) fn under_opaque_condition_in(frames: &[PpFrame], macros: &GuardMacros) -> bool {
    frames
        .iter()
        .filter(|f| !f.in_condition)
        .any(|f| match f.kind {
            PpKind::If | PpKind::Elif => f
                .condition
                .is_some_and(|c| condition_with(c, macros).is_none()),
            PpKind::Ifdef => {
                !f.negated
                    && f.condition
                        .is_some_and(|c| feature_macro(c, macros).is_none())
            }
        })
}

/// The PTX ISA version that an enclosing `#if`/`#elif` branch requires (CCCL's
/// `__cccl_ptx_isa >= 920`, meaning PTX ISA 9.2), when it is newer than the newest one the
/// ISA facts describe.
pub fn needs_newer_ptx_from(start: Option<Node>, text: &str) -> Option<ptx_isa::PtxVersion> {
    needs_newer_ptx_in(&pp_frames(start, text))
}

/// [`needs_newer_ptx_from`] of the conditionals around a statement.
pub(crate) fn needs_newer_ptx_in(frames: &[PpFrame]) -> Option<ptx_isa::PtxVersion> {
    let spec = ptx_isa::PtxVersion::SPEC;
    let known = u32::from(spec.major) * 100 + u32::from(spec.minor) * 10;
    let mut newest: Option<u32> = None;
    for f in frames
        .iter()
        .filter(|f| !f.in_alternative && f.kind != PpKind::Ifdef)
    {
        if let Some(c) = f.condition {
            let cond = c.replace("\\\n", " ");
            let t = strip_parens(cond.trim());
            // Only a requirement that every branch of the condition carries: `&&` parts.
            if split_top(t, "||").len() == 1 {
                for v in split_top(t, "&&").iter().filter_map(|a| ptx_isa_atom(a)) {
                    if v > known {
                        newest = Some(newest.map_or(v, |n| n.max(v)));
                    }
                }
            }
        }
    }
    let v = newest?;
    let major = u8::try_from(v / 100).ok()?;
    let minor = u8::try_from(v % 100 / 10).ok()?;
    Some(ptx_isa::PtxVersion::new(major, minor))
}

/// `__cccl_ptx_isa >= 920` → 920.
fn ptx_isa_atom(t: &str) -> Option<u32> {
    let t = strip_parens(t.trim());
    let rest = t.strip_prefix("__cccl_ptx_isa")?.trim_start();
    let value = rest.strip_prefix(">=")?.trim();
    value.trim_end_matches(['u', 'U', 'l', 'L']).parse().ok()
}

/// Reads a preprocessor condition.
pub fn condition(text: &str) -> Option<ArchReq> {
    condition_with(text, &GuardMacros::default())
}

/// Reads a preprocessor condition in which the project's target macros (`macros`) stand for
/// their targets. A condition that holds for every target (a macro the build defines) reads
/// as [`ArchReq::ANY`].
pub fn condition_with(text: &str, macros: &GuardMacros) -> Option<ArchReq> {
    if text.contains("\\\n") {
        // A condition continued over several lines.
        return condition_within(&text.replace("\\\r\n", " ").replace("\\\n", " "), 0, macros);
    }
    condition_within(text, 0, macros)
}

/// Conditions nested deeper than this (parentheses alternating `||` and `&&`) are read
/// as unknown rather than followed on the call stack.
const MAX_CONDITION_DEPTH: usize = 64;

fn condition_within(text: &str, depth: usize, macros: &GuardMacros) -> Option<ArchReq> {
    if depth > MAX_CONDITION_DEPTH {
        return None;
    }
    let t = strip_parens(text.trim());
    let ors = split_top(t, "||");
    if ors.len() > 1 {
        // Every alternative must be known; the weakest one wins. An alternative that names
        // another compiler (`_CCCL_CUDA_COMPILER(NVHPC)`) is never true under nvcc.
        let reqs: Option<Vec<ArchReq>> = ors
            .iter()
            .filter(|a| !names_other_compiler(a))
            .map(|a| condition_within(a, depth + 1, macros))
            .collect();
        return reqs?
            .into_iter()
            .min_by_key(|r| (r.number, r.suffix.is_some()));
    }
    let ands = split_top(t, "&&");
    if ands.len() > 1 {
        // Unknown conjuncts only narrow further: the known ones still hold.
        return ands
            .iter()
            .filter_map(|a| condition_within(a, depth + 1, macros))
            .reduce(ArchReq::stronger);
    }
    atom(t, macros)
}

/// Does the target `target` (`sm_90a`) meet the requirement `req`: a number at least as
/// large, and for an arch-specific requirement that very architecture, for a family one an
/// architecture of that family (arch-specific targets included)?
pub fn admits(req: ArchReq, target: &str) -> bool {
    let Some(sm) = ptx_isa::SmName::parse(target) else {
        return false;
    };
    let n = sm.canonical_number();
    match req.suffix {
        None => n >= req.number,
        // Feature macros and `__CUDA_ARCH_SPECIFIC__` hold on that one architecture.
        Some('a') => sm.number == req.number && sm.variant == ptx_isa::Variant::Arch,
        // `__CUDA_ARCH_FAMILY_SPECIFIC__`: the architectures of that family.
        Some(_) => {
            sm.number / 10 == req.number / 10
                && sm.number >= req.number
                && sm.variant != ptx_isa::Variant::Base
        }
    }
}

/// The value of a preprocessor condition in a device compilation for `target`, where this
/// layer can tell it: comparisons of `__CUDA_ARCH__` with a number (or a macro defined as
/// one), `defined(__CUDA_ARCH__)`, the feature macros (`__CUDA_ARCH_FEAT_SM90_ALL`), the
/// project's target macros (`macros`), `!`, `&&`, `||` and parentheses; `None` for anything
/// else (a compiler version, a project setting).
pub fn evaluate(condition: &str, target: &str, macros: &GuardMacros) -> Option<bool> {
    let text = condition.replace("\\\r\n", " ").replace("\\\n", " ");
    evaluate_within(&text, target, macros, 0)
}

fn evaluate_within(text: &str, target: &str, macros: &GuardMacros, depth: usize) -> Option<bool> {
    if depth > MAX_CONDITION_DEPTH {
        return None;
    }
    let t = strip_parens(text.trim());
    let ors = split_top(t, "||");
    if ors.len() > 1 {
        let values: Vec<Option<bool>> = ors
            .iter()
            .map(|a| evaluate_within(a, target, macros, depth + 1))
            .collect();
        if values.contains(&Some(true)) {
            return Some(true);
        }
        return values.iter().all(|v| *v == Some(false)).then_some(false);
    }
    let ands = split_top(t, "&&");
    if ands.len() > 1 {
        let values: Vec<Option<bool>> = ands
            .iter()
            .map(|a| evaluate_within(a, target, macros, depth + 1))
            .collect();
        if values.contains(&Some(false)) {
            return Some(false);
        }
        return values.iter().all(|v| *v == Some(true)).then_some(true);
    }
    if let Some(rest) = t.strip_prefix('!').filter(|r| !r.starts_with('=')) {
        return evaluate_within(rest, target, macros, depth + 1).map(|v| !v);
    }
    let sm = ptx_isa::SmName::parse(target)?;
    let arch = sm.canonical_number() * 10;
    // `defined(NAME)`, `defined NAME`, or a macro alone.
    let defined = |name: &str| -> Option<bool> {
        match name {
            "__CUDA_ARCH__" | "__CUDACC__" | "__NVCC__" => Some(true),
            _ => feature_macro(name, macros).map(|req| admits(req, target)),
        }
    };
    if let Some(inner) = t.strip_prefix("defined") {
        let name = strip_parens(inner.trim());
        return defined(name);
    }
    for op in [">=", "<=", "==", "!=", ">", "<"] {
        let Some(at) = t.find(op) else { continue };
        let (l, r) = (t[..at].trim(), t[at + op.len()..].trim());
        let number = |v: &str| -> Option<u32> {
            let v = strip_parens(v);
            match v.trim_end_matches(['u', 'U', 'l', 'L']).parse() {
                Ok(n) => Some(n),
                Err(_) => macros.numbers.get(v).copied(),
            }
        };
        if matches!(
            l,
            "__CUDA_ARCH_SPECIFIC__" | "__CUDA_ARCH_FAMILY_SPECIFIC__"
        ) {
            // Defined (as that number) only in arch-specific or family compilations.
            return (op == "==")
                .then(|| atom(t, macros))
                .flatten()
                .map(|req| admits(req, target));
        }
        let (value, n, op) = match (l, number(r), number(l)) {
            ("__CUDA_ARCH__", Some(n), _) => (arch, n, op),
            (_, _, Some(n)) if r == "__CUDA_ARCH__" => {
                // `900 <= __CUDA_ARCH__`: the comparison the other way round.
                let flipped = match op {
                    ">=" => "<=",
                    "<=" => ">=",
                    ">" => "<",
                    "<" => ">",
                    other => other,
                };
                (arch, n, flipped)
            }
            _ => return None,
        };
        return Some(match op {
            ">=" => value >= n,
            "<=" => value <= n,
            "==" => value == n,
            "!=" => value != n,
            ">" => value > n,
            _ => value < n,
        });
    }
    if t == "__CUDA_ARCH__" {
        return Some(true);
    }
    if t.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()) && !t.is_empty() {
        // A feature macro or a project's target macro, used as a value.
        return feature_macro(t, macros).map(|req| admits(req, target));
    }
    None
}

/// Macros that hold only under a CUDA compiler other than nvcc (NVIDIA HPC SDK's nvc++,
/// clang): under nvcc an alternative made of them is false.
const OTHER_COMPILERS: &[&str] = &[
    "_CCCL_CUDA_COMPILER(NVHPC",
    "_CCCL_CUDA_COMPILER(CLANG",
    "_CCCL_COMPILER(NVHPC",
    "__NVCOMPILER",
    "_NVHPC_CUDA",
];

fn names_other_compiler(alternative: &str) -> bool {
    let t = alternative.replace(' ', "");
    let t = t.trim_start_matches("defined").trim_start_matches('(');
    OTHER_COMPILERS.iter().any(|m| t.starts_with(m))
}

fn atom(t: &str, macros: &GuardMacros) -> Option<ArchReq> {
    let t = strip_parens(t.trim());
    if let Some(inner) = t.strip_prefix("defined") {
        return feature_macro(strip_parens(inner.trim()), macros);
    }
    if let Some(r) = feature_macro(t, macros) {
        return Some(r);
    }
    // Strict comparisons would need the next existing target; they are not read.
    for (op, flip) in [(">=", false), ("==", false), ("<=", true)] {
        let Some(at) = t.find(op) else { continue };
        let (l, r) = (t[..at].trim(), t[at + op.len()..].trim());
        let (name, value, op) = if flip {
            // `900 <= __CUDA_ARCH__` reads as `__CUDA_ARCH__ >= 900`.
            (r, l, ">=")
        } else {
            (l, r, op)
        };
        if t[at..].starts_with(">=") && op == "==" {
            continue;
        }
        // A number (with its suffix), or a macro defined as one (`__CUDA_ARCH__ >=
        // GGML_CUDA_CC_AMPERE`; a name may end in `L` too).
        let n: u32 = match value.trim_end_matches(['u', 'U', 'l', 'L']).parse() {
            Ok(n) => n,
            Err(_) => *macros.numbers.get(strip_parens(value))?,
        };
        let suffix = match name {
            "__CUDA_ARCH__" => None,
            "__CUDA_ARCH_SPECIFIC__" => Some('a'),
            "__CUDA_ARCH_FAMILY_SPECIFIC__" => Some('f'),
            _ => return None,
        };
        if suffix.is_some() && op != "==" {
            return None;
        }
        return Some(ArchReq {
            number: n / 10,
            suffix,
        });
    }
    None
}

/// `__CUDA_ARCH_FEAT_SM90_ALL` → sm_90a, `__CUDA_AND_AT_LEAST_SM_90__` → sm_90;
/// `__CUDA_ARCH_FAMILY_SPECIFIC_FEAT…` is not read. A project macro defined only under a
/// target guard stands for that guard's targets; one the build defines holds everywhere.
fn feature_macro(t: &str, macros: &GuardMacros) -> Option<ArchReq> {
    if !macros.is_empty() {
        if let Some(&r) = macros.arch.get(t) {
            return Some(r);
        }
        if macros.defined.contains(t) {
            return Some(ArchReq::ANY);
        }
    }
    // `__CUDA_AND_AT_LEAST_SM_90__` (CUDA's own headers): sm_90 or newer.
    if let Some(n) = t
        .strip_prefix("__CUDA_AND_AT_LEAST_SM_")
        .and_then(|r| r.strip_suffix("__"))
    {
        return Some(ArchReq {
            number: n.parse().ok()?,
            suffix: None,
        });
    }
    let n = t
        .strip_prefix("__CUDA_ARCH_FEAT_SM")?
        .strip_suffix("_ALL")?;
    Some(ArchReq {
        number: n.parse().ok()?,
        suffix: Some('a'),
    })
}

fn strip_parens(mut t: &str) -> &str {
    loop {
        let s = t.trim();
        if s.starts_with('(') && s.ends_with(')') && split_top(&s[1..s.len() - 1], ")").len() <= 1 {
            // Only when the outer parentheses match each other.
            let inner = &s[1..s.len() - 1];
            if balanced(inner) {
                t = inner;
                continue;
            }
        }
        return s;
    }
}

fn balanced(t: &str) -> bool {
    let mut depth = 0i32;
    for c in t.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// Splits at `sep` outside parentheses.
fn split_top<'a>(t: &'a str, sep: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut last = 0;
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            // Compared as bytes: `i` may be inside a multi-byte character (the separators are
            // ASCII, so a match is never inside one).
            _ if depth == 0 && b[i..].starts_with(sep.as_bytes()) => {
                parts.push(&t[last..i]);
                i += sep.len();
                last = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&t[last..]);
    parts
}

/// The [`inline_macros`](crate::find::inline_macros) of the headers that `file` includes,
/// followed a few levels deep. A header is looked up beside the including file and in the
/// folders above it and their `include/` folders (where a project's include root usually
/// is); headers found nowhere there (the toolkit's, the system's) are not read.
pub fn included_inline_macros(file: &Path, text: &str) -> Vec<String> {
    included_macros(file, text, &[]).inline
}

/// What the headers a file includes define that matters to its asm statements.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IncludedMacros {
    /// Macros that expand to `inline`, `static` or a template head.
    pub inline: Vec<String>,
    /// Target macros and named numbers of the headers ([`GuardMacros`]), on top of `defines`.
    pub guards: GuardMacros,
}

/// [`included_inline_macros`], and the headers' target macros ([`GuardMacros`]) on top of
/// the build's `-D` flags (`defines`).
pub fn included_macros(file: &Path, text: &str, defines: &[(String, String)]) -> IncludedMacros {
    const MAX_DEPTH: usize = 4;
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    let mut definitions: Vec<crate::macros::Definition> = Vec::new();
    // Breadth first: the nearest headers are read before the file budget runs out.
    let mut queue: std::collections::VecDeque<(PathBuf, Arc<HeaderScan>, usize)> =
        std::collections::VecDeque::from([(
            file.to_path_buf(),
            Arc::new(HeaderScan::new(text)),
            0,
        )]);
    while let Some((path, scan, depth)) = queue.pop_front() {
        if depth > 0 {
            for m in &scan.inline {
                if !out.contains(m) {
                    out.push(m.clone());
                }
            }
            definitions.extend(scan.definitions.iter().cloned());
        }
        if depth < MAX_DEPTH {
            push_includes(&path, &scan.includes, &mut seen, &mut queue, depth);
        }
    }
    // `-DNAME=__forceinline__` makes an inline macro too.
    for (name, value) in defines {
        let inline = value
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| matches!(w, "inline" | "__inline__" | "__forceinline__" | "static"));
        if inline && !out.contains(name) {
            out.push(name.clone());
        }
    }
    IncludedMacros {
        inline: out,
        guards: GuardMacros::from_definitions(&definitions, defines),
    }
}

/// What a header gives to the files that include it: the headers it includes, its inline
/// macros and its macro definitions with their conditions.
#[derive(Debug)]
struct HeaderScan {
    includes: Vec<String>,
    inline: Vec<String>,
    definitions: Vec<crate::macros::Definition>,
}

impl HeaderScan {
    fn new(text: &str) -> HeaderScan {
        let includes = text
            .lines()
            .filter_map(|line| {
                let rest = line.trim_start().strip_prefix('#')?;
                let rest = rest.trim_start().strip_prefix("include")?.trim();
                match rest.as_bytes().first() {
                    Some(b'"') => rest[1..].split('"').next(),
                    Some(b'<') => rest[1..].split('>').next(),
                    _ => None,
                }
                .map(str::to_string)
            })
            .collect();
        HeaderScan {
            includes,
            inline: crate::find::inline_macros(text),
            definitions: crate::macros::definitions(text),
        }
    }

    /// The scan of the header at `path` (canonical), read once per process while the file's
    /// size and modification time stay the same: the files of a project include the same
    /// headers over and over.
    fn of_file(path: &Path) -> Option<Arc<HeaderScan>> {
        type Key = (PathBuf, u64, Option<std::time::SystemTime>);
        static CACHE: OnceLock<Mutex<HashMap<Key, Arc<HeaderScan>>>> = OnceLock::new();
        /// Headers remembered at most; the cache starts over when it is full.
        const MAX_CACHED: usize = 4096;
        let meta = std::fs::metadata(path).ok()?;
        let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
        let cache = CACHE.get_or_init(Default::default);
        if let Some(scan) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Some(scan);
        }
        let text = std::fs::read_to_string(path).ok()?;
        let scan = Arc::new(HeaderScan::new(&text));
        if let Ok(mut c) = cache.lock() {
            if c.len() >= MAX_CACHED {
                c.clear();
            }
            c.insert(key, scan.clone());
        }
        Some(scan)
    }
}

/// Headers read per file at most, and folders looked up above it for each.
const MAX_FILES: usize = 128;
const MAX_UP: usize = 6;

/// Queues the headers named by `includes` (the `#include`s of the file at `path`) that are
/// found beside it or in an `include/` folder of its parents.
fn push_includes(
    path: &Path,
    includes: &[String],
    seen: &mut Vec<PathBuf>,
    queue: &mut std::collections::VecDeque<(PathBuf, Arc<HeaderScan>, usize)>,
    depth: usize,
) {
    for name in includes {
        let found = path
            .ancestors()
            .skip(1)
            .take(MAX_UP)
            .flat_map(|dir| [dir.join(name), dir.join("include").join(name)])
            .find(|candidate| candidate.is_file());
        let Some(found) = found else { continue };
        let found = std::fs::canonicalize(&found).unwrap_or(found);
        if seen.contains(&found) || seen.len() >= MAX_FILES {
            continue;
        }
        seen.push(found.clone());
        if let Some(scan) = HeaderScan::of_file(&found) {
            queue.push_back((found, scan, depth + 1));
        }
    }
}

/// The GPU targets a `compile_commands.json` entry compiles `file` for, in the order given.
/// Looks for the database in the file's folder and its parents (and their `build/`).
pub fn compile_commands_targets(file: &Path) -> Vec<String> {
    compile_commands_flags(file).targets
}

/// What a `compile_commands.json` entry for a file tells about its compilation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildFlags {
    /// The GPU targets, in the order given ([`targets_from_args`]).
    pub targets: Vec<String>,
    /// The macros defined with `-D NAME[=VALUE]` (`-DNAME` defines it as `1`, as nvcc does).
    pub defines: Vec<(String, String)>,
}

/// The [`BuildFlags`] of `file`'s entry in the nearest `compile_commands.json` (see
/// [`compile_commands_targets`]); empty when it has none.
pub fn compile_commands_flags(file: &Path) -> BuildFlags {
    let Some(args) = compile_commands_args(file) else {
        return BuildFlags::default();
    };
    BuildFlags {
        targets: targets_from_args(&args),
        defines: defines_from_args(&args),
    }
}

/// The arguments of `file`'s entry in the nearest `compile_commands.json`.
fn compile_commands_args(file: &Path) -> Option<Vec<String>> {
    let db = find_database(file)?;
    let entries = Database::of_file(&db)?;
    let canonical = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    entries.args.get(&canonical).cloned()
}

/// A `compile_commands.json`: the arguments of each file (canonical path; the first entry of
/// a file that has several).
#[derive(Debug, Default)]
struct Database {
    args: HashMap<PathBuf, Vec<String>>,
}

impl Database {
    fn new(text: &str) -> Database {
        let mut args = HashMap::new();
        let Ok(serde_json::Value::Array(entries)) = serde_json::from_str::<serde_json::Value>(text)
        else {
            return Database { args };
        };
        for e in entries {
            let dir = PathBuf::from(e.get("directory").and_then(|d| d.as_str()).unwrap_or("."));
            let Some(f) = e.get("file").and_then(|f| f.as_str()) else {
                continue;
            };
            let path = dir.join(f);
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            if args.contains_key(&path) {
                continue;
            }
            let list: Vec<String> = match (e.get("arguments"), e.get("command")) {
                (Some(serde_json::Value::Array(a)), _) => a
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
                (_, Some(serde_json::Value::String(c))) => {
                    c.split_whitespace().map(str::to_string).collect()
                }
                _ => continue,
            };
            args.insert(path, list);
        }
        Database { args }
    }

    /// The database at `path`, read once per process while its size and modification time
    /// stay the same: every file of a check, and every edit in the language server, asks
    /// for its entry, and a project's database can hold thousands.
    fn of_file(path: &Path) -> Option<Arc<Database>> {
        type Key = (PathBuf, u64, Option<std::time::SystemTime>);
        static CACHE: OnceLock<Mutex<HashMap<Key, Arc<Database>>>> = OnceLock::new();
        /// Databases remembered at most; the cache starts over when it is full.
        const MAX_CACHED: usize = 16;
        let meta = std::fs::metadata(path).ok()?;
        let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
        let cache = CACHE.get_or_init(Default::default);
        if let Some(db) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Some(db);
        }
        let db = Arc::new(Database::new(&std::fs::read_to_string(path).ok()?));
        if let Ok(mut c) = cache.lock() {
            if c.len() >= MAX_CACHED {
                c.clear();
            }
            c.insert(key, db.clone());
        }
        Some(db)
    }
}

/// Macros defined by compiler options: `-DNAME`, `-DNAME=VALUE`, `-D NAME=VALUE`,
/// `--define-macro NAME=VALUE` (quotes around the value, as a shell command line keeps
/// them, are removed).
pub fn defines_from_args(args: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let definition = if a == "-D" || a == "--define-macro" {
            i += 1;
            args.get(i).map(String::as_str)
        } else if let Some(d) = a.strip_prefix("--define-macro=") {
            Some(d)
        } else {
            a.strip_prefix("-D")
        };
        if let Some(d) = definition {
            let d = d.trim_matches(['"', '\'']);
            let (name, value) = d.split_once('=').unwrap_or((d, "1"));
            let valid =
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if valid {
                let value = value.trim_matches(['"', '\'']).to_string();
                out.retain(|(n, _)| n != name);
                out.push((name.to_string(), value));
            }
        }
        i += 1;
    }
    out
}

fn find_database(file: &Path) -> Option<PathBuf> {
    let mut dir = file.parent();
    while let Some(d) = dir {
        for candidate in [
            d.join("compile_commands.json"),
            d.join("build/compile_commands.json"),
        ] {
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        dir = d.parent();
    }
    None
}

/// Targets named by nvcc options: `-arch=sm_90a`, `-arch sm_90a`, `--gpu-architecture=…`,
/// `-gencode arch=compute_90a,code=sm_90a` (and `=`-joined forms).
pub fn targets_from_args(args: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |name: &str| {
        let name = name.trim_matches(['"', '\'', '[', ']']);
        let sm = name
            .strip_prefix("compute_")
            .map(|n| format!("sm_{n}"))
            .unwrap_or_else(|| name.to_string());
        if sm.starts_with("sm_") && !out.contains(&sm) {
            out.push(sm);
        }
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = |opt: &str| -> Option<String> {
            if let Some(v) = a.strip_prefix(opt).and_then(|v| v.strip_prefix('=')) {
                Some(v.to_string())
            } else if a == opt {
                args.get(i + 1).cloned()
            } else {
                None
            }
        };
        if let Some(v) = value("-arch").or_else(|| value("--gpu-architecture")) {
            for part in v.split(',') {
                push(part);
            }
        } else if let Some(v) = value("-gencode").or_else(|| value("--generate-code")) {
            // Prefer `code=` (what is compiled); fall back to `arch=`.
            let mut code = None;
            let mut arch = None;
            for kv in v.split(',') {
                if let Some(c) = kv.strip_prefix("code=") {
                    code.get_or_insert(c.to_string());
                } else if let Some(c) = kv.strip_prefix("arch=") {
                    arch = Some(c.to_string());
                }
            }
            if let Some(c) = code.or(arch) {
                push(&c);
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `embed` fuzz target: a condition with a non-ASCII character made the
    /// `||` search slice inside it and panic.
    #[test]
    fn conditions_with_non_ascii_text() {
        let text = "_CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH_FEAT_SM100_ALL || __CUDA_ARCH_FE\u{fffd}\u{1}AT_SM101_ALL";
        assert_eq!(condition(text), None);
        assert_eq!(
            split_top("é || ü && (ö || x)", "||"),
            ["é ", " ü && (ö || x)"]
        );
    }

    #[test]
    fn deep_conditions_read_as_unknown() {
        let deep = format!(
            "{}__CUDA_ARCH__ >= 900{}",
            "(1 || (1 && ".repeat(100_000),
            "))".repeat(100_000)
        );
        assert_eq!(condition(&deep), None);
    }

    #[test]
    fn opaque_conditions() {
        let text = "#ifndef H\n#define H\nvoid f() {\n#if (SOME_FLAG)\n  asm(\"a;\");\n#else\n  asm(\"b;\");\n#endif\n#if __CUDA_ARCH__ >= 900\n  asm(\"c;\");\n#endif\n#ifdef __CUDACC__\n  asm(\"d;\");\n#endif\n  asm(\"e;\");\n}\n#endif\n";
        let mut parser = crate::find::cuda_parser();
        let tree = parser.parse(text, None).unwrap();
        let opaque = |needle: &str| {
            let at = text.find(needle).unwrap();
            let node = tree.root_node().descendant_for_byte_range(at, at + 1);
            under_opaque_condition(node, text, &GuardMacros::default())
        };
        assert!(opaque("asm(\"a"));
        assert!(opaque("asm(\"b"));
        assert!(!opaque("asm(\"c"));
        assert!(opaque("asm(\"d"));
        assert!(!opaque("asm(\"e"));
    }

    #[test]
    fn conditions() {
        let name = |t: &str| condition(t).map(ArchReq::name);
        assert_eq!(name("__CUDA_ARCH__ >= 900").as_deref(), Some("sm_90"));
        assert_eq!(
            name("defined(__CUDA_ARCH_FEAT_SM90_ALL)").as_deref(),
            Some("sm_90a")
        );
        assert_eq!(
            name("(__CUDA_ARCH__ >= 800) && defined(__CUDA_ARCH_FEAT_SM100_ALL)").as_deref(),
            Some("sm_100a")
        );
        assert_eq!(
            name("__CUDA_ARCH_SPECIFIC__ == 1000").as_deref(),
            Some("sm_100a")
        );
        // nvc++ is not nvcc: under nvcc only the architecture alternative can hold.
        assert_eq!(
            name("_CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH__ >= 700").as_deref(),
            Some("sm_70")
        );
        assert_eq!(
            name("_CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH_FEAT_SM100_ALL \\\n || __CUDA_ARCH_FEAT_SM90_ALL").as_deref(),
            Some("sm_90a")
        );
        assert_eq!(name("SOMETHING_ELSE || __CUDA_ARCH__ >= 700"), None);
        assert_eq!(
            name("defined(__CUDA_AND_AT_LEAST_SM_90__)").as_deref(),
            Some("sm_90")
        );
        assert_eq!(name("__CUDA_ARCH__ >= 700 \\ 1"), None);
        assert_eq!(name("__CUDA_ARCH__ < 700"), None);
        assert_eq!(name("__CUDA_ARCH__ > 700"), None);
    }

    #[test]
    fn nvcc_arguments() {
        let args: Vec<String> = "nvcc -gencode arch=compute_90a,code=sm_90a -arch=sm_80 --gpu-architecture sm_100a -c x.cu"
            .split(' ')
            .map(str::to_string)
            .collect();
        assert_eq!(targets_from_args(&args), ["sm_90a", "sm_80", "sm_100a"]);
    }
}
