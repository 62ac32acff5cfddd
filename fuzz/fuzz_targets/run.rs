//! `run` of an arbitrary snippet (first byte: thread count), with a small step limit, and of
//! an entry named `k` when the text has one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptx_interp::{run_kernel, run_snippet, KernelOptions, SnippetOptions};
use ptx_syntax::Parse;

fuzz_target!(|data: &[u8]| {
    let Some((&threads, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).into_owned();
    let parse = Parse::new(text.as_str());
    if parse.too_deep().is_some() {
        return;
    }
    let options = SnippetOptions {
        threads: u32::from(threads % 70) + 1,
        max_steps: 20_000,
        ..SnippetOptions::default()
    };
    let _ = run_snippet(&parse, &options);
    if text.contains(".entry k") {
        let options = KernelOptions {
            entry: "k".into(),
            grid: [2, 1, 1],
            block: [u32::from(threads % 70) + 1, 1, 1],
            max_steps: 20_000,
            ..KernelOptions::default()
        };
        let _ = run_kernel(&parse, &options);
    }
});
