//! Inline PTX in CUDA C++: the `asm(...)` statements of a host file (.cu, .cuh, .h, .hpp,
//! .cpp) as virtual PTX documents with an exact source map back to the host text.
//!
//! The statements are found with the tree-sitter CUDA grammar (crate `tree-sitter-cuda`).
//! It was chosen over `tree-sitter-cpp` because it is the C++ grammar plus CUDA's own
//! syntax (`__global__`, `__device__`, `<<<grid, block>>>` launches): on the CUDA toolkit's
//! and CCCL's headers both find the same asm statements, and the CUDA grammar has fewer
//! error nodes around kernels and launches. Where the parser cannot see an
//! asm statement (a `#define` body, an argument of a macro call, a region it could not
//! parse) [`find`] re-parses that statement alone, so broken C++ never hides it. A file
//! whose statements are all plain (string literals, then the operand lists) is not parsed
//! at all: the statements are read from the text, and where they stand (`#if` branches,
//! `#define` bodies, the heads of the blocks around them) is read from it as well.
//!
//! Each statement becomes a small PTX module: `.version`/`.target` (from the options, the
//! build's `compile_commands.json` or the enclosing `#if __CUDA_ARCH__ ...` guards), one
//! kernel whose registers stand for the operands, typed by their constraints (`r` .b32,
//! `l` .b64, `h` .b16, `f` .f32, `d` .f64, `q` .b128; `n`/`i` become their literal value),
//! and the template with `%%` turned into `%`. Every PTX analysis runs on that module
//! unchanged; [`SourceMap`] takes its ranges back into the host text. The checks that only
//! inline asm has (placeholder numbers, outputs never written, constraint widths) live in
//! [`check`].

pub mod check;
pub mod constants;
mod context;
pub mod find;
pub mod ide;
pub mod literal;
pub mod machine;
pub mod macros;
pub mod source_map;
pub mod target;

pub use find::{AsmOperand, RawAsm, Unread, Unreadable};
pub use macros::GuardMacros;
use ptx_syntax::{Parse, TextRange};
pub use source_map::SourceMap;
pub use target::{
    compile_commands_flags, compile_commands_targets, included_inline_macros, included_macros,
    ArchReq, BuildFlags, IncludedMacros,
};

/// Extensions that always name C, C++ or CUDA source.
const HOST_EXTENSIONS: &[&str] = &[
    "cu", "cuh", "h", "hh", "hpp", "hxx", "cpp", "cc", "cxx", "c", "inl", "cuinl", "ipp", "tcc",
];

/// Is this path a host (C/C++/CUDA) file rather than PTX, by its extension alone?
pub fn is_host_path(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let Some((_, ext)) = name.rsplit_once('.') else {
        return false;
    };
    HOST_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
}

/// How a file is read: as a PTX module, or as C/C++/CUDA whose asm statements hold PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Ptx,
    Host,
}

/// How the file at `path` with this `text` is read. `.ptx` files are PTX; the C, C++ and
/// CUDA extensions and `extra_host_extensions` (without the dot, e.g. `impl`) are host
/// files; any other file is a host file when its text has C/C++ syntax and is not a PTX
/// module (`.impl`, `.cu.inc`, ...), and PTX otherwise. Used by the command line and the
/// language server alike.
pub fn file_kind(path: &str, text: &str, extra_host_extensions: &[String]) -> FileKind {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    if ext == "ptx" {
        return FileKind::Ptx;
    }
    let extra = |e: &String| e.trim_start_matches('.').eq_ignore_ascii_case(&ext);
    if (!ext.is_empty() && extra_host_extensions.iter().any(extra)) || is_host_path(path) {
        return FileKind::Host;
    }
    if is_host_text(text) {
        FileKind::Host
    } else {
        FileKind::Ptx
    }
}

