//! Which files are read as CUDA C++ and which as PTX: by extension where it says, by the
//! text otherwise.

use ptx_embed::{file_kind, FileKind};

const CUDA: &str = "#pragma once\ntemplate <int N>\n__device__ void f(unsigned& x) { asm volatile(\"add.u32 %0, %0, 1;\" : \"+r\"(x)); }\n";
const PTX: &str = "// generated\n.version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
const SNIPPET: &str = "\t.reg .b32 %r<4>;\n\tadd.u32 %r1, %r2, 1;\n";

#[test]
fn extensions_and_contents() {
    let kind = |path: &str, text: &str| file_kind(path, text, &[]);
    // C/C++/CUDA extensions, whatever the text.
    for path in [
        "a.cu",
        "a.cuh",
        "a.h",
        "a.hpp",
        "a.inl",
        "a.cc",
        "dir.v2/a.CU",
    ] {
        assert_eq!(kind(path, SNIPPET), FileKind::Host, "{path}");
    }
    // `.ptx` is PTX, whatever the text.
    assert_eq!(kind("a.ptx", CUDA), FileKind::Ptx);
    // Other names: by the text.
    for path in ["gemm.impl", "kernels.cu.inc", "noext", "x.txt"] {
        assert_eq!(kind(path, CUDA), FileKind::Host, "{path}");
        assert_eq!(kind(path, PTX), FileKind::Ptx, "{path}");
        assert_eq!(kind(path, SNIPPET), FileKind::Ptx, "{path}");
    }
    // A CUDA file that holds PTX in a raw string is still CUDA.
    let raw = "__device__ void f() { asm volatile(R\"(\n.reg .b32 t;\n)\"); }\n";
    assert_eq!(kind("a.impl", raw), FileKind::Host);
    // Extra extensions from the settings, with or without the dot.
    let extra = ["impl".to_string(), ".kern".to_string()];
    assert_eq!(file_kind("a.impl", SNIPPET, &extra), FileKind::Host);
    assert_eq!(file_kind("a.kern", SNIPPET, &extra), FileKind::Host);
}
