//! Launch arguments: the options of `ptx-lsp run` (and of the `ptx/run`
//! request a `// @run` comment gives) as a launch configuration.
//!
//! `program` (a file), `entry` (or `kernel`: a kernel launch; without it the
//! file runs as a snippet), `grid` and `block` (`[x, y, z]`, a number or
//! `"x,y,z"`), `args` (`u32:5`, `buf:f32:1,2`, `zeros:64` ...),
//! `dynamicSmem`, `threads` and `set` (snippets: `["%r1=5"]`,
//! `[["%r1", "5"]]` or `{"%r1": "5"}`), `maxSteps`, `noContract`,
//! `stopOnEntry`, `noDebug` (run to the end, breakpoints ignored), and `range` (an LSP range: only that region of the file
//! runs, as the Run lens of a `// @run` region does).
//!
//! `target` (`sm_80`, `sm_100a`, ...) checks the file as if it said that
//! `.target` before launching: an error that target brings (a form or
//! qualifier it lacks) is a launch error naming the line. `cluster`
//! (`[x, y, z]`) is accepted as long as it is one CTA: the interpreter runs
//! every CTA as a cluster of one, so a larger cluster is a launch error.

use ptx_interp::{
    parse_arg, DebugTarget, KernelOptions, RunError, SnippetOptions, DEFAULT_MAX_STEPS,
};
use ptx_syntax::{LineCol, LineIndex, Parse, PositionEncoding};
use serde_json::Value;

/// A loaded launch.
pub(crate) struct Loaded {
    pub target: DebugTarget,
    pub path: String,
    pub stop_on_entry: bool,
    /// Element type of each buffer argument (`buf:f32:...` gives `f32`).
    pub buffer_types: Vec<Option<String>>,
    /// Whether this is a kernel launch (false: a snippet).
    pub kernel: bool,
    /// "Run without debugging": no breakpoints, no stop on entry.
    pub no_debug: bool,
}

fn number(args: &Value, key: &str) -> Result<Option<u64>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a whole number")),
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("`{key}`: `{s}` is not a whole number")),
        Some(other) => Err(format!("`{key}` must be a number, not {other}")),
    }
}

