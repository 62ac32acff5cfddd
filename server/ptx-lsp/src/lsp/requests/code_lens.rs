//! `textDocument/codeLens`: "Run" above each `.entry` and above each region
//! that starts with a `// @run ...` comment. The lens's command is `ptx.run`
//! with the `ptx/run` parameters as its one argument; clients run it by
//! sending `ptx/run` and showing the result.
//!
//! A `// @run` comment takes the CLI's options as `key=value` words:
//! `threads=32 %r1=5 %f0=1.5 max-steps=1000 thread=3` for snippets,
//! `grid=2 block=32,1,1 arg=u32:5 arg=buf:f32:1,2` for the kernel that
//! follows. A region runs from its comment to the next `// @run` comment (or
//! the end of the file); a comment directly above an `.entry` gives that
//! kernel's launch instead. Kernels without one run on one thread, with
//! zero-valued scalars and a zeroed 1 KiB buffer for each 64-bit parameter.
//! With the `run.debugLens` setting, a "Debug" lens (command `ptx.debug`,
//! the same arguments) follows each "Run" lens.

use std::sync::Arc;

use ptx_syntax::{FunctionKind, Parse, TextRange};
use serde_json::{json, Value};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{CodeLens, CodeLensParams, Command};

use crate::lsp::documents::Snapshot;
use crate::lsp::server::State;
use crate::lsp::{dispatch, to_proto};

/// The options of a `// @run` comment, as `ptx/run` parameters (without the
/// document and range); `Err` names the word that is not understood.
pub(crate) fn parse_run_comment(comment: &str) -> std::result::Result<Value, String> {
    let rest = comment
        .trim_start_matches('/')
        .trim()
        .strip_prefix("@run")
        .ok_or_else(|| "not a @run comment".to_owned())?;
    let mut params = serde_json::Map::new();
    let mut set = Vec::new();
    let mut args = Vec::new();
    let dims = |v: &str| -> std::result::Result<Value, String> {
        let mut out = [1u32; 3];
        let parts: Vec<&str> = v.split(',').collect();
        if parts.len() > 3 {
            return Err(format!("`{v}` has more than three dimensions"));
        }
        for (slot, part) in out.iter_mut().zip(parts) {
            *slot = part
                .trim()
                .parse()
                .map_err(|_| format!("`{part}` is not a number"))?;
        }
        Ok(json!(out))
    };
    for word in rest.split_whitespace() {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| format!("`{word}` is not key=value"))?;
        let number = |v: &str| {
            v.parse::<u64>()
                .map_err(|_| format!("`{word}`: not a number"))
        };
        match key {
            "threads" => {
                params.insert("threads".into(), json!(number(value)?));
            }
            "max-steps" | "max_steps" => {
                params.insert("maxSteps".into(), json!(number(value)?));
            }
            "dynamic-smem" | "dynamic_smem" => {
                params.insert("dynamicSmem".into(), json!(number(value)?));
            }
            "thread" => {
                params.insert("hintThread".into(), json!(number(value)?));
            }
            "entry" => {
                params.insert("entry".into(), json!(value));
            }
            "grid" => {
                params.insert("grid".into(), dims(value)?);
            }
            "block" => {
                params.insert("block".into(), dims(value)?);
            }
            "cluster" => {
                params.insert("cluster".into(), dims(value)?);
            }
            "arg" => args.push(json!(value)),
            reg if reg.starts_with('%') => set.push(json!([reg, value])),
            _ => return Err(format!("`{word}`: unknown option `{key}`")),
        }
    }
    if !set.is_empty() {
        params.insert("set".into(), Value::Array(set));
    }
    if !args.is_empty() {
        params.insert("args".into(), Value::Array(args));
    }
    Ok(Value::Object(params))
}

/// Default kernel arguments: 0 for scalars, a zeroed buffer for 64-bit
/// parameters (usually pointers).
fn default_args(function: &ptx_syntax::Function<'_>) -> Vec<Value> {
    function
        .parameters()
        .iter()
        .map(|p| {
            let ty = p
                .ty()
                .map(|t| t.text.trim_start_matches('.'))
                .unwrap_or("b32");
            match ty {
                "u64" | "b64" | "s64" => json!("zeros:1024"),
                "f32" | "f64" | "u8" | "u16" | "u32" | "s8" | "s16" | "s32" => {
                    json!(format!("{ty}:0"))
                }
                _ => json!("u32:0"),
            }
        })
        .collect()
}

/// A bounded memory of results by key, emptied when it holds `MAX_KEPT` entries.
struct Kept<V>(std::sync::Mutex<Option<std::collections::HashMap<u64, V>>>);

impl<V: Clone> Kept<V> {
    const MAX_KEPT: usize = 16_384;

    const fn new() -> Self {
        Kept(std::sync::Mutex::new(None))
    }

    fn get(&self, key: u64) -> Option<V> {
        self.0.lock().ok()?.as_ref()?.get(&key).cloned()
    }

