//! Hover inside asm templates: the target verdict follows what is known about the file.

use ptx_embed::{ide, EmbedOptions, HostDocument};
use ptx_ide::hover::HoverConfig;

const SOURCE: &str = r#"__device__ void wait(unsigned long long* bar) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" :: "l"(bar));
}
"#;

fn hover_markdown(options: &EmbedOptions) -> String {
    let doc = HostDocument::new(SOURCE, options);
    let offset = SOURCE.find("expect_tx").expect("qualifier in the source") + 2;
    let config = HoverConfig {
        target_override: None,
        version_override: None,
        spec: None,
        target_unknown: false,
    };
    ide::hover(&doc, offset, &config)
        .expect("a hover on a qualifier")
        .markdown
}

#[test]
fn no_target_gives_no_verdict() {
    let markdown = hover_markdown(&EmbedOptions::default());
    assert!(!markdown.contains("supported on `.target"), "{markdown}");
    assert!(markdown.contains("No target is known"), "{markdown}");
    assert!(markdown.contains("**Availability**"), "{markdown}");
}

#[test]
fn a_known_target_gives_its_verdict() {
    let options = EmbedOptions {
        target: Some("sm_80".into()),
        ..EmbedOptions::default()
    };
    let markdown = hover_markdown(&options);
    // `.expect_tx` forms of `mbarrier.arrive` need sm_90 (ptxas 13.5).
    assert!(
        markdown.contains("✗ not available on `.target sm_80`"),
        "{markdown}"
    );
    assert!(markdown.contains("checked for `sm_80`"), "{markdown}");
}

/// Comments inside the statement and operands written without a comma do not change the
/// operand numbering that the hover of a placeholder shows.
#[test]
fn placeholders_count_operands_as_nvcc_does() {
    let source = r#"__device__ void cp(unsigned dst, unsigned long long src) {
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], " // destination
                 "%1;" /* source: descriptor */
                 : /* no outputs */
                 : "r"(dst) "l"(src));
}
"#;
    let doc = HostDocument::new(source, &EmbedOptions::default());
    let offset = source.find("%1;").expect("placeholder") + 1;
    let config = HoverConfig {
        target_override: None,
        version_override: None,
        spec: None,
        target_unknown: false,
    };
    let markdown = ide::hover(&doc, offset, &config)
        .expect("a hover on a placeholder")
        .markdown;
    expect_test::expect![[
        r#"**`%1`**: asm operand 1 — `"l"(src)`: input, 64-bit register (`.b64`)"#
    ]]
    .assert_eq(&markdown);
}

/// Semantic tokens of asm templates land on the host characters: the opcode, qualifiers
/// (after blanks too) and placeholders, nothing outside the strings.
#[test]
fn semantic_tokens_in_host_ranges() {
    let source = r#"__device__ void f(unsigned& x, unsigned long long p) {
    asm volatile("ld.global.u32 %0, [%1];\n\t" : "=r"(x) : "l"(p));
}
"#;
    let doc = HostDocument::new(source, &EmbedOptions::default());
    let shown: Vec<String> = ide::semantic_tokens(&doc)
        .iter()
        .map(|t| format!("{} {:?}", &source[t.range.clone()], t.kind))
        .collect();
    expect_test::expect![[r#"
        [
            "ld Opcode",
            ".global StateSpace",
            ".u32 Type",
            "%0 Register",
            "%1 Register",
        ]
    "#]]
    .assert_debug_eq(&shown);
}