/// Does `text` read as C/C++/CUDA rather than PTX? A PTX module starts with `.version` or
/// `.target` (after comments, blank and preprocessor lines); C/C++ shows in an
/// `asm`/`__asm__` statement or in words and directives PTX does not have.
pub fn is_host_text(text: &str) -> bool {
    if looks_like_ptx(text) {
        return false;
    }
    const HOST_LINE_STARTS: &[&str] = &[
        "#include",
        "#pragma once",
        "#define",
        "namespace ",
        "template",
        "extern \"C\"",
        "using ",
        "struct ",
        "class ",
        "static ",
        "inline ",
        "typedef ",
    ];
    const HOST_WORDS: &[&str] = &["__device__", "__global__", "__host__", "__forceinline__"];
    let b = text.as_bytes();
    let asm_call = find::asm_keywords(text).into_iter().any(|k| {
        let rest = text[k..].trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let rest = rest
            .trim_start()
            .trim_start_matches("volatile")
            .trim_start_matches("__volatile__")
            .trim_start();
        rest.starts_with('(') || rest.starts_with("goto")
    });
    asm_call
        || text.lines().any(|l| {
            let l = l.trim_start();
            HOST_LINE_STARTS.iter().any(|s| l.starts_with(s))
        })
        || HOST_WORDS.iter().any(|w| {
            text.match_indices(w).any(|(i, _)| {
                let before = i.checked_sub(1).map(|j| b[j]);
                let after = b.get(i + w.len()).copied();
                let ident =
                    |c: Option<u8>| c.is_some_and(|c| c == b'_' || c.is_ascii_alphanumeric());
                !ident(before) && !ident(after)
            })
        })
}

/// Does `text` start like a PTX module (`.version`, `.target`, after comments, blank lines
/// and preprocessor lines)?
fn looks_like_ptx(text: &str) -> bool {
    let mut in_block = false;
    for line in text.lines() {
        let mut l = line.trim();
        if in_block {
            match l.find("*/") {
                Some(e) => {
                    in_block = false;
                    l = l[e + 2..].trim();
                }
                None => continue,
            }
        }
        if let Some(rest) = l.strip_prefix("/*") {
            match rest.find("*/") {
                Some(e) => l = rest[e + 2..].trim(),
                None => {
                    in_block = true;
                    continue;
                }
            }
        }
        if l.is_empty() || l.starts_with("//") || l.starts_with('#') {
            continue;
        }
        return l.starts_with(".version") || l.starts_with(".target");
    }
    false
}

/// Is this LSP language id a host language?
pub fn is_host_language(language_id: &str) -> bool {
    matches!(
        language_id,
        "cuda" | "cuda-cpp" | "cpp" | "c" | "cuda-c" | "objective-cpp"
    )
}

/// Where the targets come from, highest priority first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbedOptions {
    /// A target set by the user (settings or `--target`): used for every statement whose
    /// `#if` guard it meets; a statement guarded for other targets is not compiled for it and
    /// is checked against the targets its guard admits.
    pub target: Option<String>,
    /// A PTX ISA version set by the user; otherwise the newest one known.
    pub version: Option<String>,
    /// The targets `compile_commands.json` compiles the file for.
    pub build_targets: Vec<String>,
    /// The macros its `-D` flags define there (already part of `guard_macros` and
    /// `inline_macros`; kept to tell when they change).
    pub build_defines: Vec<(String, String)>,
    /// Macros of the headers the file includes that expand to `inline`, `static` or a
    /// template head ([`included_inline_macros`]); the file's own are found anyway.
    pub inline_macros: Vec<String>,
    /// Macros of the headers and the build (`-D`) that stand for targets in `#if` guards
    /// ([`GuardMacros`]); the file's own are found anyway.
    pub guard_macros: GuardMacros,
}

impl EmbedOptions {
    /// The options that a file's surroundings give: the targets and `-D` macros of its
    /// `compile_commands.json` entry, and the macros of the headers it includes. The target
    /// and version the user sets are left to the caller.
    pub fn for_file(path: &std::path::Path, text: &str) -> EmbedOptions {
        let build = compile_commands_flags(path);
        let included = included_macros(path, text, &build.defines);
        EmbedOptions {
            target: None,
            version: None,
            build_targets: build.targets,
            build_defines: build.defines,
            inline_macros: included.inline,
            guard_macros: included.guards,
        }
    }
}

/// What a `%...` in the template stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    /// The characters in the host file (`%0`, `%[name]`).
    pub host: TextRange,
    /// Its replacement in the virtual document.
    pub virt: TextRange,
    /// The operand it names; `None` when the number or name does not exist.
    pub operand: Option<usize>,
    /// As written, after escapes (`%0`, `%[out]`).
    pub written: String,
}

