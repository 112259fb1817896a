//! One small input per rule; every input is also scanned split at every byte
//! (two pieces) and in 1-byte pieces, which must give the same events.

use super::*;

fn scan_pieces(input: &[u8], sizes: &mut dyn FnMut() -> usize) -> Vec<Event> {
    let mut s = Scanner::new();
    let mut ev = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let n = sizes().clamp(1, rest.len());
        s.feed(&rest[..n], &mut ev);
        rest = &rest[n..];
    }
    s.finish(&mut ev);
    ev
}

/// Scans whole, then checks every split gives the same events.
fn scan(input: &[u8]) -> Vec<Event> {
    let whole = scan_pieces(input, &mut || usize::MAX);
    assert_eq!(scan_pieces(input, &mut || 1), whole, "1-byte pieces");
    for cut in 0..=input.len() {
        let mut s = Scanner::new();
        let mut ev = Vec::new();
        s.feed(&input[..cut], &mut ev);
        s.feed(&input[cut..], &mut ev);
        s.finish(&mut ev);
        assert_eq!(ev, whole, "split at {cut}");
    }
    whole
}

/// The offsets of the GameStart events.
fn starts(input: &str) -> Vec<u64> {
    scan(input.as_bytes())
        .iter()
        .filter_map(|e| match e {
            Event::GameStart { offset, .. } => Some(*offset),
            _ => None,
        })
        .collect()
}

fn off(input: &str, needle: &str) -> u64 {
    input.find(needle).expect("needle") as u64
}

fn tags(input: &str) -> Vec<(TagName, String, u64, u64)> {
    scan(input.as_bytes())
        .iter()
        .filter_map(|e| match e {
            Event::Tag(t) => Some((
                t.name,
                input[t.value.start as usize..t.value.end as usize].to_string(),
                t.line_start,
                t.line,
            )),
            _ => None,
        })
        .collect()
}

/// Every game has exactly one HeaderEnd, after its GameStart and before the next.
fn check_header_ends(ev: &[Event]) {
    let mut open = false;
    let mut header = false;
    for e in ev {
        match e {
            Event::GameStart { .. } => {
                assert!(!header, "GameStart before HeaderEnd: {ev:?}");
                open = true;
                header = true;
            }
            Event::Tag(_) | Event::Extra { .. } | Event::Pair { .. } => {
                assert!(header, "Tag after HeaderEnd: {ev:?}")
            }
            Event::HeaderEnd => {
                assert!(open && header, "stray HeaderEnd: {ev:?}");
                header = false;
            }
            Event::Movetext { .. } => assert!(open && !header, "Movetext in a header: {ev:?}"),
        }
    }
    assert!(!header, "no final HeaderEnd: {ev:?}");
}

/// `with_movetext`: each movetext's first line (after blank, `%` and indented
/// tag lines), right after its HeaderEnd, wherever the input is split.
#[test]
fn movetext_starts_are_reported_wherever_the_input_is_split() {
    let text = b"[Event \"a\"]\r\n\r\n%escape\r\n  [Site \"b\"]\r\n\r\n1. e4 *\r\n\r\n[Event \"c\"]\n\n  {c} 1. d4 *\n[Event \"d\"]\n[Event \"e\"]";
    let starts = |pieces: &[&[u8]]| -> Vec<(u64, u64)> {
        let mut s = Scanner::new().with_movetext();
        let mut ev = Vec::new();
        for p in pieces {
            s.feed(p, &mut ev);
        }
        s.finish(&mut ev);
        check_header_ends(&ev);
        for w in ev.windows(2) {
            if let Event::Movetext { .. } = w[1] {
                assert_eq!(w[0], Event::HeaderEnd);
            }
        }
        ev.iter()
            .filter_map(|e| match e {
                Event::Movetext { offset, line } => Some((*offset, *line)),
                _ => None,
            })
            .collect()
    };
    let at = |needle: &[u8]| {
        text.windows(needle.len())
            .position(|w| w == needle)
            .unwrap() as u64
    };
    let expected = vec![(at(b"1. e4"), 6), (at(b"  {c}"), 10)];
    assert_eq!(starts(&[text]), expected);
    for cut in 0..=text.len() {
        assert_eq!(
            starts(&[&text[..cut], &text[cut..]]),
            expected,
            "cut at {cut}"
        );
    }
    // Without the option, no such event.
    assert!(
        !scan(text)
            .iter()
            .any(|e| matches!(e, Event::Movetext { .. }))
    );
}

const G1: &str = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n";

#[test]
fn empty_and_blank_inputs_hold_no_game() {
    assert!(scan(b"").is_empty());
    assert!(scan(b"\n\n  \t\n\r\n\r").is_empty());
    assert!(scan(b"%escape\n%\n").is_empty());
    assert!(scan(b"\xEF\xBB\xBF").is_empty());
    assert!(scan(b"\xEF\xBB\xBF\n\n").is_empty());
}

#[test]
fn one_game() {
    let ev = scan(G1.as_bytes());
    assert_eq!(
        ev,
        vec![Event::GameStart { offset: 0, line: 1 }, Event::HeaderEnd]
    );
}

