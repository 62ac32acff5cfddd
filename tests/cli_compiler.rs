//! `ptx-lsp toolchain`, `resources` and `sass` with NVIDIA's tools from PyPI.
//!
//! These tests need ptxas and nvdisasm: `tools/install-cuda-tool.sh ptxas` and
//! `tools/install-cuda-tool.sh nvdisasm` install them into `~/.cache`, where the binary finds
//! them (as it finds a CUDA toolkit or a Python environment's wheels). They fail, never skip,
//! when the tools are missing.

mod cli_common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use cli_common::{ptx_lsp, root, stderr, stdout};
use serde_json::Value;

fn tool(name: &str) -> PathBuf {
    let out = ptx_lsp(&["toolchain", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let path = json[name]["path"].as_str().unwrap_or_else(|| {
        panic!(
            "no {name} found: install it with `tools/install-cuda-tool.sh {name}` ({})",
            stdout(&out)
        )
    });
    PathBuf::from(path)
}

/// Every PTX file of the corpus.
fn corpus() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root().join("tests/corpus")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The figures of a `ptxas -v` log, read here on their own (a second reading of the same
/// text, so that the one in the binary is checked against something else):
/// function → (registers, stack frame, spill stores, spill loads, static shared).
type Figures = BTreeMap<String, [Option<u64>; 5]>;

fn ptxas_figures(ptxas: &Path, file: &Path, target: &str) -> Option<Figures> {
    let out = Command::new(ptxas)
        .args(["-v", &format!("-arch={target}")])
        .arg(file)
        .args(["-o", "/dev/null"])
        .output()
        .unwrap();
    if !out.status.success() {
        return None;
    }
    let log =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    let mut figures = Figures::new();
    let mut entry = String::new();
    let mut properties: Option<String> = None;
    let number_before = |text: &str, what: &str| -> Option<u64> {
        let at = text.find(what)?;
        text[..at]
            .split([' ', ','])
            .rfind(|w| !w.is_empty())?
            .parse()
            .ok()
    };
    for line in log.lines() {
        if let Some(name) = properties.take() {
            let f = figures.entry(name).or_default();
            f[1] = number_before(line, " bytes stack frame");
            f[2] = number_before(line, " bytes spill stores");
            f[3] = number_before(line, " bytes spill loads");
            continue;
        }
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            entry = rest.split('\'').next().unwrap().to_owned();
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            properties = Some(rest.trim().to_owned());
        } else if line.contains(": Used ") {
            let f = figures.entry(entry.clone()).or_default();
            f[0] = number_before(line, " registers");
            f[4] = number_before(line, " bytes smem");
        }
    }
    Some(figures)
}

fn target_of(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(".target"))
        .and_then(|t| t.split([',', ' ', '\t']).find(|w| w.starts_with("sm_")))
        .map(str::to_owned)
}

#[test]
fn resources_match_ptxas_on_every_corpus_kernel() {
    let ptxas = tool("ptxas");
    let files = corpus();
    assert!(files.len() >= 40, "{} corpus files", files.len());
    let mut kernels = 0;
    let mut compared = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let Some(target) = target_of(&text) else {
            continue;
        };
        let rel = file
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let out = ptx_lsp(&["resources", "--format", "json", &rel]);
        let theirs = ptxas_figures(&ptxas, file, &target);
        let Some(theirs) = theirs else {
            assert_eq!(
                out.status.code(),
                Some(1),
                "{rel}: ptxas rejects it: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains("ptxas error"),
                "{rel}: {}",
                stderr(&out)
            );
            // A file ptxas rejects is one the checker rejects too (a ptxas-only error would
            // be a checker bug).
            let check = ptx_lsp(&["check", &rel]);
            assert_eq!(
                check.status.code(),
                Some(1),
                "{rel}: ptxas rejects it, the checker does not"
            );
            continue;
        };
        assert!(out.status.success(), "{rel}: {}", stderr(&out));
        let view: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(view["target"], target.as_str(), "{rel}");
        let ours: BTreeMap<String, &Value> = view["functions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["name"].as_str().unwrap().to_owned(), f))
            .collect();
        for (name, want) in &theirs {
            let f = ours.get(name).unwrap_or_else(|| {
                panic!("{rel}: ptxas reports `{name}`, we have no such function")
            });
            let figures = &f["figures"];
            let got = [
                figures["registers"].as_u64(),
                figures["stack_frame"].as_u64(),
                figures["spill_stores"].as_u64(),
                figures["spill_loads"].as_u64(),
                figures["shared"].as_u64(),
            ];
            assert_eq!(
                &got, want,
                "{rel}: `{name}` (registers, stack, spill stores, spill loads, shared)"
            );
            compared += 1;
            if f["entry"] == true {
                kernels += 1;
                if view["limits_known"] == false {
                    assert!(f["occupancy"].is_null());
                    continue;
                }
                assert!(
                    f["occupancy"]["blocks_per_sm"].is_u64(),
                    "{rel}: `{name}` has no occupancy: {f}"
                );
            }
        }
    }
    // The figures of this run, for the record (`cargo test -- --nocapture`).
    println!(
        "{} files, {compared} functions compared, {kernels} kernels",
        files.len()
    );
    assert!(kernels >= 100, "only {kernels} kernels compared");
}

#[test]
fn sass_links_each_instruction_to_its_ptx_line() {
    tool("nvdisasm");
    let file = "tests/corpus/nvcc/hopper_asm_sm_90a.ptx";
    let kernel = "_Z13hopper_kernelmPKfPfmmi";
    let out = ptx_lsp(&["sass", "--format", "json", "--kernel", kernel, file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let text = json["text"].as_str().unwrap();
    let lines = json["lines"].as_array().unwrap();
    assert_eq!(text.lines().count(), lines.len());
    assert_eq!(json["functions"][0]["name"], kernel);
    // The kernel's body in the PTX file.
    let ptx = std::fs::read_to_string(root().join(file)).unwrap();
    let ptx_lines: Vec<&str> = ptx.lines().collect();
    let first = ptx_lines.iter().position(|l| l.contains(kernel)).unwrap() + 1;
    let mut linked = 0;
    for (sass, ptx_line) in text.lines().zip(lines) {
        if let Some(n) = ptx_line.as_u64() {
            assert!(
                sass.starts_with("/*"),
                "{sass} has a PTX line but is no instruction"
            );
            assert!(
                n as usize >= first && n as usize <= ptx_lines.len(),
                "{sass} → line {n}"
            );
            linked += 1;
        }
    }
    let counted: u64 = json["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["instructions"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, linked);
    assert!(linked > 50, "{linked} instructions linked");
    // The `mbarrier.init` line is among the lines that became code.
    let init = ptx_lines
        .iter()
        .position(|l| l.trim_start().starts_with("mbarrier.init"))
        .unwrap()
        + 1;
    assert!(
        json["counts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["line"] == init as u64),
        "no SASS for line {init}"
    );
    // Human output: the PTX line in the first column.
    let human = ptx_lsp(&["sass", "--kernel", kernel, file]);
    assert!(human.status.success());
    assert!(
        stdout(&human)
            .lines()
            .any(|l| l.trim_start().starts_with(&format!("{init}  /*"))),
        "{}",
        stdout(&human)
    );
    // An unknown function names the ones there are.
    let none = ptx_lsp(&["sass", "--kernel", "nosuch", file]);
    assert_eq!(none.status.code(), Some(2));
    assert!(stderr(&none).contains(kernel), "{}", stderr(&none));
}

/// Instructions per function and per PTX line of an `nvdisasm -gp -c` listing, read here on
/// its own.
fn listing_counts(listing: &str) -> (BTreeMap<String, u32>, BTreeMap<u32, u32>) {
    let (mut functions, mut lines) = (BTreeMap::new(), BTreeMap::new());
    let (mut function, mut line) = (None::<String>, None::<u32>);
    for l in listing.lines() {
        let t = l.trim();
        if let Some(rest) = t.strip_prefix("//--------------------- .text.") {
            function = rest.split_whitespace().next().map(str::to_owned);
            line = None;
        } else if let Some(rest) = t.strip_prefix("//## File \".nv_debug_ptx_txt\", line ") {
            line = rest.trim().parse().ok();
        } else if t.starts_with("/*") && t.contains("*/") && t.ends_with(';') {
            if let Some(f) = &function {
                *functions.entry(f.clone()).or_insert(0) += 1;
            }
            if let Some(n) = line {
                *lines.entry(n).or_insert(0) += 1;
            }
        }
    }
    (functions, lines)
}

/// A large module is compiled as one `ptxas` run per core, its functions spread over the
/// runs; the view is the same machine code as one run over the whole module gives.
#[test]
fn sass_of_a_module_compiled_in_parts_is_that_of_the_whole() {
    let (ptxas, nvdisasm) = (tool("ptxas"), tool("nvdisasm"));
    let file = "tests/corpus/nvcc/cub_algorithms_sm_90a.ptx";
    let out = ptx_lsp(&["sass", "--format", "json", file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runs = json["ptxas_runs"].as_u64().unwrap();
    assert_eq!(runs, cores.min(8) as u64, "one ptxas run per core");
    // The same file in one run, disassembled by hand.
    let dir = std::env::temp_dir().join(format!("ptx-lsp-parts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cubin = dir.join("whole.cubin");
    let status = Command::new(&ptxas)
        .args(["-lineinfo", "-arch=sm_90a"])
        .arg(root().join(file))
        .arg("-o")
        .arg(&cubin)
        .status()
        .unwrap();
    assert!(status.success());
    let listing = Command::new(&nvdisasm)
        .args(["-gp", "-c"])
        .arg(&cubin)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let (functions, lines) = listing_counts(&String::from_utf8_lossy(&listing.stdout));
    assert_eq!(functions.len(), 40);
    let ours: BTreeMap<String, u32> = json["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let n = f["instructions"].as_u64().unwrap() as u32;
            (f["name"].as_str().unwrap().to_owned(), n)
        })
        .collect();
    assert_eq!(ours, functions, "instructions per function");
    let ours: BTreeMap<u32, u32> = json["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let n = c["instructions"].as_u64().unwrap() as u32;
            (c["line"].as_u64().unwrap() as u32, n)
        })
        .collect();
    assert_eq!(ours, lines, "instructions per PTX line");
}

#[test]
fn resources_human_output_and_exit_codes() {
    tool("ptxas");
    let dir = std::env::temp_dir().join(format!("ptx-lsp-cli-compiler-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.ptx");
    std::fs::write(
        &good,
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p) .reqntid 128\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n\t.shared .align 4 .b8 s[4096];\n\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tst.shared.u32 [s], %r1;\n\tbar.sync 0;\n\tld.shared.u32 %r2, [s+4];\n\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n",
    )
    .unwrap();
    let out = ptx_lsp(&[
        "resources",
        good.to_str().unwrap(),
        "--dynamic-shared",
        "65536",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("for sm_90"), "{text}");
    assert!(text.contains(".entry k (line 4): "), "{text}");
    assert!(text.contains("4 KB shared"), "{text}");
    // 4 KB static + 64 KB dynamic + 1 KB reserved = 69 KB per block: 3 in 228 KB.
    assert!(
        text.contains("shared memory: 68 KB per block → 3 blocks of 128 per SM"),
        "{text}"
    );
    // No target: usage error.
    let bare = dir.join("bare.ptx");
    std::fs::write(
        &bare,
        ".version 8.0\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n",
    )
    .unwrap();
    let out = ptx_lsp(&["resources", bare.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--target"), "{}", stderr(&out));
    // With one, it compiles.
    let out = ptx_lsp(&["resources", bare.to_str().unwrap(), "--target", "sm_80"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // ptxas rejects: exit 1 with its message and line.
    let bad = dir.join("bad.ptx");
    std::fs::write(&bad, ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %r9;\n\tret;\n}\n").unwrap();
    let out = ptx_lsp(&["resources", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("bad.ptx:7: ptxas error: "),
        "{}",
        stderr(&out)
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// `ptx-lsp sass FILE.cu`: each asm statement compiled as a kernel of its own, its machine
/// code linked to host lines inside the statement; a statement ptxas rejects gets ptxas's
/// error at its host line without hiding the others' code; one that cannot be compiled says
/// why; `--line` picks one statement; the exit code is 1 when any statement has no code.
#[test]
fn sass_of_the_asm_statements_of_a_cuda_file() {
    let file = root().join("tests/fixtures/sass/asm_statements.cu");
    let file = file.to_str().unwrap();
    let out = ptx_lsp(&["sass", file, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let statements = json["statements"].as_array().unwrap();
    let lines: Vec<u64> = statements
        .iter()
        .map(|s| s["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [8, 20, 26]);
    let first = &statements[0];
    assert!(first["instructions"].as_u64().unwrap() >= 1, "{first}");
    let linked: Vec<u64> = first["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert!(!linked.is_empty(), "{first}");
    assert!(linked.iter().all(|l| (10..=11).contains(l)), "{first}");
    let second = statements[1]["error"].as_str().unwrap();
    assert!(
        second.starts_with("ptxas: line 20: ") && second.contains("mul.wide"),
        "{second}"
    );
    let third = statements[2]["error"].as_str().unwrap();
    assert_eq!(third, "not compiled: `%4` names no operand");

    let out = ptx_lsp(&["sass", file, "--line", "10"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!("{file}:8: asm statement, sm_100a (")),
        "{text}"
    );
    assert!(
        text.lines()
            .skip(1)
            .all(|l| l.trim_start().starts_with("11 ") || l.trim_start().starts_with("10 ")),
        "{text}"
    );

    let out = ptx_lsp(&["sass", file, "--line", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(":3: no asm statement on this line"),
        "{}",
        stderr(&out)
    );
}
