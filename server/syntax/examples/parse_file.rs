//! Parses one file once: a target for profilers (`valgrind --tool=callgrind`).
fn main() {
    let path = std::env::args().nth(1).expect("usage: parse_file FILE");
    let text = std::fs::read_to_string(path).expect("readable file");
    let parse = ptx_syntax::Parse::new(text);
    println!("{:?}", parse.stats());
}