#[test]
fn first_game_starts_at_zero() {
    let s = format!("\n\n  \n{G1}");
    assert_eq!(starts(&s), vec![0]);
    let ev = scan(s.as_bytes());
    assert_eq!(ev[0], Event::GameStart { offset: 0, line: 1 });
}

#[test]
fn bom() {
    let s = format!("\u{feff}{G1}\n{G1}");
    assert_eq!(starts(&s), vec![0, off(&s, "\n\n[") + 2]);
    let s = "\u{feff}[FEN \"x\"]\n";
    assert_eq!(tags(s), vec![(TagName::Fen, "x".into(), 3, 1)]);
    // A BOM followed by a % escape line: still a blank line.
    assert!(scan("\u{feff}%x\n".as_bytes()).is_empty());
    // A partial BOM is text.
    assert_eq!(starts_bytes(b"\xEF\xBB\n"), vec![0]);
    assert_eq!(starts_bytes(b"\xEF"), vec![0]);
    assert_eq!(starts_bytes(b"\xEFx\n[A \"\"]\n"), vec![0]);
}

fn starts_bytes(input: &[u8]) -> Vec<u64> {
    let ev = scan(input);
    check_header_ends(&ev);
    ev.iter()
        .filter_map(|e| match e {
            Event::GameStart { offset, .. } => Some(*offset),
            _ => None,
        })
        .collect()
}

#[test]
fn games_after_markers() {
    let s = format!("{G1}\n{G1}\n\n{G1}");
    let second = G1.len() as u64 + 1;
    let third = 2 * G1.len() as u64 + 3;
    assert_eq!(starts(&s), vec![0, second, third]);
    let ev = scan(s.as_bytes());
    check_header_ends(&ev);
    assert_eq!(
        ev[2],
        Event::GameStart {
            offset: second,
            line: 6
        }
    );
}

#[test]
fn every_marker() {
    for m in ["1-0", "0-1", "1/2-1/2", "*"] {
        // garbage after the marker belongs to the next game
        let s = format!("[A \"\"]\n1. e4 {m}\ngarbage\n[A \"\"]\n");
        assert_eq!(starts(&s), vec![0, off(&s, "garbage")], "{m}");
        // marker at end of line, at end of input, glued to a comment or variation
        for tail in ["", "\n", " ", "{c}", ")", "}", "\t;x"] {
            let s = format!("[A \"\"]\n1. e4 {m}{tail}\ngarbage\n[A \"\"]\n");
            assert_eq!(starts(&s), vec![0, off(&s, "garbage")], "{m}{tail:?}");
        }
        let s = format!("[A \"\"]\n{m}");
        assert_eq!(starts(&s), vec![0]);
    }
}

#[test]
fn not_markers() {
    // Not whole tokens, in comments, in variations, in ; comments: the garbage
    // line is movetext and the game starts at the tag line.
    for body in [
        "e4 21-0",
        "e4 1-01",
        "e4 1-0x",
        "e4 a*",
        "e4 *a",
        "O-O-O",
        "1/2",
        "1/2-1",
        "1/2-1/3",
        "11/2-1/2",
        "{1-0}",
        "{ * }",
        "(1. e4 1-0)",
        "(e4 (d4) *)",
        "; 1-0",
        "x1-0",
        "0-0",
        "1-1",
        "2-0",
    ] {
        let s = format!("[A \"\"]\n1. {body}\ngarbage\n[A \"\"]\n");
        assert_eq!(starts(&s), vec![0, off(&s, "\n[A \"\"]\n") + 1], "{body}");
    }
}

#[test]
fn marker_after_variation_closes() {
    let s = "[A \"\"]\n1. e4 (1. d4 d5) 1-0\ngarbage\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "garbage")]);
    // unbalanced ) does not go below zero
    let s = "[A \"\"]\n1. e4 )) 1-0\ngarbage\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "garbage")]);
}

#[test]
fn rest_of_marker_line_is_opaque() {
    // A `{` after the marker does not open a comment.
    let s = "[A \"\"]\n1. e4 1-0 {not a comment\n[A \"\"]\n}\n";
    assert_eq!(starts(s), vec![0, off(s, "\n[A") + 1]);
}

#[test]
fn garbage_is_opaque_and_at_end_belongs_to_last_game() {
    let s = format!("{G1}\n<html> {{ ( junk\nmore 1-0 junk\n\n{G1}\ntrailing junk\n");
    assert_eq!(starts(&s), vec![0, off(&s, "<html>")]);
    let ev = scan(s.as_bytes());
    check_header_ends(&ev);
    assert_eq!(
        ev[2],
        Event::GameStart {
            offset: off(&s, "<html>"),
            line: 6
        }
    );
}

#[test]
fn preamble_belongs_to_first_game() {
    let s = format!("exported by X\n1. e4 e5 *\n\n{G1}\n{G1}");
    assert_eq!(starts(&s), vec![0, off(&s, "1-0\n\n[") + 5]);
    // braces in the preamble are not comments
    let s = format!("text {{ open\n{G1}\n{G1}");
    assert_eq!(starts(&s).len(), 2);
}

#[test]
fn tagless_input_is_one_game() {
    let s = "1. e4 e5 2. Nf3 Nc6 1-0\n\n1. d4 d5 0-1\n";
    let ev = scan(s.as_bytes());
    assert_eq!(
        ev,
        vec![Event::GameStart { offset: 0, line: 1 }, Event::HeaderEnd]
    );
}

