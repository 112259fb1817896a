//! Unit tests of the mainline lexer, the lenient SAN reading and the replay.

use super::*;

fn text(bytes: &[u8]) -> MoveText<'_> {
    MoveText {
        bytes,
        line: 1,
        complete: true,
    }
}

fn tokens(movetext: &str) -> Vec<&str> {
    let mut lexer = Lexer::new(movetext.as_bytes(), true);
    let mut out = Vec::new();
    while let Some(t) = lexer.next_move() {
        out.push(&movetext[t]);
    }
    out
}

fn standard() -> Start {
    Start {
        variant: Variant::Chess,
        chess960: false,
        fen: None,
        hint: false,
    }
}

fn from_fen(fen: &str, chess960: bool) -> Start {
    Start {
        variant: Variant::Chess,
        chess960,
        fen: Some(fen.as_bytes().into()),
        hint: true,
    }
}

fn run(start: &Start, movetext: &str) -> Replay {
    replay(start, &text(movetext.as_bytes()), MovesMode::All)
}

fn illegal(start: &Start, movetext: &str) -> IllegalMove {
    match run(start, movetext) {
        Replay::Illegal(m) => *m,
        other => panic!("expected an illegal move in {movetext:?}, got {other:?}"),
    }
}

#[test]
fn the_lexer_keeps_only_the_mainline() {
    assert_eq!(
        tokens(
            "1. e4 {a (comment} e5 (1... c5 (2. Nf3)) 2.Nf3 $1 Nc6!? ; rest e4\n% escape Nf3\n3... a6 1-0 Nf3"
        ),
        ["e4", "e5", "Nf3", "Nc6", "a6"]
    );
    assert_eq!(tokens("1.e4 e5 *"), ["e4", "e5"]);
    assert_eq!(tokens("12...Nf6 1/2-1/2 d4"), ["Nf6"]);
    assert_eq!(tokens("1. e4 1/2-1/2[Event \"x\"] d4"), ["e4"]);
    assert_eq!(tokens("1. 0-0 0-0-0+ 0-1"), ["0-0", "0-0-0+"]);
    // A parenthesis in an escape line inside a variation closes nothing.
    assert_eq!(tokens("1. e4 (1. d4\n% ) Nf3\nd5) e5"), ["e4", "e5"]);
    assert_eq!(tokens("1. e4 (1. d4\r\n% (\r\nd5) e5"), ["e4", "e5"]);
}

#[test]
fn leniency() {
    // 0-0, a promotion without `=`, wrong check marks, suffixes, a capture mark
    // missing on a piece move: all accepted.
    assert_eq!(
        run(
            &standard(),
            "1. e4 e5 2. Nf3+ Nc6# 3. Bc4 Bc5 4. 0-0!? Nf6?! 5. d3 d6 6. Bg5 h6 7. Bf6 Qf6"
        ),
        Replay::Passed
    );
    let promotion = from_fen("8/4P3/8/8/8/7k/8/K7 w - - 0 1", false);
    assert_eq!(run(&promotion, "1. e8Q Kh2 2. Qe2#"), Replay::Passed);
    assert_eq!(run(&promotion, "1. e8=N"), Replay::Passed);
    // The piece in lower case, with or without `=`.
    assert_eq!(run(&promotion, "1. e8q Kh2 2. Qe2#"), Replay::Passed);
    assert_eq!(run(&promotion, "1. e8=r Kh2"), Replay::Passed);
    let capture = from_fen("3r4/4P3/8/8/8/7k/8/K7 w - - 0 1", false);
    assert_eq!(run(&capture, "1. exd8q Kh2"), Replay::Passed);
    assert_eq!(run(&capture, "1. ed8n Kh2"), Replay::Passed);
    assert_eq!(illegal(&promotion, "1. e8x").ply, 1);
    // `ed5` names the file of a pawn capture; `xd5` does not.
    assert_eq!(run(&standard(), "1. e4 d5 2. ed5"), Replay::Passed);
    assert_eq!(illegal(&standard(), "1. e4 d5 2. xd5").ply, 3);
    // A capture mark on a pawn push is wrong.
    assert_eq!(illegal(&standard(), "1. exe4").ply, 1);
}

#[test]
fn null_moves_end_the_replay() {
    assert_eq!(run(&standard(), "1. e4 -- 2. Ke3 Ke6"), Replay::Passed);
    assert_eq!(run(&standard(), "1. e4 Z0 2. Ke3"), Replay::Passed);
    // With a check mark, and as UCI and python-chess write it.
    for null in ["--+", "Z0#", "0000", "@@@@", "---", "----+"] {
        assert_eq!(
            run(&standard(), &format!("1. e4 {null} 2. Ke3")),
            Replay::Passed,
            "{null}"
        );
    }
    assert_eq!(run(&standard(), ""), Replay::Passed);
}

#[test]
fn first_mode_plays_one_move() {
    let t = text(b"1. e4 e5 2. Ke3");
    assert_eq!(replay(&standard(), &t, MovesMode::First), Replay::Passed);
    assert!(matches!(
        replay(&standard(), &t, MovesMode::All),
        Replay::Illegal(_)
    ));
}

