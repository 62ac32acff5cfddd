//! Cluster launches, the cluster barrier, tensor-map arguments and the
//! `wgmma` accumulator rule: what runs, what is refused before the launch,
//! and the faults where the GPU would hang, trap or leave a value undefined.

use ptx_interp::{parse_arg, run_kernel, KernelOptions, RunErrorKind};
use ptx_syntax::Parse;

const HEADER: &str = ".version 8.4\n.target sm_90a\n.address_size 64\n";

fn launch(
    body: &str,
    grid: u32,
    block: u32,
    cluster: Option<[u32; 3]>,
    args: &[&str],
) -> Result<ptx_interp::RunResult, ptx_interp::RunError> {
    let parse = Parse::new(format!("{HEADER}{body}"));
    run_kernel(
        &parse,
        &KernelOptions {
            entry: "k".into(),
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            args: args
                .iter()
                .map(|a| parse_arg(a).expect("argument"))
                .collect(),
            cluster,
            ..KernelOptions::default()
        },
    )
}

fn error(body: &str, grid: u32, block: u32, cluster: Option<[u32; 3]>) -> (RunErrorKind, String) {
    match launch(body, grid, block, cluster, &["zeros:4096"]) {
        Ok(_) => panic!("the launch completed"),
        Err(e) => (e.kind, e.message),
    }
}

const EXCHANGE: &str = ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.shared .align 4 .b32 w;\nmov.u32 %r0, %cluster_ctarank;\nmov.u32 %r1, %cluster_nctarank;\nmov.u32 %r2, w;\nst.shared.u32 [%r2], %r0;\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\nadd.u32 %r3, %r0, 1;\nrem.u32 %r3, %r3, %r1;\nmapa.shared::cluster.u32 %r4, %r2, %r3;\nld.shared::cluster.u32 %r5, [%r4];\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\nmov.u32 %r6, %ctaid.x;\nld.param.u64 %rd0, [out];\nmul.wide.u32 %rd1, %r6, 4;\nadd.u64 %rd0, %rd0, %rd1;\nst.global.u32 [%rd0], %r5;\nret;\n}\n";

#[test]
fn ctas_of_a_cluster_read_each_other() {
    let result = launch(EXCHANGE, 4, 32, Some([2, 1, 1]), &["zeros:16"]).expect("runs");
    // Each CTA reads the next rank's word: ranks 1, 0 in both clusters.
    assert_eq!(
        result.buffers[0].bytes,
        [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    );
    // Without clusters every CTA is rank 0 of its own.
    let result = launch(EXCHANGE, 4, 32, None, &["zeros:16"]).expect("runs");
    assert_eq!(result.buffers[0].bytes, [0; 16]);
}

#[test]
fn cluster_shapes_are_checked_before_the_launch() {
    let (kind, message) = error(EXCHANGE, 3, 32, Some([2, 1, 1]));
    assert_eq!(kind, RunErrorKind::Usage);
    assert_eq!(
        message,
        "--grid 3,1,1: each dimension must be a multiple of the cluster's 2,1,1"
    );
    let (_, message) = error(EXCHANGE, 32, 32, Some([32, 1, 1]));
    assert_eq!(message, "cluster 32,1,1: a cluster has 1 to 16 CTAs");
    let declared = EXCHANGE.replace(
        "(.param .u64 out)\n",
        "(.param .u64 out)\n.reqnctapercluster 2\n",
    );
    let (_, message) = error(&declared, 4, 32, Some([4, 1, 1]));
    assert_eq!(
        message,
        "--cluster 4,1,1: `k` declares .reqnctapercluster 2,1,1"
    );
    let explicit = EXCHANGE.replace(
        "(.param .u64 out)\n",
        "(.param .u64 out)\n.explicitcluster\n",
    );
    let (_, message) = error(&explicit, 4, 32, None);
    assert_eq!(
        message,
        "`k` is .explicitcluster: give the cluster shape with --cluster X,Y,Z"
    );
}

#[test]
fn mapa_outside_the_cluster_faults() {
    let body = ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.shared .b32 w;\nmov.u32 %r0, w;\nmapa.shared::cluster.u32 %r1, %r0, 2;\nret;\n}\n";
    let (kind, message) = error(body, 2, 32, Some([2, 1, 1]));
    assert_eq!(kind, RunErrorKind::Fault);
    assert_eq!(message, "mapa: CTA rank 2 is outside the cluster of 2 CTAs");
}

