//! Semantic highlighting: every token with what it means.
//!
//! The syntax layer classifies tokens by their syntactic role; this module
//! adds what only a whole-document view knows: whether `%tid` is a special
//! register, whether a name in an operand is a label, a parameter, a variable
//! or a function. Editors can then colour PTX without a TextMate grammar.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use ptx_syntax::{NameRole, Parse, SyntaxToken, TextRange, TokenKind};

use crate::navigation::{DeclarationKind, Declarations};

/// What a highlighted token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HighlightKind {
    Comment,
    String,
    Number,
    /// `.version`, `.entry`, `.visible`, `.maxntid`, `.align` ...
    Directive,
    /// `.reg`, `.global`, `.shared` ...
    StateSpace,
    /// `.b32`, `.f16x2`, `.v4` ...
    Type,
    /// The mnemonic of an instruction (`ld`).
    Opcode,
    /// A `.qualifier` of an instruction.
    Qualifier,
    Register,
    /// `%tid`, `%laneid`, `%clock64` ...
    SpecialRegister,
    /// `.x` of `%tid.x`.
    Component,
    Parameter,
    Variable,
    Function,
    Label,
    Operator,
    /// A debug section name.
    Section,
    /// An architecture after `.target`.
    Target,
    /// A C preprocessor line.
    Preprocessor,
}

impl HighlightKind {
    /// Every kind, in a fixed order (the LSP legend is built from it).
    pub const ALL: [HighlightKind; 19] = [
        HighlightKind::Comment,
        HighlightKind::String,
        HighlightKind::Number,
        HighlightKind::Directive,
        HighlightKind::StateSpace,
        HighlightKind::Type,
        HighlightKind::Opcode,
        HighlightKind::Qualifier,
        HighlightKind::Register,
        HighlightKind::SpecialRegister,
        HighlightKind::Component,
        HighlightKind::Parameter,
        HighlightKind::Variable,
        HighlightKind::Function,
        HighlightKind::Label,
        HighlightKind::Operator,
        HighlightKind::Section,
        HighlightKind::Target,
        HighlightKind::Preprocessor,
    ];
}

/// Modifier bits of a highlighted token.
pub mod modifiers {
    /// The token declares the name.
    pub const DECLARATION: u32 = 1;
    /// Provided by the hardware or the ISA (special registers, opcodes).
    pub const DEFAULT_LIBRARY: u32 = 1 << 1;
    /// Cannot be written (special registers).
    pub const READONLY: u32 = 1 << 2;
    /// The instruction writes the register (it is in the destination operand).
    pub const MODIFICATION: u32 = 1 << 3;
    /// Names in the modifier legend, in bit order (the standard LSP modifiers).
    pub const NAMES: [&str; 4] = ["declaration", "defaultLibrary", "readonly", "modification"];
}

/// One highlighted token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HighlightToken {
    pub range: TextRange,
    pub kind: HighlightKind,
    /// Bits of [`modifiers`].
    pub modifiers: u32,
}

/// The highlighted tokens of the document, or of the part of it overlapping
/// `range`, in source order. Punctuation is left out.
pub fn semantic_tokens(parse: &Parse, range: Option<TextRange>) -> Vec<HighlightToken> {
    let (tokens, declarations) = match range.clone() {
        Some(range) => (
            parse.tokens_in(range.clone()),
            Declarations::around(parse, range),
        ),
        None => (parse.tokens(), Declarations::of(parse)),
    };
    let src = parse.text();
    let writes = crate::navigation::destination_ranges(parse, range.unwrap_or(0..src.len()));
    let mut next_write = 0;
    tokens
        .into_iter()
        .filter_map(|token| {
            let mut h = highlight(&token, &src[token.range.clone()], &declarations)?;
            if h.kind == HighlightKind::Register {
                // Both lists are in source order: walk the destinations along.
                while writes
                    .get(next_write)
                    .is_some_and(|w| w.end <= token.range.start)
                {
                    next_write += 1;
                }
                if writes
                    .get(next_write)
                    .is_some_and(|w| w.start <= token.range.start && token.range.end <= w.end)
                {
                    h.modifiers |= modifiers::MODIFICATION;
                }
            }
            Some(h)
        })
        .collect()
}

/// The tokens of each top-level piece of a document (a function, a declaration, a section,
/// with the comments before the next one), kept between requests: after an edit only the
/// pieces whose text changed are highlighted again. A piece's tokens depend on its own text
/// and on the module-level names (functions, globals), so both are in its key.
#[derive(Debug, Default)]
pub struct SemanticCache {
    /// Key → tokens with ranges relative to the piece's start.
    pieces: HashMap<u64, Arc<Vec<HighlightToken>>>,
}

