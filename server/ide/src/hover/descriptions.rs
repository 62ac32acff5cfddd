//! The built-in descriptions: our own words for every instruction, qualifier, directive, special
//! register, type and state space, embedded from `data/descriptions/*.txt` (format in that
//! folder's README) and parsed once on first use.
//!
//! Lookups fall back from the specific to the general: a qualifier is described by its
//! instruction's own block, then by the blocks of shorter opcodes (`tcgen05.mma.sp` falls back to
//! `tcgen05.mma`), then by the shared `[*]` block, and finally from its spelling (matrix shapes,
//! repeat counts, types).

use std::collections::HashMap;
use std::sync::OnceLock;

/// Every embedded data file, with its name (for error messages and the verbatim test).
pub const FILES: &[(&str, &str)] = &[
    (
        "instructions/arith.txt",
        include_str!("../../data/descriptions/instructions/arith.txt"),
    ),
    (
        "instructions/data.txt",
        include_str!("../../data/descriptions/instructions/data.txt"),
    ),
    (
        "instructions/control.txt",
        include_str!("../../data/descriptions/instructions/control.txt"),
    ),
    (
        "instructions/matrix.txt",
        include_str!("../../data/descriptions/instructions/matrix.txt"),
    ),
    (
        "instructions/misc.txt",
        include_str!("../../data/descriptions/instructions/misc.txt"),
    ),
    (
        "qualifiers.txt",
        include_str!("../../data/descriptions/qualifiers.txt"),
    ),
    (
        "directives.txt",
        include_str!("../../data/descriptions/directives.txt"),
    ),
    (
        "registers.txt",
        include_str!("../../data/descriptions/registers.txt"),
    ),
    (
        "types.txt",
        include_str!("../../data/descriptions/types.txt"),
    ),
];

/// One `[KEY]` block of a data file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Description {
    /// The description, in markdown; paragraphs separated by blank lines.
    pub text: String,
    /// Lines of the example (PTX source).
    pub example: Vec<String>,
    /// `(qualifier with dot, meaning in this block's instruction)`, in file order.
    pub qualifiers: Vec<(String, String)>,
}

impl Description {
    /// What `qualifier` (with its dot) means here, if this block says.
    pub fn qualifier(&self, qualifier: &str) -> Option<&str> {
        self.qualifiers
            .iter()
            .find(|(q, _)| q == qualifier)
            .map(|(_, text)| text.as_str())
    }
}

/// Where a qualifier's description came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QualifierSource {
    /// The instruction's own block (or the block of a shorter opcode of the same family).
    Instruction,
    /// The shared `[*]` block.
    Shared,
    /// Derived from the spelling: a shape, a repeat count or a type.
    Spelling,
}

/// All descriptions, by key.
#[derive(Debug, Default)]
pub struct Descriptions {
    blocks: HashMap<String, Description>,
}

/// The embedded descriptions.
///
/// # Panics
/// If an embedded file is malformed (caught by this module's tests).
pub fn descriptions() -> &'static Descriptions {
    static DESCRIPTIONS: OnceLock<Descriptions> = OnceLock::new();
    DESCRIPTIONS.get_or_init(|| {
        Descriptions::parse(FILES).unwrap_or_else(|e| panic!("ptx-ide descriptions: {e}"))
    })
}

