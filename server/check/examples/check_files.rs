//! Prints the checker's diagnostics for files, one per line (a development aid).
fn main() {
    let mut total = 0;
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("readable file");
        let start = std::time::Instant::now();
        let diagnostics = ptx_check::check_text(&text, &ptx_check::CheckOptions::default());
        let elapsed = start.elapsed();
        let index = ptx_syntax::LineIndex::new(&text);
        for d in &diagnostics {
            let pos = index.line_col(&text, d.range.start, ptx_syntax::PositionEncoding::Chars);
            println!(
                "{path}:{}:{}: {} [{}] {} `{}`",
                pos.line + 1,
                pos.col + 1,
                d.severity.as_str(),
                d.code,
                d.message,
                &text[d.range.clone()].chars().take(60).collect::<String>()
            );
        }
        total += diagnostics.len();
        eprintln!("{path}: {} diagnostics in {elapsed:?}", diagnostics.len());
    }
    eprintln!("total {total}");
}