/// The most pieces a cache keeps (the pieces of the latest request are kept in any case).
const CACHE_PIECES: usize = 20_000;

/// [`semantic_tokens`] of the whole document, reusing the tokens of unchanged pieces.
pub fn semantic_tokens_cached(parse: &Parse, cache: &mut SemanticCache) -> Vec<HighlightToken> {
    let src = parse.text();
    let items = parse.module().items();
    // Where each piece starts: the document's start and every top-level item's.
    let mut starts: Vec<usize> = vec![0];
    let mut module_names = std::collections::hash_map::DefaultHasher::new();
    for item in &items {
        let (range, name) = match item {
            ptx_syntax::Item::Function(f) => (f.range(), f.name().map(|n| n.text)),
            ptx_syntax::Item::Variable(v) => (v.range(), None),
            ptx_syntax::Item::Directive(d) => (d.range(), None),
            ptx_syntax::Item::Statement(s) => (s.range(), None),
        };
        if range.start > *starts.last().unwrap_or(&0) {
            starts.push(range.start);
        }
        match (item, name) {
            (ptx_syntax::Item::Function(_), Some(name)) => name.hash(&mut module_names),
            (ptx_syntax::Item::Function(_), None) => {}
            _ => src[range].hash(&mut module_names),
        }
    }
    let module_names = module_names.finish();
    let mut out = Vec::new();
    let mut used: HashMap<u64, Arc<Vec<HighlightToken>>> = HashMap::new();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(src.len());
        let mut key = std::collections::hash_map::DefaultHasher::new();
        module_names.hash(&mut key);
        src[start..end].hash(&mut key);
        let key = key.finish();
        // A cancelled request's result is thrown away; its pieces may be partial, so none
        // of them reaches the cache.
        if ptx_syntax::cancel::cancelled() {
            return out;
        }
        let tokens = match cache.pieces.get(&key).or_else(|| used.get(&key)) {
            Some(tokens) => tokens.clone(),
            None => Arc::new(
                semantic_tokens(parse, Some(start..end))
                    .into_iter()
                    .filter(|t| start <= t.range.start && t.range.start < end.max(start + 1))
                    .map(|t| HighlightToken {
                        range: t.range.start - start..t.range.end - start,
                        ..t
                    })
                    .collect(),
            ),
        };
        out.extend(tokens.iter().map(|t| HighlightToken {
            range: t.range.start + start..t.range.end + start,
            kind: t.kind,
            modifiers: t.modifiers,
        }));
        used.insert(key, tokens);
    }
    if ptx_syntax::cancel::cancelled() {
        return out;
    }
    // Keep what this text used, and older pieces up to the limit (an undo brings them back).
    if cache.pieces.len() + used.len() > CACHE_PIECES {
        cache.pieces.clear();
    }
    cache.pieces.extend(used);
    out
}

/// An instruction's qualifier, told apart as the TextMate grammar does (a type, a state space
/// or another qualifier), so that themes give the three different colours.
fn qualifier_kind(text: &str) -> HighlightKind {
    match ptx_isa::Isa::get().qualifier_class(text) {
        ptx_isa::QualifierClass::Type => HighlightKind::Type,
        ptx_isa::QualifierClass::StateSpace => HighlightKind::StateSpace,
        ptx_isa::QualifierClass::Other => HighlightKind::Qualifier,
    }
}

fn highlight(
    token: &SyntaxToken,
    text: &str,
    declarations: &Declarations,
) -> Option<HighlightToken> {
    use modifiers::*;
    let (kind, modifiers) = match token.kind {
        TokenKind::Comment => (HighlightKind::Comment, 0),
        TokenKind::Preprocessor => (HighlightKind::Preprocessor, 0),
        TokenKind::Keyword => (HighlightKind::Directive, 0),
        TokenKind::StateSpace => (HighlightKind::StateSpace, 0),
        TokenKind::Type => (HighlightKind::Type, 0),
        TokenKind::Mnemonic => (HighlightKind::Opcode, DEFAULT_LIBRARY),
        TokenKind::Qualifier => (qualifier_kind(text), 0),
        // `.x` of `%tid.x` is part of the special register and looks like it.
        TokenKind::Component => (HighlightKind::Component, DEFAULT_LIBRARY | READONLY),
        TokenKind::Integer | TokenKind::Float => (HighlightKind::Number, 0),
        TokenKind::String => (HighlightKind::String, 0),
        TokenKind::SectionName => (HighlightKind::Section, 0),
        TokenKind::Operator => (HighlightKind::Operator, 0),
        TokenKind::Sink => (HighlightKind::Variable, 0),
        TokenKind::Register(role) | TokenKind::Identifier(role) => {
            name_highlight(token, text, role, declarations)
        }
        TokenKind::Punctuation | TokenKind::Other => return None,
    };
    Some(HighlightToken {
        range: token.range.clone(),
        kind,
        modifiers,
    })
}

