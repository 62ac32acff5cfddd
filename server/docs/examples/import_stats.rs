//! Imports a document into a scratch cache and prints the figures: import time, index size,
//! load time and lookup time. `cargo run --release -p ptx-docs --example import_stats -- PATH`

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let Some(path) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: import_stats PATH [CACHE_DIR]");
        std::process::exit(2);
    };
    let cache = std::env::args_os()
        .nth(2)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::temp_dir().join(format!("ptx-docs-stats-{}", std::process::id()))
        });
    let report =
        match ptx_docs::import_with(&path, &cache, &ptx_docs::ImportOptions { force: true }) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        };
    println!("{report:#?}");
    let t = Instant::now();
    let index = ptx_docs::SpecIndex::load(&cache).expect("load");
    println!("load: {:?}", t.elapsed());
    let timing = ptx_docs::measure_lookups(&index, 20);
    println!("{timing:#?}");
    if let Ok(what) = std::env::var("PTX_DOCS_HOVER") {
        let (name, q) = what.split_once(' ').unwrap_or((&what, ""));
        let e = index
            .lookup(name)
            .or_else(|| index.directive(name))
            .or_else(|| index.special_register(name));
        match (e, q) {
            (Some(e), "") => println!("{}", e.hover_markdown(ptx_docs::Part::Opcode)),
            (Some(e), "full") => println!("{}", e.hover_markdown(ptx_docs::Part::Full)),
            (Some(e), q) => println!("{}", e.hover_markdown(ptx_docs::Part::Qualifier(q))),
            (None, _) => println!("not found"),
        }
    }
    if std::env::var_os("PTX_DOCS_DUMP").is_some() {
        for e in index.entries() {
            println!(
                "{} {:?} {:?} {} {:?}",
                e.number, e.kind, e.names, e.title, e.anchor
            );
        }
    }
}