#[test]
fn a_cluster_wait_without_arrive_faults() {
    let body = ".visible .entry k(.param .u64 out)\n{\nbarrier.cluster.wait;\nret;\n}\n";
    let (_, message) = error(body, 2, 32, Some([2, 1, 1]));
    assert_eq!(message, "barrier.cluster.wait without a barrier.cluster.arrive before it: the thread would wait for its own arrival (the GPU would hang)");
}

#[test]
fn a_cluster_barrier_one_cta_never_reaches_deadlocks() {
    // Rank 1 waits at a CTA barrier no thread can complete, so rank 0 waits
    // at the cluster barrier for ever.
    let body = ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<2>;\n.reg .pred %p;\nmov.u32 %r0, %cluster_ctarank;\nsetp.eq.u32 %p, %r0, 1;\n@%p bar.sync 0, 64;\nbarrier.cluster.arrive;\nbarrier.cluster.wait;\nret;\n}\n";
    let (_, message) = error(body, 2, 32, Some([2, 1, 1]));
    assert_eq!(message, "deadlock: no barrier can complete, so the GPU would hang: threads 0-31 wait at barrier.cluster.wait on line 12 (it needs every thread of the cluster's 2 CTAs that has not exited to arrive, 32 arrived)");
}

#[test]
fn tensor_map_arguments_are_checked() {
    let ok = parse_arg("tmap:f16:64,32:128:64,16:128:1").expect("a tensor map");
    assert!(matches!(ok, ptx_interp::ArgSpec::TensorMap(_)));
    for (spec, message) in [
        (
            "tmap:f16:64,32:128:64,16:64:1",
            "the box's inner dimension (128 bytes) exceeds the 64-byte swizzle",
        ),
        (
            "tmap:f16:64,32:120:64,16:none:1",
            "strides must be multiples of 16 below 2^40",
        ),
        (
            "tmap:f16:64,32:128:4,16:none:1",
            "the box's inner dimension is 8 bytes: it must be a multiple of 16",
        ),
        (
            "tmap:f16:64,32:-:64,16:none:1",
            "0 strides for 2 dimensions: give one per dimension after the first",
        ),
        (
            "tmap:u16:64:-:64:none:1:oob=nan",
            "oob=nan needs a floating-point element type",
        ),
        (
            "tmap:f16:8,40:16:8,8:none:1:interleave=16",
            "an interleaved tensor map has 3 to 5 dimensions",
        ),
        (
            "tmap:f16:8,10,6:16,160:8,4,3:32:1:interleave=32",
            "with the 32-byte interleave, strides must be multiples of 32",
        ),
        (
            "tmap:f16:8,10,6:16,160:8,4,3:none:1:interleave=8",
            "interleave `8`: none, 16 or 32",
        ),
        ("tmap:f16:64:-:512:none:1", "box sizes are 1 to 256"),
        (
            "tmap:i8:64:-:64:none:1",
            "unknown element type `i8` (one of u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32.ftz \
             tf32 tf32.ftz)",
        ),
        // im2col maps (`lower=`/`upper=`): CHANNELS,PIXELS, corners per
        // W/H/D dimension within the rank's range.
        (
            "tmap:f16:8,9,6,2:16,144,864:8,64:none:1:lower=-1,-1",
            "an im2col map needs both lower= and upper=",
        ),
        (
            "tmap:f16:8,9,6,2:16,144,864:8,64,1,1:none:1:lower=-1,-1:upper=-1,-1",
            "an im2col map's box is CHANNELS,PIXELS",
        ),
        (
            "tmap:f16:8,9,6,2:16,144,864:8,64:none:1:lower=-1:upper=-1",
            "lower= and upper= give 2 values each for 4 dimensions",
        ),
        (
            "tmap:f16:8,9,6,2:16,144,864:8,64:none:1:lower=-200,0:upper=0,0",
            "im2col corners of a 4-dimensional map are -128 to 127",
        ),
        (
            "tmap:f16:8,9,6,2:16,144,864:8,2048:none:1:lower=0,0:upper=0,0",
            "an im2col box has 1 to 256 channels and 1 to 1024 pixels",
        ),
        (
            "tmap:f16:64,32:128:64,16:none:1:lower=0:upper=0",
            "im2col maps have 3 to 5 dimensions",
        ),
    ] {
        assert_eq!(
            parse_arg(spec),
            Err(format!("argument `{spec}`: {message}"))
        );
    }
}

