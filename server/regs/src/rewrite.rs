//! Building a corrected vector operand that continues the user's own naming.

/// Splits a register name into a prefix and a trailing decimal number.
fn split_name(name: &str) -> (&str, Option<u64>) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return (name, None);
    }
    let (prefix, number) = name.split_at(name.len() - digits);
    (prefix, number.parse().ok())
}

/// Returns `wanted` register names that extend (or shorten) `existing`.
///
/// The first `min(existing.len(), wanted)` names are kept. New names continue
/// the numbering of the last numbered register's prefix after its highest
/// number (`%r4, %r5` → `%r6, %r7, …`);
/// when no name carries a number a `%r` style prefix of the last name is
/// numbered from 0 upwards, skipping names already present. Sink operands
/// `_` are kept, and a vector made only of sinks grows with more sinks.
///
/// ```
/// let v = ptx_regs::rewrite_vector(&["%rd2", "%rd3"], 4);
/// assert_eq!(v, ["%rd2", "%rd3", "%rd4", "%rd5"]);
/// ```
pub fn rewrite_vector(existing: &[&str], wanted: usize) -> Vec<String> {
    let existing: Vec<&str> = existing.iter().map(|s| s.trim()).collect();
    let mut out: Vec<String> = existing
        .iter()
        .take(wanted)
        .map(|s| (*s).to_owned())
        .collect();
    if out.len() == wanted {
        return out;
    }
    // The last register with a number decides the prefix; numbering goes on
    // after the highest number already used with that prefix.
    let seed = existing
        .iter()
        .rev()
        .filter(|s| **s != "_")
        .find_map(|s| match split_name(s) {
            (prefix, Some(_)) => Some(prefix),
            _ => None,
        })
        .map(|prefix| {
            let high = existing
                .iter()
                .filter_map(|s| match split_name(s) {
                    (p, Some(n)) if p == prefix => Some(n),
                    _ => None,
                })
                .max()
                .unwrap_or(0);
            (prefix.to_owned(), high + 1)
        });
    let (prefix, mut next) = match seed {
        Some(seed) => seed,
        None => match existing.iter().rev().find(|s| **s != "_") {
            // A plain name such as `%acc`: number copies of it from 0.
            Some(name) => ((*name).to_owned(), 0),
            None if !existing.is_empty() => {
                out.resize(wanted, "_".to_owned());
                return out;
            }
            None => ("%r".to_owned(), 0),
        },
    };
    while out.len() < wanted {
        let name = format!("{prefix}{next}");
        next += 1;
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::rewrite_vector;
    use expect_test::{expect, Expect};

    fn check(existing: &[&str], wanted: usize, expect: Expect) {
        expect.assert_eq(&rewrite_vector(existing, wanted).join(", "));
    }

    #[test]
    fn continues_numbering() {
        check(
            &["%r4", "%r5"],
            8,
            expect!["%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11"],
        );
        check(&["%rd10"], 3, expect!["%rd10, %rd11, %rd12"]);
        check(&["%f1", "%f2", "%f3"], 4, expect!["%f1, %f2, %f3, %f4"]);
        check(
            &["%acc12", "%acc13"],
            4,
            expect!["%acc12, %acc13, %acc14, %acc15"],
        );
        check(&["d0", " d1 "], 3, expect!["d0, d1, d2"]);
    }

    #[test]
    fn shrinks_and_keeps_sinks() {
        check(&["%r0", "%r1", "%r2", "%r3"], 2, expect!["%r0, %r1"]);
        check(&["%r7", "_"], 4, expect!["%r7, _, %r8, %r9"]);
        check(&["_", "_"], 4, expect!["_, _, _, _"]);
    }

    #[test]
    fn unnumbered_and_empty() {
        check(&["%acc"], 3, expect!["%acc, %acc0, %acc1"]);
        check(&[], 2, expect!["%r0, %r1"]);
        check(&["%r9", "%r3"], 4, expect!["%r9, %r3, %r10, %r11"]);
    }
}
