//! `bfi.b32` and `bfe.s32` with every immediate position and length ptxas
//! accepts (0..255), against the GPU's results
//! (`fixtures/bitfield_immediates.bin.zz`, from
//! `tests/interp/bitfield_immediates.py`): for bfi, per position, length and
//! input pair, then for bfe.s32 per position, length and input, the result
//! as a little-endian u32, zlib-compressed.

use std::path::Path;

use ptx_interp::{run_snippet, SnippetOptions};
use ptx_syntax::Parse;

const BFI_INPUTS: [(u32, u32); 4] = [
    (0xFFFF_FFFF, 0),
    (0, 0xFFFF_FFFF),
    (0x1234_5678, 0x9ABC_DEF0),
    (0x8000_0001, 0x7FFF_FFFE),
];
const BFE_INPUTS: [u32; 6] = [
    0,
    0xFFFF_FFFF,
    0x8000_0000,
    0x7FFF_FFFF,
    0x1234_5678,
    0xEDCB_A987,
];

#[test]
fn immediate_positions_and_lengths_agree_with_the_gpu() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bitfield_immediates.bin.zz");
    let packed = std::fs::read(path).expect("fixtures/bitfield_immediates.bin.zz");
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&packed).expect("zlib data");
    let gpu: Vec<u32> = raw
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(gpu.len(), 256 * 256 * 10);
    let (mut compared, mut differ) = (0usize, Vec::new());
    for (op, inputs) in [("bfi", 4usize), ("bfe", 6usize)] {
        let base = if op == "bfi" { 0 } else { 256 * 256 * 4 };
        for pos in 0..256usize {
            // One thread per input: thread k picks input k.
            let mut text = String::from(
                ".reg .b32 %a, %b, %t, %d<256>;\n.reg .pred %p;\nmov.u32 %t, %tid.x;\n",
            );
            for k in 0..inputs {
                let (a, b) = if op == "bfi" {
                    BFI_INPUTS[k]
                } else {
                    (BFE_INPUTS[k], 0)
                };
                text += &format!(
                    "setp.eq.u32 %p, %t, {k};\nselp.b32 %a, {a:#x}, %a, %p;\nselp.b32 %b, {b:#x}, %b, %p;\n"
                );
            }
            for len in 0..256 {
                if op == "bfi" {
                    text += &format!("bfi.b32 %d{len}, %a, %b, {pos}, {len};\n");
                } else {
                    text += &format!("bfe.s32 %d{len}, %a, {pos}, {len};\n");
                }
            }
            let parse = Parse::new(&text);
            let options = SnippetOptions {
                threads: inputs as u32,
                ..SnippetOptions::default()
            };
            let result = run_snippet(&parse, &options).expect("runs");
            for k in 0..inputs {
                let regs = &result.threads[k].registers;
                for len in 0..256 {
                    let want = gpu[base + (pos * 256 + len) * inputs + k];
                    let name = format!("%d{len}");
                    let got = regs
                        .iter()
                        .find(|r| r.name == name)
                        .map_or(u64::MAX, |r| r.bits);
                    compared += 1;
                    if got != u64::from(want) {
                        differ.push(format!(
                            "{op} pos {pos} len {len} input {k}: got {got:#x}, GPU {want:#x}"
                        ));
                    }
                }
            }
        }
    }
    println!("{compared} results compared, {} differ", differ.len());
    for d in differ.iter().take(20) {
        println!("  {d}");
    }
    assert!(differ.is_empty());
}
