//! C/C++ string literals decoded to their bytes, each decoded piece remembering the host
//! bytes it came from (so a diagnostic inside the template lands on the exact characters).

use crate::source_map::SourceMap;
use ptx_syntax::TextRange;

/// A decoded template: the text and where each of its bytes came from in the host file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub map: SourceMap,
}

impl Decoded {
    fn push_exact(&mut self, s: &str, host_start: usize) {
        let at = self.text.len();
        self.text.push_str(s);
        self.map.push_exact(at, host_start, s.len());
    }

    fn push_atomic(&mut self, s: &str, host: TextRange) {
        let at = self.text.len();
        self.text.push_str(s);
        self.map.push_atomic(at..at + s.len(), host);
    }
}

/// Appends the contents of the literal at `range` of `host` (a `"..."` string with an optional
/// encoding prefix, or a raw string `R"d(...)d"`) to `out`.
pub fn decode_literal(host: &str, range: TextRange, out: &mut Decoded) {
    let text = &host[range.clone()];
    let Some(quote) = text.find('"') else {
        return;
    };
    let prefix = &text[..quote];
    if prefix.ends_with('R') {
        // Raw string: R"delim( ... )delim" — no escapes.
        let rest = &text[quote + 1..];
        let Some(open) = rest.find('(') else { return };
        let delim = &rest[..open];
        let body_start = quote + 1 + open + 1;
        let closing = format!("){delim}\"");
        let body_end = text.rfind(&closing).unwrap_or(text.len()).max(body_start);
        out.push_exact(&text[body_start..body_end], range.start + body_start);
        return;
    }
    let body_start = quote + 1;
    let body_end = if text.len() > body_start && text.ends_with('"') {
        text.len() - 1
    } else {
        text.len()
    };
    let body = &text[body_start..body_end];
    let base = range.start + body_start;
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut run_start = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if run_start < i {
            out.push_exact(&body[run_start..i], base + run_start);
        }
        let (decoded, len) = escape(&body[i..]);
        out.push_atomic(&decoded, base + i..base + i + len);
        i += len;
        run_start = i;
    }
    if run_start < bytes.len() {
        out.push_exact(&body[run_start..], base + run_start);
    }
}