#[test]
fn tag_line_ends_movetext() {
    let s = "[A \"\"]\n\n1. e4\n\n[A \"\"]\n1. d4\n[B \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "\n\n[A") + 2, off(s, "[B")]);
    // An indented tag line is a tag line.
    let s = "[A \"\"]\n1. e4\n  \t[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "  \t[")]);
}

#[test]
fn blank_line_then_known_name_starts_a_game() {
    // header-only export
    let s = "[Event \"a\"]\n[Site \"b\"]\n\n[Event \"c\"]\n[Site \"d\"]\n\n[Event \"e\"]\n";
    assert_eq!(
        starts(s),
        vec![0, off(s, "[Event \"c"), off(s, "[Event \"e")]
    );
    // ChessBase: a blank line inside the header, new name: same game
    let s = "[Event \"a\"]\n\n[Site \"b\"]\n[Date \"c\"]\n\n1. e4 *\n";
    assert_eq!(starts(s), vec![0]);
    // no blank line: a repeated tag stays in the header
    let s = "[Event \"a\"]\n[Event \"b\"]\n";
    assert_eq!(starts(s), vec![0]);
    // % lines count as blank
    let s = "[Event \"a\"]\n%x\n[Event \"b\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "[Event \"b")]);
    // the blank line must come right before the repeated tag
    let s = "[Event \"a\"]\n\n[Site \"b\"]\n[Event \"c\"]\n";
    assert_eq!(starts(s), vec![0]);
    // the new game's header holds only its own names
    let s = "[Event \"a\"]\n[Site \"x\"]\n\n[Event \"c\"]\n\n[Site \"d\"]\n\n[Site \"e\"]\n";
    assert_eq!(
        starts(s),
        vec![0, off(s, "[Event \"c"), off(s, "[Site \"e")]
    );
    // names are case-sensitive and compared whole (also long ones)
    let s = "[Event \"a\"]\n[WhiteRatingDiff \"1\"]\n\n[event \"c\"]\n\n[WhiteRatingDif \"1\"]\n\n[WhiteRatingDiff \"2\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "[WhiteRatingDiff \"2")]);
    // a name cut by the end of the line or of the input
    let s = "[Event \"a\"]\n\n[Event\n";
    assert_eq!(starts(s), vec![0, off(s, "[Event\n")]);
    let s = "[Event \"a\"]\n\n[Event";
    assert_eq!(starts(s), vec![0, off(s, "[Event") + 13]);
    // empty names never repeat
    let s = "[ \"a\"]\n\n[ \"b\"]\n\n[]\n\n[\n";
    assert_eq!(starts(s), vec![0]);
}

#[test]
fn header_only_game_followed_by_movetext_game() {
    let s = "[Event \"a\"]\n\n[Event \"b\"]\n\n1. e4 *\n";
    let ev = scan(s.as_bytes());
    check_header_ends(&ev);
    assert_eq!(
        ev,
        vec![
            Event::GameStart { offset: 0, line: 1 },
            Event::HeaderEnd,
            Event::GameStart {
                offset: off(s, "[Event \"b"),
                line: 3
            },
            Event::HeaderEnd,
        ]
    );
}

#[test]
fn brace_comments() {
    // tag lines inside comments are comment text; comments span lines
    let s = "[A \"\"]\n1. e4 {x\n[A \"\"]\n[FEN \"y\"]\n} 1-0\n\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "\n\n[A") + 2]);
    assert!(tags(s).is_empty());
    // no nesting: `c }` is movetext, the marker after it counts
    let s = "[A \"\"]\n1. e4 { a { b } c } 1-0\ngarbage\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "garbage")]);
    // a stray } is nothing
    let s = "[A \"\"]\n1. e4 } 1-0\ngarbage\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "garbage")]);
    // unterminated: runs to the end of the input
    let s = "[A \"\"]\n1. e4 { open\n\n[A \"\"]\n1-0\n\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0]);
    // markers in comments do not count
    let s = "[A \"\"]\n1. e4 {1-0}\ngarbage\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "\n[A \"\"]\n") + 1]);
}

#[test]
fn semicolon_comments() {
    let s = "[A \"\"]\n1. e4 ; {\n1-0\n\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "\n\n[A") + 2]);
    let s = "[A \"\"]\n\n; [A \"\"]\n1. d4 ; 1-0\nd5\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "\n[A \"\"]\n") + 1]);
    // a ; line in a header is an other line: the header is over
    let s = "[A \"\"]\n; c\n[B \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "[B")]);
}

#[test]
fn percent_escape_lines() {
    let s = "%x\n[A \"\"]\n1. e4 1-0\n\n%[A \"\"]\n[A \"\"]\n1. e4\n%[A \"y\"]\ne5 *\n";
    assert_eq!(starts(s), vec![0, off(s, "%[A \"\"]\n") + 8]);
    // only in column 1
    let s = "[A \"\"]\n1. e4 1-0\n %x\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, " %x")]);
    // after a marker, a % line is blank (not garbage)
    let s = "[A \"\"]\n1. e4 1-0\n%x\n[A \"\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "\n[A \"\"]\n") + 1]);
}