/// One asm statement and its virtual PTX document.
#[derive(Debug)]
pub struct Statement {
    pub raw: RawAsm,
    /// The requirement of the enclosing `#if` guards.
    pub guard: Option<ArchReq>,
    /// The target the virtual document names; `None`: none known, so availability is not
    /// checked (the virtual document still names the newest target, for parsing).
    pub target: Option<String>,
    pub version: String,
    /// The version was set by the user or required by a guard (not the stand-in newest one).
    pub version_known: bool,
    /// The virtual PTX document.
    pub parse: Parse,
    /// Virtual → host.
    pub map: SourceMap,
    /// Where the template starts in the virtual document.
    pub body_start: usize,
    pub placeholders: Vec<Placeholder>,
    /// The register names of the operands in the virtual document (`None`: an immediate).
    pub registers: Vec<Option<String>>,
    /// The values of the immediate operands (`"n"`, `"i"`) printed into the virtual
    /// document: a literal, or a constant the file defines ([`constants`]); `None` for a
    /// register operand and for an immediate whose value is not known here (a template
    /// parameter), which gets the stand-in `0`.
    pub immediates: Vec<Option<i128>>,
    /// The PTX checker's diagnostics of the virtual document (virtual ranges), computed once
    /// and carried over to the next version of the file while the virtual text is the same.
    pub(crate) virtual_diagnostics: std::sync::OnceLock<Vec<ptx_check::Diagnostic>>,
}

/// A host file's asm statements.
#[derive(Debug)]
pub struct HostDocument {
    pub statements: Vec<Statement>,
    /// `asm` keywords whose statement could not be read at all.
    pub unreadable: Vec<Unreadable>,
    /// What the C++ parser read ([`find::Found::parsed`]) and its tree (`None`: not parsed,
    /// as the text has no asm keyword), for the next incremental update.
    parsed: String,
    tree: Option<tree_sitter::Tree>,
    options: EmbedOptions,
}

/// The target a virtual document names when no target is known: the newest arch-specific
/// one, so that every form parses and only availability (not checked then) could differ.
pub const FALLBACK_TARGET: &str = "sm_100a";

impl HostDocument {
    pub fn new(text: &str, options: &EmbedOptions) -> HostDocument {
        HostDocument::new_incremental(text, options, None)
    }

    /// Like [`new`](Self::new), reusing the parse and checker results of the statements of
    /// `previous` (an earlier version of the same file) whose virtual document is unchanged:
    /// after an edit inside one statement only that statement is parsed and checked again.
    pub fn new_incremental(
        text: &str,
        options: &EmbedOptions,
        previous: Option<&HostDocument>,
    ) -> HostDocument {
        let previous = previous.filter(|p| p.options == *options);
        let found = find::find_with_macros(
            text,
            previous.and_then(|p| Some((p.parsed.as_str(), p.tree.as_ref()?))),
            &options.inline_macros,
            &options.guard_macros,
        );
        let (tree, raws, unreadable) = (found.tree, found.statements, found.unreadable);
        let reusable: std::collections::HashMap<&str, &Statement> = previous
            .map(|p| p.statements.iter().map(|s| (s.parse.text(), s)).collect())
            .unwrap_or_default();
        // A HIP source's asm statements are AMD GPU assembly: none is PTX.
        let amd_file = !raws.is_empty() && target::amd_gpu_file(text);
        // Host assembly (of a C/C++ file with no sign of CUDA, or under a host architecture
        // macro this layer does not know) is not PTX.
        let cuda_file = raws.is_empty() || target::cuda_signs(text);
        let mut raws: Vec<RawAsm> = raws
            .into_iter()
            .filter(|raw| !raw.host_only && !amd_file)
            .filter(|raw| {
                // A template this layer cannot read keeps its hint.
                raw.opaque.is_some()
                    || raw.template.text.trim().is_empty()
                    || !target::host_assembly(&raw.template.text, cuda_file)
            })
            .collect();
        shared_scopes(&mut raws);
        // The target macros of the file, for `#if`s inside statements (read once, when one
        // has them).
        let mut macros: Option<GuardMacros> = None;
        // The integer constants of the file, for immediates that name one (read once, when a
        // statement has such an operand).
        let names_constant = raws.iter().any(|raw| {
            raw.operands.iter().any(|op| {
                constraint_type(op.letter(), None).is_none()
                    && literal_value(&op.expression).is_none()
            })
        });
        let constants = names_constant.then(|| {
            constants::Constants::from_text(
                text,
                options.guard_macros.numbers.iter().map(|(k, v)| (k, *v)),
            )
        });
        let statements = raws
            .into_iter()
            .map(|raw| {
                // Every target ptxas still assembles for meets an older guard.
                let guard = raw.guard.filter(|g| g.number >= 75);
                // A statement with `#if`s inside is read again with the branches that a
                // compilation for its target takes.
                let raw = match choose_target(guard, options).filter(|_| raw.conditional) {
                    Some(t) => {
                        let macros =
                            macros.get_or_insert_with(|| options.guard_macros.with_text(text));
                        find::read_for_target(text, &raw, &t, macros).unwrap_or(raw)
                    }
                    None => raw,
                };
                Statement::new(raw, guard, options, &reusable, constants.as_ref())
            })
            .collect();
        HostDocument {
            statements,
            unreadable,
            parsed: found.parsed,
            tree,
            options: options.clone(),
        }
    }