fn name_highlight(
    token: &SyntaxToken,
    text: &str,
    role: NameRole,
    declarations: &Declarations,
) -> (HighlightKind, u32) {
    use modifiers::*;
    let declared = |kind| (kind, DECLARATION);
    match role {
        NameRole::Function => return declared(HighlightKind::Function),
        NameRole::Label => return declared(HighlightKind::Label),
        NameRole::Parameter => return declared(HighlightKind::Parameter),
        NameRole::Target => return (HighlightKind::Target, 0),
        NameRole::Field => return (HighlightKind::Variable, 0),
        NameRole::Variable => {
            let kind = match declarations.of_token(text, &token.range).first() {
                Some(d) if d.kind == DeclarationKind::Register => HighlightKind::Register,
                _ if text.starts_with('%') => HighlightKind::Register,
                _ => HighlightKind::Variable,
            };
            return declared(kind);
        }
        NameRole::Reference => {}
    }
    match declarations.resolve(text, token.range.start).first() {
        Some(decl) => {
            let kind = match decl.kind {
                DeclarationKind::Function => HighlightKind::Function,
                DeclarationKind::Parameter => HighlightKind::Parameter,
                DeclarationKind::Variable => HighlightKind::Variable,
                DeclarationKind::Register => HighlightKind::Register,
                DeclarationKind::Label => HighlightKind::Label,
            };
            (kind, 0)
        }
        None if is_special_register(text) => {
            (HighlightKind::SpecialRegister, DEFAULT_LIBRARY | READONLY)
        }
        None if text.starts_with('%') => (HighlightKind::Register, 0),
        None => (HighlightKind::Variable, 0),
    }
}

