//! Bad input gives a clear error and leaves the previous index untouched: empty files, binary
//! junk, truncated files, unrelated documents, folders without sections, a newer index.

mod common;

use common::*;
use ptx_docs::{import, import_with, status, ImportError, ImportOptions, SpecIndex};
use std::path::{Path, PathBuf};

/// A cache holding a good index (of the fixture sections), and its bytes.
fn cache_with_index() -> (PathBuf, Vec<u8>) {
    let cache = scratch("cache");
    import(&fixtures_dir(), &cache).expect("fixture import");
    let bytes = std::fs::read(ptx_docs::index_path(&cache)).unwrap();
    (cache, bytes)
}

/// Imports `input`, expects an error, and checks that the index and the cache folder are as
/// before.
fn rejects(input: &Path) -> ImportError {
    let (cache, before) = cache_with_index();
    let err = import(input, &cache).expect_err("import should fail");
    assert_eq!(
        std::fs::read(ptx_docs::index_path(&cache)).unwrap(),
        before,
        "index changed"
    );
    let files: Vec<_> = std::fs::read_dir(&cache).unwrap().collect();
    assert_eq!(files.len(), 1, "stray files in the cache: {files:?}");
    assert!(SpecIndex::load(&cache).is_ok());
    // The message names the input.
    let msg = err.to_string();
    assert!(
        msg.contains(&*input.file_name().unwrap().to_string_lossy()),
        "{msg}"
    );
    err
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn empty_file() {
    let d = scratch("empty");
    let e = rejects(&write(&d, "empty.md", b""));
    assert!(matches!(e, ImportError::Empty { .. }), "{e}");
    let e = rejects(&write(&d, "blank.md", b"\n \n\t\n"));
    assert!(matches!(e, ImportError::Empty { .. }), "{e}");
}

#[test]
fn binary_junk() {
    let d = scratch("binary");
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let e = rejects(&write(&d, "junk.md", &junk));
    assert!(matches!(e, ImportError::NotText { .. }), "{e}");
    let e = rejects(&write(
        &d,
        "latin1.txt",
        b"## 1.1. Caf\xe9 au lait\n\nLorem.\n",
    ));
    assert!(matches!(e, ImportError::NotText { offset: 11, .. }), "{e}");
}

#[test]
fn truncated_files() {
    let d = scratch("truncated");
    // A section cut in the middle of a fenced code block.
    let seed = std::fs::read_to_string(markdown_files(&fixtures_dir())[0].clone()).unwrap();
    let cut = seed.find("```").unwrap() + 40;
    let e = rejects(&write(&d, "cut-fence.md", &seed.as_bytes()[..cut]));
    assert!(
        matches!(&e, ImportError::Truncated { what, .. } if what.contains("code block")),
        "{e}"
    );
    // Front matter never closed.
    let e = rejects(&write(
        &d,
        "cut-front.md",
        b"---\ntitle: \"9.7.1.1. X\"\nsection: 9.7.1.1\n",
    ));
    assert!(
        matches!(&e, ImportError::Truncated { what, .. } if what.contains("front matter")),
        "{e}"
    );
    // Cut inside a UTF-8 character.
    let e = rejects(&write(
        &d,
        "cut-utf8.md",
        "## 9.7.1.1. Widget Instructions: frob\n\nLorem ’"
            .as_bytes()
            .split_last()
            .unwrap()
            .1,
    ));
    assert!(
        matches!(&e, ImportError::Truncated { what, .. } if what.contains("UTF-8")),
        "{e}"
    );
    // HTML that stops before </html>.
    let html = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sphinx_placeholder.html"),
    )
    .unwrap();
    let e = rejects(&write(&d, "cut.html", &html.as_bytes()[..html.len() / 2]));
    assert!(matches!(&e, ImportError::Truncated { .. }), "{e}");
    // One truncated file spoils a whole folder.
    let folder = d.join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(
        markdown_files(&fixtures_dir())[1].clone(),
        folder.join("good.md"),
    )
    .unwrap();
    write(&folder, "bad.md", &seed.as_bytes()[..cut]);
    let e = rejects(&folder);
    assert!(e.to_string().contains("bad.md"), "{e}");
}

#[test]
fn unrelated_documents() {
    let d = scratch("unrelated");
    let e = rejects(&write(
        &d,
        "notes.md",
        b"# Shopping\n\n- eggs\n- milk\n\n## Later\n\nLorem ipsum.\n",
    ));
    assert!(matches!(e, ImportError::NoSections { .. }), "{e}");
    let manual = b"# Widget manual\n\n## 1. Install\n\nRun the installer.\n\n## 2. Use\n\n### 2.1. Start\n\nPress start.\n";
    let e = rejects(&write(&d, "manual.md", manual));
    assert!(
        matches!(e, ImportError::NotPtxIsa { sections: 3, .. }),
        "{e}"
    );
    let e = rejects(&write(
        &d,
        "page.html",
        b"<!DOCTYPE html><html><head><title>Hi</title></head><body><p>Hello</p></body></html>",
    ));
    assert!(matches!(e, ImportError::NoSections { .. }), "{e}");
}