    fn put(&self, key: u64, value: V) {
        if let Ok(mut kept) = self.0.lock() {
            let kept = kept.get_or_insert_with(Default::default);
            if kept.len() >= Self::MAX_KEPT {
                kept.clear();
            }
            kept.insert(key, value);
        }
    }
}

fn hash_of(parts: impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    parts.hash(&mut hasher);
    hasher.finish()
}

/// The launch generated for a kernel, remembered by the kernel's text: working it out reads
/// the whole kernel (tens of milliseconds for a large one), and lenses are asked for again
/// after every edit, almost always of another function.
fn generated_launch(kernel: &str, make: impl FnOnce() -> Value) -> Value {
    static KEPT: Kept<Value> = Kept::new();
    let key = hash_of(kernel);
    if let Some(value) = KEPT.get(key) {
        return value;
    }
    let value = make();
    KEPT.put(key, value.clone());
    value
}

/// A hash of everything a kernel's code can depend on besides its own text: every top-level
/// item except the definitions of kernels (a kernel cannot be called, so another kernel's body
/// never runs with it).
fn kernel_context(parse: &Parse) -> u64 {
    let items = parse.module().items();
    let context: Vec<&str> = items
        .iter()
        .filter(|item| {
            !matches!(
                item,
                ptx_syntax::Item::Function(f) if f.kind() == FunctionKind::Entry && f.body().is_some()
            )
        })
        .map(|item| &parse.text()[item.range()])
        .collect();
    hash_of(context)
}

/// What the interpreter makes of each kernel (with its context): finding out decodes the
/// kernel and what it calls (tens of milliseconds for a large one), and lenses are asked for
/// again after every edit, almost always of another function. `None`: it runs; otherwise the
/// statement that blocks it, as an offset range from the kernel's start with the reason, so
/// the lens names the current line after edits above the kernel. A kernel blocked by a
/// statement outside itself (in a function it calls) is looked at again each time.
static VERDICTS: Kept<Option<(TextRange, String)>> = Kept::new();

fn lenses(snapshot: &Snapshot, debug: bool) -> Vec<CodeLens> {
    let parse: &Parse = &snapshot.parse;
    let text = snapshot.text();
    let uri = snapshot.uri.to_string();
    let comments: Vec<(TextRange, &str)> = parse
        .comments()
        .into_iter()
        .map(|range| (range.clone(), &text[range]))
        .filter(|(_, c)| c.trim_start_matches('/').trim_start().starts_with("@run"))
        .collect();
    let entries: Vec<_> = parse
        .module()
        .functions()
        .into_iter()
        .filter(|f| f.kind() == FunctionKind::Entry && f.body().is_some())
        .collect();
    let lens = |range: &TextRange, title: String, command: &str, params: Value| CodeLens {
        range: to_proto::range(snapshot, range),
        command: Some(Command {
            title,
            command: command.into(),
            arguments: Some(vec![params]),
        }),
        data: None,
    };
    // "Run", and "Debug" beside it when the client asked for it.
    let run_lenses = |out: &mut Vec<CodeLens>, range: &TextRange, title: String, params: Value| {
        out.push(lens(range, title, "ptx.run", params.clone()));
        if debug {
            out.push(lens(range, "Debug".into(), "ptx.debug", params));
        }
    };
    let blocked = |range: &TextRange, at: &TextRange, why: &str| CodeLens {
        range: to_proto::range(snapshot, range),
        command: Some(Command {
            title: format!(
                "Cannot run: line {}: {why}",
                to_proto::range(snapshot, at).start.line + 1
            ),
            command: String::new(),
            arguments: None,
        }),
        data: None,
    };
    let mut out = Vec::new();
    let mut used = vec![false; comments.len()];
    let context = kernel_context(parse);
    for function in &entries {
        let Some(name) = function.name() else {
            continue;
        };
        // A @run comment with only blanks between it and the function.
        let own = comments.iter().position(|(range, _)| {
            range.end <= function.range().start
                && text[range.end..function.range().start].trim().is_empty()
        });
        // Without a comment: the launch a `// @run` line would be generated with (buffers
        // typed by the kernel's loads and stores, bounds set to the thread count).
        let generated = || {
            generated_launch(function.text(), || {
                ptx_ide::run_template::run_template(parse, name.text)
                    .and_then(|line| parse_run_comment(&line).ok())
                    .unwrap_or_else(|| json!({"args": default_args(function)}))
            })
        };
        let mut params = match own.map(|i| parse_run_comment(comments[i].1)) {
            Some(Ok(params)) => params,
            _ => generated(),
        };
        if let Some(i) = own {
            used[i] = true;
        }
        // A kernel with a statement the interpreter cannot execute gets a lens that says
        // which line blocks it, and runs nothing.
        let key = hash_of((context, function.text()));
        let start = function.range().start;
        let verdict = match VERDICTS.get(key) {
            Some(kept) => kept.map(|(at, why)| (at.start + start..at.end + start, why)),
            None => {
                let verdict = ptx_interp::first_unsupported(parse, Some(name.text));
                match &verdict {
                    None => VERDICTS.put(key, None),
                    Some((at, why)) if function.range().contains(&at.start) => {
                        VERDICTS.put(key, Some((at.start - start..at.end - start, why.clone())))
                    }
                    Some(_) => {}
                }
                verdict
            }
        };
        if let Some((at, why)) = verdict {
            out.push(blocked(&function.range(), &at, &why));
            continue;
        }
        params["textDocument"] = json!({"uri": uri});
        params["entry"] = json!(name.text);
        run_lenses(
            &mut out,
            &function.range(),
            format!("▶ Run {}", name.text),
            params,
        );
    }
    for (i, (range, comment)) in comments.iter().enumerate() {
        if used[i] {
            continue;
        }
        let end = comments
            .get(i + 1)
            .map_or(text.len(), |(next, _)| next.start);
        let title = match parse_run_comment(comment) {
            Ok(mut params) => {
                params["textDocument"] = json!({"uri": uri});
                params["range"] = json!(to_proto::range(snapshot, &(range.start..end)));
                run_lenses(&mut out, range, "▶ Run".into(), params);
                continue;
            }
            Err(message) => format!("@run: {message}"),
        };
        // A lens that explains the mistake and does nothing.
        out.push(CodeLens {
            range: to_proto::range(snapshot, range),
            command: Some(Command {
                title,
                command: String::new(),
                arguments: None,
            }),
            data: None,
        });
    }
    out
}

