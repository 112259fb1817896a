//! `cargo fuzz run tagexpr`: `--tag` expressions (`TagExpr::parse` and
//! `holds`) against a reference written from the rules of docs/commands.md:
//! a name of letters, digits and `_`, an operator, a value; `=`/`!=` compare
//! bytes after PGN unescaping, `<` `<=` `>` `>=` compare as decimal numbers
//! when both sides are numbers (of any length: by padding; ASCII white space
//! around a number does not count), else as bytes; a
//! game without the tag satisfies only `!=` and `!~`. Input: the expression,
//! then 0xFF and the raw tag value (none: the game lacks the tag).
#![no_main]
use libfuzzer_sys::fuzz_target;
use pgnfen::select::{Op, TagExpr};
use std::cmp::Ordering;

fn decode(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'\\' && i + 1 < raw.len() && (raw[i + 1] == b'"' || raw[i + 1] == b'\\') {
            out.push(raw[i + 1]);
            i += 2;
        } else {
            out.push(raw[i]);
            i += 1;
        }
    }
    out
}

/// (negative, int padded, frac) as strings; compare by padding.
fn num(s: &[u8]) -> Option<(bool, String, String)> {
    let s = std::str::from_utf8(s).ok()?.trim_ascii();
    let (neg, body) = if let Some(r) = s.strip_prefix('-') {
        (true, r)
    } else if let Some(r) = s.strip_prefix('+') {
        (false, r)
    } else {
        (false, s)
    };
    let mut it = body.splitn(2, '.');
    let int = it.next()?;
    let frac = it.next();
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if let Some(f) = frac
        && (f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    Some((neg, int.to_string(), frac.unwrap_or("").to_string()))
}

fn cmp_num(a: &(bool, String, String), b: &(bool, String, String)) -> Ordering {
    let w = a.1.len().max(b.1.len());
    let f = a.2.len().max(b.2.len());
    let norm = |x: &(bool, String, String)| format!("{:0>w$}{:0<f$}", x.1, x.2, w = w, f = f);
    let (na, nb) = (norm(a), norm(b));
    let zero = |s: &str| s.bytes().all(|c| c == b'0');
    let sa = if zero(&na) {
        0
    } else if a.0 {
        -1
    } else {
        1
    };
    let sb = if zero(&nb) {
        0
    } else if b.0 {
        -1
    } else {
        1
    };
    if sa != sb {
        return sa.cmp(&sb);
    }
    if sa >= 0 { na.cmp(&nb) } else { nb.cmp(&na) }
}

fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(2, |&b| b == 0xFF);
    let expr = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let value: Option<&[u8]> = parts.next();
    let parsed = TagExpr::parse(&expr);
    // Reference parse.
    let b = expr.as_bytes();
    let nl = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
        .count();
    let rest = &expr[nl..];
    let ops = [
        ("!=", Op::Ne),
        ("!~", Op::NotMatch),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("=", Op::Eq),
        ("~", Op::Match),
        ("<", Op::Lt),
        (">", Op::Gt),
    ];
    let refop = if nl == 0 {
        None
    } else {
        ops.iter().find(|(s, _)| rest.starts_with(s)).copied()
    };
    let refval = refop.map(|(s, _)| &rest[s.len()..]);
    let bad_value = refval.is_some_and(|v| {
        v.bytes()
            .next()
            .is_some_and(|c| matches!(c, b'=' | b'!' | b'~' | b'<' | b'>'))
    });
    match &parsed {
        Err(e) => {
            let _ = e.to_string();
            assert!(e.at.start <= e.at.end, "{e:?}");
            assert!(e.at.end <= expr.len() + 1, "{e:?}");
            if let (Some((_, op)), false) = (refop, bad_value) {
                assert!(
                    matches!(op, Op::Match | Op::NotMatch),
                    "{expr:?} rejected: {e:?}"
                );
            }
        }
        Ok(t) => {
            let (s, op) = refop.expect("accepted without name/op");
            assert!(!bad_value, "{expr:?}");
            assert_eq!(t.op(), op);
            assert_eq!(t.name(), &expr[..nl]);
            assert_eq!(t.value(), &rest[s.len()..]);
            if matches!(op, Op::Match | Op::NotMatch) {
                // (The regular expression itself is the regex crate's.) A
                // game without the tag satisfies `!~` only.
                let got = t.holds(value);
                if value.is_none() {
                    assert_eq!(got, op == Op::NotMatch, "{expr:?} without the tag");
                }
                return;
            }
            let got = t.holds(value);
            let want = match value {
                None => matches!(op, Op::Ne),
                Some(raw) => {
                    let v = decode(raw);
                    let w = t.value().as_bytes();
                    let ord = match (num(&v), num(w)) {
                        (Some(a), Some(b)) => cmp_num(&a, &b),
                        _ => v.as_slice().cmp(w),
                    };
                    match op {
                        Op::Eq => v == w,
                        Op::Ne => v != w,
                        Op::Lt => ord == Ordering::Less,
                        Op::Le => ord != Ordering::Greater,
                        Op::Gt => ord == Ordering::Greater,
                        Op::Ge => ord != Ordering::Less,
                        _ => unreachable!(),
                    }
                }
            };
            assert_eq!(
                got,
                want,
                "{expr:?} on {:?}",
                value.map(String::from_utf8_lossy)
            );
        }
    }
});
