//! The TextMate grammar of the VS Code extension
//! (`editors/vscode/syntaxes/ptx.tmLanguage.json`) is generated from the
//! knowledge base: its opcode, directive, type, state-space and
//! special-register alternatives are the `ptx-isa` catalogues, so that the
//! colours a file gets before the language server starts follow the same
//! facts as the server. This test regenerates the grammar and fails on a
//! difference; `UPDATE_EXPECT=1 cargo test -p ptx-lsp --test tmgrammar`
//! rewrites the file. The grammar's behaviour is tested in
//! `editors/vscode/test/grammar` (annotated files and the corpus).

use std::collections::BTreeSet;

use serde_json::{json, Value};

/// `a|b|c` with the longest alternatives first (Oniguruma takes the first
/// alternative that matches, and `\b` alone does not order `.f16` before
/// `.f16x2` when the next character is a word character).
fn alternation<'a>(words: impl IntoIterator<Item = &'a str>) -> String {
    let mut words: Vec<&str> = words
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    words.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    words
        .iter()
        .map(|w| regex_escape(w))
        .collect::<Vec<_>>()
        .join("|")
}

fn regex_escape(word: &str) -> String {
    let mut out = String::new();
    for c in word.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn grammar() -> Value {
    let isa = ptx_isa::Isa::get();

    // Opcodes: the first segment of every instruction (`tcgen05` of
    // `tcgen05.ld`); the rest of a name is highlighted as qualifiers.
    let opcodes: BTreeSet<&str> = isa
        .instructions()
        .iter()
        .filter_map(|i| i.opcode.split('.').next())
        .filter(|root| root.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .filter(|root| !root.is_empty())
        .collect();
    let types: Vec<&str> = isa.types().iter().map(|t| &t.name[1..]).collect();
    let state_spaces: Vec<&str> = isa.state_spaces().iter().map(|s| &s.name[1..]).collect();
    let function_kinds = [".entry", ".func", ".callprototype"];
    let linkage = [".extern", ".visible", ".weak", ".common"];
    let directives: Vec<&str> = isa
        .directives()
        .iter()
        .map(|d| d.name.as_str())
        .filter(|name| name.starts_with('.'))
        .filter(|name| !function_kinds.contains(name) && !linkage.contains(name))
        .map(|name| &name[1..])
        .collect();
    let special_registers: Vec<&str> = isa
        .special_registers()
        .iter()
        .map(|r| &r.name[1..])
        .collect();
    // Declaration attributes that are not directives of the catalogue.
    let attributes = ["align", "ptr", "attribute", "managed", "unified"];

    let word_end = r"(?![\w$])";
    json!({
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "PTX",
        "scopeName": "source.ptx",
        "fileTypes": ["ptx"],
        "comment": "Generated from the ptx-isa knowledge base by tests/tmgrammar.rs; do not edit.",
        "patterns": [
            {"include": "#comments"},
            {"include": "#strings"},
            {"include": "#dwarf"},
            {"include": "#label-definition"},
            {"include": "#instruction"},
            {"include": "#function-definition"},
            {"include": "#target-directive"},
            {"include": "#directives"},
            {"include": "#state-spaces"},
            {"include": "#types"},
            {"include": "#special-registers"},
            {"include": "#registers"},
            {"include": "#numbers"},
            {"include": "#section-names"},
            {"include": "#dotted-words"},
            {"include": "#identifiers"},
            {"include": "#operators"},
            {"include": "#punctuation"}
        ],
        "repository": {
            "comments": {"patterns": [
                {"name": "comment.line.double-slash.ptx", "match": "//.*$"},
                {"name": "comment.block.ptx", "begin": r"/\*", "end": r"\*/"}
            ]},
            "strings": {
                "name": "string.quoted.double.ptx",
                "begin": "\"", "end": "\"",
                "patterns": [{"name": "constant.character.escape.ptx", "match": r"\\."}]
            },
            // `@@DWARF .byte 0x01, ...`: raw DWARF data, one line each.
            "dwarf": {
                "begin": r"@@(?i:dwarf)\b",
                "beginCaptures": {"0": {"name": "keyword.control.directive.ptx"}},
                "end": "$",
                "patterns": [
                    {"name": "keyword.control.directive.dwarf.ptx", "match": r"\.[A-Za-z0-9_]+"},
                    {"include": "#numbers"},
                    {"include": "#strings"},
                    {"include": "#punctuation"}
                ]
            },
            "label-definition": {
                "match": r"^\s*([A-Za-z_$%][\w$]*)\s*(:)(?!:)",
                "captures": {
                    "1": {"name": "entity.name.label.ptx"},
                    "2": {"name": "punctuation.separator.label.ptx"}
                }
            },
            // An opcode at the start of a statement (line start, after `;`,
            // `{`, `}` or a label), after an optional predicate guard; each
            // qualifier after it is a token of its own.
            "instruction": {
                "match": format!(
                    r"(?:^|(?<=[;{{}}:]))\s*(?:(@)(!?)(%?[A-Za-z_$][\w$]*)\s+)?(?<![\w$%.])({}){word_end}((?:\.[\w:]+)*)",
                    alternation(opcodes.iter().copied())
                ),
                "captures": {
                    "1": {"name": "keyword.operator.predicate.ptx"},
                    "2": {"name": "keyword.operator.logical.ptx"},
                    "3": {"name": "variable.other.predicate.ptx"},
                    "4": {"name": "support.function.opcode.ptx"},
                    "5": {"patterns": [{"include": "#qualifier"}]}
                }
            },
            "qualifier": {"patterns": [
                {"name": "support.type.ptx", "match": format!(r"\.(?:{}){word_end}(?!::)", alternation(types.iter().copied()))},
                {"name": "support.type.vector.ptx", "match": r"\.v(?:2|4|8|16)(?![\w$:])"},
                {"name": "storage.modifier.state-space.ptx", "match": format!(r"\.(?:{})(?:::\w+)?{word_end}", alternation(state_spaces.iter().copied()))},
                {"name": "variable.other.enummember.qualifier.ptx", "match": r"\.[\w]+(?:::[\w]+)*"}
            ]},
            "function-definition": {
                "match": format!(r"(?<![\w$])({})(?:\s+([A-Za-z_$][\w$]*))?{word_end}", alternation(function_kinds.iter().copied())),
                "captures": {
                    "1": {"name": "storage.type.function.ptx"},
                    "2": {"name": "entity.name.function.ptx"}
                }
            },
            "target-directive": {
                "begin": r"(?<![\w$])(\.target)(?![\w$])",
                "beginCaptures": {"1": {"name": "keyword.control.directive.ptx"}},
                "end": r"(?=;|//|/\*)|$",
                "patterns": [
                    {"name": "constant.language.target.ptx", "match": r"[A-Za-z_][\w]*"},
                    {"include": "#punctuation"}
                ]
            },
            "directives": {"patterns": [
                {"name": "keyword.control.directive.ptx", "match": format!(r"(?<![\w$])\.(?:{}){word_end}", alternation(directives.iter().copied()))},
                {"name": "storage.modifier.linkage.ptx", "match": format!(r"(?<![\w$])(?:{}){word_end}", alternation(linkage.iter().copied()))},
                {"name": "storage.modifier.attribute.ptx", "match": format!(r"(?<![\w$])\.(?:{}){word_end}", alternation(attributes.iter().copied()))}
            ]},
            "state-spaces": {
                "name": "storage.modifier.state-space.ptx",
                "match": format!(r"(?<![\w$])\.(?:{})(?:::\w+)?{word_end}", alternation(state_spaces.iter().copied()))
            },
            "types": {"patterns": [
                {"name": "support.type.ptx", "match": format!(r"(?<![\w$])\.(?:{}){word_end}", alternation(types.iter().copied()))},
                {"name": "support.type.vector.ptx", "match": r"(?<![\w$])\.v(?:2|4|8|16)(?![\w$])"}
            ]},
            "special-registers": {
                "name": "variable.language.special-register.ptx",
                "match": format!(r"(?<![\w$%])%(?:{})(?:\.[xyz])?{word_end}", alternation(special_registers.iter().copied()))
            },
            "registers": {
                "name": "variable.other.register.ptx",
                "match": r"(?<![\w$%])%[A-Za-z_$][\w$]*"
            },
            // Every number form of PTX: hexadecimal float bits (`0f` with 8
            // digits, `0d` with 16), decimal floats with optional exponent,
            // and hexadecimal, binary, octal and decimal integers with an
            // optional `U` suffix.
            "numbers": {"patterns": [
                {"name": "constant.numeric.float.hex.ptx", "match": r"(?<![\w$.])0[fF][0-9A-Fa-f]{8}(?![\w$])"},
                {"name": "constant.numeric.float.hex.ptx", "match": r"(?<![\w$.])0[dD][0-9A-Fa-f]{16}(?![\w$])"},
                {"name": "constant.numeric.float.ptx", "match": r"(?<![\w$.])(?:[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)(?![\w$.])"},
                {"name": "constant.numeric.integer.hexadecimal.ptx", "match": r"(?<![\w$.])0[xX][0-9A-Fa-f]+[Uu]?(?![\w$])"},
                {"name": "constant.numeric.integer.binary.ptx", "match": r"(?<![\w$.])0[bB][01]+[Uu]?(?![\w$])"},
                {"name": "constant.numeric.integer.octal.ptx", "match": r"(?<![\w$.])0[0-7]+[Uu]?(?![\w$])"},
                {"name": "constant.numeric.integer.decimal.ptx", "match": r"(?<![\w$.])(?:[1-9][0-9]*|0)[Uu]?(?![\w$])"}
            ]},
            // DWARF sections: `.section .debug_info { .b32 .debug_abbrev }`.
            "section-names": {"patterns": [
                {
                    "match": r"(?<![\w$])(\.section)\s+(\.[\w.]+)",
                    "captures": {
                        "1": {"name": "keyword.control.directive.ptx"},
                        "2": {"name": "entity.name.section.ptx"}
                    }
                },
                {"name": "entity.name.section.ptx", "match": r"(?<![\w$])\.debug_\w+"}
            ]},
            "dotted-words": {
                "name": "keyword.other.ptx",
                "match": r"(?<![\w$])\.[A-Za-z_][\w]*(?:::[\w]+)*"
            },
            "identifiers": {
                "name": "variable.other.ptx",
                "match": r"[A-Za-z_$][\w$]*"
            },
            "operators": {
                "name": "keyword.operator.ptx",
                "match": r"<<|>>|&&|\|\||==|!=|<=|>=|[-+*/%&|^~!<>=?]"
            },
            "punctuation": {"patterns": [
                {"name": "punctuation.separator.ptx", "match": "[,:]"},
                {"name": "punctuation.terminator.statement.ptx", "match": ";"},
                {"name": "punctuation.section.brackets.ptx", "match": r"[\[\]]"},
                {"name": "punctuation.section.braces.ptx", "match": r"[{}]"},
                {"name": "punctuation.section.parens.ptx", "match": r"[()]"}
            ]}
        }
    })
}

#[test]
fn the_textmate_grammar_is_generated_from_the_knowledge_base() {
    let text = serde_json::to_string_pretty(&grammar()).unwrap() + "\n";
    expect_test::expect_file!["../editors/vscode/syntaxes/ptx.tmLanguage.json"].assert_eq(&text);
}
