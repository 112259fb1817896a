//! Property tests of the scanner: no panic on any bytes, the same events for
//! any split, agreement with a slow line-by-line model of the game-boundary
//! rule written independently, and the speculative cut.

#[path = "scan_util.rs"]
mod util;

use pgnfen::pgn::scan::{Event, Scanner, TagName, TagRef};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use util::*;

// ---------------------------------------------------------------- the model

fn is_delim(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0B || b"{}();".contains(&b)
}

enum Kind {
    Blank,
    Tag,
    Other,
}

#[derive(PartialEq, Clone, Copy)]
enum P {
    Empty,
    Preamble,
    Ended,
    Garbage(u64, u64),
    Header,
    Movetext,
}

/// A tag pair's name and, when well-formed, its value range (relative).
type Pair = (Vec<u8>, Option<(usize, usize)>);

/// A tag line's pairs, in order: each name and, when the pair is well-formed,
/// its value range (relative). After a well-formed pair, blanks and a `[` open
/// the next pair; anything else, or a pair that is not well-formed (an empty
/// name is not), ends the list.
fn parse_tag(l: &[u8]) -> Vec<Pair> {
    let mut pairs = Vec::new();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < l.len() && (l[*i] == b' ' || l[*i] == b'\t') {
            *i += 1;
        }
    };
    ws(&mut i);
    loop {
        i += 1; // '['
        ws(&mut i);
        let s = i;
        while i < l.len() && !b" \t\"]".contains(&l[i]) {
            i += 1;
        }
        let name = l[s..i].to_vec();
        if name.is_empty() {
            pairs.push((name, None));
            return pairs;
        }
        ws(&mut i);
        if l.get(i) != Some(&b'"') {
            pairs.push((name, None));
            return pairs;
        }
        i += 1;
        let vs = i;
        loop {
            match l.get(i) {
                None => {
                    pairs.push((name, None));
                    return pairs;
                }
                Some(b'\\') => i += 2,
                Some(b'"') => break,
                Some(_) => i += 1,
            }
        }
        if i > l.len() {
            pairs.push((name, None));
            return pairs;
        }
        let ve = i;
        i += 1;
        ws(&mut i);
        if l.get(i) != Some(&b']') {
            pairs.push((name, None));
            return pairs;
        }
        pairs.push((name, Some((vs, ve))));
        i += 1;
        ws(&mut i);
        if l.get(i) != Some(&b'[') {
            return pairs;
        }
    }
}

