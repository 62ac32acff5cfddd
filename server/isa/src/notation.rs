//! Parser for the spec's syntax notation: instruction forms such as
//! `tcgen05.ld.sync.aligned.shape1.num{.pack}.b32 r, [taddr];` and qualifier-set definitions
//! such as `.dtype = .atype = { .u8, .shared{::cta, ::cluster} }`.

use std::borrow::Cow;
use std::fmt;

/// A qualifier-set definition from a Syntax block (`.shape1 = { .16x64b, .32x32b }`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetDef {
    /// Names as written, e.g. `.dtype`, `vop`, `cp-size` (several for `.a = .b = {..}`).
    pub names: Vec<String>,
    /// Values as written, brace suffixes expanded (`.shared{::cta}` -> `.shared`, `.shared::cta`).
    pub values: Vec<String>,
}

impl SetDef {
    /// Parse `.a = .b = { .x, .y }` (a trailing `;` is allowed). Returns `None` when the text is
    /// not a definition.
    pub fn parse(text: &str) -> Option<SetDef> {
        SetRef::parse(text).map(SetRef::into_owned)
    }

    /// Whether `name` (with or without leading `.`) names this set.
    pub fn has_name(&self, name: &str) -> bool {
        let bare = name.trim_start_matches('.');
        self.names.iter().any(|n| n.trim_start_matches('.') == bare)
    }
}

/// A [`SetDef`] that borrows from the text it was read from (values with a brace suffix are
/// expanded, so owned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetRef<'a> {
    pub(crate) names: Vec<Cow<'a, str>>,
    pub(crate) values: Vec<Cow<'a, str>>,
}

impl<'a> SetRef<'a> {
    /// See [`SetDef::parse`].
    pub(crate) fn parse(text: &'a str) -> Option<SetRef<'a>> {
        let text = trim_fast(trim_fast(text).trim_end_matches(';'));
        let mut names = Vec::new();
        let mut rest = text;
        loop {
            let (lhs, rhs) = rest.split_once('=')?;
            let name = trim_fast(lhs);
            if !is_set_name(name) {
                return None;
            }
            names.push(Cow::Borrowed(name));
            let rhs = rhs.trim_start();
            if rhs.starts_with('{') {
                rest = rhs;
                break;
            }
            rest = rhs;
        }
        let body = rest.strip_prefix('{')?.strip_suffix('}')?;
        let mut values = Vec::with_capacity(body.bytes().filter(|&b| b == b',').count() + 1);
        for v in TopParts::new(body, ',').map(trim_fast) {
            if v.contains('{') {
                values.extend(expand_suffixes(v).into_iter().map(Cow::Owned));
            } else if !v.is_empty() {
                values.push(Cow::Borrowed(v));
            }
        }
        Some(SetRef { names, values })
    }

    /// The same set, borrowing from `def`.
    pub(crate) fn borrow(def: &'a SetDef) -> Self {
        SetRef {
            names: def
                .names
                .iter()
                .map(|n| Cow::Borrowed(n.as_str()))
                .collect(),
            values: def
                .values
                .iter()
                .map(|v| Cow::Borrowed(v.as_str()))
                .collect(),
        }
    }

    pub(crate) fn into_owned(self) -> SetDef {
        SetDef {
            names: self.names.into_iter().map(Cow::into_owned).collect(),
            values: self.values.into_iter().map(Cow::into_owned).collect(),
        }
    }

    /// See [`SetDef::has_name`].
    pub(crate) fn has_name(&self, name: &str) -> bool {
        let bare = name.trim_start_matches('.');
        self.names.iter().any(|n| n.trim_start_matches('.') == bare)
    }
}

impl fmt::Display for SetDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {{ {} }}",
            self.names.join(" = "),
            self.values.join(", ")
        )
    }
}

fn is_set_name(s: &str) -> bool {
    let bare = s.strip_prefix('.').unwrap_or(s);
    !bare.is_empty()
        && bare.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && bare
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-'))
}

/// `s.trim()`, answered without decoding characters when `s` neither starts nor ends with
/// whitespace (the loader trims every line, value and operand; almost none need it).
pub(crate) fn trim_fast(s: &str) -> &str {
    // The ASCII characters that `char::is_whitespace` accepts; any other byte at an end
    // (a non-ASCII one included) goes the general way.
    let plain = |b: u8| b.is_ascii() && !matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ');
    match s.as_bytes() {
        [] => s,
        [first, .., last] if plain(*first) && plain(*last) => s,
        [only] if plain(*only) => s,
        _ => s.trim(),
    }
}