#[test]
fn folders_without_sections() {
    let d = scratch("folders");
    let empty = d.join("empty-dir");
    std::fs::create_dir(&empty).unwrap();
    let e = rejects(&empty);
    assert!(matches!(e, ImportError::NoInputFiles { .. }), "{e}");
    let pics = d.join("pictures");
    std::fs::create_dir(&pics).unwrap();
    write(&pics, "a.png", b"\x89PNG\r\n");
    let e = rejects(&pics);
    assert!(matches!(e, ImportError::NoInputFiles { .. }), "{e}");
    let prose = d.join("prose");
    std::fs::create_dir_all(prose.join("sub")).unwrap();
    write(
        &prose.join("sub"),
        "readme.md",
        b"# Readme\n\nNothing numbered here.\n",
    );
    let e = rejects(&prose);
    assert!(matches!(e, ImportError::NoSections { .. }), "{e}");
    let e = rejects(&d.join("does-not-exist"));
    assert!(matches!(e, ImportError::Io { .. }), "{e}");
}

#[test]
fn newer_index_is_kept_unless_forced() {
    let cache = scratch("versions");
    // A made-up document that states version 9.1.
    let current = write(
        &scratch("current"),
        "current.md",
        b"## 1.3. PTX ISA Version 9.1\n\nLorem.\n\n#### 9.7.1.1. Widget Instructions: frob\n\nSyntax\n\n    frob.u32 d;\n\n#### 9.7.1.2. Widget Instructions: twiddle\n\nSyntax\n\n    twiddle.u32 d;\n",
    );
    let r = import(&current, &cache).unwrap();
    assert_eq!((r.doc_version.as_str(), r.instructions), ("9.1", 2));
    let before = std::fs::read(ptx_docs::index_path(&cache)).unwrap();
    // A made-up document that states an older version.
    let d = scratch("older");
    let older = write(
        &d,
        "older.md",
        b"## 1.3. PTX ISA Version 8.0\n\nLorem.\n\n#### 9.7.1.1. Widget Instructions: frob\n\nSyntax\n\n    frob.u32 d;\n",
    );
    let e = import(&older, &cache).expect_err("older document");
    assert!(
        matches!(&e, ImportError::NewerIndexExists { existing, new } if existing == "9.1" && new == "8.0"),
        "{e}"
    );
    assert_eq!(std::fs::read(ptx_docs::index_path(&cache)).unwrap(), before);
    let r = import_with(&older, &cache, &ImportOptions { force: true }).unwrap();
    assert_eq!((r.doc_version.as_str(), r.instructions), ("8.0", 1));
    assert_eq!(status(&cache).unwrap().doc_version, "8.0");
    // A newer document replaces it without force, and so does the same version again.
    import(&current, &cache).unwrap();
    import(&current, &cache).unwrap();
    assert_eq!(status(&cache).unwrap().doc_version, "9.1");
}

#[test]
fn damaged_index_files() {
    let cache = scratch("damaged");
    assert!(status(&cache).is_none());
    assert!(matches!(
        SpecIndex::load(&cache),
        Err(ptx_docs::LoadError::Missing { .. })
    ));
    let lazy = ptx_docs::LazyIndex::new(&cache);
    assert!(lazy.get().is_none());
    import(&fixtures_dir(), &cache).unwrap();
    let first = lazy.get().expect("loaded after import");
    assert!(first.instruction("tcgen05.ld").is_some());
    assert!(
        std::sync::Arc::ptr_eq(&first, &lazy.get().unwrap()),
        "no reload without a change"
    );
    let path = ptx_docs::index_path(&cache);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(status(&cache).is_none());
    assert!(matches!(
        SpecIndex::load(&cache),
        Err(ptx_docs::LoadError::Invalid { .. })
    ));
    assert!(lazy.get().is_none());
    std::fs::write(
        &path,
        String::from_utf8(bytes).unwrap().replacen(
            "\"format_version\":1",
            "\"format_version\":999",
            1,
        ),
    )
    .unwrap();
    let err = SpecIndex::load(&cache).unwrap_err();
    assert!(err.to_string().contains("format version 999"), "{err}");
    // A new import over a damaged index works.
    import(&fixtures_dir(), &cache).unwrap();
    assert!(lazy.get().is_some());
}

#[test]
fn windows_line_endings_import() {
    let d = scratch("crlf");
    let f = markdown_files(&fixtures_dir())
        .into_iter()
        .find(|f| std::fs::read_to_string(f).unwrap().starts_with("---\n"))
        .expect("a fixture with front matter");
    let text = std::fs::read_to_string(&f).unwrap().replace('\n', "\r\n");
    let crlf = write(&d, "crlf.md", text.as_bytes());
    let (a, _) = ptx_docs::parse_input(&f).unwrap();
    let (b, _) = ptx_docs::parse_input(&crlf).unwrap();
    assert_eq!(a.entries(), b.entries());
}

#[cfg(unix)]
#[test]
fn symlink_loops_end() {
    let d = scratch("loop");
    let docs = d.join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::copy(
        markdown_files(&fixtures_dir())[0].clone(),
        docs.join("a.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&d, docs.join("back")).unwrap();
    let (ix, files) = ptx_docs::parse_input(&d).unwrap();
    assert_eq!(files, 1);
    assert!(ix.instruction("tcgen05.ld").is_some());
}

#[test]
fn devices_pipes_and_links_to_them_are_not_read() {
    // Reading /dev/zero would never end; opening a pipe would wait for a writer.
    let e = rejects(Path::new("/dev/zero"));
    assert!(matches!(e, ImportError::NotRegular { .. }), "{e}");
    let d = scratch("special");
    let link = d.join("zero.md");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let e = rejects(&link);
    assert!(matches!(e, ImportError::NotRegular { .. }), "{e}");
    let fifo = d.join("pipe.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let e = rejects(&fifo);
    assert!(matches!(e, ImportError::NotRegular { .. }), "{e}");
    // In a folder they are passed over: here nothing else is left to read.
    let e = rejects(&d);
    assert!(matches!(e, ImportError::NoInputFiles { .. }), "{e}");
}