#[test]
fn a_tensor_map_needs_a_buffer_argument() {
    let body = ".visible .entry k(.param .align 64 .b8 map[128], .param .u64 out)\n{\nret;\n}\n";
    let parse = Parse::new(format!("{HEADER}{body}"));
    let options = KernelOptions {
        entry: "k".into(),
        args: ["tmap:u32:64:-:16:none:0", "zeros:256"]
            .iter()
            .map(|a| parse_arg(a).expect("argument"))
            .collect(),
        ..KernelOptions::default()
    };
    let message = run_kernel(&parse, &options).expect_err("refused").message;
    assert_eq!(
        message,
        "--arg 0: the tensor map's buffer, argument 0, is not a buffer"
    );
}

#[test]
fn an_accumulator_read_before_the_wait_faults() {
    // Two f16 A/B descriptors of zeros and an m64n8k16 with an f32
    // accumulator: reading %f0 between commit_group and wait_group faults.
    let body = ".visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<4>;\n.reg .b64 %rd<2>;\n.reg .pred %p;\n.shared .align 1024 .b8 tile[8192];\nmov.u64 %rd0, 0x4000004000000000;\nsetp.eq.u32 %p, 1, 1;\nwgmma.fence.sync.aligned;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd0, %rd0, %p, 1, 1, 0, 0;\nwgmma.commit_group.sync.aligned;\nadd.f32 %f1, %f0, %f0;\nwgmma.wait_group.sync.aligned 0;\nret;\n}\n";
    let e = launch(body, 1, 128, None, &["zeros:16"]).expect_err("faults");
    let text = format!("{HEADER}{body}");
    let line = e.range.map(|r| text[..r.start].lines().count() + 1);
    assert_eq!(line, Some(15), "the fault is at the read");
    let message = e.message;
    assert_eq!(message, "`%f0` is an accumulator of the wgmma.mma_async on line 13, used before a wgmma.wait_group covers it (the GPU's value is undefined until then)");
    let fixed = body.replace(
        "add.f32 %f1, %f0, %f0;\nwgmma.wait_group.sync.aligned 0;\n",
        "wgmma.wait_group.sync.aligned 0;\nadd.f32 %f1, %f0, %f0;\n",
    );
    launch(&fixed, 1, 128, None, &["zeros:16"]).expect("runs");
}

/// `tensormap.replace` fields the interpreter does not model stop the run
/// where they are reached; a map built field by field in shared memory and
/// copied out reads back with the fields in place.
#[test]
fn tensormap_replace_builds_maps_and_refuses_what_it_does_not_model() {
    let head = ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.shared .align 128 .b8 m[128];\nmov.u32 %r0, m;\n";
    for (line, message) in [
        (
            "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r0], 13;",
            "tensormap.replace.elemtype 13 (a packed type) is not supported by the interpreter",
        ),
        (
            "tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%r0], 3;",
            "tensormap.replace.interleave_layout 3 is undefined",
        ),
        (
            "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r0], %r1, 8;",
            "tensormap.replace: the ordinal is an immediate 0 to 4",
        ),
    ] {
        let body = format!("{head}{line}\nret;\n}}\n");
        let (_, got) = error(&body, 1, 32, None);
        assert!(got.contains(message), "{got}");
    }
    // rank 2 (field 1), f16 (code 6), 128-byte swizzle (3), box 64 x 32,
    // then copied to global memory and read back in the interpreter's layout.
    let body = format!(
        "{head}mov.b64 %rd1, 0x1000;\n\
         tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r0], %rd1;\n\
         tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r0], 1;\n\
         tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r0], 6;\n\
         tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r0], 3;\n\
         tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r0], 1, 32;\n\
         ld.param.u64 %rd0, [out];\n\
         tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd0], [%r0], 128;\n\
         ret;\n}}\n"
    );
    let result = launch(&body, 1, 32, None, &["zeros:128"]).expect("runs");
    let map = &result.buffers[0].bytes;
    assert_eq!(&map[0..8], b"TMAP\x02\x06\x04\x00");
    assert_eq!(map[8..16], 0x1000u64.to_le_bytes());
    assert_eq!(map[98..100], [32, 0]);
}

