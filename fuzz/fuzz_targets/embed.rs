//! Inline-asm extraction and checking on arbitrary C++/CUDA text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let options = ptx_embed::EmbedOptions::default();
    let document = ptx_embed::HostDocument::new(&text, &options);
    let _ = ptx_embed::check::check(&document, &[]);
    let len = text.len();
    for offset in [0, len / 3, len / 2, len] {
        if text.is_char_boundary(offset) {
            let _ = ptx_embed::ide::hover(&document, offset, &Default::default());
            let _ = ptx_embed::ide::complete(&document, offset);
        }
    }
    let _ = ptx_embed::ide::inlay_hints(&document, 0..len);
    // An edit in the middle, read incrementally against the first reading.
    let edited = format!("{}\n{}", &text[..floor(&text, len / 2)], &text[floor(&text, len / 2)..]);
    let _ = ptx_embed::HostDocument::new_incremental(&edited, &options, Some(&document));
});

fn floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