fn dims(args: &Value, key: &str) -> Result<[u32; 3], String> {
    let mut out = [1u32; 3];
    let parts: Vec<u64> = match args.get(key) {
        None | Some(Value::Null) => return Ok(out),
        Some(Value::Number(n)) => vec![n.as_u64().ok_or_else(|| format!("bad `{key}`"))?],
        Some(Value::String(s)) => s
            .split(',')
            .map(|p| p.trim().parse::<u64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("`{key}`: `{s}` is not X[,Y,Z]"))?,
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_u64()
                    .ok_or_else(|| format!("`{key}`: {v} is not a number"))
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(format!("`{key}` must be [x, y, z], not {other}")),
    };
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{key}` takes one to three dimensions"));
    }
    for (slot, part) in out.iter_mut().zip(parts) {
        *slot = u32::try_from(part).map_err(|_| format!("`{key}`: {part} is too large"))?;
    }
    Ok(out)
}

fn sets(args: &Value) -> Result<Vec<(String, String)>, String> {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match args.get("set") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(map)) => Ok(map.iter().map(|(k, v)| (k.clone(), text(v))).collect()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => s
                    .split_once('=')
                    .map(|(r, v)| (r.trim().to_owned(), v.trim().to_owned()))
                    .ok_or_else(|| format!("`set`: `{s}` is not REG=VALUE")),
                Value::Array(pair) if pair.len() == 2 => Ok((text(&pair[0]), text(&pair[1]))),
                other => Err(format!("`set`: {other} is not REG=VALUE")),
            })
            .collect(),
        Some(other) => Err(format!("`set` must be a list, not {other}")),
    }
}

/// Blanks the text outside an LSP range (keeping line breaks), so that the
/// region runs alone with its own line numbers.
fn region(text: &str, range: &Value) -> Result<String, String> {
    let pos = |key: &str| -> Result<LineCol, String> {
        let p = &range[key];
        let field = |f: &str| {
            p[f].as_u64()
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| format!("`range.{key}.{f}` must be a number"))
        };
        Ok(LineCol {
            line: field("line")?,
            col: field("character")?,
        })
    };
    let index = LineIndex::new(text);
    let start = index.offset(text, pos("start")?, PositionEncoding::Utf16);
    let end = index.offset(text, pos("end")?, PositionEncoding::Utf16);
    Ok(text
        .char_indices()
        .map(|(i, c)| {
            if (start..end).contains(&i) || c == '\n' || c == '\r' {
                c
            } else {
                ' '
            }
        })
        .collect())
}

fn describe(error: &RunError, path: &str, text: &str) -> String {
    match &error.range {
        Some(range) => {
            let line = text[..range.start.min(text.len())].matches('\n').count() + 1;
            format!("{path}:{line}: {}", error.message)
        }
        None => format!("{path}: {}", error.message),
    }
}

/// Errors that checking the file for `target` finds and checking it for
/// its own `.target` does not: what the file uses that the target lacks.
fn check_target(parse: &Parse, target: &str, path: &str, text: &str) -> Result<(), String> {
    use ptx_check::{check, CheckOptions, Severity};
    if ptx_isa::Isa::get().target(target).is_none() {
        return Err(format!(
            "`target`: `{target}` is not a target ptxas knows (e.g. sm_90a, sm_100a)"
        ));
    }
    let errors = |target_override: Option<String>| {
        let options = CheckOptions {
            target_override,
            ..CheckOptions::default()
        };
        check(parse, &options)
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .collect::<Vec<_>>()
    };
    let own = errors(None);
    let lacking: Vec<String> = errors(Some(target.to_owned()))
        .into_iter()
        .filter(|d| !own.iter().any(|o| o.range == d.range && o.code == d.code))
        .map(|d| {
            let line = text[..d.range.start.min(text.len())].matches('\n').count() + 1;
            format!("{path}:{line}: {} [{}]", d.message, d.code)
        })
        .collect();
    match lacking.as_slice() {
        [] => Ok(()),
        found => Err(format!(
            "the program does not fit target {target}:\n{}",
            found.join("\n")
        )),
    }
}

/// Reads the program and prepares the launch.
pub(crate) fn load(args: &Value) -> Result<Loaded, String> {
    let path = args
        .get("program")
        .and_then(Value::as_str)
        .ok_or("the launch configuration needs `program`: the PTX file to debug")?
        .to_owned();
    let mut text =
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    if let Some(range) = args.get("range").filter(|r| !r.is_null()) {
        text = region(&text, range)?;
    }
    let parse = Parse::new(text.as_str());
    if let Some(target) = args.get("target").filter(|t| !t.is_null()) {
        let target = target
            .as_str()
            .ok_or("`target` must be a name like `sm_90a`")?;
        check_target(&parse, target, &path, &text)?;
    }
    let cluster = dims(args, "cluster")?;
    if cluster.iter().map(|&d| u64::from(d)).product::<u64>() > 1 {
        return Err(format!(
            "`cluster` [{}, {}, {}]: the interpreter runs every CTA as a cluster of one \
             (`%cluster_nctarank` is 1); launch with `cluster` [1, 1, 1] or leave it out",
            cluster[0], cluster[1], cluster[2]
        ));
    }
    let max_steps = number(args, "maxSteps")?.unwrap_or(DEFAULT_MAX_STEPS);
    let contract = !args
        .get("noContract")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let no_debug = args
        .get("noDebug")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let stop_on_entry = !no_debug
        && args
            .get("stopOnEntry")
            .and_then(Value::as_bool)
            .unwrap_or(false);
    let entry = args
        .get("entry")
        .or_else(|| args.get("kernel"))
        .and_then(Value::as_str)
        .filter(|e| !e.is_empty());
    let mut buffer_types = Vec::new();
    let target = match entry {
        Some(entry) => {
            let mut parsed = Vec::new();
            for (i, arg) in args
                .get("args")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let spec = arg
                    .as_str()
                    .ok_or_else(|| format!("`args[{i}]` must be a string like `u32:5`"))?;
                parsed.push(parse_arg(spec)?);
                buffer_types.push(
                    spec.strip_prefix("buf:")
                        .and_then(|r| r.split_once(':'))
                        .map(|(ty, _)| ty.to_owned())
                        .filter(|ty| ty != "hex"),
                );
            }
            let options = KernelOptions {
                entry: entry.to_owned(),
                grid: dims(args, "grid")?,
                block: dims(args, "block")?,
                args: parsed,
                max_steps,
                hint_thread: 0,
                dynamic_smem: number(args, "dynamicSmem")?
                    .map(|n| u32::try_from(n).map_err(|_| "`dynamicSmem` is too large".to_owned()))
                    .transpose()?,
                contract,
                cluster: None,
            };
            DebugTarget::kernel(&parse, &options).map_err(|e| describe(&e, &path, &text))?
        }
        None => {
            let threads = number(args, "threads")?.unwrap_or(1);
            let options = SnippetOptions {
                threads: u32::try_from(threads).unwrap_or(u32::MAX),
                set: sets(args)?,
                max_steps,
                hint_thread: 0,
                contract,
            };
            DebugTarget::snippet(&parse, &options).map_err(|e| describe(&e, &path, &text))?
        }
    };
    Ok(Loaded {
        target,
        path,
        stop_on_entry,
        buffer_types,
        kernel: entry.is_some(),
        no_debug,
    })
}