/// Expand `x{a, b}` into `x`, `xa`, `xb` (one level, repeated for several groups).
pub fn expand_suffixes(v: &str) -> Vec<String> {
    let Some(open) = v.find('{') else {
        return vec![v.to_string()];
    };
    let Some(close) = matching(v, open) else {
        return vec![v.to_string()];
    };
    let base = &v[..open];
    let tail = &v[close + 1..];
    let mut out = Vec::new();
    let mut alts = vec![String::new()];
    alts.extend(TopParts::new(&v[open + 1..close], ',').map(|s| trim_fast(s).to_string()));
    for a in alts {
        for t in expand_suffixes(&format!("{base}{a}{tail}")) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

/// Index of the bracket matching the one at `open`.
pub(crate) fn matching(s: &str, open: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let (o, c) = match bytes[open] {
        b'{' => (b'{', b'}'),
        b'[' => (b'[', b']'),
        b'(' => (b'(', b')'),
        _ => return None,
    };
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        if b == o {
            depth += 1;
        } else if b == c {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The parts of a text between the `sep`s that lie outside of any brackets.
pub(crate) struct TopParts<'a> {
    rest: Option<&'a str>,
    sep: u8,
}

impl<'a> TopParts<'a> {
    /// `sep` is an ASCII separator (`,`); scanning bytes finds it as scanning characters
    /// would, since no byte of a multi-byte character is ASCII.
    pub(crate) fn new(s: &'a str, sep: char) -> Self {
        debug_assert!(sep.is_ascii());
        TopParts {
            rest: Some(s),
            sep: sep as u8,
        }
    }
}

impl<'a> Iterator for TopParts<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let s = self.rest?;
        // Every part starts at depth 0: a split happens only there.
        let mut depth = 0i32;
        for (i, &b) in s.as_bytes().iter().enumerate() {
            match b {
                b'{' | b'[' | b'(' => depth += 1,
                b'}' | b']' | b')' => depth -= 1,
                b if b == self.sep && depth == 0 => {
                    self.rest = Some(&s[i + 1..]);
                    return Some(&s[..i]);
                }
                _ => {}
            }
        }
        self.rest = None;
        Some(s)
    }
}

/// One qualifier element of a form head before set names are resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawElem {
    /// Spellings as written, with leading `.` (several when a brace suffix is present).
    pub alts: Vec<String>,
    /// Members of one optional `{...}` group share an id; `None` = required.
    pub group: Option<u16>,
}

/// A form split into its head (opcode root + qualifier elements) and operand text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawForm {
    pub root: String,
    pub elems: Vec<RawElem>,
    pub operands: Vec<OperandSpec>,
    /// True for pseudo forms that have no opcode (`{ instructionList }`, `@{!}p instruction;`).
    pub pseudo: bool,
}

/// Kind of an operand as written in the syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A register, immediate or symbol (`d`, `a`, `cp-size`).
    Value,
    /// A memory address in brackets (`[a]`).
    Address,
    /// A brace-enclosed vector (`{a, b, e, f}`).
    Vector,
    /// A parenthesised list (`(param-list)`).
    List,
}

/// One operand of a form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OperandSpec {
    /// Text as written, without the optional-marker braces (`[taddr]`, `a{.asel}`, `{-}c`).
    pub text: String,
    /// Bare operand name (`taddr`, `a`, `c`).
    pub name: String,
    pub optional: bool,
    pub kind: OperandKind,
}

impl OperandSpec {
    fn new(text: &str, optional: bool) -> OperandSpec {
        let text = trim_fast(text).to_string();
        let kind = if text.starts_with('[') {
            OperandKind::Address
        } else if text.starts_with('(') {
            OperandKind::List
        } else if text.starts_with('{') && !text.starts_with("{-}") && !text.starts_with("{!}") {
            OperandKind::Vector
        } else {
            OperandKind::Value
        };
        let rest = strip_all(strip_all(&text, "{-}"), "{!}");
        let opening = rest
            .bytes()
            .take_while(|b| matches!(b, b'[' | b'(' | b'{' | b'!' | b'-'))
            .count();
        // `{ disable-output-lane }` is spaced inside its braces.
        let rest = rest[opening..].trim_start();
        let end = rest
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
            .unwrap_or(rest.len());
        let name = rest[..end].to_string();
        OperandSpec {
            text,
            name,
            optional,
            kind,
        }
    }
}

/// Spellings of one qualifier element: borrowed from the form text when it has no brace
/// suffix to expand (most elements), else expanded.
pub(crate) enum Alts<'a> {
    One(&'a str),
    Many(Vec<String>),
}

