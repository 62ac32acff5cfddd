//! Constant expressions as ptxas 13.5 evaluates them (PTX ISA 4.5.4–4.5.6): 64-bit integers,
//! signed unless a literal is too large for `.s64` or carries `U`, and 64-bit floats.
//!
//! Where ptxas and the spec part ways, this follows ptxas: the spec's table lets `?:` choose
//! between two floating-point values and compares floats, but ptxas takes only integers in
//! `?:` ("Integer constant expression expected"); an operator never mixes an integer and a
//! floating-point operand ("Constant expression type mismatch", the spec says no more than that
//! there are no casts between them); a `0f` single-precision value may stand alone or in
//! parentheses but in no operation, not even `-` (the spec: "may not be used in constant
//! expressions"), while a `0d` value is an ordinary 64-bit float.

/// The value of a constant expression.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    Int {
        bits: u64,
        unsigned: bool,
    },
    Float(f64),
    /// A `0f` single-precision value, which takes part in no operation.
    Single,
}

impl Value {
    pub(crate) fn is_float(self) -> bool {
        !matches!(self, Value::Int { .. })
    }
}

/// Why ptxas refuses a constant expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Problem {
    DivisionByZero,
    /// An operator with an integer and a floating-point operand.
    Mixed(String),
    /// An operator that takes integers only, given a floating-point operand.
    IntegerOnly(String),
    /// A `0f` value inside an operation.
    Single,
    /// A cast to a type other than `.s64` or `.u64`.
    Cast(String),
    /// `7%3`, which ptxas reads as `7` and the name `%3`.
    Remainder,
    /// An integer literal beyond 64 bits (as ptxas finds them), a decimal float beyond a
    /// double's range.
    Overflow,
}

