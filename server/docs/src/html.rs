//! Reads the single HTML page of the official PTX ISA document (a Sphinx page) by turning it
//! into the markdown that [`crate::markdown`] reads.
//!
//! Structure expected: sections as `<section id="anchor">` or `<div class="section"
//! id="anchor">`, each with an `<h1>`..`<h6>` heading whose text starts with the section number
//! and ends with an `<a class="headerlink">`; `<p>` paragraphs (`<p class="rubric">` for
//! "Syntax", "Description"…), `<pre>` code, `<table>` with a `<caption>` "Table N …", `<ul>` and
//! `<ol>` lists. A small hand-written tolerant parser builds the element tree: no dependency.

use crate::model::Rubric;

#[derive(Debug, Default)]
struct Node {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Child>,
}

#[derive(Debug)]
enum Child {
    Text(String),
    Element(Node),
}

impl Node {
    fn attr(&self, k: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(a, _)| a == k)
            .map(|(_, v)| v.as_str())
    }

    fn has_class(&self, c: &str) -> bool {
        self.attr("class")
            .is_some_and(|v| v.split_whitespace().any(|x| x == c))
    }

    fn elements(&self) -> impl Iterator<Item = &Node> {
        self.children.iter().filter_map(|c| match c {
            Child::Element(n) => Some(n),
            Child::Text(_) => None,
        })
    }
}

/// Whether a text is HTML rather than markdown.
pub(crate) fn looks_like_html(text: &str) -> bool {
    let head: String = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .chars()
        .take(512)
        .collect();
    let lower = head.to_ascii_lowercase();
    lower.starts_with("<!doctype html") || lower.starts_with("<html") || lower.starts_with("<?xml")
}

const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
];

/// Elements nested deeper than this are dropped (their text is kept).
const MAX_DEPTH: usize = 200;

/// Parses HTML into a tree; `Err` when the document ends with its `<html>` element open.
fn parse_tree(text: &str) -> Result<Node, String> {
    let mut stack: Vec<Node> = vec![Node {
        name: "#root".into(),
        ..Default::default()
    }];
    let mut rest = text;
    let mut saw_html_close = false;
    let mut saw_html_open = false;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            push_text(&mut stack, rest);
            break;
        };
        push_text(&mut stack, &rest[..lt]);
        rest = &rest[lt..];
        if let Some(r) = rest.strip_prefix("<!--") {
            let end = r.find("-->").ok_or("a comment is not closed")?;
            rest = &r[end + 3..];
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            let end = rest.find('>').ok_or("a declaration is not closed")?;
            rest = &rest[end + 1..];
            continue;
        }
        let end = tag_end(rest).ok_or("a tag is not closed")?;
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let name = name.trim().to_ascii_lowercase();
            if name == "html" {
                saw_html_close = true;
            }
            if let Some(pos) = stack.iter().rposition(|n| n.name == name) {
                while stack.len() > pos.max(1) {
                    close_top(&mut stack);
                }
            }
            continue;
        }
        let (node, self_closing) = parse_tag(tag);
        if node.name.is_empty() {
            push_text(&mut stack, "<");
            continue;
        }
        saw_html_open |= node.name == "html";
        let name = node.name.clone();
        // A new <p>, <li>, <tr>, <td> closes an open one of the same kind.
        if matches!(
            name.as_str(),
            "p" | "li" | "tr" | "td" | "th" | "dt" | "dd" | "option"
        ) {
            if let Some(pos) = stack.iter().rposition(|n| n.name == name) {
                let blocked = stack[pos + 1..].iter().any(|n| {
                    matches!(
                        n.name.as_str(),
                        "ul" | "ol" | "table" | "dl" | "div" | "section"
                    )
                });
                if !blocked {
                    while stack.len() > pos {
                        close_top(&mut stack);
                    }
                }
            }
        }
        // A block element closes an open <p> (as browsers do).
        if is_block_name(&name) {
            if let Some(pos) = stack.iter().rposition(|n| n.name == "p") {
                if stack[pos + 1..].iter().all(|n| !is_block_name(&n.name)) {
                    while stack.len() > pos {
                        close_top(&mut stack);
                    }
                }
            }
        }
        if self_closing || VOID.contains(&name.as_str()) {
            if let Some(top) = stack.last_mut() {
                top.children.push(Child::Element(node));
            }
            continue;
        }
        if matches!(name.as_str(), "script" | "style") {
            let close = format!("</{name}");
            let end = rest
                .to_ascii_lowercase()
                .find(&close)
                .ok_or("a script is not closed")?;
            rest = &rest[end..];
            continue;
        }
        // Junk nested deeper than any real page is flattened, so walking the tree cannot
        // overflow the stack.
        if stack.len() < MAX_DEPTH {
            stack.push(node);
        }
    }
    if saw_html_open && !saw_html_close {
        return Err("the HTML document ends before </html>".into());
    }
    while stack.len() > 1 {
        close_top(&mut stack);
    }
    Ok(stack.pop().unwrap_or_default())
}

