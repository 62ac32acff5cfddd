//! Every asm statement is read as nvcc reads it: comments anywhere inside the statement
//! (between the pieces of the template, before the first `:`, between and inside the operand
//! groups, in macro bodies continued over lines), raw strings, `#if` inside the statement,
//! `asm volatile goto`, and operands written without a comma between them. A statement
//! that still cannot be read carries a hint that says why.

use expect_test::{expect, Expect};
use ptx_embed::{check::check, EmbedOptions, HostDocument};

fn report(text: &str, expect: Expect) {
    let doc = HostDocument::new(text, &EmbedOptions::default());
    let mut out = String::new();
    for s in &doc.statements {
        out.push_str(&format!(
            "{:?} ops=[{}]{}\n",
            s.raw.template.text,
            s.raw
                .operands
                .iter()
                .map(|o| format!("%{}={}:{}", o.index, o.constraint, o.expression))
                .collect::<Vec<_>>()
                .join(", "),
            match &s.raw.opaque {
                Some(why) => format!(" unread: {why}"),
                None => String::new(),
            }
        ));
    }
    for d in check(&doc, &[]) {
        out.push_str(&format!(
            "{:?} {} {:?}: {}\n",
            d.severity,
            d.code,
            &text[d.range.clone()],
            d.message
        ));
    }
    expect.assert_eq(&out);
}

