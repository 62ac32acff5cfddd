//! Values of `"n"`/`"i"` operands whose expression is not a literal but a constant the file
//! defines: `static constexpr int K = 64;` … `"n"(K)`, `"n"(K / 2)`, `#define TILE 16`.
//!
//! nvcc prints the value of such an operand into the template, also inside a word
//! (`mma.sync.aligned.m16n8k%14` with `"n"(K)` becomes `mma.sync.aligned.m16n8k64`). A
//! stand-in value there would make a qualifier no instruction has, so the value is read
//! where the file gives it unambiguously: a name with one definition, or several that agree,
//! whose right-hand side is an integer expression of literals and such names. A template
//! parameter or a name defined with different values stays unknown.

use std::collections::HashMap;

/// Integer constants of a host file: `constexpr`/`const` integer variables and object-like
/// macros whose value is an integer expression.
#[derive(Debug, Default, Clone)]
pub struct Constants {
    values: HashMap<String, i128>,
}

impl Constants {
    /// Reads the definitions of `text`; `numbers` are integer macros already known (of the
    /// headers the file includes).
    pub fn from_text<'a>(
        text: &str,
        numbers: impl IntoIterator<Item = (&'a String, u32)>,
    ) -> Constants {
        let mut found: HashMap<String, Vec<String>> = HashMap::new();
        for line in text.lines() {
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix('#') {
                let rest = rest.trim_start();
                if let Some(def) = rest.strip_prefix("define") {
                    let def = def.trim_start();
                    let name_len = def
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(def.len());
                    // Object-like only: a `(` right after the name makes a function-like macro.
                    if name_len > 0 && !def[name_len..].starts_with('(') {
                        let body = def[name_len..].split("//").next().unwrap_or("").trim();
                        if !body.is_empty() && !body.ends_with('\\') {
                            found
                                .entry(def[..name_len].to_string())
                                .or_default()
                                .push(body.to_string());
                        }
                    }
                }
            }
        }
        // `constexpr int K = 64;`, `static const unsigned N = 2 * K;`
        for (at, _) in text.match_indices("const") {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[at..];
            let rest = rest
                .strip_prefix("constexpr")
                .or_else(|| rest.strip_prefix("const"))
                .unwrap_or("");
            if !rest.starts_with(char::is_whitespace) {
                continue;
            }
            let Some(end) = rest.find(';') else { continue };
            let decl = &rest[..end];
            let Some(eq) = decl.find('=') else { continue };
            let (head, value) = (decl[..eq].trim(), decl[eq + 1..].trim());
            let mut words = head.split_whitespace().collect::<Vec<_>>();
            let Some(name) = words.pop() else { continue };
            if words.is_empty()
                || !words.iter().all(|w| INTEGER_TYPE_WORDS.contains(w))
                || !is_identifier(name)
                || value.contains([',', '{', '"'])
            {
                continue;
            }
            found
                .entry(name.to_string())
                .or_default()
                .push(value.to_string());
        }
        let mut values: HashMap<String, i128> = numbers
            .into_iter()
            .map(|(n, v)| (n.clone(), i128::from(v)))
            .collect();
        // Names defined from other names: evaluate again until nothing changes.
        for _ in 0..4 {
            let before = values.len();
            for (name, bodies) in &found {
                if values.contains_key(name) {
                    continue;
                }
                let table = Constants {
                    values: values.clone(),
                };
                let evaluated: Vec<Option<i128>> =
                    bodies.iter().map(|b| table.evaluate(b)).collect();
                if let Some(Some(first)) = evaluated.first() {
                    if evaluated.iter().all(|v| *v == Some(*first)) {
                        values.insert(name.clone(), *first);
                    }
                }
            }
            if values.len() == before {
                break;
            }
        }
        // A template parameter of the same name hides the constant where it is in scope
        // (`template <int K> … "n"(K)`): such a name is not known either.
        for name in template_parameters(text) {
            values.remove(&name);
        }
        // A name with definitions that disagree, or that cannot be read, is not known.
        for (name, bodies) in &found {
            let table = Constants {
                values: values.clone(),
            };
            let agree = bodies.iter().all(|b| {
                table
                    .evaluate(b)
                    .is_some_and(|v| Some(&v) == values.get(name))
            });
            if !agree {
                values.remove(name);
            }
        }
        Constants { values }
    }

    /// The value of an integer expression of literals and known names (`K / 2`,
    /// `int32_t(N)`, `(1 << 4)`), or `None`.
    pub fn evaluate(&self, expr: &str) -> Option<i128> {
        let tokens = tokens(expr)?;
        let mut p = Parser {
            tokens: &tokens,
            at: 0,
            constants: self,
        };
        let v = p.expression(0)?;
        (p.at == tokens.len()).then_some(v)
    }
}