#[test]
fn an_illegal_move_is_placed() {
    let m = illegal(&standard(), "1. e4 e5\r\n2. Nf3 {x}  Ke6!? 3. Kd6");
    assert_eq!((m.ply, m.line, m.column), (4, 2, 13));
    assert_eq!(m.token, "Ke6!?");
    assert_eq!(&m.line_text[m.span.clone()], "Ke6!?");
    assert_eq!(
        m.position,
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
    );
    // Not SAN at all.
    let m = illegal(&standard(), "1. e4 Xy7");
    assert_eq!((m.ply, m.column), (2, 7));
    assert!(m.message().contains("not a move in SAN"));
    // No tag is to blame for a word that is no move: the help says so,
    // from a FEN too.
    assert_eq!(
        m.help(),
        "correct the move: PGN writes moves in SAN (Nf3, exd5, O-O, e8=Q)"
    );
    let fen = from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1", false);
    assert!(
        illegal(&fen, "1. Nf")
            .help()
            .starts_with("correct the move: PGN writes")
    );
    // Ambiguous.
    let knights = from_fen("4k3/8/8/8/8/8/8/2N1K1N1 w - - 0 1", false);
    assert!(illegal(&knights, "1. Ne2").message().contains("ambiguous"));
    assert_eq!(run(&knights, "1. Nge2"), Replay::Passed);
    // A U+FEFF handed over with the movetext is a character of its line (the
    // pipeline leaves an input's byte order mark out: `without_input_bom`).
    let m = illegal(&standard(), "\u{feff}1. Ke2 *");
    assert_eq!((m.line, m.column), (1, 5));
    assert_eq!(m.line_text, "\u{feff}1. Ke2 *");
    assert_eq!(&m.line_text[m.span.clone()], "Ke2");
}

#[test]
fn the_note_writes_x_fen_en_passant_squares() {
    // The e5 pawn is pinned: its capture on d6 is pseudo-legal, not legal,
    // and X-FEN keeps the square (the FEN tag holds it, and `fen` keeps it).
    let pinned = from_fen("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1", false);
    let m = illegal(&pinned, "1. exd6 *");
    assert_eq!(m.position, "8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 1");
    // The same square made by a move of the game.
    let before = from_fen("4k3/3p4/8/K3P2r/8/8/8/8 b - - 0 1", false);
    let m = illegal(&before, "1... d5 2. Ke2 *");
    assert_eq!(m.position, "4k3/8/8/K2pP2r/8/8/8/8 w - d6 0 2");
    // No pawn beside the one that moved: no square, as before.
    let m = illegal(&standard(), "1. e4 Ke7 2. Ke3 *");
    assert!(m.position.contains(" KQkq - "), "{}", m.position);
}

#[test]
fn the_standard_start_hint() {
    // A FEN of the game's final position: the moves fit the standard array.
    let last = from_fen(
        "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        false,
    );
    let m = illegal(&last, "1. e4 e5 2. Nf3 Nf6 *");
    assert!(m.standard_start);
    assert!(m.message().contains("standard start position"));
    // Not when the moves do not fit the standard array either.
    let m = illegal(&last, "1. Ke3 *");
    assert!(!m.standard_start);
}

