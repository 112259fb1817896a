//! The library's face used as a program would: the entry points with their
//! options structs, `Archive`, and their error paths.

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pgnfen::fen::Dialect;
use pgnfen::filter::Selection;
use pgnfen::pipeline::{Input, Options, RunError, Watch};
use pgnfen::select::Selector;
use pgnfen::{Archive, Class, Code, Error, Game, TagExpr, check, convert, filter, split, stats};

const GAMES: &str = "[Event \"a\"]\n[WhiteElo \"2600\"]\n\n1. e4 e5 *\n\n\
[Event \"b\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 *\n\n\
[Event \"c\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n*\n";

fn archive(dir: &Path) -> Vec<Input> {
    let path = dir.join("games.pgn");
    std::fs::write(&path, GAMES).unwrap();
    vec![Input::File(path)]
}

#[test]
fn stats_counts_classes_positions_and_problems() {
    let dir = tempfile::tempdir().unwrap();
    let counts = stats::run(&archive(dir.path()), &stats::Options::default()).unwrap();
    assert_eq!(counts.games, 3);
    assert_eq!(counts.class(Class::Standard), 1);
    assert_eq!(counts.class(Class::Chess960), 1);
    assert_eq!(counts.class(Class::Malformed), 1);
    assert_eq!(counts.top_positions(5), vec![(0, 1)]);
    // The empty board: "the board is empty" and "no kings".
    assert_eq!(counts.problem(Code::IllegalPosition), 2);
    let mut json = Vec::new();
    counts.write_json(&mut json).unwrap();
    assert!(
        String::from_utf8(json)
            .unwrap()
            .starts_with("{\"games\":3,")
    );

    let tagged = stats::Options {
        selector: Selector::new(&["WhiteElo>=2500".parse::<TagExpr>().unwrap()]),
        ..stats::Options::default()
    };
    let counts = stats::run(&archive(dir.path()), &tagged).unwrap();
    assert_eq!((counts.games, counts.unmatched), (1, 2));
}

#[test]
fn archive_games_agree_with_stats_and_rebuild_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = archive(dir.path());
    let games: Vec<_> = Archive::from_inputs(inputs)
        .games()
        .collect::<Result<_, _>>()
        .unwrap();
    let classes: Vec<Class> = games.iter().map(|g| g.class).collect();
    assert_eq!(
        classes,
        [Class::Standard, Class::Chess960, Class::Malformed]
    );
    assert_eq!(games[1].chess960_position, Some(0));
    let raw: Vec<u8> = games.iter().flat_map(|g| g.raw().to_vec()).collect();
    assert_eq!(raw, GAMES.as_bytes());
}

