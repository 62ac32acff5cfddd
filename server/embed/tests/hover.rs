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
    assert!(markdown.contains("**Requires**"), "{markdown}");
}

#[test]
fn a_known_target_gives_its_verdict() {
    let options = EmbedOptions {
        target: Some("sm_80".into()),
        ..EmbedOptions::default()
    };
    let markdown = hover_markdown(&options);
    assert!(
        markdown.contains("supported on `.target sm_80`"),
        "{markdown}"
    );
    assert!(markdown.contains("checked for `sm_80`"), "{markdown}");
}