impl Problem {
    /// What is wrong with `text`, and what would be right.
    pub(crate) fn message(&self, text: &str) -> String {
        match self {
            Problem::DivisionByZero => {
                format!("`{text}` divides by zero; a constant expression must not")
            }
            Problem::Mixed(op) => format!(
                "`{text}` applies `{op}` to an integer and a floating-point operand; PTX converts \
                 neither: write both as integers or both as floating-point constants (`2.0`)"
            ),
            Problem::IntegerOnly(op) => format!(
                "`{text}` gives `{op}` a floating-point operand; `{op}` takes integers only"
            ),
            Problem::Single => format!(
                "`{text}`: a `0f` single-precision constant stands alone, never inside an \
                 operation; write the value as a `0d` or decimal floating-point constant"
            ),
            Problem::Overflow => format!(
                "`{text}` is beyond the range of a 64-bit constant (an integer below 2^64, a \
                 double's range for a floating-point one)"
            ),
            Problem::Remainder => format!(
                "`{text}`: ptxas reads `%` and the character after it as one name; put a blank \
                 after the `%` of a remainder (`7 % 3`)"
            ),
            Problem::Cast(ty) => format!(
                "`{text}` casts to `{ty}`; a constant expression casts only to `.s64` or `.u64`"
            ),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Tok<'a> {
    Val(Value),
    Op(&'a str),
    Cast(&'a str),
    Open,
    Close,
}

/// Evaluates `text` as a constant expression: `None` when it is not one this reader knows
/// (it names a register, a variable or a label, or has a token of no expression), otherwise
/// its value or why ptxas refuses it.
pub(crate) fn evaluate(text: &str) -> Option<Result<Value, Problem>> {
    let tokens = match tokenize(text)? {
        Ok(tokens) => tokens,
        Err(problem) => return Some(Err(problem)),
    };
    let mut parser = Parser { tokens, at: 0 };
    let result = parser.conditional();
    if parser.at != parser.tokens.len() {
        return None;
    }
    match result {
        Err(Fail::Problem(p)) => Some(Err(p)),
        Err(Fail::Syntax) => None,
        Ok((value, _)) => Some(Ok(value)),
    }
}

fn tokenize(text: &str) -> Option<Result<Vec<Tok<'_>>, Problem>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'.'
                    || (matches!(b[i], b'+' | b'-')
                        && matches!(b[i - 1], b'e' | b'E')
                        && !matches!(b[start..].get(..2), Some(b"0x" | b"0X"))))
            {
                i += 1;
            }
            match literal(&text[start..i])? {
                Ok(value) => out.push(Tok::Val(value)),
                Err(problem) => return Some(Err(problem)),
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            if &text[start..i] != "WARP_SZ" {
                return None;
            }
            out.push(Tok::Val(Value::Int {
                bits: 32,
                unsigned: false,
            }));
            continue;
        }
        if c == b'(' {
            // `(.s64)` and `( .u64 )`: a cast.
            let rest = &text[i + 1..];
            let inner = rest.trim_start();
            if inner.starts_with('.') {
                let end = inner.find(')')?;
                let ty = inner[..end].trim();
                if !ty[1..].bytes().all(|c| c.is_ascii_alphanumeric()) {
                    return None;
                }
                out.push(Tok::Cast(ty));
                i += 1 + (rest.len() - inner.len()) + end + 1;
                continue;
            }
            out.push(Tok::Open);
            i += 1;
            continue;
        }
        if c == b')' {
            out.push(Tok::Close);
            i += 1;
            continue;
        }
        // `%3` is a name to ptxas, not a remainder: after a value, `7%3` is `7` then `%3`.
        if c == b'%'
            && b.get(i + 1)
                .is_some_and(|n| n.is_ascii_alphanumeric() || matches!(n, b'_' | b'$'))
        {
            if matches!(out.last(), Some(Tok::Val(_) | Tok::Close)) {
                return Some(Err(Problem::Remainder));
            }
            return None;
        }
        let two = text.get(i..i + 2).unwrap_or("");
        let op = match two {
            "<<" | ">>" | "<=" | ">=" | "==" | "!=" | "&&" | "||" => two,
            _ => match c {
                b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'&' | b'|' | b'^' | b'!'
                | b'~' | b'?' | b':' => &text[i..i + 1],
                _ => return None,
            },
        };
        out.push(Tok::Op(op));
        i += op.len();
    }
    Some(Ok(out))
}

/// A literal's value: integers as PTX ISA 4.5.1 spells them, floats as 4.5.2 does; some
/// integers beyond 64 bits (see below), and a decimal float beyond a double's range either way
/// (`1e400`, `1e-400`), are ptxas's "Constant overflow".
fn literal(text: &str) -> Option<Result<Value, Problem>> {
    let lower = text.as_bytes();
    if lower.len() > 2 && lower[0] == b'0' && matches!(lower[1], b'f' | b'F') {
        return (lower.len() == 10 && u32::from_str_radix(&text[2..], 16).is_ok())
            .then_some(Ok(Value::Single));
    }
    if lower.len() > 2 && lower[0] == b'0' && matches!(lower[1], b'd' | b'D') {
        let bits = (lower.len() == 18).then(|| u64::from_str_radix(&text[2..], 16).ok())??;
        return Some(Ok(Value::Float(f64::from_bits(bits))));
    }
    let hex = matches!(text.get(..2), Some("0x" | "0X"));
    if text.contains('.') || (!hex && text.contains(['e', 'E'])) {
        let value = text.parse::<f64>().ok()?;
        let mantissa = text.split(['e', 'E']).next().unwrap_or("");
        let nonzero = mantissa.bytes().any(|c| matches!(c, b'1'..=b'9'));
        return Some(if value.is_infinite() || (value == 0.0 && nonzero) {
            Err(Problem::Overflow)
        } else {
            Ok(Value::Float(value))
        });
    }
    let (digits, suffix) = match text.strip_suffix('U') {
        Some(d) => (d, true),
        None => (text, false),
    };
    let (radix, body) = if hex {
        (16, &digits[2..])
    } else if matches!(digits.get(..2), Some("0b" | "0B")) {
        (2, &digits[2..])
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    // ptxas 13.5 finds an overflow where multiplying by the radix wraps below the value so far,
    // and never in a hexadecimal literal: `99999999999999999999` and a 65-digit binary literal
    // overflow, `18446744073709551616` (2^64, read as 0) and `0x10000000000000000` do not.
    let mut value: u64 = 0;
    for digit in body.chars() {
        let shifted = value.wrapping_mul(u64::from(radix));
        if radix != 16 && shifted < value {
            return Some(Err(Problem::Overflow));
        }
        value = shifted.wrapping_add(u64::from(digit.to_digit(radix)?));
    }
    Some(Ok(Value::Int {
        bits: value,
        unsigned: suffix || value > i64::MAX as u64,
    }))
}

enum Fail {
    Problem(Problem),
    Syntax,
}

/// A value and whether it is a bare `0f` literal, parenthesized or not.
type Out = Result<(Value, bool), Fail>;

struct Parser<'a> {
    tokens: Vec<Tok<'a>>,
    at: usize,
}

const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.tokens.get(self.at).copied()
    }

    fn conditional(&mut self) -> Out {
        let condition = self.binary(0)?;
        if self.peek() != Some(Tok::Op("?")) {
            return Ok(condition);
        }
        self.at += 1;
        let consequence = self.conditional()?;
        if self.peek() != Some(Tok::Op(":")) {
            return Err(Fail::Syntax);
        }
        self.at += 1;
        let alternative = self.conditional()?;
        let values = [condition.0, consequence.0, alternative.0];
        if [condition, consequence, alternative].iter().any(|v| v.1) {
            return Err(Fail::Problem(Problem::Single));
        }
        match values {
            [Value::Int { bits, .. }, a @ Value::Int { .. }, b @ Value::Int { .. }] => {
                let (a, b, unsigned) = usual(a, b);
                let chosen = if bits != 0 { a } else { b };
                Ok((
                    Value::Int {
                        bits: chosen,
                        unsigned,
                    },
                    false,
                ))
            }
            _ => Err(Fail::Problem(Problem::IntegerOnly("?:".to_owned()))),
        }
    }

    fn binary(&mut self, level: usize) -> Out {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(Tok::Op(op)) = self.peek() {
            if !LEVELS[level].contains(&op) {
                break;
            }
            self.at += 1;
            let right = self.binary(level + 1)?;
            if left.1 || right.1 {
                return Err(Fail::Problem(Problem::Single));
            }
            left = (apply(op, left.0, right.0).map_err(Fail::Problem)?, false);
        }
        Ok(left)
    }

    fn unary(&mut self) -> Out {
        match self.peek() {
            Some(Tok::Op(op @ ("-" | "+" | "!" | "~"))) => {
                self.at += 1;
                let (value, single) = self.unary()?;
                if single {
                    return Err(Fail::Problem(Problem::Single));
                }
                Ok((unary(op, value).map_err(Fail::Problem)?, false))
            }
            Some(Tok::Cast(ty)) => {
                self.at += 1;
                let (value, single) = self.unary()?;
                if single {
                    return Err(Fail::Problem(Problem::Single));
                }
                let unsigned = match ty {
                    ".u64" => true,
                    ".s64" => false,
                    _ => return Err(Fail::Problem(Problem::Cast(ty.to_owned()))),
                };
                match value {
                    Value::Int { bits, .. } => Ok((Value::Int { bits, unsigned }, false)),
                    _ => Err(Fail::Problem(Problem::IntegerOnly(format!("({ty})")))),
                }
            }
            Some(Tok::Open) => {
                self.at += 1;
                let inner = self.conditional()?;
                if self.peek() != Some(Tok::Close) {
                    return Err(Fail::Syntax);
                }
                self.at += 1;
                Ok(inner)
            }
            Some(Tok::Val(v)) => {
                self.at += 1;
                Ok((v, v == Value::Single))
            }
            _ => Err(Fail::Syntax),
        }
    }
}

