//! Instructions whose rules found nothing, remembered by everything those rules can see.
//!
//! The instruction rules read an instruction's text, the declarations its names resolve to,
//! and the module's `.version`/`.target` (fixed for one check). Two instructions whose texts
//! differ only in the names of registers or variables declared alike (same type, vector and
//! state space), used in the same pattern (`%r1, %r1, %r2` is not `%r1, %r2, %r3`), get the same answers
//! from every rule. Compiler output repeats such instructions thousands of times
//! (`add.s32 %r5, %r3, %r4;`), so the checker runs the rules on the first of each kind and,
//! when they find nothing, skips them for the rest.
//!
//! The key is the instruction's text with blanks kept only between words and each name
//! resolved to what the rules read of it, plus its place among the instruction's distinct
//! names: a register or variable, its declared type, vector and state space (and for a
//! variable whether it is an input parameter of the function, which may not be written); a
//! label, nothing more; a function, whether it is an `.extern` defined nowhere and whether
//! its signature is one ptxas's ABI cannot pass. Undeclared
//! names and special registers stay as written, and a name keeps its `%` (the grammar reads
//! `%r1` as a register and `r1` as an identifier). The key of a `.param::func` access also
//! says whether it is in a kernel, where such accesses differ.
//!
//! Only clean results are remembered: an instruction with a diagnostic is checked every time,
//! so every diagnostic has its own ranges.

use rustc_hash::FxHashSet as HashSet;

use ptx_syntax::TextRange;

use crate::scope::{Scope, SymbolKind};

/// The keys of instructions checked clean so far in one check.
#[derive(Debug, Default)]
pub(crate) struct CleanMemo {
    clean: HashSet<Box<[u8]>>,
    /// The key of the instruction being checked.
    key: Vec<u8>,
    /// The distinct declared names of that instruction, in order of first use.
    registers: Vec<(usize, usize)>,
    /// Where that instruction's mnemonic is.
    mnemonic: (usize, usize),
}

const REGISTER: u8 = 0x01;
const FIELD: u8 = 0x02;
const VARIABLE: u8 = 0x03;
const LABEL: u8 = 0x04;
const FUNCTION: u8 = 0x05;

/// What the key of an instruction reads besides its text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Names<'s, 'a> {
    pub scope: &'s Scope<'a>,
    /// The function's input parameters, as declared.
    pub inputs: &'s [TextRange],
    /// Functions declared `.extern` and defined nowhere in the module.
    pub unresolved: &'s [&'a str],
    /// Functions whose signature ptxas's ABI cannot pass.
    pub outside_abi: &'s [&'a str],
    /// Whether the instruction is in a kernel (`.entry`): some accesses differ there.
    pub in_entry: bool,
    /// Where the function's body starts: a `.param` declared in it is a call's argument or
    /// result, which the rules treat apart from the function's own parameters.
    pub body_start: usize,
}