pub(crate) async fn handle(
    state: &Arc<State>,
    params: CodeLensParams,
) -> Result<Option<Vec<CodeLens>>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let debug = state.config().run.debug_lens;
    let state = state.clone();
    dispatch::feature("textDocument/codeLens", snapshot.clone(), move || {
        let mut out = lenses(&snapshot, debug);
        out.extend(crate::lsp::compiler::lenses(&state, &snapshot));
        Some(out)
    })
    .await
}

/// Code lenses of a CUDA document: "SASS" above each asm statement (command `ptx.showSass`
/// with the statement as the kernel of `ptx/sass`), when the compiler view is on and a ptxas
/// and an nvdisasm are found; nothing otherwise.
pub(crate) async fn host(
    state: &Arc<State>,
    params: CodeLensParams,
) -> Result<Option<Vec<CodeLens>>> {
    let snapshot = super::snapshot(state, &params.text_document.uri)?;
    let state = state.clone();
    dispatch::analysis("textDocument/codeLens", move || {
        if !state.config().compiler.enable {
            return None;
        }
        let tools = state
            .compiler
            .toolchain(state.config().compiler.path.as_deref());
        if tools.ptxas.is_none() || tools.nvdisasm.is_none() {
            return None;
        }
        let doc = state.host_document(&snapshot)?;
        // After the background compilation (on open and save), what each statement became.
        let compiled = crate::lsp::compiler::host_statements_done(&state, &snapshot);
        let lenses = doc
            .statements
            .iter()
            .map(|statement| {
                let range = to_proto::range(&snapshot, &statement.raw.keyword);
                let name = super::sass::statement_name(range.start.line + 1);
                let outcome = compiled.as_ref().and_then(|all| {
                    all.iter()
                        .find(|s| s.range == statement.raw.range)
                        .map(|s| &s.outcome)
                });
                let title = match outcome {
                    None => "SASS".to_owned(),
                    Some(Ok(sass)) => {
                        let n: u32 = sass.functions.iter().map(|f| f.instructions).sum();
                        format!("SASS · {n} instruction{}", if n == 1 { "" } else { "s" })
                    }
                    Some(Err(_)) => "SASS · not compiled".to_owned(),
                };
                CodeLens {
                    range,
                    command: Some(Command {
                        title,
                        command: "ptx.showSass".into(),
                        arguments: Some(vec![json!({
                            "textDocument": {"uri": snapshot.uri},
                            "kernel": name,
                        })]),
                    }),
                    data: None,
                }
            })
            .collect();
        Some(lenses)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_comments_mirror_the_cli() {
        assert_eq!(
            parse_run_comment("// @run threads=32 %r1=5 %f0=1.5 max-steps=100").unwrap(),
            json!({"threads": 32, "maxSteps": 100, "set": [["%r1", "5"], ["%f0", "1.5"]]})
        );
        assert_eq!(
            parse_run_comment("// @run grid=2 block=32,2 arg=u32:5 arg=buf:f32:1,2").unwrap(),
            json!({"grid": [2, 1, 1], "block": [32, 2, 1], "args": ["u32:5", "buf:f32:1,2"]})
        );
        assert_eq!(parse_run_comment("// @run").unwrap(), json!({}));
        assert!(parse_run_comment("// @run bogus=1")
            .unwrap_err()
            .contains("bogus"));
        assert!(parse_run_comment("// @run threads").is_err());
    }
}