/// Stores and reductions take `.im2col_no_offs` and loads `.im2col`, as
/// ptxas 13.5 requires; the other way round stops the run where reached.
#[test]
fn im2col_modes_belong_to_their_direction() {
    let head = ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.shared .align 128 .b8 m[128];\nmov.u32 %r0, m;\nld.param.u64 %rd1, [out];\n";
    for (line, message) in [
        (
            "cp.async.bulk.tensor.3d.global.shared::cta.im2col.bulk_group [%rd1, {%r1, %r2, %r3}], [%r0];",
            "cp.async.bulk.tensor stores and reductions take .im2col_no_offs, not .im2col",
        ),
        (
            "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col.bulk_group [%rd1, {%r1, %r2, %r3}], [%r0];",
            "cp.async.bulk.tensor stores and reductions take .im2col_no_offs, not .im2col",
        ),
        (
            "cp.async.bulk.tensor.3d.shared::cluster.global.im2col_no_offs.mbarrier::complete_tx::bytes [%r0], [%rd1, {%r1, %r2, %r3}], [%r0];",
            "cp.async.bulk.tensor .im2col_no_offs is for stores and reductions (loads take .im2col)",
        ),
        (
            "cp.async.bulk.tensor.2d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r1, %r2}], [%r0];",
            "cp.async.bulk.tensor .im2col_no_offs needs .3d to .5d",
        ),
    ] {
        let body = format!("{head}{line}\nret;\n}}\n");
        let (_, got) = error(&body, 1, 32, None);
        assert!(got.contains(message), "{got}");
    }
}

