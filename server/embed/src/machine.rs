//! What ptxas makes of asm statements: each statement as a kernel that ptxas can compile on
//! its own, for the machine-code (SASS) view of a CUDA file.
//!
//! The virtual document of a statement ([`crate::Statement`]) is made for checking: its
//! operand registers are never written before the template reads them and never read after
//! it writes them, so ptxas would drop most of the template as dead code. The kernel made here
//! keeps everything the template does alive: every operand the statement reads is loaded from
//! a buffer (the kernel's only parameter) before the template, and every operand it writes is
//! stored to the same buffer after it. Operands given as constants stay constants. Statements
//! with the same `.version` and `.target` share one module, one kernel each, so a file costs
//! one ptxas run per target rather than one per statement.

use crate::Statement;

/// Why a statement cannot be compiled on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotCompiled {
    /// The template is not readable (a macro spliced into it, ...).
    Unreadable(String),
    /// The operand lists are not readable, so operand types are unknown.
    OpaqueOperands(String),
    /// A placeholder names no operand.
    UnknownPlaceholder(String),
    /// The template has syntax errors.
    SyntaxErrors,
}

impl std::fmt::Display for NotCompiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotCompiled::Unreadable(why) => write!(f, "its template cannot be read ({why})"),
            NotCompiled::OpaqueOperands(item) => {
                write!(f, "its operand list cannot be read (`{item}`)")
            }
            NotCompiled::UnknownPlaceholder(p) => write!(f, "`{p}` names no operand"),
            NotCompiled::SyntaxErrors => write!(f, "its template has syntax errors"),
        }
    }
}

/// One statement as a kernel: its text and, for each of its lines, the host offset the line
/// came from (`None` for the lines around the template).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementKernel {
    pub name: String,
    pub text: String,
    pub host_offsets: Vec<Option<usize>>,
}

/// A module of statement kernels for one `.version` and `.target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineModule {
    pub version: String,
    pub target: String,
    pub text: String,
    /// For each line of `text` (0-based), the host offset it came from.
    pub host_offsets: Vec<Option<usize>>,
    /// The kernels, in the order of the text.
    pub kernels: Vec<String>,
}

impl MachineModule {
    /// A module of `kernels` (all for `version` and `target`).
    pub fn new(version: &str, target: &str, kernels: &[&StatementKernel]) -> MachineModule {
        let mut text = format!(".version {version}\n.target {target}\n.address_size 64\n");
        let mut host_offsets = vec![None; 3];
        for kernel in kernels {
            text.push('\n');
            host_offsets.push(None);
            text.push_str(&kernel.text);
            host_offsets.extend(kernel.host_offsets.iter().copied());
        }
        MachineModule {
            version: version.to_owned(),
            target: target.to_owned(),
            text,
            host_offsets,
            kernels: kernels.iter().map(|k| k.name.clone()).collect(),
        }
    }

    /// The host offset of a 1-based line of the module (as ptxas's line information counts).
    pub fn host_offset_of_line(&self, line: u32) -> Option<usize> {
        let index = usize::try_from(line).ok()?.checked_sub(1)?;
        self.host_offsets.get(index).copied().flatten()
    }
}

/// The type a `ld`/`st` moves for an operand register of type `ty`; `None` for the types
/// that are left unloaded (`.b8` registers, which `ld` cannot fill, and `.b128`, which needs
/// newer targets).
fn memory_type(ty: &str) -> Option<&str> {
    match ty {
        ".b16" | ".b32" | ".b64" | ".f32" | ".f64" => Some(ty),
        _ => None,
    }
}