#[test]
fn line_ends() {
    for nl in ["\n", "\r\n", "\r"] {
        let s = format!(
            "[A \"\"]{nl}[FEN \"f\"]{nl}{nl}1. e4 1-0{nl}{nl}junk{nl}[A \"\"]{nl}1. d4 *{nl}"
        );
        let ev = scan(s.as_bytes());
        check_header_ends(&ev);
        let fen_line = off(&s, "[FEN");
        let v = off(&s, "f\"");
        assert_eq!(
            ev,
            vec![
                Event::GameStart { offset: 0, line: 1 },
                Event::Tag(TagRef {
                    name: TagName::Fen,
                    line_start: fen_line,
                    line: 2,
                    value: v..v + 1,
                }),
                Event::HeaderEnd,
                Event::GameStart {
                    offset: off(&s, "junk"),
                    line: 6
                },
                Event::HeaderEnd,
            ],
            "{nl:?}"
        );
        let mut sc = Scanner::new();
        let mut e = Vec::new();
        sc.feed(s.as_bytes(), &mut e);
        assert_eq!(sc.lines_seen(), 8);
    }
    // \r\n split between pieces counts once; \n\r is two line ends
    let mut sc = Scanner::new();
    let mut e = Vec::new();
    sc.feed(b"a\r", &mut e);
    sc.feed(b"\n\n\r", &mut e);
    sc.feed(b"\r", &mut e);
    assert_eq!(sc.lines_seen(), 4);
}

#[test]
fn tag_pairs() {
    let s = "[SetUp \"1\"]\n[FEN  \"a b\"] junk\n\t[Variant\t\"x\\\"y\\\\\"]\n[Fen \"no\"]\n[FEN\"z\"]\n";
    assert_eq!(
        tags(s),
        vec![
            (TagName::SetUp, "1".into(), 0, 1),
            (TagName::Fen, "a b".into(), off(s, "[FEN  "), 2),
            (TagName::Variant, "x\\\"y\\\\".into(), off(s, "\t[Var"), 3),
            (TagName::Fen, "z".into(), off(s, "[FEN\""), 5),
        ]
    );
    // malformed: no closing quote, no ], junk before ], name cut, empty value ok
    let s = "[FEN \"cut\n[FEN \"x\"\n[FEN \"x\" y]\n[FEN x]\n[FEN]\n[FEN\n[FEN \"\"]\n[ FEN \"w\"]\n[FENX \"v\"]\n";
    assert_eq!(
        tags(s),
        vec![
            (TagName::Fen, "".into(), off(s, "[FEN \"\"]"), 7),
            (TagName::Fen, "w".into(), off(s, "[ FEN"), 8),
        ]
    );
    // a value cut by the end of the input
    assert!(tags("[FEN \"abc").is_empty());
    assert!(tags("[FEN \"abc\"").is_empty());
    assert_eq!(tags("[FEN \"abc\"]").len(), 1);
    // tags of the second game
    let s = format!("{G1}\n[FEN \"q\"]\n\n*\n");
    assert_eq!(
        tags(&s),
        vec![(TagName::Fen, "q".into(), G1.len() as u64 + 1, 6)]
    );
    // NUL and invalid UTF-8 in values are raw bytes
    let ev = scan(b"[FEN \"\0\xff\"]\n");
    assert_eq!(
        ev[1],
        Event::Tag(TagRef {
            name: TagName::Fen,
            line_start: 0,
            line: 1,
            value: 6..8
        })
    );
}

#[test]
fn header_end_timing() {
    let ev = scan(b"[A \"\"]\n[FEN \"x\"]\n");
    assert_eq!(ev.len(), 3);
    assert_eq!(ev[2], Event::HeaderEnd);
    let ev = scan(b"[A \"\"]\n1. e4\n[FEN \"x\"]\n");
    check_header_ends(&ev);
    assert_eq!(ev.len(), 5);
    let ev = scan(b"text\n");
    check_header_ends(&ev);
}

#[test]
fn truncated_inputs() {
    for s in [
        "[Event \"a\"]\n1. e4 1-",
        "[Event \"a\"]\n1. e4 1/2-1/",
        "[Event \"cut",
        "[Ev",
        "[",
        "1. e4 {",
        "1. e4 (",
    ] {
        let ev = scan(s.as_bytes());
        check_header_ends(&ev);
        assert_eq!(starts(s), vec![0], "{s}");
    }
}

#[test]
fn nul_and_binary_bytes() {
    let s = b"\0\0\n[A \"\0\"]\n\x01\x02 1-0 \xff\n\0\n[A \"\"]\n";
    let ev = scan(s);
    check_header_ends(&ev);
    assert_eq!(starts_bytes(s), vec![0, 20]);
}