/// One escape sequence at the start of `s` (which begins with a backslash): its value and
/// its length in bytes.
fn escape(s: &str) -> (String, usize) {
    let b = s.as_bytes();
    let Some(&c) = b.get(1) else {
        return (String::new(), 1);
    };
    let simple = match c {
        b'n' => Some('\n'),
        b't' => Some('\t'),
        b'r' => Some('\r'),
        b'v' => Some('\x0b'),
        b'f' => Some('\x0c'),
        b'a' => Some('\x07'),
        b'b' => Some('\x08'),
        b'\\' => Some('\\'),
        b'"' => Some('"'),
        b'\'' => Some('\''),
        b'?' => Some('?'),
        // A line continuation inside a literal vanishes.
        b'\n' => return (String::new(), 2),
        b'\r' => return (String::new(), if b.get(2) == Some(&b'\n') { 3 } else { 2 }),
        _ => None,
    };
    if let Some(ch) = simple {
        return (ch.to_string(), 2);
    }
    let (radix, start, max) = match c {
        b'0'..=b'7' => (8, 1, 3),
        b'x' => (16, 2, usize::MAX),
        b'u' => (16, 2, 4),
        b'U' => (16, 2, 8),
        _ => {
            // Unknown escape: keep the character itself.
            let ch = s[1..].chars().next().unwrap_or('\\');
            return (ch.to_string(), 1 + ch.len_utf8());
        }
    };
    let mut end = start;
    while end < b.len() && end - start < max && (b[end] as char).is_digit(radix) {
        end += 1;
    }
    let value = u32::from_str_radix(&s[start..end], radix).unwrap_or(0);
    let ch = char::from_u32(value).unwrap_or('\u{fffd}');
    (ch.to_string(), end.max(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(host: &str) -> Decoded {
        let mut out = Decoded::default();
        decode_literal(host, 0..host.len(), &mut out);
        out
    }

    #[test]
    fn escapes_map_to_their_host_characters() {
        let host = r#""mov.u32 %0,\t%1;\n""#;
        let d = decode(host);
        assert_eq!(d.text, "mov.u32 %0,\t%1;\n");
        // The tab is the escape `\t` at host bytes 12..14.
        let tab = d.text.find('\t').unwrap();
        assert_eq!(d.map.to_host(tab..tab + 1), 12..14);
        assert_eq!(d.map.to_host(0..3), 1..4);
        assert_eq!(&host[d.map.to_host(12..14)], "%1");
    }

    #[test]
    fn raw_strings_and_prefixes() {
        assert_eq!(decode(r#"R"x(a\n"b)x""#).text, "a\\n\"b");
        assert_eq!(decode(r#"u8"a\x41\101""#).text, "aAA");
    }
}

/// Macros that a file defines as string literals, object-like (`#define LD "ld.global.u32"`)
/// or function-like with stringized parameters (`#define HINT(n) ".L2::" #n "B"`), which
/// templates put between their literals. A name with a definition of any other kind is left
/// out; of several definitions (the branches of an `#if`) the first is taken, as the first
/// branch of an `#if` inside a statement is.
#[derive(Debug, Default)]
pub struct StringMacros {
    macros: std::collections::HashMap<String, Option<StringMacro>>,
}

#[derive(Debug, Clone)]
struct StringMacro {
    /// `None`: object-like.
    params: Option<Vec<String>>,
    /// Literal text, or the index of a stringized parameter.
    pieces: Vec<Result<String, usize>>,
}

impl StringMacros {
    /// The string macros `#define`d in `host` (lines continued with `\` are left out).
    pub fn of(host: &str) -> StringMacros {
        let mut out = StringMacros::default();
        if !host.contains("#define") && !host.contains("# define") {
            return out;
        }
        // Only the lines with a `define` (a statement reads this table for its file).
        let mut last_line = usize::MAX;
        for (at, _) in host.match_indices("define") {
            let start = host[..at].rfind('\n').map_or(0, |n| n + 1);
            if start == last_line {
                continue;
            }
            last_line = start;
            let end = host[at..].find('\n').map_or(host.len(), |n| at + n);
            let line = &host[start..end];
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(def) = rest.trim_start().strip_prefix("define") else {
                continue;
            };
            if !def.starts_with([' ', '\t']) {
                continue;
            }
            let def = def.trim_start();
            let name_len = def
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(def.len());
            if name_len == 0 {
                continue;
            }
            let name = &def[..name_len];
            let read = string_macro(&def[name_len..]);
            match out.macros.get(name) {
                // The first definition stands, unless a later one is not a string macro.
                Some(Some(_)) if read.is_some() => {}
                _ => {
                    out.macros.insert(name.to_string(), read);
                }
            }
        }
        out
    }

    fn get(&self, name: &str) -> Option<&StringMacro> {
        self.macros.get(name)?.as_ref()
    }
}

/// A definition after the macro's name (`(n) ".L2::" #n "B"` or ` "ld.global.u32"`), if it
/// is a string macro.
fn string_macro(after_name: &str) -> Option<StringMacro> {
    let (params, body) = match after_name.strip_prefix('(') {
        Some(rest) => {
            let close = rest.find(')')?;
            let params: Vec<String> = rest[..close]
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            (Some(params), &rest[close + 1..])
        }
        None => (None, after_name),
    };
    if body.trim_end().ends_with('\\') {
        return None;
    }
    let body = body.split("//").next().unwrap_or("").trim();
    let mut pieces = Vec::new();
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'"' => {
                let end = literal_end(body, i)?;
                let mut piece = Decoded::default();
                decode_literal(body, i..end, &mut piece);
                pieces.push(Ok(piece.text));
                i = end;
            }
            b'#' => {
                let rest = body[i + 1..].trim_start();
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let k = params.as_ref()?.iter().position(|p| *p == rest[..len])?;
                pieces.push(Err(k));
                i = body.len() - rest.len() + len;
            }
            _ => return None,
        }
    }
    Some(StringMacro { params, pieces })
}

/// The end (past the closing quote) of the plain string literal starting at `at`.
fn literal_end(text: &str, at: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            b'\n' => return None,
            _ => i += 1,
        }
    }
    None
}

/// Reads a template made of string literals and string macros from `range` of `host` (from
/// the first literal or macro up to the statement's closing parenthesis): the decoded text,
/// with each macro's text mapped onto the macro's invocation, and the host offset where the
/// template ends (the first `:`, or the parenthesis). `None` when anything else stands there,
/// or when no macro does (nothing to expand).
pub fn expand_string_macros(
    host: &str,
    range: TextRange,
    macros: &StringMacros,
) -> Option<(Decoded, usize)> {
    let b = host.as_bytes();
    let mut out = Decoded::default();
    let mut expanded = false;
    let mut i = range.start;
    while i < range.end {
        match b[i] {
            c if c.is_ascii_whitespace() || c == b'\\' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = host[i..].find('\n').map_or(range.end, |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = host[i + 2..]
                    .find("*/")
                    .map_or(range.end, |n| i + 2 + n + 2);
            }
            b'"' => {
                let end = literal_end(host, i)?;
                decode_literal(host, i..end, &mut out);
                i = end;
            }
            b':' => break,
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < range.end && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let m = macros.get(&host[start..i])?;
                let mut args = Vec::new();
                if m.params.is_some() {
                    let open = i + host[i..range.end].find(|c: char| !c.is_whitespace())?;
                    if b[open] != b'(' {
                        return None;
                    }
                    let close = open + host[open..range.end].find(')')?;
                    args = host[open + 1..close]
                        .split(',')
                        .map(|a| a.trim().to_string())
                        .collect();
                    if args.iter().any(|a| a.contains(['"', '(', '\\'])) {
                        return None;
                    }
                    i = close + 1;
                }
                let mut text = String::new();
                for piece in &m.pieces {
                    match piece {
                        Ok(s) => text.push_str(s),
                        Err(k) => text.push_str(args.get(*k)?),
                    }
                }
                out.push_atomic(&text, start..i);
                expanded = true;
            }
            _ => return None,
        }
    }
    expanded.then_some((out, i))
}
