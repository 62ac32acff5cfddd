//! Damaged input never panics: every prefix and many random mutations of a fixture section and of
//! the HTML fixture either import or fail with an error.

mod common;

use common::*;
use std::path::Path;

/// A small deterministic generator (no dependency).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

fn try_all(dir: &Path, name: &str, variants: impl Iterator<Item = Vec<u8>>) -> (usize, usize) {
    let (mut ok, mut err) = (0, 0);
    let path = dir.join(name);
    for v in variants {
        std::fs::write(&path, &v).unwrap();
        match ptx_docs::parse_input(&path) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                err += 1;
            }
        }
    }
    (ok, err)
}

fn prefixes(bytes: &[u8], step: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
    (0..bytes.len())
        .step_by(step)
        .map(move |n| bytes[..n].to_vec())
}

fn mutations(bytes: &[u8], seed: u64, count: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
    let mut rng = Lcg(seed);
    let specials = b"<>[]()`#|*-\n \t&;:.\"'!{}\\";
    (0..count).map(move |_| {
        let mut v = bytes.to_vec();
        for _ in 0..1 + rng.next() % 8 {
            let at = (rng.next() as usize) % v.len().max(1);
            match rng.next() % 4 {
                0 => v.insert(at, specials[(rng.next() as usize) % specials.len()]),
                1 if !v.is_empty() => {
                    v.remove(at);
                }
                2 if !v.is_empty() => v[at] = specials[(rng.next() as usize) % specials.len()],
                _ => {
                    let len = (rng.next() as usize) % 64;
                    let end = (at + len).min(v.len());
                    let chunk = v[at..end].to_vec();
                    v.splice(at..at, chunk);
                }
            }
        }
        v
    })
}

#[test]
fn damaged_markdown_never_panics() {
    let d = scratch("robust-md");
    for f in markdown_files(&fixtures_dir()) {
        let bytes = std::fs::read(&f).unwrap();
        let (ok, err) = try_all(&d, "cut.md", prefixes(&bytes, 97));
        assert!(ok > 0 && err > 0, "{}: {ok} ok, {err} errors", f.display());
        try_all(&d, "mutated.md", mutations(&bytes, bytes.len() as u64, 60));
    }
}

#[test]
fn damaged_html_never_panics() {
    let d = scratch("robust-html");
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sphinx_placeholder.html"),
    )
    .unwrap();
    let (ok, err) = try_all(&d, "cut.html", prefixes(&bytes, 23));
    assert!(err > 0, "{ok} ok, {err} errors");
    try_all(&d, "mutated.html", mutations(&bytes, 7, 300));
    // Absurd nesting is flattened, not recursed into.
    let mut deep =
        b"<!DOCTYPE html><html><body><section id=\"a\"><h2>9.7.1.1. Widget Instructions: frob</h2>"
            .to_vec();
    deep.extend(std::iter::repeat_n(b"<div><span><a>".as_slice(), 100_000).flatten());
    deep.extend(b"</section></body></html>");
    try_all(&d, "deep.html", std::iter::once(deep));
}
