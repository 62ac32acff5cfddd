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