    /// The options the document was read with.
    pub fn options(&self) -> &EmbedOptions {
        &self.options
    }

    /// The statement whose template covers `host_offset` (cursor at its end included). A
    /// template nesting deeper than [`ptx_syntax::MAX_NESTING`] is not analysed: none.
    pub fn statement_at(&self, host_offset: usize) -> Option<&Statement> {
        self.statements
            .iter()
            .find(|s| {
                s.raw
                    .template
                    .map
                    .host_extent()
                    .is_some_and(|r| r.start <= host_offset && host_offset <= r.end)
            })
            .filter(|s| s.parse.too_deep().is_none())
    }
}

/// nvcc emits consecutive asm statements of a function into one body, so one statement may
/// open a `{` block (and declare registers in it) that a later one closes. Such a run of
/// statements cannot be checked one by one: from an opener to the statement that brings the
/// braces back to balance, every statement is left opaque. An opener that nothing closes
/// stays as it is (a missing `}` is then reported).
fn shared_scopes(raws: &mut [RawAsm]) {
    const MAX_RUN: usize = 64;
    let net = |r: &RawAsm| {
        let t = &r.template.text;
        t.matches('{').count() as i64 - t.matches('}').count() as i64
    };
    let mut i = 0;
    while i < raws.len() {
        if net(&raws[i]) <= 0 {
            i += 1;
            continue;
        }
        let mut depth = 0;
        let mut close = None;
        for (j, r) in raws.iter().enumerate().skip(i).take(MAX_RUN) {
            depth += net(r);
            if depth <= 0 {
                close = Some(j);
                break;
            }
        }
        match close {
            Some(j) => {
                for r in &mut raws[i..=j] {
                    r.opaque.get_or_insert(Unread::SharedBlock);
                }
                i = j + 1;
            }
            None => i += 1,
        }
    }
}

fn choose_target(guard: Option<ArchReq>, options: &EmbedOptions) -> Option<String> {
    let satisfies = |t: &str| guard.is_none_or(|g| target::admits(g, t));
    if let Some(t) = &options.target {
        // A statement whose guard the target does not meet is not compiled for that target:
        // it is checked against the targets its guard admits instead.
        if satisfies(t) {
            return Some(t.clone());
        }
    }
    if let Some(t) = options.build_targets.iter().find(|t| satisfies(t)) {
        return Some(t.clone());
    }
    // A guard such as `__CUDA_ARCH__ >= 900` admits sm_90a too: check against the most
    // capable target of that number, so that only what no admitted target has is an error.
    let guard = guard?;
    let isa = ptx_isa::Isa::get();
    let specific = ArchReq {
        suffix: Some(guard.suffix.unwrap_or('a')),
        ..guard
    }
    .name();
    if isa.target(&specific).is_some() {
        return Some(specific);
    }
    let name = guard.name();
    isa.target(&name).map(|_| name)
}