impl CleanMemo {
    /// Builds the key of an instruction's text; `false` when the instruction is not one to
    /// remember (more than 255 distinct registers).
    pub fn prepare(&mut self, text: &str, names: Names<'_, '_>) -> bool {
        self.key.clear();
        self.registers.clear();
        let bytes = text.as_bytes();
        let mut i = skip_blanks(bytes, 0);
        // The guard (`@%p1`, `@!p`): its predicate resolves like any name.
        if bytes.get(i) == Some(&b'@') {
            self.key.push(b'@');
            i = skip_blanks(bytes, i + 1);
            if bytes.get(i) == Some(&b'!') {
                self.key.push(b'!');
                i = skip_blanks(bytes, i + 1);
            }
            let start = i;
            if bytes.get(i) == Some(&b'%') {
                i += 1;
            }
            while i < bytes.len() && is_name_byte(bytes[i]) {
                i += 1;
            }
            if !self.name_or_register(text, start, i, names) {
                return false;
            }
            self.key.push(b' ');
            i = skip_blanks(bytes, i);
        }
        // The opcode with its qualifiers, as written.
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b';' {
            i += 1;
        }
        self.mnemonic = (start, text[start..i].find('.').map_or(i, |at| start + at));
        // Calls and branch tables read the callee's signature and the function's tables,
        // which the key does not hold: they are checked every time.
        if text[start..].starts_with("call") || text[start..].starts_with("brx") {
            return false;
        }
        // A branch to a `%` label reads whether the label is declared before it.
        if text[start..i].starts_with("bra") && text[i..].contains('%') {
            return false;
        }
        // In a kernel, reading a call's `.param` depends on the calls before it.
        if names.in_entry && text[start..i].starts_with("ld") && text[start..i].contains(".param") {
            return false;
        }
        self.key.extend_from_slice(&bytes[start..i]);
        // Only `.param::func` accesses read whether the function is a kernel.
        if text[start..i].contains("::func") {
            self.key.push(u8::from(names.in_entry));
        }
        // The operands.
        while i < bytes.len() {
            let b = bytes[i];
            let start = i;
            if b.is_ascii_whitespace() {
                // Blanks count only between two words (`a b` is not `ab`).
                i = skip_blanks(bytes, i);
                let word = |b: u8| is_name_byte(b) || b == b'%' || b == b'.';
                let before = start.checked_sub(1).map(|p| bytes[p]);
                if before.is_some_and(word) && bytes.get(i).is_some_and(|&b| word(b)) {
                    self.key.push(b' ');
                }
            } else if b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')) {
                // A comment, kept as written.
                i = if bytes[i + 1] == b'/' {
                    text[i..].find('\n').map_or(bytes.len(), |at| i + at)
                } else {
                    text[i + 2..]
                        .find("*/")
                        .map_or(bytes.len(), |at| i + 4 + at)
                };
                self.key.extend_from_slice(&bytes[start..i]);
            } else if b.is_ascii_digit() || b == b'.' {
                // A number (`0f3F800000`, `1.5e3`) or a `.x`-style suffix, as written.
                i += 1;
                while i < bytes.len() && (is_name_byte(bytes[i]) || bytes[i] == b'.') {
                    i += 1;
                }
                self.key.extend_from_slice(&bytes[start..i]);
            } else if is_name_byte(b)
                || (b == b'%' && bytes.get(i + 1).is_some_and(|&c| is_name_byte(c)))
            {
                i += 1;
                while i < bytes.len() && is_name_byte(bytes[i]) {
                    i += 1;
                }
                if !self.name_or_register(text, start, i, names) {
                    return false;
                }
            } else {
                self.key.push(b);
                i += 1;
            }
        }
        true
    }

    /// The mnemonic of the instruction whose text was prepared.
    pub fn mnemonic<'t>(&self, text: &'t str) -> &'t str {
        text.get(self.mnemonic.0..self.mnemonic.1).unwrap_or("")
    }

    /// Whether the prepared key was checked clean before.
    pub fn is_clean(&self) -> bool {
        self.clean.contains(self.key.as_slice())
    }

    /// Remembers the prepared key as clean.
    pub fn set_clean(&mut self) {
        self.clean.insert(self.key.as_slice().into());
    }

    /// A register or name at `start..end`; `false` past 255 distinct names.
    fn name_or_register(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        names: Names<'_, '_>,
    ) -> bool {
        let name = &text[start..end];
        let Some(symbol) = names.scope.lookup(name) else {
            self.key.extend_from_slice(name.as_bytes());
            return true;
        };
        let ordinal = match (self.registers.iter()).position(|&(s, e)| &text[s..e] == name) {
            Some(ordinal) => ordinal,
            None => {
                self.registers.push((start, end));
                self.registers.len() - 1
            }
        };
        let Ok(ordinal) = u8::try_from(ordinal) else {
            return false;
        };
        // The grammar reads `%name` as a register and `name` as an identifier, and some rules
        // look at that: the sigil stays in the key.
        self.key.push(u8::from(name.starts_with('%')));
        match symbol.kind {
            SymbolKind::Register => {
                self.key.push(REGISTER);
                self.key.push(ordinal);
                self.fields(&[symbol.ty, symbol.vector, symbol.space]);
            }
            SymbolKind::Label => {
                self.key.push(LABEL);
                self.key.push(ordinal);
            }
            SymbolKind::Variable => {
                self.key.push(VARIABLE);
                self.key.push(ordinal);
                let input = names.inputs.contains(&symbol.range);
                let local = symbol.range.start >= names.body_start;
                self.key.push(u8::from(input) | u8::from(local) << 1);
                self.fields(&[symbol.ty, symbol.vector, symbol.space]);
            }
            SymbolKind::Function => {
                self.key.push(FUNCTION);
                self.key.push(ordinal);
                self.key.push(u8::from(names.unresolved.contains(&name)));
                self.key.push(u8::from(names.outside_abi.contains(&name)));
            }
        }
        true
    }

    fn fields(&mut self, fields: &[Option<&str>]) {
        for field in fields {
            self.key.extend_from_slice(field.unwrap_or("").as_bytes());
            self.key.push(FIELD);
        }
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn skip_blanks(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use crate::{check_every_instruction, check_text, CheckOptions};
    use ptx_syntax::Parse;

    const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

    /// The error lines (1-based) of a module, checked with and without the memo (which must agree).
    fn error_lines(text: &str) -> Vec<usize> {
        let options = CheckOptions::default();
        let diagnostics = check_text(text, &options);
        assert_eq!(
            diagnostics,
            check_every_instruction(&Parse::new(text), &options)
        );
        diagnostics
            .iter()
            .filter(|d| d.severity == crate::Severity::Error)
            .map(|d| text[..d.range.start].lines().count())
            .collect()
    }

    #[test]
    fn a_clean_line_does_not_hide_the_same_text_under_other_declarations() {
        let text = format!(
            "{HEADER}.visible .entry a()\n{{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2, %r2;\n\tret;\n}}\n\
             .visible .entry b()\n{{\n\t.reg .f64 %r<3>;\n\tadd.s32 %r1, %r2, %r2;\n\tret;\n}}\n"
        );
        assert_eq!(error_lines(&text), [13, 13, 13]);
    }

    #[test]
    fn names_of_other_functions_are_other_names() {
        // The same parameter name in two kernels: an `.f32` store to the first kernel's `.u64`
        // parameter address is fine; the second kernel's `x` is a `.shared` array.
        let text = format!(
            "{HEADER}.visible .entry a(.param .u64 x)\n{{\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [x];\n\tret;\n}}\n\
             .visible .entry b()\n{{\n\t.reg .b64 %rd<2>;\n\t.shared .b8 x[8];\n\tld.param.u64 %rd1, [x];\n\tret;\n}}\n"
        );
        assert_eq!(error_lines(&text), [14]);
    }

    #[test]
    fn a_write_to_an_input_parameter_is_not_a_write_to_a_return_parameter() {
        let text = format!(
            "{HEADER}.visible .func (.param .u64 x) f()\n{{\n\t.reg .b64 %rd<2>;\n\tst.param.u64 [x], %rd1;\n\tret;\n}}\n\
             .visible .entry a(.param .u64 x)\n{{\n\t.reg .b64 %rd<2>;\n\tst.param.u64 [x], %rd1;\n\tret;\n}}\n"
        );
        assert_eq!(error_lines(&text), [13]);
    }

    #[test]
    fn a_call_of_a_defined_function_does_not_hide_a_call_of_an_unresolved_one() {
        let text = format!(
            "{HEADER}.extern .func f();\n.visible .func g()\n{{\n\tret;\n}}\n\
             .visible .entry a()\n{{\n\tcall.uni g;\n\tcall.uni f;\n\tret;\n}}\n"
        );
        assert_eq!(error_lines(&text), [12]);
    }

    #[test]
    fn the_address_of_a_passable_function_does_not_hide_one_of_an_unpassable_one() {
        let text = format!(
            "{HEADER}.visible .func g(.param .b16 x)\n{{\n\tret;\n}}\n.visible .func f(.param .u16 x)\n{{\n\tret;\n}}\n\
             .visible .entry a()\n{{\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, g;\n\tmov.u64 %rd1, f;\n\tret;\n}}\n"
        );
        assert_eq!(error_lines(&text), [16]);
    }

    #[test]
    fn a_register_keeps_its_sigil() {
        // `%rm` is a register operand and `isshrd` an identifier one, which not every rule
        // reads alike: the first line must not vouch for the second.
        let text = format!(
            "{HEADER}.visible .entry a()\n{{\n\t.reg .b32 isshrd, sptr;\n\tisspacep.shared isshrd, sptr;\n\tret;\n}}\n\
             .visible .entry b()\n{{\n\t.reg .b32 %rm, sptr;\n\tisspacep.shared %rm, sptr;\n\tret;\n}}\n"
        );
        let errors = error_lines(&text);
        assert!(errors.contains(&13), "{errors:?}");
    }

    #[test]
    fn keys_keep_the_pattern_of_registers_and_drop_their_names() {
        let text = format!(
            "{HEADER}.visible .entry a()\n{{\n\t.reg .b32 %r<9>;\n\t.reg .pred %p<3>;\n\
             \tadd.s32 %r1, %r2, %r3;\n\tadd.s32 \t%r4,%r5,  %r6;\n\tadd.s32 %r1, %r1, %r3;\n\
             \t@%p1 bra $L;\n\t@!%p2 bra $L;\n\tbra $L;\n\tbra $M;\n$L:\n$M:\n\tret;\n}}\n"
        );
        let parse = Parse::new(text.as_str());
        let options = CheckOptions::default();
        let mut ctx = crate::context::Ctx::new(&parse, &options);
        let items = ctx.module.items();
        let mut scope = crate::handlers::prepare_names(&mut ctx, &items);
        let function = parse.module().functions()[0];
        let statements = function.body().expect("body").statements();
        let mut frame = crate::scope::Frame::default();
        frame.declare_block(&statements, &mut Vec::new());
        frame.declare_all_labels(&statements, &mut Vec::new());
        scope.push(frame);
        let keys: Vec<Vec<u8>> = statements
            .iter()
            .filter_map(|s| match s {
                ptx_syntax::Statement::Instruction(inst) => Some(inst.text()),
                _ => None,
            })
            .map(|text| {
                let mut memo = super::CleanMemo::default();
                let names = super::Names {
                    scope: &scope,
                    inputs: &[],
                    unresolved: &[],
                    outside_abi: &[],
                    in_entry: true,
                    body_start: 0,
                };
                assert!(memo.prepare(text, names));
                memo.key
            })
            .collect();
        assert_eq!(keys[0], keys[1], "blanks and register names do not count");
        assert_ne!(keys[0], keys[2], "a repeated register is another pattern");
        assert_ne!(keys[3], keys[4], "a negated guard is another instruction");
        assert_eq!(keys[5], keys[6], "label names do not count");
    }
}