#[test]
fn huge_inputs_are_bounded() {
    // a 10 MB comment in 64 KiB pieces
    let mut s = b"[A \"\"]\n1. e4 {".to_vec();
    s.resize(s.len() + 10_000_000, b'x');
    s.extend_from_slice(b"} 1-0\ngarbage\n[A \"\"]\n");
    let mut sc = Scanner::new();
    let mut ev = Vec::new();
    for p in s.chunks(65536) {
        sc.feed(p, &mut ev);
        assert!(sc.carry_len <= 8 && sc.names.len() <= MAX_HEADER_NAMES);
    }
    sc.finish(&mut ev);
    assert_eq!(
        ev.iter()
            .filter(|e| matches!(e, Event::GameStart { .. }))
            .count(),
        2
    );
    // a 100 KB tag line (name and value)
    let mut s = b"[".to_vec();
    s.resize(100_001, b'N');
    s.extend_from_slice(b" \"");
    s.resize(200_000, b'v');
    s.extend_from_slice(b"\"]\n\n[FEN \"");
    s.resize(300_000, b'f');
    s.extend_from_slice(b"\"]\n1. e4\n");
    let mut sc = Scanner::new();
    let mut ev = Vec::new();
    for p in s.chunks(4096) {
        sc.feed(p, &mut ev);
    }
    sc.finish(&mut ev);
    assert_eq!(ev.len(), 3);
    // many tag names: capped
    let mut s = String::new();
    for i in 0..10_000 {
        s.push_str(&format!("[T{i} \"\"]\n"));
    }
    let mut sc = Scanner::new();
    let mut ev = Vec::new();
    sc.feed(s.as_bytes(), &mut ev);
    assert_eq!(sc.names.len(), MAX_HEADER_NAMES);
}

#[test]
fn at_cut_and_fits() {
    let s = format!("{G1}\n{G1}");
    let cut = G1.len() + 1;
    let mut t = Scanner::new();
    let mut ev = Vec::new();
    t.feed(&s.as_bytes()[..cut], &mut ev);
    assert_eq!(t.fits_cut(), CutFit::NewGame);
    let mut sp = Scanner::at_cut(cut as u64);
    let mut ev2 = Vec::new();
    sp.feed(&s.as_bytes()[cut..], &mut ev2);
    assert_eq!(
        ev2[0],
        Event::GameStart {
            offset: cut as u64,
            line: 1
        }
    );
    t.feed(&s.as_bytes()[cut..], &mut ev);
    sp.rebase_lines(G1.lines().count() as u64 + 1);
    assert_eq!(sp, t);

    let fit = |prefix: &str| {
        let mut t = Scanner::new();
        t.feed(prefix.as_bytes(), &mut Vec::new());
        (t.fits_cut(), t.pending_game_start())
    };
    assert_eq!(fit(""), (CutFit::SameGame, Some((0, 1))));
    assert_eq!(fit("\n \n"), (CutFit::SameGame, Some((0, 1))));
    assert_eq!(fit("preamble\n\n"), (CutFit::SameGame, None));
    assert_eq!(
        fit(&format!("{G1}junk\n\n")),
        (CutFit::SameGame, Some((G1.len() as u64, 5)))
    );
    assert_eq!(fit(&format!("{G1}\n")), (CutFit::NewGame, None));
    assert_eq!(fit("[A \"\"]\n1. e4\n\n"), (CutFit::NewGame, None));
    assert_eq!(fit("[A \"\"]\n1. e4 (\n\n"), (CutFit::NewGame, None));
    assert_eq!(fit("[A \"\"]\n\n").0, CutFit::Rescan);
    assert_eq!(fit("[A \"\"]\n1. e4 {\n\n").0, CutFit::Rescan);
    assert_eq!(fit("[A \"\"]\n1. e4").0, CutFit::Rescan);
    assert_eq!(fit("[A \"\"]\n1. e4 ").0, CutFit::Rescan);
    assert_eq!(fit("[A \"\"]\n1. e4 1-").0, CutFit::Rescan);
    assert_eq!(fit("[A \"\"]\n ").0, CutFit::Rescan);
}

#[test]
fn finish_is_idempotent_and_feed_after_finish_is_ignored() {
    let mut s = Scanner::new();
    let mut ev = Vec::new();
    s.feed(b"[A \"\"]\n", &mut ev);
    s.finish(&mut ev);
    s.finish(&mut ev);
    s.feed(b"[B \"\"]\n", &mut ev);
    assert_eq!(ev.len(), 2);
}

// ------------------------------------------------ several tag pairs on a line

/// Scans `input` cut into three pieces at every pair of cuts: a tag pair split
/// anywhere, also twice, gives the same events as the whole input.
fn scan_three_ways(input: &str) -> Vec<Event> {
    let b = input.as_bytes();
    let whole = scan(b);
    for c1 in 0..=b.len() {
        for c2 in c1..=b.len() {
            let mut s = Scanner::new();
            let mut ev = Vec::new();
            s.feed(&b[..c1], &mut ev);
            s.feed(&b[c1..c2], &mut ev);
            s.feed(&b[c2..], &mut ev);
            s.finish(&mut ev);
            assert_eq!(ev, whole, "cuts at {c1} and {c2}: {input:?}");
        }
    }
    whole
}

fn multi_tags(input: &str) -> Vec<(TagName, String, u64, u64)> {
    scan_three_ways(input);
    tags(input)
}