/// The usual arithmetic conversions: both unsigned when either is.
fn usual(a: Value, b: Value) -> (u64, u64, bool) {
    match (a, b) {
        (
            Value::Int {
                bits: x,
                unsigned: ux,
            },
            Value::Int {
                bits: y,
                unsigned: uy,
            },
        ) => (x, y, ux || uy),
        _ => unreachable!("integers only"),
    }
}

fn int(bits: u64, unsigned: bool) -> Value {
    Value::Int { bits, unsigned }
}

fn truth(b: bool) -> Value {
    int(u64::from(b), false)
}

fn unary(op: &str, value: Value) -> Result<Value, Problem> {
    Ok(match (op, value) {
        ("+", v) => v,
        ("-", Value::Float(f)) => Value::Float(-f),
        ("-", Value::Int { bits, unsigned }) => int(bits.wrapping_neg(), unsigned),
        ("!", Value::Int { bits, .. }) => truth(bits == 0),
        ("~", Value::Int { bits, .. }) => int(!bits, true),
        _ => return Err(Problem::IntegerOnly(op.to_owned())),
    })
}

fn apply(op: &str, a: Value, b: Value) -> Result<Value, Problem> {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => Ok(match op {
            "+" => Value::Float(x + y),
            "-" => Value::Float(x - y),
            "*" => Value::Float(x * y),
            "/" if y == 0.0 => return Err(Problem::DivisionByZero),
            "/" => Value::Float(x / y),
            "<" => truth(x < y),
            ">" => truth(x > y),
            "<=" => truth(x <= y),
            ">=" => truth(x >= y),
            "==" => truth(x == y),
            "!=" => truth(x != y),
            _ => return Err(Problem::IntegerOnly(op.to_owned())),
        }),
        (Value::Int { .. }, Value::Int { .. }) => {
            let (x, y, unsigned) = usual(a, b);
            let (sx, sy) = (x as i64, y as i64);
            Ok(match op {
                "+" => int(x.wrapping_add(y), unsigned),
                "-" => int(x.wrapping_sub(y), unsigned),
                "*" => int(x.wrapping_mul(y), unsigned),
                "/" | "%" if y == 0 => return Err(Problem::DivisionByZero),
                "/" if unsigned => int(x / y, true),
                "/" => int(sx.wrapping_div(sy) as u64, false),
                // 4.5.5: the remainder reads both operands as unsigned.
                "%" => int(x % y, unsigned),
                "<<" => int(x.wrapping_shl(y as u32), a_unsigned(a)),
                ">>" if a_unsigned(a) => int(x.checked_shr(y as u32).unwrap_or(0), true),
                ">>" => int(sx.checked_shr(y as u32).unwrap_or(sx >> 63) as u64, false),
                "<" => truth(if unsigned { x < y } else { sx < sy }),
                ">" => truth(if unsigned { x > y } else { sx > sy }),
                "<=" => truth(if unsigned { x <= y } else { sx <= sy }),
                ">=" => truth(if unsigned { x >= y } else { sx >= sy }),
                "==" => truth(x == y),
                "!=" => truth(x != y),
                "&" => int(x & y, unsigned),
                "|" => int(x | y, unsigned),
                "^" => int(x ^ y, unsigned),
                "&&" => truth(x != 0 && y != 0),
                "||" => truth(x != 0 || y != 0),
                _ => unreachable!("every binary operator is listed"),
            })
        }
        _ => Err(Problem::Mixed(op.to_owned())),
    }
}

