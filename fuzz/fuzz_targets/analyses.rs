//! Parse, check, tokens, formatting and the editor features on arbitrary bytes (read as
//! UTF-8, invalid sequences replaced, as the server reads files). None may panic, hang or
//! overflow the stack; a tree nesting past the limit is only checked, as in the server.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptx_syntax::Parse;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let parse = Parse::new(text.as_str());
    let _ = parse.syntax_errors();
    let _ = ptx_check::check(&parse, &ptx_check::CheckOptions::default());
    if parse.too_deep().is_some() {
        return;
    }
    let len = text.len();
    let _ = ptx_ide::semantic_tokens::semantic_tokens(&parse, None);
    let _ = ptx_ide::semantic_tokens::semantic_tokens(&parse, Some(len / 4..len / 2));
    let _ = ptx_ide::formatting::format_document(&parse, &Default::default());
    let _ = ptx_ide::formatting::format_range(&parse, len / 3..len, &Default::default());
    let _ = ptx_ide::folding::folding_ranges(&parse);
    let _ = ptx_ide::symbols::document_symbols(&parse);
    let _ = ptx_ide::symbols::workspace_symbols(&parse, "k");
    let _ = ptx_ide::inlay_hints::inlay_hints(&parse, 0..len);
    let offsets: Vec<usize> = [0, len / 5, len / 3, len / 2, 2 * len / 3, len]
        .into_iter()
        .filter(|&o| text.is_char_boundary(o))
        .collect();
    let _ = ptx_ide::selection::selection_ranges(&parse, &offsets);
    for &offset in &offsets {
        let _ = ptx_ide::hover::hover(&parse, offset, &Default::default());
        let _ = ptx_ide::completion::complete(&parse, offset, &Default::default());
        let _ = ptx_ide::signature::signature_help(&parse, offset);
        let _ = ptx_ide::navigation::goto_definition(&parse, offset);
        let _ = ptx_ide::navigation::find_references(&parse, offset, true);
        let _ = ptx_ide::navigation::document_highlights(&parse, offset);
        let _ = ptx_ide::navigation::prepare_rename(&parse, offset);
    }
});