#[test]
fn two_and_three_pairs_on_a_line() {
    let s = "[SetUp \"1\"] [FEN \"4k3/8 w - - 0 1\"]\n\n*\n";
    assert_eq!(
        multi_tags(s),
        vec![
            (TagName::SetUp, "1".into(), 0, 1),
            (TagName::Fen, "4k3/8 w - - 0 1".into(), 0, 1),
        ]
    );
    // no blank between pairs, tabs, indent, a second line: values in order,
    // `line_start` the start of the line (before the indent)
    let s = "[A \"\"]\n \t[Variant \"v\"]\t[SetUp \"0\"][FEN \"f\"]  \n[FEN \"g\"]\n";
    let l2 = off(s, " \t[Variant");
    assert_eq!(
        multi_tags(s),
        vec![
            (TagName::Variant, "v".into(), l2, 2),
            (TagName::SetUp, "0".into(), l2, 2),
            (TagName::Fen, "f".into(), l2, 2),
            (TagName::Fen, "g".into(), off(s, "[FEN \"g"), 3),
        ]
    );
    // the value ranges are those of each pair, whatever the line end
    for nl in ["\n", "\r\n", "\r", ""] {
        let s = format!("[SetUp \"1\"] [FEN \"x\"]{nl}");
        let ev = scan_three_ways(&s);
        let v = off(&s, "x\"");
        assert_eq!(
            ev,
            vec![
                Event::GameStart { offset: 0, line: 1 },
                Event::Tag(TagRef {
                    name: TagName::SetUp,
                    line_start: 0,
                    line: 1,
                    value: 8..9,
                }),
                Event::Tag(TagRef {
                    name: TagName::Fen,
                    line_start: 0,
                    line: 1,
                    value: v..v + 1,
                }),
                Event::HeaderEnd,
            ],
            "{nl:?}"
        );
    }
}

#[test]
fn fen_pair_after_another_pair() {
    let s = "[Event \"x\"] [FEN \"f\"]\n";
    assert_eq!(multi_tags(s), vec![(TagName::Fen, "f".into(), 0, 1)]);
    // brackets, quotes and escapes inside the first value are value bytes
    let s = "[Event \"a] [FEN \\\"no\\\"]\"] [FEN \"yes\"]\n";
    assert_eq!(multi_tags(s), vec![(TagName::Fen, "yes".into(), 0, 1)]);
    let s = "[White \"[FEN \\\"no\\\"]\"]\n";
    assert!(multi_tags(s).is_empty());
    // a long first pair, then FEN (the value is read even with no `[` close by)
    let s = format!(
        "[Site \"https://example.org/{}\"] [FEN \"f\"]\n",
        "p".repeat(100)
    );
    assert_eq!(tags(&s), vec![(TagName::Fen, "f".into(), 0, 1)]);
    // the line still classifies as one tag line: no new game, header goes on
    let s = "[Event \"x\"] [FEN \"f\"]\n[Site \"y\"]\n1. e4 *\n";
    assert_eq!(starts(s), vec![0]);
}

#[test]
fn names_of_later_pairs_count_for_the_new_game_rule() {
    // a second pair's name is held by the header
    let s = "[Event \"a\"] [Site \"b\"]\n\n[Site \"c\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "[Site \"c")]);
    let s = "[Event \"a\"] [Site \"b\"] [Round \"1\"]\n\n[Round \"2\"] [FEN \"f\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "[Round \"2")]);
    let ev = scan_three_ways(s);
    check_header_ends(&ev);
    // the FEN belongs to the second game
    assert!(matches!(
        &ev[..],
        [
            Event::GameStart { offset: 0, line: 1 },
            Event::HeaderEnd,
            Event::GameStart { line: 3, .. },
            Event::Tag(TagRef {
                name: TagName::Fen,
                line: 3,
                ..
            }),
            Event::HeaderEnd,
        ]
    ));
    // only the first pair after the blank line can start a game
    let s = "[Event \"a\"]\n\n[Site \"b\"] [Event \"c\"]\n";
    assert_eq!(starts(s), vec![0]);
    // the same name twice on a line: one header
    let s = "[Event \"a\"] [Event \"b\"]\n";
    assert_eq!(starts(s), vec![0]);
    // the first pair of a line repeats a name: the game starts at the line,
    // and the line's later names belong to the new header
    let s = "[Event \"a\"]\n\n[Event \"b\"] [Site \"c\"]\n\n[Site \"d\"]\n";
    assert_eq!(
        starts(s),
        vec![0, off(s, "[Event \"b"), off(s, "[Site \"d")]
    );
    // a second pair that does not close still names a tag (as a first one does)
    let s = "[Event \"a\"] [Site \"cut\n\n[Site \"b\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "[Site \"b")]);
    let s = "[Event \"a\"] [Site\n\n[Site \"b\"]\n";
    assert_eq!(starts(s), vec![0, off(s, "[Site \"b")]);
    // pairs after junk are not read: their names are not held
    let s = "[Event \"a\"] junk [Site \"b\"]\n\n[Site \"c\"]\n";
    assert_eq!(starts(s), vec![0]);
    for s in [
        "[Event \"a\"] [Site \"b\"]\n\n[Site \"c\"]\n",
        "[Event \"a\"] [Site\n\n[Site \"b\"]\n",
        "[Event \"a\"] junk [Site \"b\"]\n\n[Site \"c\"]\n",
    ] {
        scan_three_ways(s);
    }
}