fn a_unsigned(a: Value) -> bool {
    matches!(a, Value::Int { unsigned: true, .. })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_of(text: &str) -> Option<i64> {
        match evaluate(text)? {
            Ok(Value::Int { bits, .. }) => Some(bits as i64),
            _ => None,
        }
    }

    #[test]
    fn integers_follow_c_with_64_bit_rules() {
        assert_eq!(int_of("1+2*3"), Some(7));
        assert_eq!(int_of("-7/2"), Some(-3));
        assert_eq!(int_of("(1U-2)>>63"), Some(1));
        assert_eq!(int_of("-1>>63"), Some(-1));
        assert_eq!(int_of("1?2:0?4:5"), Some(2));
        assert_eq!(int_of("( .u64 ) -1 >> 1"), Some(i64::MAX));
        assert_eq!(int_of("WARP_SZ-1"), Some(31));
        assert_eq!(int_of("0x10 + 010 + 0b10"), Some(26));
        assert_eq!(int_of("1<2==1"), Some(1));
        assert_eq!(evaluate("%r1+1"), None);
        assert_eq!(evaluate("7%3"), Some(Err(Problem::Remainder)));
        assert_eq!(int_of("7 % 3"), Some(1));
        assert_eq!(int_of("7%-3"), Some((7u64 % (-3i64 as u64)) as i64));
    }

    #[test]
    fn problems_ptxas_reports() {
        assert_eq!(evaluate("1/0"), Some(Err(Problem::DivisionByZero)));
        assert_eq!(evaluate("3.0/0.0"), Some(Err(Problem::DivisionByZero)));
        assert_eq!(evaluate("1.0+1"), Some(Err(Problem::Mixed("+".into()))));
        assert_eq!(
            evaluate("~1.0"),
            Some(Err(Problem::IntegerOnly("~".into())))
        );
        assert_eq!(
            evaluate("1?1.0:2.0"),
            Some(Err(Problem::IntegerOnly("?:".into())))
        );
        assert_eq!(evaluate("-0f3F800000"), Some(Err(Problem::Single)));
        assert_eq!(evaluate("(0f3F800000)"), Some(Ok(Value::Single)));
        assert_eq!(evaluate("(.s32)1"), Some(Err(Problem::Cast(".s32".into()))));
        assert_eq!(evaluate("1.0<2.0"), Some(Ok(truth(true))));
        assert_eq!(
            evaluate("-0d3FF0000000000000"),
            Some(Ok(Value::Float(-1.0)))
        );
        assert_eq!(
            evaluate("99999999999999999999"),
            Some(Err(Problem::Overflow))
        );
        assert_eq!(int_of("18446744073709551616"), Some(0));
        assert_eq!(evaluate("1e-400"), Some(Err(Problem::Overflow)));
        assert_eq!(int_of("18446744073709551615"), Some(-1));
    }
}
