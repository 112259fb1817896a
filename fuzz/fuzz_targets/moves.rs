//! `cargo fuzz run moves`: the replay of `--moves` on arbitrary movetext and
//! through the whole pipeline:
//!
//! * no panic, whatever the bytes (unterminated comments and variations, deep
//!   nesting, long tokens, NUL bytes);
//! * an illegal move has a ply from 1 to the number of mainline moves, and its
//!   column and snippet span are inside its line;
//! * `first` judges at most the first move: what it finds, `all` finds too;
//! * through the pipeline, at most one `illegal-move` per game, and tiny chunks
//!   (games finished by the merger) give the same findings as one big chunk
//!   (chunks no smaller than the longest line: a tag value cut by a forced cut
//!   is not read, by design).
//!
//! The first byte picks the start position; the rest is the movetext (for the
//! direct replay) or a whole PGN (for the pipeline). Use `-dict=pgn.dict`.
#![no_main]

use std::io;
use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pgnfen::internals::{
    self, CheckJob, GameFindings, GameInfo, Moved, Sink, WithMoves, mainline_len,
};
use pgnfen::moves::{MoveText, MovesMode, Replay, Start, replay};
use pgnfen::pipeline::{Input, Options};
use shakmaty::variant::Variant;

const STARTS: [(&str, bool, Variant); 10] = [
    ("", false, Variant::Chess),
    (
        "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        false,
        Variant::Chess,
    ),
    (
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1",
        true,
        Variant::Chess,
    ),
    ("", false, Variant::Crazyhouse),
    ("", false, Variant::Atomic),
    // Castling rights in a variant without castling: dropped, not the check.
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        false,
        Variant::Antichess,
    ),
    ("", false, Variant::Horde),
    ("", false, Variant::RacingKings),
    ("", false, Variant::KingOfTheHill),
    // One check from the end: the game can end, and nothing may follow.
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 +2+0",
        false,
        Variant::ThreeCheck,
    ),
];

/// (game, ply, line, column) of each illegal move, and games replayed.
#[derive(Debug, Default, PartialEq)]
struct Found(Vec<(u64, u32, u64, usize)>, u64);

impl Sink<Moved<GameFindings>> for Found {
    fn begin_game(&mut self, info: &GameInfo, game: Moved<GameFindings>) -> io::Result<()> {
        self.1 += u64::from(game.replay.checked());
        if let Replay::Illegal(m) = &game.replay {
            assert!(m.ply >= 1);
            self.0
                .push((info.index, m.ply, m.line + info.line_delta, m.column));
        }
        Ok(())
    }
    fn bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
    fn wants_bytes(&self) -> bool {
        false
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (fen, chess960, variant) = STARTS[pick as usize % STARTS.len()];
    let start = Start {
        variant,
        chess960,
        fen: (!fen.is_empty()).then(|| fen.as_bytes().into()),
        hint: chess960 || !fen.is_empty(),
    };
    let text = MoveText {
        bytes: rest,
        line: 1,
        complete: pick & 0x80 == 0,
    };
    let all = replay(&start, &text, MovesMode::All);
    if let Replay::Illegal(m) = &all {
        assert!(m.ply >= 1 && m.ply as usize <= mainline_len(rest), "{m:?}");
        assert!(m.column >= 1);
        assert!(
            m.span.start <= m.span.end && m.span.end <= m.line_text.len(),
            "{m:?}"
        );
        assert!(
            m.line_text.is_char_boundary(m.span.start) && m.line_text.is_char_boundary(m.span.end)
        );
    }
    match replay(&start, &text, MovesMode::First) {
        Replay::Illegal(m) => {
            assert_eq!(m.ply, 1);
            assert_eq!(all, Replay::Illegal(m));
        }
        // Cut before an illegal move was found: not replayed to its end,
        // by either mode.
        Replay::Unfinished => {
            assert!(!text.complete);
            assert_eq!(all, Replay::Unfinished);
        }
        other => assert_eq!(other, Replay::Passed),
    }
    if all == Replay::Unfinished {
        assert!(!text.complete, "only a cut movetext is left unfinished");
    }
    // Every start position of the target can be read: each game is judged.
    assert_ne!(all, Replay::NotChecked);

    // The same bytes as a whole PGN file through the pipeline.
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    let path = PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("pgnfen-fuzz-moves-{}.pgn", std::process::id()))
    });
    std::fs::write(path, rest).unwrap();
    let job = WithMoves {
        inner: CheckJob { warnings: false },
        mode: MovesMode::All,
    };
    let run = |sizes: (usize, usize), threads: usize| {
        let mut options = Options::new(threads);
        options.chunk_sizes = sizes;
        // No notes on standard error: they bury the fuzzer's log.
        options.notes = false;
        let mut found = Found::default();
        // Bytes that open like a compressed file (gzip, zstd, ...) are read as
        // one and may be an input error: the same one whatever the chunks.
        internals::run(&[Input::File(path.clone())], &job, &mut found, &options)
            .map(|_| found)
            .map_err(|e| e.to_string())
    };
    let big = run((1 << 20, 4 << 20), 1);
    if let Ok(big) = &big {
        let mut games: Vec<u64> = big.0.iter().map(|f| f.0).collect();
        games.dedup();
        assert_eq!(
            games.len(),
            big.0.len(),
            "at most one illegal move per game"
        );
    }
    // Tiny chunks, but none smaller than a line: a forced cut inside a tag
    // line loses that tag's value by design (docs/decisions.md).
    let longest = rest
        .split(|b| matches!(b, b'\n' | b'\r'))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    let tiny = run((16, (longest + 2).max(64)), 2);
    if tiny != big {
        // The one allowed difference: text without any tag line is replayed
        // only when it fits the piece its end is read in; in tiny pieces it
        // is one game, not checked.
        assert_eq!(tiny, Ok(Found(Vec::new(), 0)), "{big:?}");
        let big = big.expect("the same input error whatever the chunks");
        assert_eq!(big.1, 1, "{big:?}: one game, replayed in the big chunk");
        assert!(big.0.iter().all(|f| f.0 == 1), "{big:?}");
    }
});