#[test]
fn unclosed_later_pair() {
    for (s, n) in [
        ("[SetUp \"1\"] [FEN \"x\n", 1),
        ("[SetUp \"1\"] [FEN \"x\"\n", 1),
        ("[SetUp \"1\"] [FEN \"x\" y]\n", 1),
        ("[SetUp \"1\"] [FEN \"x\\\"]\n", 1),
        ("[SetUp \"1\"] [FEN x]\n", 1),
        ("[SetUp \"1\"] [FEN]\n", 1),
        ("[SetUp \"1\"] [FEN\n", 1),
        ("[SetUp \"1\"] [\n", 1),
        ("[SetUp \"1\"] [FEN \"x", 1),
        ("[SetUp \"1\"] [FEN \"x\"", 1),
        ("[SetUp \"1\"] [FEN", 1),
        ("[SetUp \"1\"] [", 1),
        // a pair that does not close ends the line's pairs
        ("[SetUp \"1\"] [Event \"e\" [FEN \"x\"]\n", 1),
        ("[SetUp \"1\"] [Event [FEN \"x\"]\n", 1),
        ("[SetUp \"1\"] [Event] [FEN \"x\"]\n", 1),
        // empty names are no pairs
        ("[SetUp \"1\"] [] [FEN \"x\"]\n", 1),
        ("[SetUp \"1\"] [ \"v\"] [FEN \"x\"]\n", 1),
        // the first pair does not close: nothing after it is read
        ("[SetUp \"1\" [FEN \"x\"]\n", 0),
        ("[SetUp 1] [FEN \"x\"]\n", 0),
        ("[SetUp \"1] [FEN \"x\"]\n", 0),
    ] {
        let t = multi_tags(s);
        assert_eq!(t.len(), n, "{s:?}: {t:?}");
        if n == 1 {
            assert_eq!(t[0], (TagName::SetUp, "1".into(), 0, 1), "{s:?}");
        }
    }
    // the next line is read as usual
    let s = "[SetUp \"1\"] [FEN \"x\n[FEN \"y\"]\n1. e4 *\n";
    assert_eq!(
        multi_tags(s),
        vec![
            (TagName::SetUp, "1".into(), 0, 1),
            (TagName::Fen, "y".into(), off(s, "[FEN \"y"), 2),
        ]
    );
}

#[test]
fn junk_between_and_after_pairs() {
    // junk after a `]` ends the reading of the line
    for s in [
        "[SetUp \"1\"] junk [FEN \"x\"]\n",
        "[SetUp \"1\"]junk[FEN \"x\"]\n",
        "[SetUp \"1\"] ; [FEN \"x\"]\n",
        "[SetUp \"1\"] ] [FEN \"x\"]\n",
        "[SetUp \"1\"] \"[FEN \"x\"]\n",
        "[SetUp \"1\"] {[FEN \"x\"]}\n",
    ] {
        assert_eq!(
            multi_tags(s),
            vec![(TagName::SetUp, "1".into(), 0, 1)],
            "{s:?}"
        );
    }
    // junk after the last pair is fine
    let s = "[SetUp \"1\"] [FEN \"x\"] junk [ 1-0 {\n1. e4 *\n";
    assert_eq!(
        multi_tags(s),
        vec![
            (TagName::SetUp, "1".into(), 0, 1),
            (TagName::Fen, "x".into(), 0, 1),
        ]
    );
    assert_eq!(starts(s), vec![0]);
}

#[test]
fn later_pairs_split_across_pieces() {
    // every split of every pair in two and three pieces (scan_three_ways), and
    // a long line in small pieces
    let s = "[Event \"e\"] [SetUp \"1\"]\t[FEN \"a\\\"b\"] [Variant \"v\"]\n";
    assert_eq!(multi_tags(s).len(), 3);
    let mut s = b"[Event \"".to_vec();
    s.resize(5000, b'e');
    s.extend_from_slice(b"\"] [FEN \"");
    s.resize(12_000, b'f');
    s.extend_from_slice(b"\"] [SetUp \"1\"]\n1. e4 *\n");
    let whole = scan_pieces(&s, &mut || usize::MAX);
    for size in [1, 7, 64, 4096] {
        assert_eq!(scan_pieces(&s, &mut || size), whole, "{size}");
    }
    let names: Vec<_> = whole
        .iter()
        .filter_map(|e| match e {
            Event::Tag(t) => Some((t.name, t.value.end - t.value.start)),
            _ => None,
        })
        .collect();
    assert_eq!(
        names,
        vec![(TagName::Fen, 12_000 - 5009), (TagName::SetUp, 1)]
    );
}