#[test]
fn an_archive_obeys_the_callers_cancellation_flag_and_never_sets_it() {
    let dir = tempfile::tempdir().unwrap();
    let flag = Arc::new(AtomicBool::new(false));
    let options = Options {
        cancel: Some(Arc::clone(&flag)),
        ..Options::new(2)
    };
    let archive = Archive::from_inputs(archive(dir.path())).with_options(options.clone());
    // Read to the end, or dropped after one game: the flag, which the caller
    // may share with all its runs (a Ctrl-C flag), stays as it was.
    assert_eq!(archive.games().filter(Result::is_ok).count(), 3);
    assert!(archive.games().next().is_some());
    assert!(
        !flag.load(Ordering::Relaxed),
        "the archive set the caller's flag"
    );
    let run = stats::Options {
        run: options.clone(),
        ..stats::Options::default()
    };
    assert_eq!(stats::run(archive.inputs(), &run).unwrap().games, 3);

    // Set before the run: it reads nothing, and says so last.
    flag.store(true, Ordering::Relaxed);
    let items: Vec<_> = archive.games().collect();
    assert_eq!(items.len(), 1, "{items:?}");
    assert!(matches!(&items[0], Err(RunError::Sink(e)) if e.kind() == io::ErrorKind::Interrupted));
    // A task says so by its own error, not as an I/O error of some file.
    assert!(matches!(
        stats::run(archive.inputs(), &run),
        Err(Error::Cancelled)
    ));

    // Set while the run waits on a pipe that holds a game and a half and
    // stays open: the run stops at once, and says so last. (The games read
    // so far come first: the pipeline hands a game over once the chunk that
    // holds it is complete, which here it never is.)
    flag.store(false, Ordering::Relaxed);
    let fifo = dir.path().join("slow.pgn");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let mut writer = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"{ printf '[Event "x"]\n\n1. e4 *\n\n[Event "y"]\n'; exec sleep 10; } > "$1""#)
        .arg("sh")
        .arg(&fifo)
        .spawn()
        .unwrap();
    let games = Archive::from_inputs(vec![Input::File(fifo)])
        .with_options(options)
        .games();
    std::thread::sleep(Duration::from_millis(300));
    let set_at = Instant::now();
    flag.store(true, Ordering::Relaxed);
    let items: Vec<_> = games.collect();
    let took = set_at.elapsed();
    writer.kill().unwrap();
    writer.wait().unwrap();
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(
        matches!(items.last(), Some(Err(RunError::Sink(e))) if e.kind() == io::ErrorKind::Interrupted),
        "{items:?}"
    );
}

#[test]
fn an_archive_of_a_folder_is_refused_when_opened() {
    let dir = tempfile::tempdir().unwrap();
    let e = Archive::open([dir.path()]).unwrap_err();
    assert_eq!(e.error.kind(), io::ErrorKind::IsADirectory);
    // And `?` makes it the library's one error, naming the path.
    let as_error = || -> Result<Archive, Error> { Ok(Archive::open([dir.path()])?) };
    assert!(
        matches!(as_error(), Err(Error::Io { file, .. }) if file == dir.path().display().to_string())
    );
}

#[test]
fn chunk_sizes_out_of_bounds_are_brought_within_them() {
    let dir = tempfile::tempdir().unwrap();
    for chunk_sizes in [
        (usize::MAX, usize::MAX),
        (1 << 40, 1 << 41),
        (0, 0),
        (4096, 1),
    ] {
        let options = Options {
            chunk_sizes,
            ..Options::new(2)
        };
        let games = Archive::from_inputs(archive(dir.path()))
            .with_options(options)
            .games()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        assert_eq!(games.len(), 3, "{chunk_sizes:?}");
    }
}

/// A progress display that fails on its first count of games.
struct FailingWatch;

impl Watch for FailingWatch {
    fn games(&self, _games: u64) {
        panic!("a broken progress display");
    }
}

#[test]
fn an_archive_whose_thread_panics_ends_with_an_error_not_as_if_complete() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options {
        watch: Some(Arc::new(FailingWatch)),
        ..Options::new(1)
    };
    let items: Vec<_> = Archive::from_inputs(archive(dir.path()))
        .with_options(options)
        .games()
        .collect();
    let last = items.last().expect("an item");
    assert!(
        matches!(last, Err(RunError::Sink(e)) if e.to_string().contains("panicked")),
        "{items:?}"
    );
}

#[test]
fn game_headers_decode_each_value_as_utf8_or_else_windows_1252() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.pgn");
    // A value in UTF-8, one in Windows-1252 (0xE9 is é, 0x80 is €), an
    // escaped quote, and a name with a byte that is not UTF-8.
    let mut text = b"[White \"R\xc3\xa9ti\"]\n[Black \"R\xe9ti \x80\"]\n".to_vec();
    text.extend_from_slice(b"[Event \"a \\\"b\\\"\"]\n[Na\xffme \"x\"]\n\n*\n");
    std::fs::write(&path, &text).unwrap();
    let games: Vec<Game> = Archive::open([&path])
        .unwrap()
        .games()
        .collect::<Result<_, _>>()
        .unwrap();
    let headers = games[0].headers();
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("White", "Réti"),
            ("Black", "Réti €"),
            ("Event", "a \"b\""),
            ("Naÿme", "x"),
        ]
    );
    assert!(
        headers
            .iter()
            .all(|(n, v)| !n.contains('\u{fffd}') && !v.contains('\u{fffd}'))
    );
    // One tag, decoded as the pairs are; the first of a name given twice.
    let game = &games[0];
    assert_eq!(game.tag("Black").as_deref(), Some("Réti €"));
    assert_eq!(game.tag("Event").as_deref(), Some("a \"b\""));
    assert_eq!(game.tag("Naÿme").as_deref(), Some("x"));
    assert_eq!(game.tag("Round"), None);
}