/// `fixtures/tmap_encode.txt` (`tests/interp/tmap_layout_fixtures.py
/// --encode`): which parameters cuTensorMapEncodeTiled accepted on the GPU's
/// driver over a grid of element types, first-dimension and box bytes,
/// swizzles, interleaves, ranks, first element strides and stride
/// alignments, and the NaN fill with each element type. `tmap:` arguments
/// are accepted exactly where it accepted them. Rows with the tensor's address 16 bytes past a 32-byte boundary
/// are left out: a `tmap:` argument's buffer starts on a 256-byte one.
#[test]
fn tensor_map_checks_agree_with_the_driver() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tmap_encode.txt");
    let text = std::fs::read_to_string(path).expect("fixtures/tmap_encode.txt");
    let (d0s, box0s, swizzles) = (
        [8u64, 16, 24, 32, 64, 128],
        [8u64, 16, 24, 32, 48, 64, 128],
        ["none", "32", "64", "128"],
    );
    let (mut agree, mut checked, mut differ) = (0, 0, Vec::new());
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("oob"))
    {
        let words: Vec<&str> = line.split(' ').collect();
        let field = |key: &str| words.iter().find_map(|w| w.strip_prefix(key)).expect(key);
        if field("addr+") != "0" {
            continue;
        }
        let ty = words[0];
        let size = match ty {
            "u8" => 1,
            "f16" => 2,
            "f32" => 4,
            _ => 8,
        };
        let interleave = field("interleave=");
        let rank: usize = field("rank=").parse().expect("rank");
        let es0 = field("es0=");
        let unit: u64 = if field("stride%").starts_with("16") {
            16
        } else {
            32
        };
        let marks: Vec<char> = words[6..].concat().chars().collect();
        let mut at = 0;
        for d0 in d0s {
            for b0 in box0s {
                for swizzle in swizzles {
                    let mark = marks[at];
                    at += 1;
                    if mark == '.' {
                        continue;
                    }
                    let mut row = d0.div_ceil(unit) * unit;
                    if unit == 16 && row.is_multiple_of(32) {
                        row += 16;
                    }
                    let join =
                        |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
                    let dims = join(&[d0 / size, 6, 5, 3][..rank]);
                    let strides = join(&[row, row * 6, row * 30][..rank - 1]);
                    let boxes = join(&[b0 / size, 2, 2, 2][..rank]);
                    let estrides = [es0, "1", "1", "1"][..rank].join(",");
                    let spec = format!(
                        "tmap:{ty}:{dims}:{strides}:{boxes}:{swizzle}:0:estrides={estrides}:interleave={interleave}"
                    );
                    let accepted = parse_arg(&spec).is_ok();
                    checked += 1;
                    if accepted == (mark == '+') {
                        agree += 1;
                    } else {
                        differ.push(format!("{spec}: driver {mark}"));
                    }
                }
            }
        }
    }
    // `oob=nan TYPE +|-`: the NaN fill over a 3-dimensional map of 64-byte
    // rows and a 16-byte wide box.
    let mut fills = 0;
    for line in text.lines().filter(|l| l.starts_with("oob=nan ")) {
        let words: Vec<&str> = line.split(' ').collect();
        let (ty, mark) = (words[1], words[2]);
        let size = match ty {
            "u8" => 1,
            "u16" | "f16" | "bf16" => 2,
            _ => 4,
        };
        let spec = format!(
            "tmap:{ty}:{},4,3:64,256:{},2,2:none:0:oob=nan",
            64 / size,
            16 / size
        );
        checked += 1;
        fills += 1;
        if parse_arg(&spec).is_ok() == (mark == "+") {
            agree += 1;
        } else {
            differ.push(format!("{spec}: driver {mark}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {checked} differ: {:#?}",
        differ.len(),
        &differ[..differ.len().min(20)]
    );
    assert_eq!(agree, checked);
    assert!(checked > 5000, "only {checked} encodings checked");
    assert_eq!(fills, 11, "oob=nan lines");
}

/// A map whose box `tensormap.replace` left zero, and a box whose image is
/// larger than any CTA's shared memory (slices of an interleaved map make
/// it 16 times the elements), fault at the copy instead of walking it.
#[test]
fn tensor_copies_of_impossible_boxes_fault() {
    let copy = "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
                [%r1], [%rd1, {%r3, %r3, %r3, %r3}], [%r2];";
    let head = ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
                .shared .align 128 .b8 m[128];\n.shared .align 128 .b8 t[1024];\n\
                .shared .align 8 .b64 bar;\nmov.u32 %r1, t;\nmov.u32 %r2, bar;\nmov.u32 %r3, 0;\n\
                mbarrier.init.shared::cta.b64 [%r2], 1;\n";
    let body = format!(
        "{head}mov.u32 %r0, m;\ntensormap.replace.tile.rank.shared::cta.b1024.b32 [%r0], 3;\n\
         mov.u64 %rd1, m;\ncvta.shared.u64 %rd1, %rd1;\n{copy}\nret;\n}}\n"
    );
    let (_, message) = error(&body, 1, 32, None);
    assert!(
        message.contains("or element strides [0, 0, 0, 0] hold a zero"),
        "{message}"
    );
    let map = ".visible .entry k(.param .align 64 .b8 map[128])\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n\
               .shared .align 128 .b8 t[1024];\n.shared .align 8 .b64 bar;\nmov.u32 %r1, t;\n\
               mov.u32 %r2, bar;\nmov.u32 %r3, 0;\nmbarrier.init.shared::cta.b64 [%r2], 1;\n\
               mov.u64 %rd0, map;\ncvta.param.u64 %rd1, %rd0;\n";
    for spec in [
        "tmap:u8:256,256,256,4:256,65536,16777216:256,256,256,1:none:1",
        "tmap:f16:8,256,256,4:16,4096,1048576:256,256,1,4:none:1:interleave=16",
    ] {
        let result = launch(
            &format!("{map}{copy}\nret;\n}}\n"),
            1,
            32,
            None,
            &[spec, "zeros:33554432"],
        );
        let message = result.err().map(|e| e.message).unwrap_or_default();
        assert!(
            message.contains("more than a CTA's shared memory"),
            "{spec}: {message}"
        );
    }
}
