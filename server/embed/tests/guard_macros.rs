//! `#if` guards written with a project's own macros, as nvcc's preprocessor reads them:
//! macros that headers define from `__CUDA_ARCH__` (and from each other), named numbers in
//! comparisons, and the `-D` macros of the file's `compile_commands.json` entry. The fixture
//! (tests/fixtures/guard_macros) is a small library written for this test: a configuration
//! header chain under `include/` and a `.cu` file that includes it.

use std::path::{Path, PathBuf};

use expect_test::{expect, Expect};
use ptx_embed::{check::check, EmbedOptions, HostDocument};

/// A copy of the fixture in a fresh folder, with a `compile_commands.json` for `src/kernels.cu`
/// when `flags` is given.
fn workspace(name: &str, flags: Option<&[&str]>) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/guard_macros");
    let to = std::env::temp_dir().join(format!(
        "ptx-embed-guard-macros-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&to);
    for file in [
        "include/lib/arch.h",
        "include/lib/config.h",
        "src/kernels.cu",
    ] {
        let target = to.join(file);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(from.join(file), &target).unwrap();
    }
    if let Some(flags) = flags {
        let dir = to.join("src");
        let mut arguments = vec!["nvcc", "-arch=sm_80"];
        arguments.extend(flags);
        arguments.extend(["-I../include", "-c", "kernels.cu"]);
        let entry = serde_json::json!([{
            "directory": dir.display().to_string(),
            "file": "kernels.cu",
            "arguments": arguments,
        }]);
        std::fs::write(to.join("compile_commands.json"), entry.to_string()).unwrap();
    }
    to
}

fn report(root: &Path, target: Option<&str>, expect: Expect) {
    let file = root.join("src/kernels.cu");
    let text = std::fs::read_to_string(&file).unwrap();
    let options = EmbedOptions {
        target: target.map(str::to_string),
        ..EmbedOptions::for_file(&file, &text)
    };
    let doc = HostDocument::new(&text, &options);
    let mut out = String::new();
    for s in &doc.statements {
        out.push_str(&format!(
            "{:<60} guard={:<8} target={}\n",
            s.raw.template.text,
            s.guard.map_or("-".to_string(), |g| g.name()),
            s.target.as_deref().unwrap_or("-"),
        ));
    }
    for d in check(&doc, &[]) {
        let line = text[..d.range.start].matches('\n').count() + 1;
        let message = &d.message;
        out.push_str(&format!("{line}: {:?} {}: {message}\n", d.severity, d.code));
    }
    let _ = std::fs::remove_dir_all(root);
    expect.assert_eq(&out);
}

#[test]
fn guards_with_target_macros_of_the_headers_and_the_file() {
    report(
        &workspace("none", None),
        None,
        expect![[r#"
            prefetch.tensormap [%0];                                     guard=sm_90    target=sm_90a
            cp.async.wait_all;                                           guard=sm_80    target=sm_80
            wgmma.fence.sync.aligned;                                    guard=sm_90a   target=sm_90a
            fence.proxy.async.shared::cta;                               guard=sm_90a   target=sm_90a
            tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;   guard=sm_100a  target=sm_100a
            elect.sync %0|_, 0xffffffff;                                 guard=-        target=-
            nanosleep.u32 20;                                            guard=-        target=-
            prefetch.tensormap [%0];                                     guard=-        target=-
            cp.async.bulk.wait_group 0;                                  guard=-        target=-
        "#]],
    );
}

#[test]
fn a_target_below_the_guard_checks_the_guard_targets() {
    report(
        &workspace("sm80", None),
        Some("sm_80"),
        expect![[r#"
            prefetch.tensormap [%0];                                     guard=sm_90    target=sm_90a
            cp.async.wait_all;                                           guard=sm_80    target=sm_80
            wgmma.fence.sync.aligned;                                    guard=sm_90a   target=sm_90a
            fence.proxy.async.shared::cta;                               guard=sm_90a   target=sm_90a
            tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;   guard=sm_100a  target=sm_100a
            elect.sync %0|_, 0xffffffff;                                 guard=-        target=sm_80
            nanosleep.u32 20;                                            guard=-        target=sm_80
            prefetch.tensormap [%0];                                     guard=-        target=sm_80
            cp.async.bulk.wait_group 0;                                  guard=-        target=sm_80
            40: Warning unsupported-target: `elect.sync` needs .target sm_90 or newer (this file targets sm_80) (a warning: an `#if` whose condition is not a target encloses this code, so it may not be compiled for this target)
            54: Warning unsupported-target: `prefetch.tensormap` needs .target sm_90 or newer (this file targets sm_80) (a warning: an `#if` whose condition is not a target encloses this code, so it may not be compiled for this target)
            61: Error unsupported-target: `cp.async.bulk.wait_group` needs .target sm_90 or newer (this file targets sm_80)
        "#]],
    );
}

#[test]
fn macros_defined_by_the_build() {
    report(
        &workspace(
            "defines",
            Some(&[
                "-DKERNELS_FORCE_TMA",
                "-D",
                "KERNELS_QUALIFIERS=__forceinline__ __device__",
                "-DLIB_SM90_ENABLED=1",
            ]),
        ),
        Some("sm_80"),
        expect![[r#"
            prefetch.tensormap [%0];                                     guard=-        target=sm_80
            cp.async.wait_all;                                           guard=sm_80    target=sm_80
            wgmma.fence.sync.aligned;                                    guard=sm_90a   target=sm_90a
            fence.proxy.async.shared::cta;                               guard=sm_90a   target=sm_90a
            tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;   guard=sm_100a  target=sm_100a
            elect.sync %0|_, 0xffffffff;                                 guard=-        target=sm_80
            nanosleep.u32 20;                                            guard=-        target=sm_80
            prefetch.tensormap [%0];                                     guard=-        target=sm_80
            cp.async.bulk.wait_group 0;                                  guard=-        target=sm_80
            10: Error unsupported-target: `prefetch.tensormap` needs .target sm_90 or newer (this file targets sm_80)
            40: Warning unsupported-target: `elect.sync` needs .target sm_90 or newer (this file targets sm_80) (a warning: an `#if` whose condition is not a target encloses this code, so it may not be compiled for this target)
            54: Error unsupported-target: `prefetch.tensormap` needs .target sm_90 or newer (this file targets sm_80)
            61: Warning unsupported-target: `cp.async.bulk.wait_group` needs .target sm_90 or newer (this file targets sm_80) (a warning: this template, inline function or macro is compiled only where it is used, and no `#if` guard says for which targets)
        "#]],
    );
}