impl<'a> Alts<'a> {
    /// The spellings of `text` (`.shared{::cta}` -> `.shared`, `.shared::cta`), as
    /// [`expand_suffixes`] gives them.
    fn of(text: &'a str) -> Self {
        if text.contains('{') {
            Alts::Many(expand_suffixes(text))
        } else {
            Alts::One(text)
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Alts::One(_) => 1,
            Alts::Many(v) => v.len(),
        }
    }

    pub(crate) fn first(&self) -> &str {
        match self {
            Alts::One(a) => a,
            Alts::Many(v) => v.first().map_or("", String::as_str),
        }
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        let (one, many) = match self {
            Alts::One(a) => (Some(*a), &[][..]),
            Alts::Many(v) => (None, v.as_slice()),
        };
        one.into_iter().chain(many.iter().map(String::as_str))
    }

    /// The first spelling (the element as written, brace suffix dropped).
    pub(crate) fn into_first(self) -> String {
        match self {
            Alts::One(a) => a.to_string(),
            Alts::Many(v) => v.into_iter().next().unwrap_or_default(),
        }
    }

    pub(crate) fn into_owned(self) -> Vec<String> {
        match self {
            Alts::One(a) => vec![a.to_string()],
            Alts::Many(v) => v,
        }
    }
}

/// A [`RawElem`] that borrows from the form text.
pub(crate) struct ElemRef<'a> {
    pub(crate) alts: Alts<'a>,
    pub(crate) group: Option<u16>,
}

/// A [`RawForm`] that borrows from the form text (the knowledge base parses every form once
/// and keeps only what the model needs); its qualifier elements go to a buffer that the caller
/// reuses from form to form.
pub(crate) struct FormRef<'a> {
    pub(crate) root: &'a str,
    pub(crate) operands: Vec<OperandSpec>,
    pub(crate) pseudo: bool,
}

/// `s` without every leading repetition of `prefix` (`trim_start_matches` with a string
/// pattern, without the cost of setting up a substring search).
fn strip_all<'a>(mut s: &'a str, prefix: &str) -> &'a str {
    while let Some(rest) = s.strip_prefix(prefix) {
        s = rest;
    }
    s
}

/// Split a normalized form statement (`head operands;`) and parse it.
pub fn parse_form(stmt: &str) -> Result<RawForm, String> {
    let mut elems = Vec::new();
    let f = parse_form_ref(stmt, &mut elems)?;
    Ok(RawForm {
        root: f.root.to_string(),
        elems: elems
            .into_iter()
            .map(|e| RawElem {
                alts: e.alts.into_owned(),
                group: e.group,
            })
            .collect(),
        operands: f.operands,
        pseudo: f.pseudo,
    })
}

/// [`parse_form`], borrowing from `stmt`; the qualifier elements replace the contents of
/// `elems`.
pub(crate) fn parse_form_ref<'a>(
    stmt: &'a str,
    elems: &mut Vec<ElemRef<'a>>,
) -> Result<FormRef<'a>, String> {
    elems.clear();
    let stmt = trim_fast(trim_fast(stmt).trim_end_matches(';'));
    let (head, ops) = match stmt.find(char::is_whitespace) {
        Some(i) => (&stmt[..i], trim_fast(&stmt[i..])),
        None => (stmt, ""),
    };
    if !head.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') {
        return Ok(FormRef {
            root: head,
            operands: Vec::new(),
            pseudo: true,
        });
    }
    let root_end = head.find(['.', '{']).unwrap_or(head.len());
    let root = &head[..root_end];
    let mut next_group = 0u16;
    parse_elems(&head[root_end..], None, &mut next_group, elems)
        .map_err(|e| format!("{e} in `{stmt}`"))?;
    Ok(FormRef {
        root,
        operands: parse_operands(ops),
        pseudo: false,
    })
}