#[test]
fn archive_without_raw_places_the_same_games_and_keeps_no_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = archive(dir.path());
    let full: Vec<Game> = Archive::from_inputs(inputs.clone())
        .games()
        .collect::<Result<_, _>>()
        .unwrap();
    let bare: Vec<Game> = Archive::from_inputs(inputs)
        .without_raw()
        .games()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(full.len(), bare.len());
    for (f, b) in full.iter().zip(&bare) {
        assert!(b.raw().is_empty() && b.headers().is_empty());
        assert_eq!(b.length, f.raw().len() as u64);
        assert_eq!(
            (b.game, b.offset, b.line, b.class, &b.problems),
            (f.game, f.offset, f.line, f.class, &f.problems)
        );
    }
}

#[test]
fn filter_keeps_and_rests_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let (kept, rest) = (dir.path().join("kept.pgn"), dir.path().join("rest.pgn"));
    let options = filter::Options {
        selection: Selection {
            classes: vec![Class::Chess960],
            ..Selection::default()
        },
        output: Some(kept.clone()),
        rest: Some(rest.clone()),
        ..filter::Options::default()
    };
    let summary = filter::run(&archive(dir.path()), &options).unwrap();
    assert_eq!((summary.games, summary.kept), (3, 1));
    let (kept, rest) = (
        std::fs::read_to_string(kept).unwrap(),
        std::fs::read_to_string(rest).unwrap(),
    );
    assert!(kept.starts_with("[Event \"b\"]"));
    assert_eq!(rest.len() + kept.len(), GAMES.len());
}

#[test]
fn filter_refuses_what_selects_nothing_and_one_file_twice() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = archive(dir.path());
    let nothing = filter::Options::default();
    assert!(matches!(
        filter::run(&inputs, &nothing),
        Err(Error::Usage(_))
    ));
    let out = dir.path().join("out.pgn");
    let twice = filter::Options {
        selection: Selection {
            selector: Selector::new(&["Event=a".parse().unwrap()]),
            ..Selection::default()
        },
        output: Some(out.clone()),
        rest: Some(out.clone()),
        ..filter::Options::default()
    };
    match filter::run(&inputs, &twice) {
        // Each usage error is a variant of its own, displayed as the CLI words it.
        Err(Error::Usage(usage @ pgnfen::Usage::SameOutput { .. })) => {
            assert!(usage.to_string().contains("same file"), "{usage}")
        }
        other => panic!("expected a usage error, got {other:?}"),
    }
    assert!(!out.exists(), "nothing is written before a usage error");
}

#[test]
fn convert_rewrites_only_fen_values() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("shredder.pgn");
    let options = convert::Options {
        output: Some(out.clone()),
        ..convert::Options::new(Dialect::Shredder)
    };
    let summary = convert::run(&archive(dir.path()), &options).unwrap();
    assert_eq!(
        (summary.games, summary.converted, summary.unchanged),
        (3, 1, 1)
    );
    let text = std::fs::read_to_string(out).unwrap();
    assert_eq!(
        text,
        GAMES.replace("BBQNNRKR w KQkq", "BBQNNRKR w HFhf"),
        "only the FEN value changes"
    );
}