/// The names declared in the file's `template <…>` parameter lists.
fn template_parameters(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("template") {
        if text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = text[at + "template".len()..].trim_start();
        let Some(list) = rest.strip_prefix('<') else {
            continue;
        };
        // Up to the matching `>` (nested `<…>` and `(…)` inside).
        let mut depth = 0i32;
        let mut end = None;
        for (i, c) in list.char_indices() {
            match c {
                '<' | '(' => depth += 1,
                ')' => depth -= 1,
                '>' if depth == 0 => {
                    end = Some(i);
                    break;
                }
                '>' => depth -= 1,
                ';' | '{' => break,
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        for param in list[..end].split(',') {
            let head = param.split('=').next().unwrap_or("").trim();
            let name = head
                .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            if is_identifier(name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Words of an integer constant's declaration before its name.
const INTEGER_TYPE_WORDS: &[&str] = &[
    "static",
    "inline",
    "constexpr",
    "const",
    "int",
    "unsigned",
    "signed",
    "long",
    "short",
    "char",
    "bool",
    "size_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "__device__",
    "__host__",
    "__constant__",
];

/// Type names that a functional cast `T(x)` or `static_cast<T>(x)` may name.
const CAST_TYPES: &[&str] = &[
    "int", "unsigned", "long", "short", "char", "size_t", "int8_t", "int16_t", "int32_t",
    "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
];

fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(i128),
    Name(String),
    Op(&'static str),
}

fn tokens(expr: &str) -> Option<Vec<Token>> {
    const OPS: &[&str] = &[
        "<<", ">>", "::", "+", "-", "*", "/", "%", "(", ")", "<", ">", "&", "|", "^", "~",
    ];
    let b = expr.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'\'') {
                j += 1;
            }
            out.push(Token::Number(crate::literal_value(&expr[i..j])?));
            i = j;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            out.push(Token::Name(expr[i..j].to_string()));
            i = j;
        } else {
            let op = OPS.iter().find(|op| expr[i..].starts_with(**op))?;
            out.push(Token::Op(op));
            i += op.len();
        }
    }
    Some(out)
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    constants: &'a Constants,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, op: &'static str) -> bool {
        if self.peek() == Some(&Token::Op(op)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Binary operators by precedence climbing (C's precedences).
    fn expression(&mut self, min: u8) -> Option<i128> {
        let mut left = self.unary()?;
        loop {
            let Some(Token::Op(op)) = self.peek() else {
                return Some(left);
            };
            let prec = match *op {
                "*" | "/" | "%" => 5,
                "+" | "-" => 4,
                "<<" | ">>" => 3,
                "&" => 2,
                "^" => 1,
                "|" => 0,
                _ => return Some(left),
            };
            if prec < min {
                return Some(left);
            }
            let op = *op;
            self.at += 1;
            let right = self.expression(prec + 1)?;
            left = match op {
                "*" => left.checked_mul(right)?,
                "/" => left.checked_div(right)?,
                "%" => left.checked_rem(right)?,
                "+" => left.checked_add(right)?,
                "-" => left.checked_sub(right)?,
                "<<" => left.checked_shl(u32::try_from(right).ok()?)?,
                ">>" => left.checked_shr(u32::try_from(right).ok()?)?,
                "&" => left & right,
                "^" => left ^ right,
                _ => left | right,
            };
        }
    }

    fn unary(&mut self) -> Option<i128> {
        if self.eat("-") {
            return self.unary()?.checked_neg();
        }
        if self.eat("+") {
            return self.unary();
        }
        if self.eat("~") {
            return Some(!self.unary()?);
        }
        if self.eat("(") {
            // `(int)x` or a parenthesized expression.
            if let Some(Token::Name(n)) = self.peek() {
                if CAST_TYPES.contains(&n.as_str())
                    && self.tokens.get(self.at + 1) == Some(&Token::Op(")"))
                {
                    self.at += 2;
                    return self.unary();
                }
            }
            let v = self.expression(0)?;
            return self.eat(")").then_some(v);
        }
        match self.peek()?.clone() {
            Token::Number(v) => {
                self.at += 1;
                Some(v)
            }
            Token::Name(n) => {
                self.at += 1;
                if n == "static_cast" {
                    // static_cast<T>(x)
                    if !self.eat("<") {
                        return None;
                    }
                    match self.peek() {
                        Some(Token::Name(t)) if CAST_TYPES.contains(&t.as_str()) => self.at += 1,
                        _ => return None,
                    }
                    if !self.eat(">") || !self.eat("(") {
                        return None;
                    }
                    let v = self.expression(0)?;
                    return self.eat(")").then_some(v);
                }
                if CAST_TYPES.contains(&n.as_str()) && self.eat("(") {
                    let v = self.expression(0)?;
                    return self.eat(")").then_some(v);
                }
                self.constants.values.get(&n).copied()
            }
            Token::Op(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_of_a_file() {
        let c = Constants::from_text(
            "static constexpr int K = 64;\n#define TILE 16\nconst unsigned N = K / 2 + TILE;\n\
             constexpr int Twice = 1;\nconstexpr int Twice = 2;\ntemplate <int M> void f();\n\
             constexpr int Tile = 8;\ntemplate <typename T, int Tile = 4> struct S;\n",
            [],
        );
        assert_eq!(c.evaluate("K"), Some(64));
        assert_eq!(c.evaluate("K / 2"), Some(32));
        assert_eq!(c.evaluate("int32_t(N)"), Some(48));
        assert_eq!(c.evaluate("static_cast<int>(TILE) << 1"), Some(32));
        assert_eq!(c.evaluate("(int)(K - 1)"), Some(63));
        assert_eq!(c.evaluate("Twice"), None);
        assert_eq!(c.evaluate("M"), None);
        assert_eq!(c.evaluate("Tile"), None);
        assert_eq!(c.evaluate("K +"), None);
    }
}
