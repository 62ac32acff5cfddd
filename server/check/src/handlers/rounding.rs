//! Rounding modifiers that ptxas requires or forbids (PTX ISA 6.5.2 "Rounding Modifiers",
//! 9.7.9.21 `cvt`, 9.7.3.7 `mad`):
//! * `cvt` between integer and float, and float to a narrower float, needs a rounding mode
//!   (`.rn/.rz/.rm/.rp` to float, `.rni/.rzi/.rmi/.rpi` to integer);
//! * `cvt` to a wider float, and between integers, takes none (from `.bf16`, and `.f16` to
//!   `.bf16`, a float rounding mode is optional);
//! * `mad.f32`/`mad.f64` need a rounding mode (`mad.rn.f32`).

use ptx_isa::PtxVersion;

use crate::context::{Ctx, InstInfo};
use crate::{Diagnostic, Fix};

const FLOAT_ROUNDING: &[&str] = &["rn", "rz", "rm", "rp", "rna", "rs"];
const INT_ROUNDING: &[&str] = &["rni", "rzi", "rmi", "rpi"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Int(u32),
    Float(u32),
}

fn class(word: &str) -> Option<Class> {
    Some(match word {
        "s8" | "u8" => Class::Int(8),
        "s16" | "u16" => Class::Int(16),
        "s32" | "u32" => Class::Int(32),
        "s64" | "u64" => Class::Int(64),
        // `.bf16` is a 16-bit float like `.f16`; conversions between the two are special-cased
        // below.
        "f16" | "bf16" => Class::Float(16),
        "f32" => Class::Float(32),
        "f64" => Class::Float(64),
        _ => return None,
    })
}

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    match info.words[0] {
        "cvt" => check_cvt(ctx, info),
        "mad" => check_mad(ctx, info),
        _ => {}
    }
}

fn rounding<'w>(info: &InstInfo<'w>) -> Option<&'w str> {
    info.words[1..]
        .iter()
        .copied()
        .find(|w| FLOAT_ROUNDING.contains(w) || INT_ROUNDING.contains(w))
}

fn check_cvt(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let n = info.words.len();
    if n < 3 {
        return;
    }
    let (Some(d), Some(a)) = (class(info.words[n - 2]), class(info.words[n - 1])) else {
        return;
    };
    let written = rounding(info);
    let (dtype, atype) = (info.words[n - 2], info.words[n - 1]);
    let (needed, allowed): (Option<&[&str]>, &[&str]) = match (d, a) {
        // From `.bf16` to another float, and from `.f16` to `.bf16`, ptxas 13.5 takes a float
        // rounding mode or none (`cvt.f16.bf16`, `cvt.rn.f32.bf16`), not an integer one
        // ("Illegal rounding modifier" for `cvt.rzi.f16.bf16`).
        (Class::Float(_), Class::Float(_))
            if dtype != atype && (atype == "bf16" || (dtype == "bf16" && atype == "f16")) =>
        {
            (None, FLOAT_ROUNDING)
        }
        (Class::Float(_), Class::Int(_)) => (Some(FLOAT_ROUNDING), FLOAT_ROUNDING),
        (Class::Int(_), Class::Float(_)) => (Some(INT_ROUNDING), INT_ROUNDING),
        (Class::Float(db), Class::Float(ab)) if db < ab => (Some(FLOAT_ROUNDING), FLOAT_ROUNDING),
        (Class::Float(db), Class::Float(ab)) if db == ab => (None, INT_ROUNDING),
        (Class::Float(_), Class::Float(_)) | (Class::Int(_), Class::Int(_)) => (None, &[]),
    };
    let opcode = info.opcode_text();
    match (written, needed) {
        (None, Some(modes)) => {
            let insert = info.mnemonic.end;
            let mut d = Diagnostic::error(
                "missing-qualifier",
                info.opcode_range(),
                format!(
                    "`{opcode}` needs a rounding modifier ({})",
                    modes
                        .iter()
                        .take(4)
                        .map(|m| format!(".{m}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .section("9.7.9.21");
            d = d.with_fix(Fix::replace(
                format!("Add `.{}`", modes[0]),
                insert..insert,
                format!(".{}", modes[0]),
            ));
            ctx.report(d);
        }
        (Some(mode), _) if !allowed.contains(&mode) => {
            let range = info
                .qualifier(mode)
                .map_or(info.opcode_range(), |q| q.range());
            ctx.report(
                Diagnostic::error(
                    "invalid-qualifier",
                    range.clone(),
                    format!("`{opcode}` takes no `.{mode}` rounding modifier for these types"),
                )
                .section("9.7.9.21")
                .with_fix(Fix::replace(format!("Remove `.{mode}`"), range, "")),
            );
        }
        _ => {}
    }
}

fn check_mad(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let Some(last) = info.words.last() else {
        return;
    };
    if !matches!(*last, "f32" | "f64") || rounding(info).is_some() {
        return;
    }
    // mad.f64 needs the modifier from PTX ISA 1.4 on; mad.f32 only on sm_20 and newer, where
    // ptxas enforces it from PTX ISA 3.2 on and warns in 3.1 (9.7.3.7; measured with ptxas 13.5).
    let version = ctx.version.unwrap_or(PtxVersion::new(99, 9));
    let fermi = ctx
        .sm_target()
        .and_then(ptx_isa::SmName::parse)
        .is_none_or(|sm| sm.canonical_number() >= 20);
    let severity = match *last {
        "f64" if version < PtxVersion::new(1, 4) => return,
        "f32" if !fermi || version < PtxVersion::new(3, 1) => return,
        "f32" if version < PtxVersion::new(3, 2) => Diagnostic::warning,
        _ => Diagnostic::error,
    };
    let insert = info.mnemonic.end;
    ctx.report(
        severity(
            "missing-qualifier",
            info.opcode_range(),
            format!(
                "`{}` needs a rounding modifier (.rn, .rz, .rm or .rp)",
                info.opcode_text()
            ),
        )
        .section("9.7.3.7")
        .with_fix(Fix::replace("Add `.rn`", insert..insert, ".rn")),
    );
}

#[cfg(test)]
mod tests {
    use crate::test_support::{check_diagnostics, check_fix};
    use expect_test::expect;

    const CVT: &str = r#"
.version 8.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<4>;
  .reg .b16 %h<4>;
  cvt.f32.f64 %f1, %fd1;
//^^^^^^^^^^^ error: `cvt.f32.f64` needs a rounding modifier (.rn, .rz, .rm, .rp)
  cvt.rn.f64.f32 %fd1, %f1;
//   ^^^ error: `cvt.rn.f64.f32` takes no `.rn` rounding modifier for these types
  cvt.rzi.s32.f32 %r1, %f1;
  cvt.f32.f16 %f1, %h1;
  cvt.rni.f32.f32 %f1, %f1;
  mad.f32 %f1, %f2, %f3, %f1;
//^^^^^^^ error: `mad.f32` needs a rounding modifier (.rn, .rz, .rm or .rp)
  ret;
}
"#;

    #[test]
    fn cvt_and_mad_rounding() {
        check_diagnostics(CVT);
    }

    #[test]
    fn fix_adds_rn() {
        check_fix(
            CVT,
            "missing-qualifier",
            expect![[r#"cvt.rn.f32.f64 %f1, %fd1;"#]],
        );
    }
}