#[test]
fn check_hands_each_problem_over_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    let summary = check::run(&archive(dir.path()), &check::Options::default(), |d| {
        seen.push((d.game, d.line, d.finding.code));
        Ok(())
    })
    .unwrap();
    assert_eq!(summary.games, 3);
    assert_eq!(summary.games_with_errors, 1);
    assert_eq!(summary.errors(), 2);
    assert_eq!(
        seen,
        [
            (3, 15, Code::IllegalPosition),
            (3, 15, Code::IllegalPosition)
        ]
    );
}

/// An error of the caller's `report` ends the run and comes back as it is,
/// without a made-up file name, even when its kind is `Interrupted` (which
/// a cancelled run's error also has: only the flag cancels).
#[test]
fn check_gives_back_the_reports_own_error() {
    let dir = tempfile::tempdir().unwrap();
    for kind in [io::ErrorKind::Other, io::ErrorKind::Interrupted] {
        let mut calls = 0;
        let result = check::run(&archive(dir.path()), &check::Options::default(), |_| {
            calls += 1;
            Err(io::Error::new(kind, "my report is full"))
        });
        match result {
            Err(e @ Error::Report(_)) => {
                assert_eq!(e.to_string(), "my report is full");
                let Error::Report(inner) = e else {
                    unreachable!()
                };
                assert_eq!(inner.kind(), kind);
            }
            other => panic!("{kind:?}: expected the report's error, got {other:?}"),
        }
        assert_eq!(calls, 1, "the run stops at the first error");
    }
    // A closed pipe is the quiet end it is everywhere else.
    let result = check::run(&archive(dir.path()), &check::Options::default(), |_| {
        Err(io::Error::from(io::ErrorKind::BrokenPipe))
    });
    assert!(matches!(result, Err(Error::BrokenPipe)), "{result:?}");
}

/// Parquet written into a compressing output is the caller's mistake, named
/// by the output: the usage error the command line gives from the name.
#[cfg(feature = "export")]
#[test]
fn parquet_into_a_compressing_output_is_a_usage_error() {
    use pgnfen::export::{self, ExportOptions, Format};
    use pgnfen::pipeline::output::Output;
    let dir = tempfile::tempdir().unwrap();
    let inputs = archive(dir.path());
    let path = dir.path().join("x.parquet.zst");
    let options = ExportOptions::default();
    let columns = export::columns(&inputs, &options, &Options::default()).unwrap();
    let batches = export::batches(&inputs, columns, &options, &Options::default());
    let output = Output::create(Some(&path)).unwrap();
    let e: Error = export::write(batches, Format::Parquet, output)
        .unwrap_err()
        .into();
    match &e {
        Error::Usage(pgnfen::Usage::OutputFormat { file, .. }) => {
            assert_eq!(Path::new(file), path);
        }
        other => panic!("expected a usage error, got {other:?}"),
    }
    assert_eq!(
        e.to_string(),
        format!(
            "{}: Parquet files are compressed inside (zstd column chunks); write {} without the compression ending",
            path.display(),
            dir.path().join("x.parquet").display()
        )
    );
    assert!(!path.exists(), "nothing written");
}

#[test]
fn check_counts_warnings_it_does_not_hand_over() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("warnings.pgn");
    // A FEN without SetUp (a warning), then one with a missing clock pair
    // (a warning) in a game that also has an error (a bad SetUp value).
    std::fs::write(
        &path,
        "[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n\n*\n\n\
         [SetUp \"2\"]\n[FEN \"8/8/8/8/8/8/8/K1k5 w - -\"]\n\n*\n",
    )
    .unwrap();
    let inputs = [Input::File(path)];
    let run = |warnings| {
        let mut seen = Vec::new();
        let options = check::Options {
            warnings,
            ..check::Options::default()
        };
        let summary = check::run(&inputs, &options, |d| {
            seen.push((d.game, d.line, d.finding.code));
            Ok(())
        })
        .unwrap();
        (summary, seen)
    };
    let (all, every) = run(true);
    let (errors, some) = run(false);
    assert_eq!(
        all, errors,
        "the summary does not depend on what is handed over"
    );
    assert_eq!((all.games_with_warnings, all.games_with_errors), (2, 1));
    assert_eq!(all.warnings(), 2);
    assert_eq!(every.len(), 3);
    assert_eq!(some, [(2, 5, Code::SetupValue)]);
}

