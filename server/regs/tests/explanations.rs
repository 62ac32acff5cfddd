//! Snapshot tests of counts, explanations and errors across the families.

use expect_test::{expect, Expect};
use ptx_regs::register_counts;

fn check(text: &str, expect: Expect) {
    let out = match register_counts(text) {
        Ok(rc) => rc
            .vectors
            .iter()
            .map(|v| {
                format!(
                    "#{} {} {}x{}b: {}",
                    v.operand, v.role, v.registers, v.register_bits, v.explanation
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => format!("error at {:?}: {}", e.component, e.message),
    };
    expect.assert_eq(&out);
}

#[test]
fn wmma() {
    check(
        "wmma.load.a.sync.aligned.row.m32n8k16.bf16 {%r0}, [%rd1], 16;",
        expect![
            "#0 a 8x32b: wmma .m32n8k16 .bf16 A fragment = 8 registers of 32 bits, 2 elements each"
        ],
    );
    check(
        "wmma.store.d.sync.aligned.row.m8n8k4.f64",
        expect!["#1 d 2x64b: wmma .m8n8k4 .f64 D fragment = 2 registers of 64 bits"],
    );
    check(
        "wmma.load.a.sync.aligned.col.m8n8k32.s4",
        expect!["error at Some(5): sub-byte and single-bit wmma needs matrix A as .row, not .col"],
    );
    check(
        "wmma.load.b.sync.aligned.row.m16n16k16.tf32",
        expect!["error at Some(7): wmma .m16n16k16 has no .tf32 multiplicand fragment; .tf32 goes with .m16n16k8"],
    );
}

#[test]
fn mma() {
    check(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        expect![[r#"
            #0 d 4x32b: D tile 16x8 .f32 (32-bit) over 32 threads = 4 × 32-bit registers
            #1 a 4x32b: A tile 16x16 .bf16 (16-bit) over 32 threads = 4 × 32-bit registers
            #2 b 2x32b: B tile 16x8 .bf16 (16-bit) over 32 threads = 2 × 32-bit registers
            #3 c 4x32b: C tile 16x8 .f32 (32-bit) over 32 threads = 4 × 32-bit registers"#]],
    );
    check(
        "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16",
        expect![[r#"
            #0 d 2x32b: D tile 16x8 .f16 (16-bit) over 32 threads = 2 × 32-bit registers
            #1 a 4x32b: A tile 16x32 .f16 (16-bit) over 32 threads, halved for 2:4 sparsity = 4 × 32-bit registers
            #2 b 4x32b: B tile 32x8 .f16 (16-bit) over 32 threads = 4 × 32-bit registers
            #3 c 2x32b: C tile 16x8 .f16 (16-bit) over 32 threads = 2 × 32-bit registers"#]],
    );
    check(
        "mma.sync.aligned.m16n8k8.col.row.f32.f16.f16.f32",
        expect!["error at Some(4): mma.m16n8k8 with .f16 only exists as .row.col"],
    );
}

#[test]
fn wgmma_matrix_vector() {
    check(
        "wgmma.mma_async.sync.aligned.m64n72k16.f16.f16.f16",
        expect![[r#"
            #0 d 18x32b: D is 64x72 over 128 threads = 36 .f16 each, packed two per register = N/4 = 18
            #1 a 4x32b: A from registers (instead of a descriptor): 64x16 .f16 over 128 threads = 4 × 32-bit registers"#]],
    );
    check(
        "wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8",
        expect!["error at Some(4): N = 40 is not valid for .s8 wgmma: N must be 8, 16, 24, 32, then multiples of 16 up to 256"],
    );
    check(
        "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8",
        expect!["#0 r 4x32b: .m16n16 = 2 registers per matrix × x2 = 4"],
    );
    check(
        "ld.global.v4.b64",
        expect!["#0 d 4x64b: .v4 = 4 registers of 64 bits, one per .b64 element"],
    );
    check(
        "mov.b64 {%r1, %r2}, %rd1;",
        expect!["#0 packed 2x32b: a .b64 value packs 2 × 32-bit registers (or 4 × 16-bit)"],
    );
}