fn close_top(stack: &mut Vec<Node>) {
    if let Some(n) = stack.pop() {
        if let Some(top) = stack.last_mut() {
            top.children.push(Child::Element(n));
        }
    }
}

fn push_text(stack: &mut [Node], s: &str) {
    if s.is_empty() {
        return;
    }
    if let Some(top) = stack.last_mut() {
        top.children.push(Child::Text(decode_entities(s)));
    }
}

/// The index of the `>` that ends the tag at the start of `s`, skipping quoted values.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in s.char_indices().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

fn parse_tag(tag: &str) -> (Node, bool) {
    let self_closing = tag.trim_end().ends_with('/');
    let tag = tag.trim_end().trim_end_matches('/');
    let name_len = tag.find(|c: char| c.is_whitespace()).unwrap_or(tag.len());
    let name = tag[..name_len].to_ascii_lowercase();
    let valid = name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic());
    let mut attrs = Vec::new();
    let mut r = tag[name_len..].trim_start();
    while !r.is_empty() {
        let key_len = r
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(r.len());
        let key = r[..key_len].to_ascii_lowercase();
        r = r[key_len..].trim_start();
        let mut value = String::new();
        if let Some(v) = r.strip_prefix('=') {
            let v = v.trim_start();
            if let Some(q) = v.chars().next().filter(|c| *c == '"' || *c == '\'') {
                let body = &v[1..];
                let end = body.find(q).unwrap_or(body.len());
                value = decode_entities(&body[..end]);
                r = body.get(end + 1..).unwrap_or("");
            } else {
                let end = v.find(char::is_whitespace).unwrap_or(v.len());
                value = decode_entities(&v[..end]);
                r = &v[end..];
            }
        }
        if !key.is_empty() {
            attrs.push((key, value));
        }
        r = r.trim_start();
    }
    let name = if valid { name } else { String::new() };
    (
        Node {
            name,
            attrs,
            children: Vec::new(),
        },
        self_closing,
    )
}

fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let end = rest[1..].find(';').map(|e| e + 1).filter(|&e| e <= 12);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = if let Some(num) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
                u32::from_str_radix(num, 16).ok().and_then(char::from_u32)
            } else if let Some(num) = name.strip_prefix('#') {
                num.parse().ok().and_then(char::from_u32)
            } else {
                Some(match name {
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    "quot" => '"',
                    "apos" => '\'',
                    "nbsp" => ' ',
                    "para" => '¶',
                    "copy" => '©',
                    "ndash" => '–',
                    "mdash" => '—',
                    "hellip" => '…',
                    "rsquo" => '’',
                    "lsquo" => '‘',
                    "rdquo" => '”',
                    "ldquo" => '“',
                    "times" => '×',
                    _ => return None,
                })
            };
            c.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Converts the page to markdown; also returns the document version from `<title>`.
pub(crate) fn to_markdown(text: &str) -> Result<(String, Option<String>), String> {
    let root = parse_tree(text)?;
    let mut w = Writer {
        out: String::new(),
        anchors: Vec::new(),
        title: None,
    };
    w.walk(&root);
    let version = w.title.as_deref().and_then(version_in_title);
    Ok((w.out, version))
}