/// The game-boundary rule, one line at a time, tokens compared as strings.
fn model(data: &[u8]) -> Vec<Event> {
    let mut ev = Vec::new();
    let mut phase = P::Empty;
    let mut in_comment = false;
    let mut depth = 0usize;
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut saw_blank = false;
    let bom = data.starts_with(&[0xEF, 0xBB, 0xBF]);
    for (no, (ls, le)) in lines(data).into_iter().enumerate() {
        let line_no = no as u64 + 1;
        let cs = if ls == 0 && bom { 3 } else { ls };
        let l = &data[cs..le];
        let mut from = 0;
        if in_comment {
            // movetext: the line continues a comment
            match l.iter().position(|&b| b == b'}') {
                None => continue,
                Some(p) => {
                    in_comment = false;
                    from = p + 1;
                }
            }
        } else {
            let kind = match l.iter().find(|&&b| b != b' ' && b != b'\t') {
                None => Kind::Blank,
                Some(_) if l[0] == b'%' => Kind::Blank,
                Some(b'[') => Kind::Tag,
                Some(_) => Kind::Other,
            };
            match kind {
                Kind::Blank => {
                    if phase == P::Header {
                        saw_blank = true;
                    }
                    continue;
                }
                Kind::Tag => {
                    let pairs = parse_tag(l);
                    // Only the first pair can follow a blank line.
                    let name = &pairs[0].0;
                    let start = |ev: &mut Vec<Event>, off, line| {
                        ev.push(Event::GameStart { offset: off, line })
                    };
                    match phase {
                        P::Empty => start(&mut ev, 0, 1),
                        P::Preamble => {}
                        P::Ended | P::Movetext => start(&mut ev, ls as u64, line_no),
                        P::Garbage(o, n) => start(&mut ev, o, n),
                        P::Header => {
                            if saw_blank && !name.is_empty() && names.contains(name) {
                                ev.push(Event::HeaderEnd);
                                start(&mut ev, ls as u64, line_no);
                                names.clear();
                            }
                        }
                    }
                    if phase != P::Header {
                        names.clear();
                    }
                    phase = P::Header;
                    saw_blank = false;
                    for (name, val) in pairs {
                        if !name.is_empty() {
                            names.push(name.clone());
                        }
                        let tn = match &name[..] {
                            b"SetUp" => Some(TagName::SetUp),
                            b"FEN" => Some(TagName::Fen),
                            b"Variant" => Some(TagName::Variant),
                            _ => None,
                        };
                        if let (Some(tn), Some((vs, ve))) = (tn, val) {
                            ev.push(Event::Tag(TagRef {
                                name: tn,
                                line_start: cs as u64,
                                line: line_no,
                                value: (cs + vs) as u64..(cs + ve) as u64,
                            }));
                        }
                    }
                    continue;
                }
                Kind::Other => match phase {
                    P::Empty => {
                        ev.push(Event::GameStart { offset: 0, line: 1 });
                        phase = P::Preamble;
                        continue;
                    }
                    P::Preamble | P::Garbage(..) => continue,
                    P::Ended => {
                        phase = P::Garbage(ls as u64, line_no);
                        continue;
                    }
                    P::Header => {
                        ev.push(Event::HeaderEnd);
                        phase = P::Movetext;
                        depth = 0;
                    }
                    P::Movetext => {}
                },
            }
        }
        // movetext from `from`
        let mut i = from;
        while i < l.len() {
            let b = l[i];
            if in_comment {
                if b == b'}' {
                    in_comment = false;
                }
                i += 1;
                continue;
            }
            match b {
                b'{' => in_comment = true,
                b';' => break,
                b'(' => depth += 1,
                b')' => depth = depth.saturating_sub(1),
                _ if is_delim(b) => {}
                _ => {
                    let s = i;
                    while i < l.len() && !is_delim(l[i]) {
                        i += 1;
                    }
                    let tok = &l[s..i];
                    if depth == 0 && [&b"1-0"[..], b"0-1", b"1/2-1/2", b"*"].contains(&tok) {
                        phase = P::Ended;
                        break;
                    }
                    continue;
                }
            }
            i += 1;
        }
    }
    if matches!(phase, P::Header | P::Preamble) {
        ev.push(Event::HeaderEnd);
    }
    ev
}

// ---------------------------------------------------------------- inputs

fn fragment() -> impl Strategy<Value = Vec<u8>> {
    let nl = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    let piece = prop_oneof![
        3 => Just("[Event \"x\"]"),
        2 => Just("[Site \"y\"]"),
        2 => Just("[FEN \"8/8 w - - 0 1\"]"),
        1 => Just("[SetUp \"1\"]"),
        1 => Just("[Variant \"Chess960\"]"),
        1 => Just("[FEN \"a\\\"b\\\\\"] junk"),
        1 => Just("  [FEN  \"cut"),
        1 => Just("[Event"),
        1 => Just("["),
        1 => Just("[WhiteRatingDiff \"+3\"]"),
        2 => Just("[Event \"x\"] [FEN \"8/8 w - - 0 1\"]"),
        1 => Just("[SetUp \"1\"]\t[FEN \"a\"][Variant \"v\"] junk ["),
        1 => Just("[Site \"y\"] [Event \"cut"),
        1 => Just("[Site \"a] [FEN \\\"b\\\"]\"]  [Event \"x\"]"),
        1 => Just("[Event \"x\"] junk [Site \"y\"]"),
        1 => Just("[Event \"x\"] [Site"),
        1 => Just("[Round \"1\"] [] [SetUp \"1\"]"),
        3 => Just(""),
        1 => Just("  \t"),
        1 => Just("%[Event \"e\"]"),
        4 => Just("1. e4 e5 2. Nf3 Nc6"),
        2 => Just("1. e4 { [%clk 0:01:00] } e5 {"),
        2 => Just("} 3. O-O"),
        1 => Just("{ a { b } c }"),
        1 => Just("(1. d4 d5 1-0) *("),
        1 => Just(")"),
        3 => Just("1-0"),
        2 => Just("0-1"),
        2 => Just("1/2-1/2"),
        2 => Just("*"),
        1 => Just("e4 1-0 {x"),
        1 => Just("21-0 1-01 a* *a 1/2-1/3 x1-0"),
        1 => Just("; [Event \"c\"] 1-0 {"),
        1 => Just("junk <html>"),
        1 => Just("1-0}1/2-1/2)*;"),
    ];
    prop::collection::vec((piece, nl), 0..40).prop_map(|v| {
        let mut out = Vec::new();
        for (p, nl) in v {
            out.extend_from_slice(p.as_bytes());
            out.extend_from_slice(nl.as_bytes());
        }
        out
    })
}