#[test]
fn comments_between_the_pieces_of_a_template() {
    report(
        r#"
__device__ unsigned f(unsigned y) {
  unsigned x;
  asm volatile("mov.u32 %0, 1;\n"  // start at one
               "add.u32 %0, %0, %1;" /* add the input: y */
               "add.u32 %0, %0, %9;"
               // outputs: (one)
               : "=r"(x)   /* x */
               : /* inputs */ "r"(y) // y
               : "memory");
  return x;
}
"#,
        expect![[r#"
            "mov.u32 %0, 1;\nadd.u32 %0, %0, %1;add.u32 %0, %0, %9;" ops=[%0==r:x, %1=r:y]
            Error asm-operand-number "%9": `%9` names no operand: the statement has 2 operands (%0 to %1)
        "#]],
    );
}

#[test]
fn comments_in_macro_bodies_continued_over_lines() {
    report(
        r#"
#define ADD_ONE(d, a)                                          \
  asm volatile("add.u32 %0, %1, 1;" /* one more */             \
               "add.u32 %0, %0, %2;"                           \
               : "=r"(d) /* out */                             \
               : "r"(a))
"#,
        expect![[r#"
            "add.u32 %0, %1, 1;add.u32 %0, %0, %2;" ops=[%0==r:d, %1=r:a]
            Error asm-operand-number "%2": `%2` names no operand: the statement has 2 operands (%0 to %1)
        "#]],
    );
}

#[test]
fn raw_strings() {
    report(
        r#"
__device__ void f(unsigned& x, unsigned y) {
  asm volatile(R"(add.u32 %0, %1, 1;)" : "=r"(x) : "r"(y));
  asm volatile(R"ptx(
    add.u32 %0, %1, 2; // "quoted" ) text
    add.u32 %0, %0, %2;
  )ptx" : "=r"(x) : "r"(y));
}
"#,
        expect![[r#"
            "add.u32 %0, %1, 1;" ops=[%0==r:x, %1=r:y]
            "\n    add.u32 %0, %1, 2; // \"quoted\" ) text\n    add.u32 %0, %0, %2;\n  " ops=[%0==r:x, %1=r:y]
            Error asm-operand-number "%2": `%2` names no operand: the statement has 2 operands (%0 to %1)
        "#]],
    );
}

#[test]
fn conditional_pieces_inside_a_statement() {
    report(
        r#"
__device__ void f(unsigned& x) {
  asm volatile(
#if defined(USE_TWO)
      "add.u32 %0, %0, 2;"
#else
      "add.u32 %0, %0, 1;"
      "add.u32 %0, %0, %1;"
#endif
      : "+r"(x));
}
"#,
        expect![[r#"
            "add.u32 %0, %0, 2;" ops=[%0=+r:x]
        "#]],
    );
}

#[test]
fn operands_without_a_comma_between_them() {
    // CUTLASS's tcgen05.cp wrappers write `: "r"(dst_addr) "l"(src_addr)`: nvcc takes that as
    // two operands (the template names `%1`, and the wrappers compile for sm_100a).
    report(
        r#"
__device__ void cp(unsigned dst_addr, unsigned long long src_addr) {
  asm volatile ("tcgen05.cp.cta_group::1.128x256b [%0], %1;"
    :
    : "r"(dst_addr)  "l"(src_addr));
}
"#,
        expect![[r#"
            "tcgen05.cp.cta_group::1.128x256b [%0], %1;" ops=[%0=r:dst_addr, %1=l:src_addr]
        "#]],
    );
}

#[test]
fn asm_goto() {
    report(
        r#"
__device__ void f(unsigned x) {
  __asm__ volatile goto("add.u32 %0, %0, 1;" : : "r"(x) : : done);
done:
  return;
}
"#,
        expect![[r#"
            "add.u32 %0, %0, 1;" ops=[%0=r:x]
        "#]],
    );
}

#[test]
fn a_statement_that_cannot_be_read_says_why() {
    report(
        r#"
#define STR(x) #x
#define OPS "r"(a)
__device__ void f(unsigned a) {
  asm("{" STR(add) ".u32 %0,%0,%0;\n}" : "+r"(a));
  asm("{" NAME_FROM_ELSEWHERE(add) ".u32 %0,%0,%0;\n}" : "+r"(a));
  asm("add.u32 %0, %0, 1;" :: OPS);
  asm("add.u32 %0, %0, 1;" : "+r"(a)
}
"#,
        expect![[r#"
            "{add.u32 %0,%0,%0;\n}" ops=[%0=+r:a]
            "{" ops=[%0=+r:a] unread: `NAME_FROM_ELSEWHERE(add) ".u32 %0,%0,%0;\n}"` follows the template's literals, so its text is known only after preprocessing
            "add.u32 %0, %0, 1;" ops=[]
            Hint asm-not-checked "asm": this asm statement is not checked: `NAME_FROM_ELSEWHERE(add) ".u32 %0,%0,%0;\n}"` follows the template's literals, so its text is known only after preprocessing
            Hint asm-not-checked "asm": the operands of this asm statement are not checked: `OPS` is not a `"constraint"(expression)` operand (a macro?), so the operands' number and widths are known only after preprocessing
            Hint asm-not-checked "asm": this asm statement is not checked: its parentheses are not closed
        "#]],
    );
}

/// `#if`s inside a statement: a compilation for a target takes the branches whose conditions
/// hold for it (`__CUDA_ARCH__` comparisons, feature macros), and a condition that is no
/// target keeps the first branch. The fixture's labels are ptxas 13.5's verdicts on the
/// virtual module of each statement for each target (the branches nvcc takes for it); a
/// statement gets an error exactly where ptxas rejects its module.
#[test]
fn conditional_pieces_follow_the_target() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/branches");
    let text = std::fs::read_to_string(format!("{dir}/in_statement.cu")).expect("fixture");
    let labels = std::fs::read_to_string(format!("{dir}/in_statement.ptxas.tsv")).expect("labels");
    let mut out = String::new();
    let mut checked = 0;
    for target in [None, Some("sm_80"), Some("sm_90a"), Some("sm_100a")] {
        let options = EmbedOptions {
            target: target.map(String::from),
            ..EmbedOptions::default()
        };
        let doc = HostDocument::new(&text, &options);
        let diagnostics = check(&doc, &[]);
        out.push_str(&format!("{}:\n", target.unwrap_or("no target")));
        for s in &doc.statements {
            let line = text[..s.raw.keyword.start].lines().count();
            let errors: Vec<_> = diagnostics
                .iter()
                .filter(|d| d.severity == ptx_check::Severity::Error)
                .filter(|d| s.raw.range.start <= d.range.start && d.range.end <= s.raw.range.end)
                .collect();
            out.push_str(&format!(
                "  {line}: {:?}{}\n",
                s.raw.template.text,
                errors
                    .iter()
                    .map(|d| format!(" error {}", d.code))
                    .collect::<String>()
            ));
            let Some(target) = target else { continue };
            // The label of this statement and target: line, target, verdict.
            let label = labels
                .lines()
                .filter(|l| !l.starts_with('#'))
                .map(|l| l.split('\t').collect::<Vec<_>>())
                .find(|f| f[0] == line.to_string() && f[1] == target)
                .unwrap_or_else(|| panic!("a label for line {line}, {target}"));
            assert_eq!(
                !errors.is_empty(),
                label[2] == "rejected",
                "line {line}, {target}: ptxas says {}",
                label[2]
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 15);
    expect![[r#"
        no target:
          7: "fence.proxy.async.shared::cta;"
          18: "setmaxnreg.inc.sync.aligned.u32 240;\n"
          29: "tcgen05.fence::before_thread_sync;"
          44: "ld.global.L2::128B.u32 %0, [%1];"
          56: "setmaxnreg.dec.sync.aligned.u32 40;"
        sm_80:
          7: "membar.cta;"
          18: "membar.gl;\n"
          29: "membar.gl;"
          44: "ld.global.L2::128B.u32 %0, [%1];"
          56: "setmaxnreg.dec.sync.aligned.u32 40;" error unsupported-target
        sm_90a:
          7: "fence.proxy.async.shared::cta;"
          18: "setmaxnreg.inc.sync.aligned.u32 240;\n"
          29: "fence.proxy.async.global;"
          44: "ld.global.L2::128B.u32 %0, [%1];"
          56: "membar.gl;"
        sm_100a:
          7: "fence.proxy.async.shared::cta;"
          18: "membar.gl;\n"
          29: "tcgen05.fence::before_thread_sync;"
          44: "ld.global.L2::128B.u32 %0, [%1];"
          56: "membar.gl;"
    "#]]
    .assert_eq(&out);
}