fn parse_elems<'a>(
    s: &'a str,
    group: Option<u16>,
    next_group: &mut u16,
    out: &mut Vec<ElemRef<'a>>,
) -> Result<(), String> {
    let mut i = 0;
    let b = s.as_bytes();
    while i < b.len() {
        match b[i] {
            b'.' => {
                let start = i;
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b':')
                {
                    i += 1;
                }
                let mut end = i;
                // `.shared{::cta}`: a brace suffix that does not start a new qualifier.
                if i < b.len() && b[i] == b'{' && !s[i + 1..].starts_with('.') {
                    let close = matching(s, i).ok_or("unbalanced `{`")?;
                    end = close + 1;
                    i = close + 1;
                }
                out.push(ElemRef {
                    alts: Alts::of(&s[start..end]),
                    group,
                });
            }
            b'{' => {
                let close = matching(s, i).ok_or("unbalanced `{`")?;
                let g = *next_group;
                *next_group += 1;
                let inner = &s[i + 1..close];
                if TopParts::new(inner, ',').nth(1).is_some() {
                    // `{.hi,.lo}`: one optional slot with alternatives.
                    out.push(ElemRef {
                        alts: Alts::Many(
                            TopParts::new(inner, ',')
                                .flat_map(|a| expand_suffixes(trim_fast(a)))
                                .collect(),
                        ),
                        group: Some(g),
                    });
                } else {
                    parse_elems(inner, Some(g), next_group, out)?;
                }
                i = close + 1;
            }
            c => return Err(format!("unexpected `{}`", c as char)),
        }
    }
    Ok(())
}

/// Parse operand text such as `d, [a]{.unified}{, cache-policy}`.
pub fn parse_operands(s: &str) -> Vec<OperandSpec> {
    let mut out = Vec::new();
    let s = trim_fast(s);
    if s.is_empty() {
        return out;
    }
    // Pull out `{, x}` optional groups; the required operands between them are separated by
    // commas.
    let mut required_start = 0;
    let mut i = 0;
    let b = s.as_bytes();
    while i < b.len() {
        if b[i] == b'{' && s[i + 1..].trim_start().starts_with(',') {
            if let Some(close) = matching(s, i) {
                let inner = s[i + 1..close].trim_start().trim_start_matches(',');
                push_operands(&s[required_start..i], false, &mut out);
                push_operands(inner, true, &mut out);
                i = close + 1;
                required_start = i;
                continue;
            }
        }
        i += 1;
    }
    push_operands(&s[required_start..], false, &mut out);
    out
}

fn push_operands(list: &str, optional: bool, out: &mut Vec<OperandSpec>) {
    for part in TopParts::new(list, ',') {
        if !trim_fast(part).is_empty() {
            out.push(OperandSpec::new(part, optional));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_defs() {
        let s = SetDef::parse(".dtype = .atype = { .u8, .shared{::cta, ::cluster} };").unwrap();
        assert_eq!(s.names, [".dtype", ".atype"]);
        assert_eq!(
            s.values,
            [".u8", ".shared", ".shared::cta", ".shared::cluster"]
        );
        assert!(s.has_name("atype"));
        assert!(SetDef::parse("cp-size = { 4, 8, 16 }").is_some());
        assert!(SetDef::parse("add.type d, a, b;").is_none());
    }

    #[test]
    fn form_head() {
        let f = parse_form(
            "mbarrier.try_wait{.sem.scope}{.shared{::cta}}.b64 waitComplete, [addr], state;",
        )
        .unwrap();
        assert_eq!(f.root, "mbarrier");
        let alts: Vec<_> = f
            .elems
            .iter()
            .map(|e| (e.alts.join("|"), e.group))
            .collect();
        assert_eq!(
            alts,
            [
                (".try_wait".to_string(), None),
                (".sem".to_string(), Some(0)),
                (".scope".to_string(), Some(0)),
                (".shared|.shared::cta".to_string(), Some(1)),
                (".b64".to_string(), None)
            ]
        );
        assert_eq!(f.operands.len(), 3);
        assert_eq!(f.operands[1].kind, OperandKind::Address);
    }

    #[test]
    fn alternatives_in_braces() {
        let f = parse_form("mad{.hi,.lo}.cc.type d, a, b, c;").unwrap();
        assert_eq!(f.elems[0].alts, [".hi", ".lo"]);
        assert_eq!(f.elems[0].group, Some(0));
        assert_eq!(f.elems.len(), 3);
    }

    #[test]
    fn operands() {
        let ops = parse_operands("[dst], [src], cp-size{, src-size}{, cache-policy}");
        let v: Vec<_> = ops.iter().map(|o| (o.name.as_str(), o.optional)).collect();
        assert_eq!(
            v,
            [
                ("dst", false),
                ("src", false),
                ("cp-size", false),
                ("src-size", true),
                ("cache-policy", true)
            ]
        );
        let ops = parse_operands("d, {-}a{.asel}, {a, b, e, f}, [a]{.unified}");
        assert_eq!(ops[1].name, "a");
        assert_eq!(ops[2].kind, OperandKind::Vector);
        assert_eq!(ops[3].text, "[a]{.unified}");
    }

    #[test]
    fn pseudo() {
        assert!(parse_form("@{!}p instruction;").unwrap().pseudo);
        assert!(parse_form("{ instructionList }").unwrap().pseudo);
    }
}