/// Scans with extra tags asked for, whole and split at every byte; returns the
/// extra values found (index, value) and checks the other events are unchanged.
fn extras(input: &str, names: &[&str]) -> Vec<(u8, String)> {
    let run = |pieces: &[&[u8]]| {
        let mut s = Scanner::new().with_extra_tags(names);
        let mut ev = Vec::new();
        for p in pieces {
            s.feed(p, &mut ev);
        }
        s.finish(&mut ev);
        ev
    };
    let bytes = input.as_bytes();
    let whole = run(&[bytes]);
    for cut in 0..=bytes.len() {
        assert_eq!(
            run(&[&bytes[..cut], &bytes[cut..]]),
            whole,
            "split at {cut}"
        );
    }
    let ones: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(run(&ones), whole, "1-byte pieces");
    // Without the extra events, the same as a scanner not asked for any.
    let plain: Vec<Event> = whole
        .iter()
        .filter(|e| !matches!(e, Event::Extra { .. }))
        .cloned()
        .collect();
    assert_eq!(plain, scan(bytes));
    whole
        .iter()
        .filter_map(|e| match e {
            Event::Extra { index, value } => Some((
                *index,
                input[value.start as usize..value.end as usize].to_string(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn one_extra_tag_with_short_long_and_escaped_values() {
    // One extra name (the inline test of the first), values shorter and
    // longer than the bytes searched without memchr, escapes before and
    // after that limit.
    let long = "4".repeat(40);
    let input = format!(
        "[TimeControl \"300+3\"]\n\n*\n\n[TimeControl \"{long}\"]\n\n*\n\n\
         [TimeControl \"a\\\"b\"]\n\n*\n\n[TimeControl \"{long}\\\\x\"]\n\n*\n\n\
         [TimeControl \"\"]\n[TimeControl \"second\"]\n\n*\n"
    );
    assert_eq!(
        extras(&input, &["TimeControl"]),
        [
            (0, "300+3".to_string()),
            (0, long.clone()),
            (0, "a\\\"b".to_string()),
            (0, format!("{long}\\\\x")),
            (0, String::new()),
            (0, "second".to_string()),
        ]
    );
}

#[test]
fn extra_tags_are_reported_when_asked_for() {
    let input = "[Event \"Rated Classical\"]\n[WhiteElo \"2500\"] [TimeControlX \"1\"] [TimeControl \"600+0\"]\n[SetUp \"1\"]\n[White \"a \\\"b\\\"\"]\n\n1. e4 *\n[WhiteElo \"1\"]\n\n*\n";
    assert_eq!(
        extras(input, &["WhiteElo", "TimeControl", "White", "Nope"]),
        [
            (0, "2500".to_string()),
            (1, "600+0".to_string()),
            (2, "a \\\"b\\\"".to_string()),
            (0, "1".to_string()),
        ]
    );
    // Names longer than 8 bytes (hashed) and exactly 8.
    assert_eq!(
        extras(
            "[TerminationDetails \"x\"]\n[Termination \"y\"]\n[WhiteElo \"z\"]\n\n*\n",
            &["Termination", "WhiteElo"]
        ),
        [(0, "y".to_string()), (1, "z".to_string())]
    );
    // Case-sensitive; no extra tags asked for: none reported.
    assert!(extras("[whiteelo \"1\"]\n\n*\n", &["WhiteElo"]).is_empty());
    assert!(extras("[WhiteElo \"1\"]\n\n*\n", &[]).is_empty());
}

/// Scans with every pair reported, whole, split at every byte and in 1-byte
/// pieces; returns the pairs (name, raw value) and checks that the other events
/// are those of a plain scanner.
fn pairs(input: &str) -> Vec<(String, String)> {
    let run = |pieces: &[&[u8]]| {
        let mut s = Scanner::new().with_all_pairs();
        let mut ev = Vec::new();
        for p in pieces {
            s.feed(p, &mut ev);
        }
        s.finish(&mut ev);
        ev
    };
    let bytes = input.as_bytes();
    let whole = run(&[bytes]);
    for cut in 0..=bytes.len() {
        assert_eq!(
            run(&[&bytes[..cut], &bytes[cut..]]),
            whole,
            "split at {cut}"
        );
    }
    let ones: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(run(&ones), whole, "1-byte pieces");
    check_header_ends(&whole);
    let plain: Vec<Event> = whole
        .iter()
        .filter(|e| !matches!(e, Event::Pair { .. }))
        .cloned()
        .collect();
    assert_eq!(plain, scan(bytes));
    let text = |r: &Range<u64>| input[r.start as usize..r.end as usize].to_string();
    whole
        .iter()
        .filter_map(|e| match e {
            Event::Pair { name, value } => Some((text(name), text(value))),
            _ => None,
        })
        .collect()
}

#[test]
fn every_pair_is_reported_when_asked_for() {
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    let input = "[Event \"Rated\"]\n[ White  \"a \\\"b\\\"\" ] [FEN \"8/8 w\"]\n[LongTagNameBeyondEight \"\"]\n[Bad \"open\n[NoValue]\n[Tab\t\"t\"]\n\n1. e4 *\n[SetUp \"1\"]\n\n*\n";
    assert_eq!(
        pairs(input),
        [
            s("Event", "Rated"),
            s("White", "a \\\"b\\\""),
            s("FEN", "8/8 w"),
            s("LongTagNameBeyondEight", ""),
            s("Tab", "t"),
            s("SetUp", "1"),
        ]
    );
    // A pair that does not close is not reported; nor is movetext.
    assert!(pairs("[Event \"x\" junk\n1. e4 [Site \"y\"] *\n").is_empty());
    assert!(pairs("\n\n").is_empty());
}

#[test]
fn tag_names_read_back_and_index_their_arrays() {
    for (i, name) in TagName::ALL.into_iter().enumerate() {
        assert_eq!(name.index(), i);
        assert_eq!(TagName::from_name(name.as_str().as_bytes()), Some(name));
    }
    // Case-sensitive, as PGN's tag names are.
    assert_eq!(TagName::from_name(b"fen"), None);
    assert_eq!(TagName::from_name(b"Setup"), None);
}