impl Descriptions {
    /// Parses data files; a duplicate key or a line outside any block is an error.
    pub fn parse(files: &[(&str, &str)]) -> Result<Descriptions, String> {
        let mut blocks: HashMap<String, Description> = HashMap::new();
        for (name, text) in files {
            let mut current: Option<(String, Description)> = None;
            let mut paragraph_break = false;
            for (lineno, raw) in text.lines().enumerate() {
                let line = raw.trim();
                let here = || format!("{name}:{}", lineno + 1);
                if line.starts_with('#') {
                    continue;
                }
                if let Some(key) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                    if let Some((k, d)) = current.take() {
                        insert(&mut blocks, k, d, &here())?;
                    }
                    current = Some((key.trim().to_string(), Description::default()));
                    paragraph_break = false;
                    continue;
                }
                if line.is_empty() {
                    paragraph_break = true;
                    continue;
                }
                let Some((_, block)) = current.as_mut() else {
                    return Err(format!("{}: text outside a [KEY] block", here()));
                };
                if let Some(example) = line.strip_prefix("example:") {
                    block.example.push(example.trim().to_string());
                } else if let Some((q, meaning)) = qualifier_line(line) {
                    if block.qualifiers.iter().any(|(x, _)| x == q) {
                        return Err(format!("{}: qualifier {q} described twice", here()));
                    }
                    block.qualifiers.push((q.to_string(), meaning.to_string()));
                } else {
                    if !block.text.is_empty() {
                        block
                            .text
                            .push_str(if paragraph_break { "\n\n" } else { " " });
                    }
                    block.text.push_str(line);
                }
                paragraph_break = false;
            }
            if let Some((k, d)) = current.take() {
                insert(&mut blocks, k, d, name)?;
            }
        }
        Ok(Descriptions { blocks })
    }

    /// The block stored under exactly `key`.
    pub fn get(&self, key: &str) -> Option<&Description> {
        self.blocks.get(key)
    }

    /// Every key, unordered.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.blocks.keys().map(String::as_str)
    }

    /// Every block, unordered.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Description)> {
        self.blocks.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The description of an instruction: the block for this spec section (`add 9.7.3.3`) or,
    /// failing that, the one for the opcode.
    pub fn instruction(&self, opcode: &str, section: &str) -> Option<&Description> {
        self.blocks
            .get(&format!("{opcode} {section}"))
            .or_else(|| self.blocks.get(opcode))
    }

    /// A directive (`.maxnreg`, `@@dwarf`).
    pub fn directive(&self, name: &str) -> Option<&Description> {
        self.blocks
            .get(name)
            .or_else(|| self.blocks.get(&name.to_ascii_lowercase()))
    }

    /// A special register by base name or numbered family member (`%tid`, `%pm3`,
    /// `%envreg17`, `%pm2_64`): numbered registers share their family's `0` entry.
    pub fn special_register(&self, name: &str) -> Option<&Description> {
        let base = name.split('.').next().unwrap_or(name);
        self.blocks
            .get(base)
            .or_else(|| self.blocks.get(&renumber(base)))
    }

    /// A type (`.f16x2`) or state space (`.shared`, also `.shared::cta`).
    pub fn type_or_space(&self, name: &str) -> Option<&Description> {
        self.blocks.get(name).or_else(|| {
            let base = name.split("::").next()?;
            self.blocks.get(base)
        })
    }

    /// What `qualifier` (with or without its dot) means on instruction `opcode` of spec section
    /// `section`, and where that text came from.
    pub fn qualifier(
        &self,
        opcode: &str,
        section: &str,
        qualifier: &str,
    ) -> Option<(String, QualifierSource)> {
        let q = normalize_qualifier(qualifier);
        let mut keys = vec![format!("{opcode} {section}")];
        let mut prefix = opcode;
        loop {
            keys.push(prefix.to_string());
            match prefix.rfind('.') {
                Some(i) => prefix = &prefix[..i],
                None => break,
            }
        }
        for key in &keys {
            if let Some(text) = self.blocks.get(key).and_then(|b| b.qualifier(&q)) {
                return Some((text.to_string(), QualifierSource::Instruction));
            }
        }
        if let Some(text) = self.blocks.get("*").and_then(|b| b.qualifier(&q)) {
            return Some((text.to_string(), QualifierSource::Shared));
        }
        self.by_spelling(&q)
            .map(|text| (text, QualifierSource::Spelling))
    }

    /// Descriptions that follow from how a qualifier is spelled.
    fn by_spelling(&self, q: &str) -> Option<String> {
        let bare = &q[1..];
        if let Some((m, n, k)) = matrix_shape(bare) {
            return Some(match k {
                Some(k) => format!(
                    "Matrix shape M={m}, N={n}, K={k}: A is {m}x{k}, B is {k}x{n}, and C and D are {m}x{n}."
                ),
                None => format!("Matrix shape of {m} rows by {n} columns."),
            });
        }
        if let Some(n) = bare.strip_prefix('x').and_then(|n| n.parse::<u32>().ok()) {
            return Some(format!(
                "Repeat count: the basic access or matrix is repeated {n} time{}.",
                if n == 1 { "" } else { "s" }
            ));
        }
        if let Some((lanes, bits)) = datapath_shape(bare) {
            return Some(format!(
                "Data-path shape: each access covers {lanes} lanes of tensor memory by {bits} bits."
            ));
        }
        // `.u8.s8` style pairs of types (destination and source).
        let parts: Vec<&str> = bare.split('.').collect();
        if parts.len() > 1
            && parts
                .iter()
                .all(|p| self.blocks.contains_key(&format!(".{p}")))
        {
            let names: Vec<String> = parts.iter().map(|p| format!("`.{p}`")).collect();
            return Some(format!(
                "A combination of the types {}.",
                names.join(" and ")
            ));
        }
        if let Some(ty) = self.blocks.get(q).filter(|_| q.len() > 1) {
            let first = ty.text.split(". ").next().unwrap_or(&ty.text);
            let first = first.trim_end_matches('.');
            return Some(format!("Type: {first}."));
        }
        None
    }
}

fn insert(
    blocks: &mut HashMap<String, Description>,
    key: String,
    description: Description,
    at: &str,
) -> Result<(), String> {
    if description.text.is_empty() && key != "*" {
        return Err(format!("{at}: block [{key}] has no description"));
    }
    if blocks.contains_key(&key) {
        return Err(format!("{at}: block [{key}] defined twice"));
    }
    blocks.insert(key, description);
    Ok(())
}