/// Whether `name` is a special register of the ISA (`%tid`, `%envreg3`, `%pm0_64`).
pub fn is_special_register(name: &str) -> bool {
    static NAMES: OnceLock<HashSet<String>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let mut names = HashSet::new();
        for register in ptx_isa::Isa::get().special_registers() {
            names.insert(register.name.clone());
            names.extend(register.components.iter().cloned());
        }
        names
    });
    if names.contains(name) {
        return true;
    }
    // Numbered families the catalog may list by their first member only.
    let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
    prefix.len() < name.len() && matches!(prefix, "%envreg" | "%pm" | "%reserved_smem_offset_")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached tokens are the whole-document tokens, on the corpus files, before and
    /// after an edit inside one function, and when a module-level name changes.
    #[test]
    fn cached_pieces_equal_the_whole_document() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let mut files = Vec::new();
        for dir in ["nvcc", "triton"] {
            for entry in std::fs::read_dir(corpus.join(dir)).unwrap().flatten() {
                // The files under 300 KB (the larger ones take long in a debug build).
                let small = entry.metadata().is_ok_and(|m| m.len() < 300_000);
                if small && entry.path().extension().is_some_and(|e| e == "ptx") {
                    files.push(entry.path());
                }
            }
        }
        assert!(files.len() > 20);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let mut cache = SemanticCache::default();
            let parse = Parse::new(text.as_str());
            assert_eq!(
                semantic_tokens_cached(&parse, &mut cache),
                semantic_tokens(&parse, None),
                "{}",
                file.display()
            );
            // An edit in the middle: a register renamed on one line.
            let Some(at) = text[text.len() / 2..]
                .find("%r")
                .map(|i| i + text.len() / 2)
            else {
                continue;
            };
            let edited = format!("{}%zz{}", &text[..at], &text[at + 2..]);
            let parse = Parse::new(edited.as_str());
            assert_eq!(
                semantic_tokens_cached(&parse, &mut cache),
                semantic_tokens(&parse, None),
                "{} after an edit",
                file.display()
            );
        }
        // A global added: references to it elsewhere change their kind.
        let before = ".global .u32 g;\n.entry k()\n{\n\tld.global.u32 %r1, [h];\n}\n";
        let after = ".global .u32 h;\n.entry k()\n{\n\tld.global.u32 %r1, [h];\n}\n";
        let mut cache = SemanticCache::default();
        for text in [before, after] {
            let parse = Parse::new(text);
            assert_eq!(
                semantic_tokens_cached(&parse, &mut cache),
                semantic_tokens(&parse, None),
                "{text}"
            );
        }
    }
    use expect_test::{expect, Expect};

    fn check(text: &str, expect: Expect) {
        let parse = Parse::new(text);
        let out: String = semantic_tokens(&parse, None)
            .iter()
            .map(|t| {
                let mods: Vec<&str> = modifiers::NAMES
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| t.modifiers & (1 << i) != 0)
                    .map(|(_, n)| *n)
                    .collect();
                format!(
                    "{:?} {:?} {}\n",
                    t.kind,
                    &text[t.range.clone()],
                    mods.join(",")
                )
            })
            .collect();
        expect.assert_eq(&out);
    }

    /// Lines of integers in a debug section are one `data_block` node; each of
    /// their numbers, types and comments is still a token of its own.
    #[test]
    fn numbers_of_a_data_block() {
        check(
            ".section .debug_abbrev\n{\n.b8 1,0x11 // DW_AT_producer\n.b64 $L__func_begin0\n}\n",
            expect![[r#"
                Directive ".section" 
                Section ".debug_abbrev" 
                Type ".b8" 
                Number "1" 
                Number "0x11" 
                Comment "// DW_AT_producer" 
                Type ".b64" 
                Variable "$L__func_begin0" 
            "#]],
        );
    }

    #[test]
    fn every_kind_of_token() {
        check(
            r#".version 9.0 // v
.target sm_90a
.global .b32 g;
.func f(.param .b32 x) { ret; }
.entry k(.param .u64 p)
{
  .reg .pred P1;
  .reg .b32 %r<2>;
L: ld.param.u32 %r1, [p];
  mov.u32 %r0, %tid.x;
  st.global.b32 [g+4], %clock;
  @P1 bra L;
  call f, (%r1);
}
"#,
            expect![[r#"
                Directive ".version" 
                Number "9.0" 
                Comment "// v" 
                Directive ".target" 
                Target "sm_90a" 
                StateSpace ".global" 
                Type ".b32" 
                Variable "g" declaration
                Directive ".func" 
                Function "f" declaration
                StateSpace ".param" 
                Type ".b32" 
                Parameter "x" declaration
                Opcode "ret" defaultLibrary
                Directive ".entry" 
                Function "k" declaration
                StateSpace ".param" 
                Type ".u64" 
                Parameter "p" declaration
                StateSpace ".reg" 
                Type ".pred" 
                Register "P1" declaration
                StateSpace ".reg" 
                Type ".b32" 
                Register "%r" declaration
                Number "2" 
                Label "L" declaration
                Opcode "ld" defaultLibrary
                StateSpace ".param" 
                Type ".u32" 
                Register "%r1" modification
                Parameter "p" 
                Opcode "mov" defaultLibrary
                Type ".u32" 
                Register "%r0" modification
                SpecialRegister "%tid" defaultLibrary,readonly
                Component ".x" defaultLibrary,readonly
                Opcode "st" defaultLibrary
                StateSpace ".global" 
                Type ".b32" 
                Variable "g" 
                Operator "+" 
                Number "4" 
                SpecialRegister "%clock" defaultLibrary,readonly
                Operator "@" 
                Register "P1" 
                Opcode "bra" defaultLibrary
                Label "L" 
                Opcode "call" defaultLibrary
                Function "f" 
                Register "%r1" 
            "#]],
        );
    }

    #[test]
    fn a_range_selects_the_tokens_inside_it() {
        let text = ".entry k() {\n  mov.u32 %r1, %laneid;\n  ret;\n}\n";
        let parse = Parse::new(text);
        let start = text.find("mov").unwrap();
        let end = text.find(';').unwrap();
        let kinds: Vec<HighlightKind> = semantic_tokens(&parse, Some(start..end))
            .iter()
            .map(|t| t.kind)
            .collect();
        assert_eq!(
            kinds,
            [
                HighlightKind::Opcode,
                HighlightKind::Type,
                HighlightKind::Register,
                HighlightKind::SpecialRegister
            ]
        );
    }

    /// A range request sees only the declarations around the range; it must
    /// classify every token exactly as the full request does.
    #[test]
    fn ranges_agree_with_the_whole_file() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/corpus/nvcc/hopper_asm_sm_90a.ptx");
        let text = std::fs::read_to_string(path).unwrap();
        let parse = Parse::new(text.as_str());
        let full = semantic_tokens(&parse, None);
        for start in (0..text.len()).step_by(997) {
            let range = start..(start + 300).min(text.len());
            let part = semantic_tokens(&parse, Some(range.clone()));
            let expected: Vec<_> = full
                .iter()
                .filter(|t| t.range.start < range.end && range.start < t.range.end)
                .cloned()
                .collect();
            assert_eq!(part, expected, "range {range:?}");
        }
    }

    #[test]
    fn special_register_families() {
        for name in ["%tid", "%tid.x", "%laneid", "%envreg7", "%pm3", "%clock64"] {
            assert!(is_special_register(name), "{name}");
        }
        for name in ["%r1", "%tidx", "%envreg"] {
            assert!(!is_special_register(name), "{name}");
        }
    }
}