#[test]
fn split_writes_one_file_per_class_received() {
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("{class}.pgn");
    let options = split::Options {
        template,
        ..split::Options::default()
    };
    let summary = split::run(&archive(dir.path()), &options).unwrap();
    assert_eq!(summary.games, 3);
    assert_eq!(summary.files.len(), 3);
    let bad = split::Options {
        template: dir.path().join("out.pgn"),
        ..split::Options::default()
    };
    assert!(matches!(
        split::run(&archive(dir.path()), &bad),
        Err(Error::Usage(_))
    ));
}

#[test]
fn a_missing_file_names_the_path() {
    let inputs = [Input::from_arg("/nonexistent/games.pgn")];
    match stats::run(&inputs, &stats::Options::default()) {
        Err(Error::Io { file, error }) => {
            assert_eq!(file, "/nonexistent/games.pgn");
            assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

/// The notes a watch is given.
#[derive(Default)]
struct Notes(std::sync::Mutex<Vec<String>>);

impl Watch for Notes {
    fn note(&self, line: &str) {
        self.0.lock().unwrap().push(line.to_owned());
    }
}

/// A binary file given by mistake is still read (one game of text), and
/// the library says so by default, as the command line does: to the watch,
/// or to standard error without one.
#[test]
fn a_file_without_a_tag_line_is_noted_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.pgn");
    std::fs::write(&junk, b"\x00\xff\xfe garbage").unwrap();
    let notes = Arc::new(Notes::default());
    let options = stats::Options {
        run: Options {
            watch: Some(notes.clone()),
            ..Options::default()
        },
        ..stats::Options::default()
    };
    let counts = stats::run(&[Input::File(junk)], &options).unwrap();
    assert_eq!(counts.games, 1);
    let notes = notes.0.lock().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        pgnfen::pipeline::note_message(&notes[0]).ends_with("junk.pgn: no PGN tag line found"),
        "{notes:?}"
    );
}

/// Parsing a tag expression or a name with `?` in a function that returns
/// the library's error: both are usage errors, shown as parsed.
#[test]
fn parse_errors_convert_into_the_library_error() {
    fn selection(expr: &str, speed: &str) -> Result<(TagExpr, pgnfen::Speed), Error> {
        Ok((expr.parse()?, speed.parse()?))
    }
    assert!(selection("WhiteElo>=2500", "Blitz").is_ok());
    let e = selection(">=2500", "blitz").unwrap_err();
    assert!(
        matches!(e, Error::Usage(pgnfen::Usage::TagExpr(_))),
        "{e:?}"
    );
    let e = selection("WhiteElo>=2500", "blitzz").unwrap_err();
    assert!(matches!(e, Error::Usage(pgnfen::Usage::Name(_))), "{e:?}");
    assert!(e.to_string().starts_with("unknown speed \"blitzz\""), "{e}");
    // A FEN that cannot be read, or a position a dialect cannot write.
    fn shredder(fen: &str) -> Result<String, Error> {
        let position: pgnfen::fen::Position = fen.parse()?;
        Ok(position.write(Dialect::Shredder, None)?)
    }
    assert_eq!(
        shredder("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    );
    let e = shredder("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1").unwrap_err();
    match &e {
        Error::Usage(pgnfen::Usage::Fen(problem)) => {
            assert_eq!(problem.code, Code::FenSyntax);
            assert_eq!(problem.span, 44..45);
        }
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().starts_with("error[fen-syntax]: "), "{e}");
}