/// `.qual = meaning` lines: the qualifier has no spaces and starts with a dot.
fn qualifier_line(line: &str) -> Option<(&str, &str)> {
    let (q, meaning) = line.split_once(" = ")?;
    (q.starts_with('.') && !q.contains(char::is_whitespace)).then_some((q, meaning.trim()))
}

/// `pack::16b`, `.pack::16b` and the data's footnote-marked `.32x128b***` all become
/// `.pack::16b` / `.32x128b`.
pub fn normalize_qualifier(q: &str) -> String {
    let q = q.trim().trim_end_matches('*');
    if q.starts_with('.') {
        q.to_string()
    } else {
        format!(".{q}")
    }
}

/// `%pm3` -> `%pm0`, `%pm3_64` -> `%pm0_64`, `%envreg17` -> `%envreg0`.
fn renumber(name: &str) -> String {
    // Only the first run of digits numbers the family member (`_64` is part of the name).
    let Some(start) = name.find(|c: char| c.is_ascii_digit()) else {
        return name.to_string();
    };
    let end = name[start..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(name.len(), |e| start + e);
    format!("{}0{}", &name[..start], &name[end..])
}

/// `m16n8k16` -> (16, 8, Some(16)); `m8n8` -> (8, 8, None).
fn matrix_shape(q: &str) -> Option<(u32, u32, Option<u32>)> {
    let rest = q.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = match rest.split_once('k') {
        Some((n, k)) => (n, Some(k.parse().ok()?)),
        None => (rest, None),
    };
    Some((m.parse().ok()?, n.parse().ok()?, k))
}

/// `16x64b` -> (16, "64"), `16x32bx2` -> (16, "32 (twice)").
fn datapath_shape(q: &str) -> Option<(u32, String)> {
    let (lanes, rest) = q.split_once('x')?;
    let lanes: u32 = lanes.parse().ok()?;
    let (bits, twice) = match rest.strip_suffix("bx2") {
        Some(bits) => (bits, true),
        None => (rest.strip_suffix('b')?, false),
    };
    let bits: u32 = bits.parse().ok()?;
    Some((
        lanes,
        if twice {
            format!("{bits}, done twice")
        } else {
            bits.to_string()
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_files_parse() {
        let d = descriptions();
        assert!(d
            .instruction("add", "9.7.3.3")
            .unwrap()
            .text
            .contains("Floating-point"));
        assert!(d
            .instruction("add", "9.7.1.1")
            .unwrap()
            .text
            .contains("Integer"));
        assert!(d.special_register("%pm5_64").is_some());
        assert!(d.special_register("%tid.x").is_some());
        assert!(d.type_or_space(".shared::cluster").is_some());
    }

    #[test]
    fn qualifier_lookup_falls_back_in_order() {
        let d = descriptions();
        let (text, source) = d
            .qualifier("tcgen05.ld", "9.7.16.8.3", "pack::16b")
            .unwrap();
        assert_eq!(source, QualifierSource::Instruction);
        assert!(text.contains("16-bit"), "{text}");
        let (_, source) = d.qualifier("tcgen05.mma.sp", "x", ".ashift").unwrap();
        assert_eq!(source, QualifierSource::Instruction);
        let (_, source) = d.qualifier("ld", "9.7.9.8", ".cg").unwrap();
        assert_eq!(source, QualifierSource::Shared);
        let (text, source) = d.qualifier("mma", "x", ".m16n8k16").unwrap();
        assert_eq!(source, QualifierSource::Spelling);
        assert!(text.contains("A is 16x16"), "{text}");
        let (text, _) = d.qualifier("tcgen05.cp", "x", ".32x128b***").unwrap();
        assert!(text.contains("32 lanes"), "{text}");
        let (text, _) = d.qualifier("ld", "x", ".f32").unwrap();
        assert!(text.starts_with("Type: IEEE single"), "{text}");
        assert_eq!(d.qualifier("ld", "x", ".nonsense"), None);
    }

    #[test]
    fn malformed_files_are_errors() {
        assert!(Descriptions::parse(&[("a", "text")]).is_err());
        assert!(Descriptions::parse(&[("a", "[x]\none\n[x]\ntwo\n")]).is_err());
        assert!(Descriptions::parse(&[("a", "[x]\n")]).is_err());
        let ok =
            Descriptions::parse(&[("a", "[x]\none\ntwo\n\nthree\nexample: e;\n.q = Q\n")]).unwrap();
        let x = ok.get("x").unwrap();
        assert_eq!(x.text, "one two\n\nthree");
        assert_eq!(x.example, vec!["e;"]);
        assert_eq!(x.qualifier(".q"), Some("Q"));
    }
}