impl Statement {
    /// This statement as the kernel `name`, or why it cannot be compiled on its own.
    pub fn machine_kernel(&self, name: &str) -> Result<StatementKernel, NotCompiled> {
        if let Some(why) = &self.raw.opaque {
            return Err(NotCompiled::Unreadable(why.to_string()));
        }
        if let Some(item) = &self.raw.operands_opaque {
            return Err(NotCompiled::OpaqueOperands(item.clone()));
        }
        if let Some(p) = self.placeholders.iter().find(|p| p.operand.is_none()) {
            return Err(NotCompiled::UnknownPlaceholder(p.written.clone()));
        }
        if self.parse.tree().root_node().has_error() {
            return Err(NotCompiled::SyntaxErrors);
        }
        let virt = self.parse.text();
        // The virtual document: header, `{`, operand declarations, template, `\n}\n`.
        let declarations_start = virt.find("{\n").map_or(self.body_start, |i| i + 2);
        let declarations = &virt[declarations_start..self.body_start];
        let template_end = virt.len() - "\n}\n".len();
        let io = format!("{name}_io");
        let mut before = format!(
            ".visible .entry {name}(.param .u64 {io})\n{{\n.reg .b64 %asm_io;\n{declarations}\
             ld.param.u64 %asm_io, [{io}];\n"
        );
        let mut after = String::new();
        for (k, operand) in self.raw.operands.iter().enumerate() {
            let Some(register) = &self.registers[k] else {
                continue;
            };
            let Some(ty) = crate::constraint_type(operand.letter(), self.target.as_deref())
                .and_then(memory_type)
            else {
                continue;
            };
            let offset = 16 * k;
            if operand.is_read() {
                before.push_str(&format!("ld.global{ty} {register}, [%asm_io+{offset}];\n"));
            }
            if operand.is_output {
                after.push_str(&format!("st.global{ty} [%asm_io+{offset}], {register};\n"));
            }
        }
        let mut text = before;
        let mut host_offsets = vec![None; text.matches('\n').count()];
        let template = &virt[self.body_start..template_end];
        let mut line_start = self.body_start;
        for line in template.split_inclusive('\n') {
            let host = (line_start..line_start + line.len())
                .find(|&v| !virt.as_bytes()[v].is_ascii_whitespace())
                .and_then(|v| self.map.offset_to_host(v));
            host_offsets.push(host);
            line_start += line.len();
        }
        text.push_str(template);
        if !template.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&after);
        text.push_str("ret;\n}\n");
        host_offsets.resize(text.matches('\n').count(), None);
        Ok(StatementKernel {
            name: name.to_owned(),
            text,
            host_offsets,
        })
    }

    /// The target the statement's module is compiled for.
    pub fn target_name(&self) -> String {
        self.target
            .clone()
            .unwrap_or_else(|| crate::FALLBACK_TARGET.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EmbedOptions, HostDocument};
    use expect_test::expect;

    fn kernels(host: &str) -> Vec<Result<StatementKernel, NotCompiled>> {
        let doc = HostDocument::new(host, &EmbedOptions::default());
        doc.statements
            .iter()
            .enumerate()
            .map(|(i, s)| s.machine_kernel(&format!("k{i}")))
            .collect()
    }

    #[test]
    fn operands_are_loaded_before_and_stored_after() {
        let host = "__device__ int f(int a, float b) {\n  int r;\n  asm volatile(\"add.s32 %0, %1, 7;\\n\\t\"\n               \"cvt.rzi.s32.f32 %0, %2;\" : \"+r\"(r) : \"r\"(a), \"f\"(b), \"n\"(3));\n  return r;\n}\n";
        let k = kernels(host).remove(0).unwrap();
        expect![[r#"
            .visible .entry k0(.param .u64 k0_io)
            {
            .reg .b64 %asm_io;
            .reg .b32 %op0;
            .reg .b32 %op1;
            .reg .b32 %op2;
            ld.param.u64 %asm_io, [k0_io];
            ld.global.b32 %op0, [%asm_io+0];
            ld.global.b32 %op1, [%asm_io+16];
            ld.global.b32 %op2, [%asm_io+32];
            add.s32 %op0, %op1, 7;
            	cvt.rzi.s32.f32 %op0, %op2;
            st.global.b32 [%asm_io+0], %op0;
            ret;
            }
        "#]]
        .assert_eq(&k.text);
        let lines: Vec<Option<usize>> = k
            .host_offsets
            .iter()
            .map(|o| o.map(|o| host[..o].matches('\n').count() + 1))
            .collect();
        assert_eq!(lines.len(), k.text.lines().count());
        // The two template lines come from host lines 3 and 4.
        expect!["[None, None, None, None, None, None, None, None, None, None, Some(3), Some(4), None, None, None]"]
            .assert_eq(&format!("{lines:?}"));
        let module = MachineModule::new("9.0", "sm_90a", &[&k]);
        assert_eq!(
            module
                .host_offset_of_line(3 + 1 + 10 + 1)
                .map(|o| &host[o..o + 3]),
            Some("add")
        );
    }

    #[test]
    fn statements_that_cannot_be_compiled_say_why() {
        let host = "void f(int x) {\n  asm(\"mov.u32 %0, %3;\" : \"=r\"(x));\n  asm(\"add.s32 %0, ;\" : \"=r\"(x));\n}\n";
        let got: Vec<String> = kernels(host)
            .into_iter()
            .map(|k| k.map_or_else(|e| e.to_string(), |k| k.name))
            .collect();
        expect![[r#"["`%3` names no operand", "its template has syntax errors"]"#]]
            .assert_eq(&format!("{got:?}"));
    }
}