/// The register type that a constraint letter binds in a module for `target`, or `None` for
/// an immediate. This is the one place that decides how an operand is declared in the
/// virtual module, and hovers and messages describe operands with it too, so an asm
/// statement is judged exactly as the same line in a .ptx file with these declarations.
///
/// nvcc 13 declares float operands as bit-size registers (`.b32`, `.b64`) from sm_100 on
/// (and with no known target, whose virtual module names sm_100a), and as `.f32`/`.f64`
/// before: ptxas then accepts or rejects the same template (an integer instruction on an
/// `"f"` operand).
pub fn constraint_type(letter: char, target: Option<&str>) -> Option<&'static str> {
    let untyped_floats = target
        .and_then(ptx_isa::SmName::parse)
        .is_none_or(|sm| sm.canonical_number() >= 100);
    Some(match letter {
        'h' => ".b16",
        'r' => ".b32",
        'l' => ".b64",
        'q' => ".b128",
        'f' if untyped_floats => ".b32",
        'd' if untyped_floats => ".b64",
        'f' => ".f32",
        'd' => ".f64",
        'c' => ".b8",
        'n' | 'i' | 'C' => return None,
        _ => ".b32",
    })
}

/// Describes a constraint for hovers and messages, with the register it binds in a module
/// for `target`: `"=r": output, 32-bit register (.b32)`.
pub fn describe_operand(op: &AsmOperand, target: Option<&str>) -> String {
    let role = if op.constraint.contains('+') {
        "read and written"
    } else if op.is_output {
        "output"
    } else {
        "input"
    };
    let kind = match constraint_type(op.letter(), target) {
        Some(ty) => {
            let bits = register_bits(ty);
            format!("{bits}-bit register (`{ty}`)")
        }
        None => "immediate".to_string(),
    };
    format!("`\"{}\"({})`: {role}, {kind}", op.constraint, op.expression)
}

fn register_bits(ty: &str) -> u32 {
    ty.trim_start_matches(".b")
        .trim_start_matches(".f")
        .parse()
        .unwrap_or(32)
}

