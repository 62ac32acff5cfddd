//! A `// @run` line for a kernel, with argument placeholders typed by how the kernel uses its
//! parameters: a 64-bit parameter that the kernel loads from or stores to becomes a buffer of
//! the element type it accesses (`arg=buf:f32:0*32`, one element per thread, times the vector
//! width), a scalar compared with something (a bound such as `n`) gets the thread count, other
//! scalars 0, a by-value struct (`.b8 p[N]`) N zero bytes, and a 64-bit parameter the kernel
//! never dereferences a zeroed 1 KiB buffer.
//!
//! The launch is one CTA of the kernel's `.reqntid`/`.maxntid` (else 32 threads).

use std::collections::HashMap;

use ptx_syntax::{FunctionKind, Parse};

/// How a parameter is used.
#[derive(Debug, Default, Clone)]
struct Use {
    /// The element type and vector width of the first load or store through it.
    access: Option<(String, u32)>,
    /// Compared (`setp`) with something: a bound.
    compared: bool,
}

/// The `// @run …` line for `entry`, or `None` when there is no such kernel.
pub fn run_template(parse: &Parse, entry: &str) -> Option<String> {
    let module = parse.module();
    let function = module
        .functions()
        .into_iter()
        .find(|f| f.kind() == FunctionKind::Entry && f.name().is_some_and(|n| n.text == entry))?;
    let block: Vec<u64> = function
        .attributes()
        .into_iter()
        .find(|(d, _)| d.text == ".reqntid")
        .or_else(|| {
            function
                .attributes()
                .into_iter()
                .find(|(d, _)| d.text == ".maxntid")
        })
        .map(|(_, values)| values.iter().filter_map(|v| v.text.parse().ok()).collect())
        .unwrap_or_default();
    let block: Vec<u64> = if block.is_empty() { vec![32] } else { block };
    let threads: u64 = block.iter().product::<u64>().clamp(1, 1024);

    // Registers → the parameter whose value (or an address computed from it) they hold.
    let params: Vec<String> = function
        .parameters()
        .iter()
        .flat_map(|p| p.declarators())
        .filter_map(|d| d.name().map(|n| n.text.to_owned()))
        .collect();
    let mut origin: HashMap<String, usize> = HashMap::new();
    let mut uses: Vec<Use> = vec![Use::default(); params.len()];
    for inst in function.instructions() {
        let Some(opcode) = inst.opcode_name() else {
            continue;
        };
        let parts: Vec<&str> = opcode.split('.').collect();
        let operands: Vec<&str> = inst.operands().iter().map(|o| o.text()).collect();
        let base = |text: &str| -> String {
            text.trim_start_matches('[')
                .trim_end_matches(']')
                .split(['+', '-'])
                .next()
                .unwrap_or("")
                .trim()
                .to_owned()
        };
        let from = |text: &&str, origin: &HashMap<String, usize>| origin.get(&base(text)).copied();
        match parts[0] {
            "ld" if parts.contains(&"param") => {
                if let (Some(dst), Some(src)) = (operands.first(), operands.get(1)) {
                    if let Some(p) = params.iter().position(|p| *p == base(src)) {
                        origin.insert(dst.to_string(), p);
                    }
                }
            }
            "cvta" | "mov" | "add" | "sub" | "mad" | "cvt" => {
                // The destination holds an address from a parameter if a source does (for
                // `mad`, the addend).
                let sources: &[&str] = if parts[0] == "mad" {
                    operands.get(3).map(std::slice::from_ref).unwrap_or(&[])
                } else {
                    operands.get(1..).unwrap_or(&[])
                };
                if let (Some(dst), Some(p)) = (
                    operands.first(),
                    sources.iter().find_map(|s| from(s, &origin)),
                ) {
                    origin.insert(dst.to_string(), p);
                }
            }
            "ld" | "st" | "ldu" | "atom" | "red" => {
                let address = operands.iter().find(|o| o.starts_with('['));
                if let Some(p) = address.and_then(|a| from(a, &origin)) {
                    let vector = parts
                        .iter()
                        .find_map(|q| q.strip_prefix('v').and_then(|n| n.parse().ok()))
                        .unwrap_or(1);
                    let ty = parts
                        .iter()
                        .rev()
                        .find(|q| is_type(q))
                        .map(|t| value_type(t));
                    if uses[p].access.is_none() {
                        uses[p].access = ty.map(|t| (t, vector));
                    }
                }
            }
            "setp" => {
                for o in operands.iter().skip(1) {
                    if let Some(p) = from(o, &origin) {
                        uses[p].compared = true;
                    }
                }
            }
            _ => {}
        }
    }

    let mut words = vec![
        "// @run".to_owned(),
        "grid=1".to_owned(),
        format!(
            "block={}",
            block
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
    ];
    let mut index = 0;
    for param in function.parameters() {
        let ty = param
            .ty()
            .map(|t| t.text.trim_start_matches('.').to_owned())
            .unwrap_or_else(|| "b32".into());
        for declarator in param.declarators() {
            let used = uses.get(index).cloned().unwrap_or_default();
            index += 1;
            let array = declarator
                .dimensions()
                .first()
                .map(|size| size.and_then(|t| t.text.parse::<u64>().ok()).unwrap_or(1));
            let arg = if let Some(count) = array {
                // A by-value struct: its bytes.
                let bytes = count * type_bytes(&ty);
                format!("raw:{}", "00".repeat(bytes.min(4096) as usize))
            } else if let Some((element, vector)) = used.access {
                format!("buf:{element}:0*{}", threads * u64::from(vector))
            } else if matches!(ty.as_str(), "u64" | "b64" | "s64") {
                "zeros:1024".to_owned()
            } else if used.compared {
                format!("{}:{threads}", value_type(&ty))
            } else {
                format!("{}:0", value_type(&ty))
            };
            words.push(format!("arg={arg}"));
        }
    }
    Some(words.join(" "))
}

fn is_type(q: &str) -> bool {
    matches!(
        q,
        "b8" | "b16"
            | "b32"
            | "b64"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "s8"
            | "s16"
            | "s32"
            | "s64"
            | "f16"
            | "bf16"
            | "f32"
            | "f64"
    )
}

/// The type a value of `ty` is written in (`b32` → `u32`; the `run` arguments take the
/// integer and float types).
fn value_type(ty: &str) -> String {
    match ty {
        "b8" => "u8".into(),
        "b16" | "bf16" => "u16".into(),
        "b32" => "u32".into(),
        "b64" => "u64".into(),
        "pred" => "u32".into(),
        other => other.into(),
    }
}

fn type_bytes(ty: &str) -> u64 {
    let digits: String = ty.chars().filter(char::is_ascii_digit).collect();
    digits.parse::<u64>().map_or(4, |bits| (bits / 8).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_follow_the_use_of_each_parameter() {
        let text = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry saxpy(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n, .param .u64 unused, .param .align 4 .b8 s[12])\n\
.maxntid 64, 2, 1\n{\n\
\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<4>;\n\t.reg .pred %p;\n\
\tld.param.u64 %rd1, [x];\n\tld.param.u64 %rd2, [y];\n\tld.param.f32 %f1, [a];\n\tld.param.u32 %r1, [n];\n\
\tmov.u32 %r2, %tid.x;\n\tsetp.ge.u32 %p, %r2, %r1;\n\t@%p bra DONE;\n\
\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n\
\tmul.wide.u32 %rd5, %r2, 16;\n\tadd.s64 %rd6, %rd3, %rd5;\n\tadd.s64 %rd7, %rd4, %rd5;\n\
\tld.global.v4.f32 {%f2, %f3, %f1, %f1}, [%rd6];\n\tst.global.b32 [%rd7+4], %r2;\n\
DONE:\n\tret;\n}\n";
        let line = run_template(&Parse::new(text), "saxpy").unwrap();
        assert_eq!(
            line,
            "// @run grid=1 block=64,2,1 arg=buf:f32:0*512 arg=buf:u32:0*128 arg=f32:0 arg=u32:128 \
             arg=zeros:1024 arg=raw:000000000000000000000000"
        );
        assert_eq!(run_template(&Parse::new(text), "nosuch"), None);
    }
}
