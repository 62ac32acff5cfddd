//! End-to-end tests of `ptx-lsp hover` and `ptx-lsp docs`, running the real binary with its
//! cache directory in a temporary folder (`PTX_LSP_CACHE_DIR`), never the user's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SAMPLE: &str = "\
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.global.L2::cache_hint.v2.u32 {%r1, %r2}, [%rd1], %rd2;
  tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32 {%r3, %r4}, [%r5], 8;
  mov.u32 %r6, %tid.x; // é ü: columns count characters
  ret;
}
";

/// A fresh, empty folder for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptx-lsp-cli-hover-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Sections written for `ptx-docs`'s tests in the document's markdown exports.
fn fixture_sections() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tests/fixtures/export")
}

fn ptx_lsp(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptx-lsp"))
        .args(args)
        .env("PTX_LSP_CACHE_DIR", cache)
        .output()
        .expect("the ptx-lsp binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn sample(dir: &Path) -> String {
    let file = dir.join("sample.ptx");
    std::fs::write(&file, SAMPLE).unwrap();
    file.to_string_lossy().into_owned()
}

#[test]
fn hover_prints_markdown_for_opcodes_qualifiers_and_registers() {
    let dir = temp_dir("markdown");
    let file = sample(&dir);
    let out = ptx_lsp(&dir, &["hover", &file, "9:4"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("```ptx\nld.global.L2::cache_hint.v2.u32\n```"),
        "{text}"
    );
    assert!(
        text.contains("**ld** — Loads a scalar or a vector"),
        "{text}"
    );
    assert!(
        text.contains("✓ available on this target (`.target sm_100a`)"),
        "{text}"
    );
    assert!(text.contains("operand 1 (`d`): 2 × 32-bit"), "{text}");
    assert!(
        text.contains("(https://docs.nvidia.com/cuda/parallel-thread-execution/#"),
        "{text}"
    );

    let out = ptx_lsp(&dir, &["hover", &file, "10:42"]);
    let text = stdout(&out);
    assert!(text.starts_with("`.pack::16b` on `tcgen05.ld`"), "{text}");
    assert!(text.contains("Pack two adjacent 16-bit elements"), "{text}");

    // Column 17 is inside `%tid.x`.
    let out = ptx_lsp(&dir, &["hover", &file, "11:17"]);
    assert!(
        stdout(&out).contains("**%tid.x** — special register"),
        "{}",
        stdout(&out)
    );

    let out = ptx_lsp(&dir, &["hover", &file, "6:14", "--target", "sm_80"]);
    assert!(
        stdout(&out).contains("`%r` — register in `.reg` of type `.b32`"),
        "{}",
        stdout(&out)
    );
    let out = ptx_lsp(&dir, &["hover", &file, "10:4", "--target", "sm_80"]);
    assert!(
        stdout(&out).contains("✗ not available on `.target sm_80`"),
        "{}",
        stdout(&out)
    );
}

/// The opcode hover of a matrix instruction ends with its fragment layout,
/// named with the instruction's own registers.
#[test]
fn hover_shows_the_fragment_layout_of_a_matrix_instruction() {
    let dir = temp_dir("layout");
    let file = sample(&dir);
    let out = ptx_lsp(&dir, &["hover", &file, "10:4"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let layout = &text[text.find("**Fragment layout**").expect("a layout section")..];
    assert!(
        layout.contains("Tensor Memory tile: 16 lanes × 20 16-bit columns from the address\n"),
        "{layout}"
    );
    let row0 = layout
        .lines()
        .find(|l| l.trim_start().starts_with("row 0 "))
        .unwrap();
    assert!(
        row0.trim()
            .starts_with("row 0  t0 %r3.lo  t0 %r3.hi  t0 %r4.lo  t0 %r4.hi  -"),
        "{row0}"
    );
    // The split half starts 8 columns of 32 bits (16 of 16 bits) on.
    assert!(row0.contains("t16 %r3.lo"), "{row0}");
    // Not on an instruction that is not a matrix instruction.
    let out = ptx_lsp(&dir, &["hover", &file, "9:4"]);
    assert!(
        !stdout(&out).contains("Fragment layout"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn hover_exit_codes() {
    let dir = temp_dir("exit");
    let file = sample(&dir);
    // Blank space: nothing to hover, exit 1 with a message on stderr.
    let out = ptx_lsp(&dir, &["hover", &file, "5:1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("nothing to hover here"),
        "{}",
        stderr(&out)
    );
    // Usage and I/O errors: exit 2.
    for position in ["0:1", "9", "x:y", "99:1"] {
        let out = ptx_lsp(&dir, &["hover", &file, position]);
        assert_eq!(out.status.code(), Some(2), "{position}: {}", stderr(&out));
    }
    let out = ptx_lsp(&dir, &["hover", "/nonexistent/file.ptx", "1:1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));
}

#[test]
fn columns_count_unicode_characters() {
    let dir = temp_dir("unicode");
    let file = dir.join("u.ptx");
    // `é` is two bytes; column 9 (in characters) is the `m` of `mov`.
    std::fs::write(&file, "{ // é\n/*é*/ ;  mov.u32 %r1, 1;\n}\n").unwrap();
    let out = ptx_lsp(&dir, &["hover", file.to_str().unwrap(), "2:10"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("**mov**"), "{}", stdout(&out));
}

#[test]
fn docs_import_status_and_hover_with_the_spec() {
    let cache = temp_dir("docs");
    let out = ptx_lsp(&cache, &["docs", "status"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("no PTX ISA document imported"),
        "{}",
        stdout(&out)
    );

    // Not the document: exit 1 with a clear message, nothing written.
    let bogus = cache.join("bogus");
    std::fs::create_dir_all(&bogus).unwrap();
    std::fs::write(bogus.join("notes.md"), "# Shopping list\n\n- milk\n").unwrap();
    let out = ptx_lsp(&cache, &["docs", "import", bogus.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("error:"), "{}", stderr(&out));
    // A path that does not exist: exit 2.
    let out = ptx_lsp(&cache, &["docs", "import", "/nonexistent/ptx-isa"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let sections = fixture_sections();
    let out = ptx_lsp(&cache, &["docs", "import", sections.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("indexed PTX ISA"),
        "{}",
        stdout(&out)
    );
    let out = ptx_lsp(&cache, &["docs", "status"]);
    assert_eq!(out.status.code(), Some(0));
    let status_before = stdout(&out);
    assert!(status_before.starts_with("PTX ISA"), "{status_before}");

    // A bad import afterwards leaves the index as it was.
    let out = ptx_lsp(&cache, &["docs", "import", bogus.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("previous index is unchanged"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&ptx_lsp(&cache, &["docs", "status"])), status_before);

    let file = sample(&cache);
    let out = ptx_lsp(&cache, &["hover", &file, "10:4"]);
    let text = stdout(&out);
    assert!(text.contains("*From your copy of the PTX ISA"), "{text}");
    assert!(text.contains("tcgen05.ld"), "{text}");
    let out = ptx_lsp(&cache, &["hover", &file, "10:4", "--no-spec"]);
    assert!(!stdout(&out).contains("From your copy"));
}
