//! Compares the two readings of where asm statements stand — from the text (a file whose
//! statements are all plain, see `ptx_embed::find`) and from the C++ parser's tree — over a
//! set of files: their guards, `#if` branches, `#define` bodies and inline-ness must agree.
//!
//! `cargo run --release -p ptx-embed --example place_compare -- FILE...` (a FILE argument
//! `@LIST` reads the paths from LIST, one a line). Prints each statement whose readings
//! differ and the counts; exits with 1 when any differs.

fn main() {
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        match arg.strip_prefix('@') {
            Some(list) => {
                let text = std::fs::read_to_string(list).expect("the list of files");
                files.extend(text.lines().filter(|l| !l.is_empty()).map(String::from));
            }
            None => files.push(arg),
        }
    }
    let (mut plain_files, mut statements, mut differ) = (0, 0, 0);
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let options = ptx_embed::EmbedOptions::for_file(std::path::Path::new(file), &text);
        let found = ptx_embed::find::find_with_macros(
            &text,
            None,
            &options.inline_macros,
            &options.guard_macros,
        );
        if found.tree.is_some() || found.statements.is_empty() {
            continue;
        }
        plain_files += 1;
        let parsed =
            ptx_embed::find::find_with_parser(&text, &options.inline_macros, &options.guard_macros);
        statements += found.statements.len();
        if found.statements.len() != parsed.statements.len() {
            println!(
                "{file}: {} statements from the text, {} from the tree",
                found.statements.len(),
                parsed.statements.len()
            );
            differ += 1;
            continue;
        }
        for (a, b) in found.statements.iter().zip(&parsed.statements) {
            if a != b {
                differ += 1;
                let line = text[..a.keyword.start].lines().count();
                let field = |name: &str, x: String, y: String| {
                    if x != y {
                        println!("{file}:{line}: {name}: text {x}, tree {y}");
                    }
                };
                field("guard", format!("{:?}", a.guard), format!("{:?}", b.guard));
                field(
                    "host_only",
                    a.host_only.to_string(),
                    b.host_only.to_string(),
                );
                field(
                    "newer_ptx",
                    format!("{:?}", a.newer_ptx),
                    format!("{:?}", b.newer_ptx),
                );
                field(
                    "compiled_on_use",
                    a.compiled_on_use.to_string(),
                    b.compiled_on_use.to_string(),
                );
                field(
                    "opaque_condition",
                    a.opaque_condition.to_string(),
                    b.opaque_condition.to_string(),
                );
                field("in_macro", a.in_macro.to_string(), b.in_macro.to_string());
                field("range", format!("{:?}", a.range), format!("{:?}", b.range));
            }
        }
    }
    println!(
        "{} files, {plain_files} with only plain statements ({statements} statements): {differ} differ",
        files.len()
    );
    if differ > 0 {
        std::process::exit(1);
    }
}