/// "… PTX ISA 9.1 documentation" → "9.1".
fn version_in_title(t: &str) -> Option<String> {
    let pos = t.find("ISA")?;
    let tail = &t[pos + 3..];
    let start = tail.find(|c: char| c.is_ascii_digit())?;
    let v: String = tail[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let v = v.trim_end_matches('.');
    v.contains('.').then(|| v.to_string())
}

struct Writer {
    out: String,
    anchors: Vec<String>,
    title: Option<String>,
}

impl Writer {
    fn walk(&mut self, n: &Node) {
        for c in &n.children {
            if let Child::Element(e) = c {
                self.element(e);
            }
        }
    }

    fn in_section(&self) -> bool {
        !self.anchors.is_empty()
    }

    fn para(&mut self, text: &str) {
        let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !t.is_empty() {
            self.out.push_str(&t);
            self.out.push_str("\n\n");
        }
    }

    fn element(&mut self, e: &Node) {
        let name = e.name.as_str();
        match name {
            "title" => self.title = Some(text_of(e)),
            "nav" | "footer" | "header" => {}
            "head" => self.walk(e),
            "section" => self.section(e),
            "div" if e.has_class("section") => self.section(e),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" if self.in_section() => self.heading(e),
            _ if !self.in_section() => self.walk(e),
            "p" if e.has_class("admonition-title") => {
                self.para(&format!("**{}**", text_of(e).trim()))
            }
            "p" | "dt" | "caption" | "figcaption" => {
                let t = inline(e);
                if Rubric::from_label(&t).is_some() {
                    self.out.push_str(t.trim());
                    self.out.push_str("\n\n");
                } else {
                    self.para(&t);
                }
            }
            "pre" => {
                let code = text_of(e);
                self.out.push_str("```\n");
                self.out
                    .push_str(code.trim_end_matches('\n').trim_start_matches('\n'));
                self.out.push_str("\n```\n\n");
            }
            "table" => self.table(e),
            "ul" | "ol" => {
                self.list(e, 0);
                self.out.push('\n');
            }
            "img" => {
                let src = e.attr("src").unwrap_or("");
                let alt = e.attr("alt").unwrap_or("image");
                self.para(&format!("![{alt}]({src})"));
            }
            "br" | "hr" | "script" | "style" => {}
            _ => {
                if e.elements().any(is_block) {
                    self.walk(e);
                } else {
                    let t = inline(e);
                    self.para(&t);
                }
            }
        }
    }

    fn section(&mut self, e: &Node) {
        let id = e.attr("id").unwrap_or("").to_string();
        self.anchors.push(id);
        self.walk(e);
        self.anchors.pop();
    }

    fn heading(&mut self, e: &Node) {
        let level: usize = e.name[1..].parse().unwrap_or(2);
        let text = inline(e);
        let text = text.trim();
        let num_len = text
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        if num_len == 0 {
            return;
        }
        let number = text[..num_len].trim_end_matches('.');
        let title = text[num_len..].trim();
        let anchor = e
            .elements()
            .find(|a| a.name == "a" && a.has_class("headerlink"))
            .and_then(|a| a.attr("href"))
            .and_then(|h| h.strip_prefix('#'))
            .map(str::to_string)
            .or_else(|| self.anchors.last().filter(|a| !a.is_empty()).cloned());
        let hashes = "#".repeat((level + 2).min(8));
        match anchor {
            Some(a) => self
                .out
                .push_str(&format!("{hashes} {number}. [{title}](<#{a}>)\n\n")),
            None => self
                .out
                .push_str(&format!("{hashes} {number}. {title}\n\n")),
        }
    }

    fn table(&mut self, e: &Node) {
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut caption_anchor = e.attr("id").map(str::to_string);
        let mut caption = String::new();
        collect_rows(e, &mut rows, &mut caption, &mut caption_anchor);
        if !caption.is_empty() {
            match caption_anchor {
                Some(a) => self.para(&format!("{caption}[](<#{a}> \"Permalink to this table\")")),
                None => self.para(&caption),
            }
        }
        let width = rows.iter().map(Vec::len).max().unwrap_or(0);
        if width == 0 {
            return;
        }
        for (i, row) in rows.iter().enumerate() {
            self.out.push('|');
            for c in 0..width {
                let cell = row.get(c).map(String::as_str).unwrap_or("");
                self.out
                    .push_str(&format!(" {} |", cell.replace('|', "\\|")));
            }
            self.out.push('\n');
            if i == 0 {
                self.out.push('|');
                self.out.push_str(&" --- |".repeat(width));
                self.out.push('\n');
            }
        }
        self.out.push('\n');
    }

    fn list(&mut self, e: &Node, depth: usize) {
        let ordered = e.name == "ol";
        let mut k = 0;
        for li in e.elements().filter(|c| c.name == "li") {
            k += 1;
            let mut text = String::new();
            let mut nested = Vec::new();
            for c in &li.children {
                match c {
                    Child::Element(n) if n.name == "ul" || n.name == "ol" => nested.push(n),
                    Child::Element(n) => {
                        text.push(' ');
                        text.push_str(&inline(n));
                    }
                    Child::Text(t) => text.push_str(t),
                }
            }
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let marker = if ordered { format!("{k}.") } else { "*".into() };
            self.out
                .push_str(&format!("{}{marker} {text}\n", "  ".repeat(depth)));
            for n in nested {
                self.list(n, depth + 1);
            }
        }
    }
}

fn is_block(n: &Node) -> bool {
    is_block_name(&n.name)
}

fn is_block_name(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "pre"
            | "table"
            | "ul"
            | "ol"
            | "section"
            | "dl"
            | "blockquote"
            | "figure"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
    )
}