fn pgnish() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::bool::weighted(0.1),
        fragment(),
        prop::bool::weighted(0.3),
        prop::collection::vec(any::<u8>(), 0..3),
    )
        .prop_map(|(bom, mut body, trim, junk)| {
            if trim {
                while body.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                    body.pop();
                }
                body.extend(junk);
            }
            if bom {
                let mut v = vec![0xEF, 0xBB, 0xBF];
                v.extend(body);
                v
            } else {
                body
            }
        })
}

fn split_sizes(data: &[u8], seed: u64) -> Vec<Event> {
    let mut r = Rng(seed | 1);
    let max = 1 + r.below(12);
    scan_pieces(data, || 1 + r.below(max) as usize)
}

/// Every line start that begins with `[` (a superset of the pipeline's cuts).
fn bracket_lines(data: &[u8]) -> Vec<usize> {
    lines(data)
        .into_iter()
        .map(|(s, _)| s)
        .filter(|&s| s > 0 && data[s] == b'[')
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        // Beside this file: proptest's default looks for it from the working
        // directory, which for a workspace member is not the repository root.
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/scan_props.proptest-regressions"
        )))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn agrees_with_model(data in pgnish()) {
        prop_assert_eq!(scan_whole(&data), model(&data));
    }

    #[test]
    fn any_split_same_events(data in pgnish(), seed in any::<u64>()) {
        let whole = scan_whole(&data);
        prop_assert_eq!(split_sizes(&data, seed), whole.clone());
        prop_assert_eq!(scan_pieces(&data, || 1), whole);
    }

    #[test]
    fn speculative_cuts(data in pgnish()) {
        check_cuts(&data, &cut_points(&data));
        check_cuts(&data, &bracket_lines(&data));
    }

    #[test]
    fn random_bytes_no_panic(data in prop::collection::vec(any::<u8>(), 0..2000), seed in any::<u64>()) {
        let whole = scan_whole(&data);
        prop_assert_eq!(split_sizes(&data, seed), whole.clone());
        prop_assert_eq!(model(&data), whole);
    }

    #[test]
    fn structural_bytes_no_panic(
        data in prop::collection::vec(prop::sample::select(b"[]{}();%*-/012 \t\n\r\"\\\0aFENSetUp".to_vec()), 0..500),
        seed in any::<u64>(),
    ) {
        let whole = scan_whole(&data);
        prop_assert_eq!(split_sizes(&data, seed), whole.clone());
        prop_assert_eq!(model(&data), whole);
        check_cuts(&data, &bracket_lines(&data));
    }
}

#[test]
fn long_inputs_bounded() {
    // A 10 MB comment, a 100 KB tag line, NUL bytes: no panic, in 4 KiB pieces.
    let mut s = b"[Event \"a\"]\n\n1. e4 {".to_vec();
    s.resize(10_000_000, b'c');
    s.extend_from_slice(b"}\n[Event \"");
    s.resize(s.len() + 100_000, b'v');
    s.extend_from_slice(b"\"]\n\0\0\0 1-0\n");
    let ev = scan_pieces(&s, || 4096);
    assert_eq!(games(&ev), 2);
    assert_eq!(ev, model(&s));
    let mut sc = Scanner::new();
    let mut out = Vec::new();
    sc.feed(&[], &mut out);
    sc.finish(&mut out);
    assert!(out.is_empty());
}