#[test]
fn chess960_castling_with_the_rook_on_every_file() {
    // King on b1..g1 with its king-side rook on each file to its right (pawns
    // in front, so that no rook attacks the other king's path).
    let mut failures = Vec::new();
    for king in 1..7u8 {
        for rook in king + 1..8 {
            let mut rank = [b'.'; 8];
            rank[king as usize] = b'K';
            rank[rook as usize] = b'R';
            let placement = |r: &[u8; 8], black: bool| -> String {
                let mut s = String::new();
                let mut empty = 0;
                for &c in r {
                    if c == b'.' {
                        empty += 1;
                    } else {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let c = c as char;
                        s.push(if black { c.to_ascii_lowercase() } else { c });
                    }
                }
                if empty > 0 {
                    s.push_str(&empty.to_string());
                }
                s
            };
            let file = (b'A' + rook) as char;
            let fen = format!(
                "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {}{} - 0 1",
                placement(&rank, true),
                placement(&rank, false),
                file,
                file.to_ascii_lowercase()
            );
            let start = from_fen(&fen, true);
            if let Replay::Illegal(m) = run(&start, "1. O-O O-O") {
                failures.push(format!("{fen}: {}", m.message()));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn variants_are_played_by_their_rules() {
    let zh = Start {
        variant: Variant::Crazyhouse,
        chess960: false,
        fen: None,
        hint: false,
    };
    assert_eq!(
        run(&zh, "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d5"),
        Replay::Passed
    );
    // The dropped piece in lower case, as a promotion's may be.
    assert_eq!(
        run(
            &zh,
            "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. p@d5 Qb4 5. a3 p@e4"
        ),
        Replay::Passed
    );
    assert!(matches!(
        run(&zh, "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. x@d5"),
        Replay::Illegal(_)
    ));
    // The same drop in chess is not a move.
    assert!(matches!(
        run(&standard(), "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@d5"),
        Replay::Illegal(_)
    ));
    let atomic = Start {
        variant: Variant::Atomic,
        ..zh.clone()
    };
    assert_eq!(run(&atomic, "1. Nf3 f6 2. Ng5 d6 3. Nxh7"), Replay::Passed);
    let anti = Start {
        variant: Variant::Antichess,
        ..zh.clone()
    };
    // Captures are forced in antichess: after 1. e4 d5, 2. Nf3 is illegal.
    assert_eq!(illegal(&anti, "1. e4 d5 2. Nf3").ply, 3);
    let racing = Start {
        variant: Variant::RacingKings,
        ..zh.clone()
    };
    assert_eq!(run(&racing, "1. Kh3 Ka3"), Replay::Passed);
    let horde = Start {
        variant: Variant::Horde,
        ..zh
    };
    assert_eq!(run(&horde, "1. e5 e6"), Replay::Passed);
}

#[test]
fn no_move_is_legal_after_a_variant_game_ended() {
    let over = |variant, fen: &str, movetext| {
        let start = Start {
            variant,
            chess960: false,
            fen: Some(fen.as_bytes().into()),
            hint: false,
        };
        illegal(&start, movetext)
    };
    // Antichess and Horde: a side without pieces has won or lost
    // (shakmaty's move lists go on there; python-chess's do not).
    for (variant, fen, movetext) in [
        (
            Variant::Antichess,
            "8/8/8/8/8/8/PP6/8 w - - 0 1",
            "1. a3 b3",
        ),
        (
            Variant::Antichess,
            "8/8/8/8/8/8/p7/8 b - - 0 1",
            "1... a1=Q",
        ),
        (Variant::Horde, "4k3/8/8/8/8/8/8/8 b - - 0 1", "1... Kd7"),
        // King of the Hill: a king on a centre square.
        (
            Variant::KingOfTheHill,
            "4k3/8/8/8/3K4/8/8/8 b - - 0 1",
            "1... Kd7",
        ),
        // Three-check: the third check given.
        (
            Variant::ThreeCheck,
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1 +3+0",
            "1. Kd2",
        ),
    ] {
        let m = over(variant, fen, movetext);
        assert_eq!(
            (m.ply, m.reason),
            (1, "the game is already over by the variant's rules"),
            "{variant:?} {fen}"
        );
    }
    // The move that ends the game is legal; the one after it is not.
    let start = Start {
        variant: Variant::Antichess,
        chess960: false,
        fen: Some(b"8/8/8/8/8/1p6/P7/8 w - - 0 1"[..].into()),
        hint: false,
    };
    assert_eq!(run(&start, "1. axb3"), Replay::Passed);
    assert_eq!(illegal(&start, "1. axb3 Kd7").ply, 2);
}

#[test]
fn variant_names_and_unreadable_fens() {
    assert_eq!(
        lichess_variant(b"King of the Hill"),
        Some(Variant::KingOfTheHill)
    );
    assert_eq!(lichess_variant(b"three-check"), Some(Variant::ThreeCheck));
    assert_eq!(lichess_variant(b"Seirawan960"), None);
    let bad = Start {
        variant: Variant::Crazyhouse,
        chess960: false,
        fen: Some(b"not a fen".as_slice().into()),
        hint: false,
    };
    assert_eq!(run(&bad, "1. e4"), Replay::NotChecked);
    // Castling rights in a variant without castling are dropped, not the
    // check; in one with castling, rights without their rook still make
    // the FEN unreadable.
    let with_rights = |variant, fen: &str| Start {
        variant,
        chess960: false,
        fen: Some(fen.as_bytes().into()),
        hint: false,
    };
    let array = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let anti = with_rights(Variant::Antichess, array);
    assert_eq!(run(&anti, "1. e3 b5 2. Bxb5"), Replay::Passed);
    assert_eq!(illegal(&anti, "1. e3 b5 2. Nf3").ply, 3);
    let racing = with_rights(
        Variant::RacingKings,
        "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w KQkq - 0 1",
    );
    assert_eq!(run(&racing, "1. Kh3"), Replay::Passed);
    let atomic = with_rights(
        Variant::Atomic,
        "rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    assert_eq!(run(&atomic, "1. e4"), Replay::NotChecked);
}

#[test]
fn hostile_movetext_is_bounded() {
    // Unterminated comment and variation: nothing after them is a move.
    assert_eq!(run(&standard(), "1. e4 { e5 2. Ke3"), Replay::Passed);
    assert_eq!(run(&standard(), "1. e4 ( e5 2. Ke3"), Replay::Passed);
    // Deep nesting, no recursion.
    let deep = format!("1. e4 {}{} e5 *", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(run(&standard(), &deep), Replay::Passed);
    // A megabyte token: a problem, shown cut.
    let long = format!("1. {}", "N".repeat(1 << 20));
    let m = illegal(&standard(), &long);
    assert!(m.token.len() < 2 * TOKEN_SHOWN && m.line_text.len() < 4 * TOKEN_SHOWN + 300);
    // NUL bytes: noise, skipped; inside a word, shown escaped.
    assert_eq!(run(&standard(), "1. e4 \0\0 e5 \\ $14"), Replay::Passed);
    let m = illegal(&standard(), "1. e4 N\0");
    assert_eq!(m.token, "N\\0");
    // A long token of multi-byte characters (and stray continuation bytes):
    // the snippet's span stays on character boundaries.
    for filler in ["é", "€", "😀", "\u{80}"] {
        let bytes: Vec<u8> = if filler == "\u{80}" {
            let mut b = b"1. N".to_vec();
            b.extend(std::iter::repeat_n(0x80u8, 100));
            b
        } else {
            format!("1. N{}", filler.repeat(100)).into_bytes()
        };
        let Replay::Illegal(m) = replay(&standard(), &text(&bytes), MovesMode::All) else {
            panic!("not SAN");
        };
        assert!(m.line_text.is_char_boundary(m.span.start));
        assert!(m.line_text.is_char_boundary(m.span.end));
        assert!(m.span.end <= m.line_text.len() && m.span.start == 3);
    }
    // A cut movetext: its last token is not judged, so the game was not
    // checked to its end; an illegal move before the cut is still found, and
    // `first` needs only the first move.
    let cut = |bytes: &'static [u8]| MoveText {
        bytes,
        line: 1,
        complete: false,
    };
    assert_eq!(
        replay(&standard(), &cut(b"1. e4 e5 2. Ke"), MovesMode::All),
        Replay::Unfinished
    );
    assert_eq!(
        replay(&standard(), &cut(b""), MovesMode::All),
        Replay::Unfinished
    );
    assert!(Replay::Unfinished.unfinished() && !Replay::Unfinished.checked());
    assert!(matches!(
        replay(&standard(), &cut(b"1. e4 e5 2. Ke3 Nf"), MovesMode::All),
        Replay::Illegal(_)
    ));
    assert_eq!(
        replay(&standard(), &cut(b"1. e4 e5 2. Ke"), MovesMode::First),
        Replay::Passed
    );
}

#[test]
fn every_attempt_at_a_move_is_judged() {
    // Words that are moves though not SAN: reported whole, where they stand.
    for (movetext, token, ply) in [
        ("1. e4 e5 2. Nf3 0-00", "0-00", 4),
        ("1. 0-0-0-0", "0-0-0-0", 1),
        ("1. e4 e5 2.\u{2658}f3", "\u{2658}f3", 3),
        ("1. \u{2658}f3", "\u{2658}f3", 1),
        ("1. e4 \u{41a}f6", "\u{41a}f6", 2),
        ("1. e4 \u{c0}f6", "\u{c0}f6", 2),
        ("1. e4 \u{ff2e}f6", "\u{ff2e}f6", 2),
        ("1. e4 e5 2. 0- Ke7", "0-", 3),
        // A move behind stray punctuation.
        ("1. e4 &Ke2", "&Ke2", 2),
        ("1. e4 e5 2. <Ke2>", "<Ke2>", 3),
        ("1. e4 ]Ke7", "]Ke7", 2),
        // Stray characters of Unicode's too (typographic quotes, signs).
        ("1. e4 e5 2. \u{ab}Ke3\u{bb}", "\u{ab}Ke3\u{bb}", 3),
        ("1. e4 e5 2. \u{2019}Ke3", "\u{2019}Ke3", 3),
        ("1. e4 \u{b1}Ke7", "\u{b1}Ke7", 2),
        // `$` without digits is stray punctuation, a result glued before a
        // letter no result.
        ("1. e4 e5 2. $Ke3", "$Ke3", 3),
        ("1. e4 e5 2. 1-0Ke3 Nc6", "1-0Ke3", 3),
        ("1. e4 e5 2. *Ke3 Nc6", "*Ke3", 3),
    ] {
        let m = illegal(&standard(), movetext);
        assert_eq!((m.token.as_str(), m.ply), (token, ply), "{movetext}");
        assert!(m.message().contains("not a move in SAN"), "{movetext}");
        let column = movetext.chars().count()
            - movetext[movetext.find(token).unwrap()..].chars().count()
            + 1;
        assert_eq!(m.column, column, "{movetext}");
    }
    // Move numbers, glued or with an ellipsis, and `e.p.`: not moves.
    assert_eq!(
        tokens("1…e5 2. Nf3 2… Nc6 3.d4 4 …a6 12e4"),
        ["e5", "Nf3", "Nc6", "d4", "a6", "e4"]
    );
    assert_eq!(
        run(
            &from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", false),
            "2. exd6 e.p. Kf7 *"
        ),
        Replay::Passed
    );
    // `e.p.` glued to the capture, as python-chess reads it; after a square
    // only (`Qe.p.` stays a word to judge).
    let ep = from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", false);
    assert_eq!(run(&ep, "2. exd6e.p. Kf7 *"), Replay::Passed);
    assert_eq!(
        tokens("1. exd6e.p. Kf7 2. Qe.p."),
        ["exd6", "Kf7", "Qe", "p"]
    );
    // A draw written short and noise without a letter are skipped.
    assert_eq!(tokens("1. e4 \\ - + += -/+ \u{2026} 1/2"), ["e4"]);
    assert_eq!(
        tokens("1. e4 \u{b1} \u{2013} \u{ab}\u{bb} e5"),
        ["e4", "e5"]
    );
    // A NAG ends with its digits: a move glued after it is a word.
    assert_eq!(
        tokens("1. e4 $1Ke3 $12 e5$3 Nf3"),
        ["e4", "Ke3", "e5", "Nf3"]
    );
    // Unicode's blanks separate words as ASCII's do: a no-break space, an
    // em space, a zero-width space, a byte order mark.
    assert_eq!(
        tokens("1.\u{a0}e4\u{a0}e5 2.\u{2003}Nf3\u{200b}Nc6\u{feff}3. Bb5"),
        ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    );
    assert_eq!(
        run(&standard(), "1.\u{a0}e4 e5 2.\u{a0}Nf3 Nc6 *"),
        Replay::Passed
    );
    // A result that stands alone or before what cannot go on a move still
    // ends the main line.
    assert_eq!(tokens("1. e4 *[Event \"x\"] d4"), ["e4"]);
}

#[test]
fn a_result_glued_to_the_last_move_ends_the_main_line() {
    let mate = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#1-0";
    assert_eq!(
        tokens(mate),
        ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]
    );
    assert_eq!(run(&standard(), &format!("{mate} 5. Ke2")), Replay::Passed);
    assert_eq!(tokens("1. e4 e51/2-1/2 Nf3"), ["e4", "e5"]);
    assert_eq!(tokens("1. e4 e5\u{bd}-\u{bd} Nf3"), ["e4", "e5"]);
    assert_eq!(tokens("1. e8=Q+0-1 Nf3"), ["e8=Q+"]);
    assert_eq!(tokens("1. e8Q1-0 Nf3"), ["e8Q"]);
    assert_eq!(tokens("1. O-O0-1 Nf3"), ["O-O"]);
    assert_eq!(tokens("1. 0-0-00-1 Nf3"), ["0-0-0"]);
    // Only after what can end a move: `Nf1-0` and `Nb1-0` are judged whole.
    assert_eq!(tokens("1. Nf1-0 Nf3"), ["Nf1-0", "Nf3"]);
    assert_eq!(tokens("1. Nb1-0 Nf3"), ["Nb1-0", "Nf3"]);
    // What is left of the word may be no move at all: the main line ends
    // at the result all the same.
    assert_eq!(tokens("1. e4 e5 2. Qh5 #1-0 3. Ke2"), ["e4", "e5", "Qh5"]);
    assert_eq!(tokens("1. e4 e5 21-0 3. Ke2"), ["e4", "e5"]);
}

#[test]
fn results_and_castling_with_zeros_take_en_and_em_dashes_as_pgn_reader_does() {
    // Word processors put an en or em dash in place of the hyphen.
    for result in ["1–0", "0—1", "1/2–1/2", "1/2—1/2", "½–½", "½—½"] {
        assert_eq!(
            tokens(&format!("1. e4 e5 {result} 2. Ke3")),
            ["e4", "e5"],
            "{result}"
        );
        assert_eq!(tokens(&format!("1. e4 e8Q{result} Ke3")), ["e4", "e8Q"]);
    }
    let castled = "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. 0–0 0—0 *";
    assert_eq!(run(&standard(), castled), Replay::Passed);
    let long = "1. d4 d5 2. Bf4 Bf5 3. Nc3 Nc6 4. Qd2 Qd7 5. 0–0–0 0—0—0 6. Kb1 Kb8 *";
    assert_eq!(run(&standard(), long), Replay::Passed);
    // Other words with such dashes are judged whole, and are no SAN.
    assert!(
        run(&standard(), "1. e4 e5 2. 0–0–0–0 *")
            .illegal()
            .is_some()
    );
    assert!(run(&standard(), "1. e4 e5 2. Nf3–g5 *").illegal().is_some());
}

#[test]
fn zeros_alone_are_skipped_as_pgn_reader_skips_them() {
    // `1.00` outside a comment is an evaluation more often than castling.
    assert_eq!(
        run(&standard(), "1. e4 0.00 e5 2. Nf3 1.00 Nc6 *"),
        Replay::Passed
    );
    assert_eq!(tokens("1. e4 10 e5 100. Nf3 00 000"), ["e4", "e5", "Nf3"]);
}

#[test]
fn only_the_inputs_byte_order_mark_takes_no_column() {
    let at = |text: &str, from| {
        let bytes = super::without_input_bom(text.as_bytes(), from);
        let m = replay(
            &standard(),
            &MoveText {
                bytes,
                line: 1,
                complete: true,
            },
            MovesMode::All,
        );
        let m = m.illegal().expect("an illegal move");
        (m.line, m.column)
    };
    assert_eq!(at("\u{feff}1. Ke3 *", 0), (1, 4));
    assert_eq!(at("1. Ke3 *", 0), (1, 4));
    // Not at the input's start: the movetext's first line, or a later one.
    assert_eq!(at("\u{feff}1. Ke3 *", 40), (1, 5));
    assert_eq!(at("1. e4 e5\n\u{feff}2. Ke3 *", 0), (2, 5));
    assert_eq!(at("1. e4 e5\n\u{200b}2. Ke3 *", 0), (2, 5));
}

/// A U+FEFF glued to the first move is not part of it: the move is read and
/// judged as without the mark, which counts as one column before it.
#[test]
fn a_byte_order_mark_before_the_first_move_is_not_part_of_it() {
    assert_eq!(run(&standard(), "\u{feff}e4 e5 2. Nf3 *"), Replay::Passed);
    let m = illegal(&standard(), "\u{feff}Kz9 *");
    assert_eq!(
        (m.ply, m.token.as_str(), m.line, m.column),
        (1, "Kz9", 1, 2)
    );
    let m = illegal(&standard(), "\u{feff}e4 e5 Ke3 *");
    assert_eq!((m.ply, m.column), (3, 8));
}

mod fast_path {
    //! The fast move finder against the plain one: wherever the fast path
    //! answers, the plain path gives the same move.
    use super::super::{fast, find_move};
    use proptest::prelude::*;
    use shakmaty::san::San;
    use shakmaty::{Chess, File, Position, Rank, Role, Square};

    /// Positions along a random game (from the start, or from a position
    /// with en passant, promotions and pins close at hand).
    fn positions(seed: &[u8]) -> Vec<Chess> {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
            "8/8/8/K2pP2r/8/8/8/7k w - d6 0 2",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2",
        ];
        let fen: shakmaty::fen::Fen = starts[seed[0] as usize % starts.len()].parse().unwrap();
        let mut pos: Chess = fen.into_position(shakmaty::CastlingMode::Standard).unwrap();
        let mut out = vec![pos.clone()];
        for &b in &seed[1..] {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[b as usize % moves.len()]);
            out.push(pos.clone());
        }
        out
    }

    fn agree(pos: &Chess, san: San) {
        if let Some(m) = fast::unique_move(pos, &san) {
            assert_eq!(
                find_move(pos, san),
                Ok(m),
                "{san:?} in {}",
                shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Always)
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn fast_and_plain_agree(seed in proptest::collection::vec(any::<u8>(), 1..80)) {
            for pos in positions(&seed) {
                // Every legal move, named as SAN programs write it and leniently.
                for m in pos.legal_moves() {
                    let san = San::from_move(&pos, m);
                    agree(&pos, san);
                    if let San::Normal { role, to, promotion, .. } = san {
                        let from = m.from().unwrap();
                        for (file, rank) in [(None, None), (Some(from.file()), None), (None, Some(from.rank())), (Some(from.file()), Some(from.rank()))] {
                            for capture in [false, true] {
                                agree(&pos, San::Normal { role, file, rank, capture, to, promotion });
                            }
                        }
                        // A wrong promotion piece, or none.
                        for promotion in [None, Some(Role::Queen), Some(Role::Knight), Some(Role::King), Some(Role::Pawn)] {
                            agree(&pos, San::Normal { role, file: Some(from.file()), rank: None, capture: m.is_capture(), to, promotion });
                        }
                    }
                }
                // Every role to every square, with and without hints: most are
                // not legal, and the fast path must not find what is not there.
                for to in Square::ALL {
                    for role in Role::ALL {
                        for file in [None, Some(File::E), Some(to.file())] {
                            agree(&pos, San::Normal { role, file, rank: None, capture: false, to, promotion: None });
                            agree(&pos, San::Normal { role, file, rank: Some(Rank::Second), capture: true, to, promotion: None });
                        }
                        agree(&pos, San::Normal { role, file: None, rank: None, capture: false, to, promotion: Some(Role::Queen) });
                    }
                }
            }
        }
    }

    /// The fast path answers the usual moves itself (else it would be no use).
    #[test]
    fn fast_path_answers_ordinary_moves() {
        let pos = Chess::default();
        for m in pos.legal_moves() {
            let san = San::from_move(&pos, m);
            assert_eq!(fast::unique_move(&pos, &san), Some(m), "{san}");
        }
    }
}

#[test]
fn a_legal_move_in_long_algebraic_notation_is_named_in_san() {
    // UCI's squares that SAN would read as a pawn's move (`g1f3`: a pawn
    // on g1), and its castling (`e1g1`).
    for (movetext, san) in [
        ("1. g1f3", "Nf3"),
        ("1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. e1g1", "O-O"),
    ] {
        let m = illegal(&standard(), movetext);
        assert_eq!(m.reason, "long algebraic notation, not SAN", "{movetext}");
        assert_eq!(m.in_san.as_deref(), Some(san), "{movetext}");
    }
    // A word of two squares that names no legal move stays "no legal move".
    assert_ne!(
        illegal(&standard(), "1. g1g3").reason,
        "long algebraic notation, not SAN"
    );
    let m = illegal(&standard(), "1. e2-e4 e5");
    assert_eq!(m.reason, "long algebraic notation, not SAN");
    assert_eq!(m.in_san.as_deref(), Some("e4"));
    assert_eq!(m.help(), "write the move in SAN, as PGN has it: e4");
    // A piece letter, a capture, a promotion, a check mark.
    let cases = [
        ("1. e4 e5 2. Ng1-f3", "Nf3"),
        ("1. e4 d5 2. e4-d5", "exd5"),
        ("1. e4 d5 2. exd5 Qd8-d5+", "Qxd5"),
        ("1. e4 d5 2. exd5 Qd8:d5", "Qxd5"),
        ("1. e4 e5 2. Nf3 Nc6 3. Bf1-c4 Bf8-c5", "Bc4"),
    ];
    for (movetext, san) in cases {
        assert_eq!(
            illegal(&standard(), movetext).in_san.as_deref(),
            Some(san),
            "{movetext}"
        );
    }
    let promotion = from_fen("8/4P2k/8/8/8/8/8/4K3 w - - 0 1", false);
    assert_eq!(
        illegal(&promotion, "1. e7-e8=Q+").in_san.as_deref(),
        Some("e8=Q")
    );
    // As UCI writes a promotion.
    assert_eq!(
        illegal(&promotion, "1. e7e8n").in_san.as_deref(),
        Some("e8=N")
    );
    // Not a legal move, or the wrong piece: no suggestion, the usual words.
    for movetext in ["1. e2-e5", "1. Ng1-e2", "1. Bg1-f3", "1. e2-e4-e5"] {
        let m = illegal(&standard(), movetext);
        assert_eq!(
            (m.reason, m.in_san),
            ("not a move in SAN", None),
            "{movetext}"
        );
    }
    // Fully spelled squares without a dash are (over-disambiguated) SAN.
    assert_eq!(run(&standard(), "1. e2e4 e7e5 2. Ng1f3"), Replay::Passed);
}

#[test]
fn the_help_names_the_fen_tag_only_when_the_game_has_one() {
    // No FEN tag: nothing to correct but the move (or the Variant).
    let m = illegal(&standard(), "1. e4 e5 2. O-O");
    assert!(!m.from_fen);
    assert!(
        m.help().starts_with("correct the move: without a FEN tag"),
        "{}",
        m.help()
    );
    // From a FEN that the moves do not fit, and do not fit the standard start either.
    let m = illegal(
        &from_fen(
            "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w Qkq - 4 4",
            false,
        ),
        "4. O-O d6",
    );
    assert!(m.from_fen && !m.standard_start);
    assert!(
        m.help().starts_with("correct the FEN (or Variant) tag"),
        "{}",
        m.help()
    );
}

mod against_pgn_reader {
    //! The lexer against `pgn-reader`, whose grammar it follows: pgnfen reads
    //! the movetext itself because a report must point at the word it judges,
    //! and pgn-reader gives no positions and drops words that are not SAN
    //! (docs/decisions.md). On movetext of the pieces both read alike (SAN as
    //! written by programs, move numbers, check and annotation marks, NAGs,
    //! comments of both kinds, `%` escape lines, nested variations, results,
    //! null moves and words that are no move), the two find the same main line.
    use super::super::{Lenient, Lexer, parse_san};
    use pgn_reader::{Outcome, Reader, SanPlus, Visitor};
    use proptest::prelude::*;
    use shakmaty::san::San;
    use std::ops::ControlFlow;

    /// pgn-reader's main line up to its first result or null move (it reads
    /// on past both; the replay stops there).
    struct Mainline;

    impl Visitor for Mainline {
        type Tags = ();
        type Movetext = Vec<San>;
        type Output = Vec<San>;

        fn begin_tags(&mut self) -> ControlFlow<Vec<San>> {
            ControlFlow::Continue(())
        }

        fn begin_movetext(&mut self, _: ()) -> ControlFlow<Vec<San>, Vec<San>> {
            ControlFlow::Continue(Vec::new())
        }

        fn san(&mut self, moves: &mut Vec<San>, san_plus: SanPlus) -> ControlFlow<Vec<San>> {
            if san_plus.san == San::Null {
                return ControlFlow::Break(std::mem::take(moves));
            }
            moves.push(san_plus.san);
            ControlFlow::Continue(())
        }

        fn outcome(&mut self, moves: &mut Vec<San>, _: Outcome) -> ControlFlow<Vec<San>> {
            ControlFlow::Break(std::mem::take(moves))
        }

        fn end_game(&mut self, moves: Vec<San>) -> Vec<San> {
            moves
        }
    }

    fn by_pgn_reader(movetext: &[u8]) -> Vec<San> {
        Reader::new(movetext)
            .read_game(&mut Mainline)
            .expect("reading from memory")
            .unwrap_or_default()
    }

    /// The lexer's main line as the replay reads it, words that are not SAN
    /// left out (pgn-reader skips them; the replay reports them).
    fn by_lexer(movetext: &[u8]) -> Vec<San> {
        let mut lexer = Lexer::new(movetext, true);
        let mut moves = Vec::new();
        while let Some(token) = lexer.next_move() {
            match parse_san(&movetext[token]) {
                Lenient::San(san) => moves.push(san),
                Lenient::Null => break,
                Lenient::NotSan => {}
            }
        }
        moves
    }

    const MOVES: &[&str] = &[
        "e4", "d5", "exd5", "Nf3", "Nbd7", "R1e2", "Qh4xe1", "Kxh1", "O-O", "O-O-O", "0-0",
        "0-0-0", "e8=Q", "dxc1=N", "N@f3", "a1=R", "Bb5", "h3",
    ];
    const MARKS: &[&str] = &["", "", "", "+", "#", "!", "?", "!?", "??", "+!", "#?!"];
    const NUMBERS: &[&str] = &["1.", "12.", "3...", "7", "10...", "24. "];
    const WORDS: &[&str] = &["xyz", "e2-e4", "Nf3zz", "&", "-", "Zz", "--", "Z0"];
    const RESULTS: &[&str] = &["1-0", "0-1", "1/2-1/2", "*"];
    const BLANKS: &[&str] = &[" ", " ", "\n", "\r\n", "\t", "  "];
    const ESCAPES: &[&str] = &["\n% ) Nf3\n", "\n% ( 1-0\n", "\r\n% { Nf3\r\n"];

    /// A piece of movetext from `seed`, with variations `depth` deep at most.
    fn piece(seed: &mut impl Iterator<Item = u8>, depth: u32, out: &mut String) {
        let pick = |options: &[&'static str], seed: &mut dyn Iterator<Item = u8>| {
            options[seed.next().unwrap_or(0) as usize % options.len()]
        };
        match seed.next().unwrap_or(0) % 16 {
            0..=6 => {
                out.push_str(pick(MOVES, seed));
                out.push_str(pick(MARKS, seed));
            }
            7 | 8 => out.push_str(pick(NUMBERS, seed)),
            9 => out.push_str("$14"),
            10 => out.push_str("{ a (comment) ; 1-0 e4\n% Nf3 }"),
            11 => out.push_str("; to the line's end ( 1-0 Nf3\n"),
            12 => out.push_str(pick(ESCAPES, seed)),
            13 => out.push_str(pick(WORDS, seed)),
            14 if depth < 3 => {
                out.push('(');
                for _ in 0..seed.next().unwrap_or(0) % 5 {
                    piece(seed, depth + 1, out);
                    out.push_str(pick(BLANKS, seed));
                }
                out.push(')');
            }
            _ => out.push_str(pick(RESULTS, seed)),
        }
    }

    fn movetext(seed: &[u8]) -> String {
        let mut seed = seed.iter().copied();
        let mut out = String::from("1. ");
        while seed.len() > 0 {
            piece(&mut seed, 0, &mut out);
            let blank = seed.next().unwrap_or(0) as usize % BLANKS.len();
            out.push_str(BLANKS[blank]);
        }
        // A blank line ends a game for pgn-reader (the pipeline cuts games
        // at headers, not at blank lines): none in the movetext.
        while out.contains("\n\n") || out.contains("\n\r\n") {
            out = out.replace("\n\r\n", "\n").replace("\n\n", "\n");
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]
        #[test]
        fn the_lexer_reads_the_main_line_as_pgn_reader_does(
            seed in proptest::collection::vec(any::<u8>(), 0..120)
        ) {
            let text = movetext(&seed);
            prop_assert_eq!(by_lexer(text.as_bytes()), by_pgn_reader(text.as_bytes()), "{:?}", text);
        }
    }

    /// The movetext of a game's bytes: from the first line after its tag
    /// lines that is neither a tag line, a blank line nor an escape line.
    fn movetext_of(raw: &[u8]) -> &[u8] {
        let mut at = 0;
        let mut seen_tag = false;
        while at < raw.len() {
            let end = memchr::memchr(b'\n', &raw[at..]).map_or(raw.len(), |n| at + n + 1);
            let line = raw[at..end].trim_ascii_start();
            match line.first() {
                Some(b'[') => seen_tag = true,
                None | Some(b'%') => {}
                Some(_) if seen_tag => return &raw[at..],
                Some(_) => {}
            }
            at = end;
        }
        &raw[raw.len()..]
    }

    /// Every word of the lexer's main line is SAN as pgn-reader reads it
    /// (not `e8q`, `0–0` or a word that is no move, which pgnfen judges and
    /// pgn-reader drops or reads otherwise).
    fn strict(movetext: &[u8]) -> bool {
        let mut lexer = Lexer::new(movetext, true);
        while let Some(token) = lexer.next_move() {
            if SanPlus::from_ascii(&movetext[token]).is_err() {
                return false;
            }
        }
        true
    }

    /// The real games of the corpus, each compared where all its words are
    /// SAN as written.
    #[test]
    #[ignore = "needs PGNFEN_CORPUS"]
    fn the_corpus_main_lines_are_pgn_readers() {
        let dir =
            std::path::PathBuf::from(std::env::var_os("PGNFEN_CORPUS").expect("PGNFEN_CORPUS"))
                .join("real");
        let (mut compared, mut moves) = (0, 0);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "pgn") {
                continue;
            }
            let archive = crate::archive::Archive::open([&path]).unwrap();
            for game in archive.games() {
                let game = game.unwrap();
                // A blank line ends a game for pgn-reader, not for the
                // pipeline (games are cut at headers): none, as above.
                let mut text = movetext_of(game.raw()).to_vec();
                while let Some(i) = text.windows(2).position(|w| w == b"\n\n") {
                    text.remove(i);
                }
                if !strict(&text) {
                    continue;
                }
                let mainline = by_lexer(&text);
                assert_eq!(
                    mainline,
                    by_pgn_reader(&text),
                    "{} game {}",
                    path.display(),
                    game.game
                );
                compared += 1;
                moves += mainline.len();
            }
        }
        eprintln!("{compared} games, {moves} moves compared");
        assert!(
            compared > 50_000 && moves > 1_000_000,
            "{compared} games, {moves} moves"
        );
    }

    #[test]
    fn the_oracle_sees_the_main_line() {
        // The test above compares something: a main line of moves, without
        // those of comments, variations, escape lines and after the result.
        let text = "1. e4 {Nf3} e5 (1... c5 2. Nf3) 2. Nf3!? $1 ; Bb5\n% Bc4\nNc6 1-0 Bb5";
        let expected: Vec<San> = ["e4", "e5", "Nf3", "Nc6"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        assert_eq!(by_pgn_reader(text.as_bytes()), expected);
        assert_eq!(by_lexer(text.as_bytes()), expected);
    }
}