/// The value of an integer literal expression (`42`, `-1`, `0x10u`), for `n`/`i` operands.
pub(crate) fn literal_value(expr: &str) -> Option<i128> {
    let e = expr.trim();
    let e = e
        .strip_prefix('(')
        .and_then(|e| e.strip_suffix(')'))
        .unwrap_or(e)
        .trim();
    let (neg, e) = match e.strip_prefix('-') {
        Some(rest) => (true, rest.trim()),
        None => (false, e),
    };
    let e = e.trim_end_matches(['u', 'U', 'l', 'L']).replace('\'', "");
    let v = if let Some(h) = e.strip_prefix("0x").or_else(|| e.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else if let Some(b) = e.strip_prefix("0b").or_else(|| e.strip_prefix("0B")) {
        i128::from_str_radix(b, 2).ok()?
    } else if e.len() > 1 && e.starts_with('0') {
        i128::from_str_radix(&e[1..], 8).ok()?
    } else {
        e.parse().ok()?
    };
    Some(if neg { -v } else { v })
}

impl Statement {
    fn new(
        raw: RawAsm,
        guard: Option<ArchReq>,
        options: &EmbedOptions,
        reusable: &std::collections::HashMap<&str, &Statement>,
        constants: Option<&constants::Constants>,
    ) -> Statement {
        let target = choose_target(guard, options);
        // A version set by the user, else the one a guard requires, else the newest known.
        let version = options
            .version
            .clone()
            .or_else(|| raw.newer_ptx.map(|v| v.to_string()))
            .unwrap_or_else(|| ptx_isa::PtxVersion::SPEC.to_string());
        // `.address_size` is from PTX ISA 2.3: an older version set by the user gets a blank
        // line in its place (the header keeps its lines), not an error on every statement.
        let address_size = match ptx_isa::PtxVersion::parse(&version) {
            Some(v) if v < ptx_isa::PtxVersion::new(2, 3) => "",
            _ => ".address_size 64",
        };
        let mut text = format!(
            ".version {version}\n.target {}\n{address_size}\n.visible .entry __asm()\n{{\n",
            target.as_deref().unwrap_or(FALLBACK_TARGET)
        );
        let mut registers = Vec::new();
        // The value nvcc prints for each immediate operand, where it is known.
        let immediates: Vec<Option<i128>> = raw
            .operands
            .iter()
            .map(|op| {
                constraint_type(op.letter(), target.as_deref())
                    .is_none()
                    .then(|| {
                        literal_value(&op.expression)
                            .or_else(|| constants?.evaluate(&op.expression))
                    })
                    .flatten()
            })
            .collect();
        for op in &raw.operands {
            let ty = constraint_type(op.letter(), target.as_deref());
            match ty {
                Some(ty) => {
                    let name = format!("%op{}", op.index);
                    text.push_str(&format!(".reg {ty} {name};\n"));
                    registers.push(Some(name));
                }
                None => registers.push(None),
            }
        }
        if raw.operands_opaque.is_some() {
            text.push_str(".reg .b32 %op_unknown;\n");
        }
        let body_start = text.len();
        let mut map = SourceMap::default();
        let mut placeholders = Vec::new();
        let tpl = &raw.template.text;
        let b = tpl.as_bytes();
        let mut run = 0;
        let mut i = 0;
        let copy = |text: &mut String, map: &mut SourceMap, range: TextRange| {
            let at = text.len();
            text.push_str(&tpl[range.clone()]);
            map.push_slice(
                &raw.template.map,
                range.clone(),
                at as isize - range.start as isize,
            );
        };
        while raw.extended && i < b.len() {
            if b[i] != b'%' {
                i += 1;
                continue;
            }
            let (len, replacement, operand, is_placeholder) = match b.get(i + 1) {
                Some(b'%') => (2, "%".to_string(), None, false),
                Some(b'=') => (2, "0".to_string(), None, false),
                Some(c) if c.is_ascii_digit() => {
                    let mut j = i + 1;
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    let n: usize = tpl[i + 1..j].parse().unwrap_or(usize::MAX);
                    // With macro operands the numbering is unknown: no placeholder is bound.
                    let known = raw
                        .operands
                        .get(n)
                        .filter(|_| raw.operands_opaque.is_none());
                    (j - i, String::new(), known.map(|o| o.index), true)
                }
                Some(b'[') => match tpl[i..].find(']') {
                    Some(close) => {
                        let name = &tpl[i + 2..i + close];
                        let op = raw
                            .operands
                            .iter()
                            .find(|o| o.symbol.as_deref() == Some(name))
                            .filter(|_| raw.operands_opaque.is_none())
                            .map(|o| o.index);
                        (close + 1, String::new(), op, true)
                    }
                    None => {
                        i += 1;
                        continue;
                    }
                },
                _ => {
                    i += 1;
                    continue;
                }
            };
            copy(&mut text, &mut map, run..i);
            let host = raw.template.map.to_host(i..i + len);
            let replacement = if is_placeholder {
                match operand {
                    Some(k) => match &registers[k] {
                        Some(reg) => reg.clone(),
                        None => immediates[k].map_or_else(|| "0".to_string(), |v| v.to_string()),
                    },
                    // Kept as a register so the statement still parses; reported by `check`.
                    None => "%op_unknown".to_string(),
                }
            } else {
                replacement
            };
            let at = text.len();
            text.push_str(&replacement);
            map.push_atomic(at..text.len(), host.clone());
            if is_placeholder {
                placeholders.push(Placeholder {
                    host,
                    virt: at..text.len(),
                    operand,
                    written: tpl[i..i + len].to_string(),
                });
            }
            i += len;
            run = i;
        }
        copy(&mut text, &mut map, run..tpl.len());
        text.push_str("\n}\n");
        let (parse, virtual_diagnostics) = match reusable.get(text.as_str()) {
            Some(old) => (old.parse.clone(), old.virtual_diagnostics.clone()),
            None => (Parse::new(text), std::sync::OnceLock::new()),
        };
        Statement {
            version_known: options.version.is_some() || raw.newer_ptx.is_some(),
            raw,
            guard,
            target,
            version,
            parse,
            map,
            body_start,
            placeholders,
            registers,
            immediates,
            virtual_diagnostics,
        }
    }

    /// The placeholder at a virtual offset.
    pub fn placeholder_at_virtual(&self, virt: usize) -> Option<&Placeholder> {
        self.placeholders
            .iter()
            .find(|p| p.virt.start <= virt && virt <= p.virt.end)
    }

    /// The virtual offset of a host offset inside the template.
    pub fn to_virtual(&self, host: usize) -> Option<usize> {
        self.map.offset_to_virtual(host)
    }
}
