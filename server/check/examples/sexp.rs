fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let parse = ptx_syntax::Parse::new(text);
    print!("{}", parse.sexp());
    for i in parse.module().instructions() {
        println!(
            "{:?} {:?}",
            i.mnemonic().map(|t| t.text),
            i.qualifiers().iter().map(|q| q.text).collect::<Vec<_>>()
        );
        for o in i.operands() {
            println!(
                "   {:?} {:?} regs={:?} ids={:?}",
                o.text(),
                o.kind(),
                o.registers().iter().map(|t| t.text).collect::<Vec<_>>(),
                o.identifiers().iter().map(|t| t.text).collect::<Vec<_>>()
            );
        }
    }
}