fn collect_rows(
    e: &Node,
    rows: &mut Vec<Vec<String>>,
    caption: &mut String,
    anchor: &mut Option<String>,
) {
    for c in e.elements() {
        match c.name.as_str() {
            "caption" => {
                *caption = inline(c).split_whitespace().collect::<Vec<_>>().join(" ");
                if let Some(h) = c
                    .elements()
                    .find(|a| a.name == "a" && a.has_class("headerlink"))
                    .and_then(|a| a.attr("href"))
                {
                    *anchor = h.strip_prefix('#').map(str::to_string).or(anchor.take());
                }
            }
            "tr" => rows.push(
                c.elements()
                    .filter(|d| d.name == "td" || d.name == "th")
                    .map(|d| inline(d).split_whitespace().collect::<Vec<_>>().join(" "))
                    .collect(),
            ),
            _ => collect_rows(c, rows, caption, anchor),
        }
    }
}

/// All text, as is (for `<pre>` and `<title>`).
fn text_of(n: &Node) -> String {
    let mut s = String::new();
    for c in &n.children {
        match c {
            Child::Text(t) => s.push_str(t),
            Child::Element(e) if e.name == "br" => s.push('\n'),
            Child::Element(e) => s.push_str(&text_of(e)),
        }
    }
    s
}

/// Inline markdown of an element's content.
fn inline(n: &Node) -> String {
    let mut s = String::new();
    for c in &n.children {
        match c {
            Child::Text(t) => s.push_str(&t.replace(['\n', '\r', '\t'], " ")),
            Child::Element(e) => match e.name.as_str() {
                "a" if e.has_class("headerlink") => {}
                "a" => {
                    let inner = inline(e);
                    match e.attr("href") {
                        Some(h) if h.starts_with('#') => s.push_str(&format!("[{inner}](<{h}>)")),
                        Some(h) if !h.is_empty() => s.push_str(&format!("[{inner}]({h})")),
                        _ => s.push_str(&inner),
                    }
                }
                "code" | "tt" | "kbd" | "samp" => {
                    let t = text_of(e);
                    s.push('`');
                    s.push_str(t.trim());
                    s.push('`');
                }
                "em" | "i" => s.push_str(&format!("*{}*", inline(e).trim())),
                "strong" | "b" => s.push_str(&format!("**{}**", inline(e).trim())),
                "br" => s.push(' '),
                "img" => s.push_str(&format!(
                    "![{}]({})",
                    e.attr("alt").unwrap_or("image"),
                    e.attr("src").unwrap_or("")
                )),
                "ul" | "ol" | "pre" | "table" => {}
                _ => {
                    s.push_str(&inline(e));
                    if is_block(e) {
                        s.push(' ');
                    }
                }
            },
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerant_tree() {
        let t = parse_tree("<div><p>a<p>b &amp; c<br>d</div>").unwrap();
        let div = t.elements().next().unwrap();
        assert_eq!(div.elements().filter(|n| n.name == "p").count(), 2);
        assert!(parse_tree("<html><body><p>cut").is_err());
        assert_eq!(
            decode_entities("&lt;a&gt; &#65;&#x42; &bogus; &"),
            "<a> AB &bogus; &"
        );
    }

    #[test]
    fn version_from_title() {
        assert_eq!(
            version_in_title("1. Intro — PTX ISA 9.1 documentation").as_deref(),
            Some("9.1")
        );
        assert_eq!(version_in_title("Something else"), None);
    }
}
