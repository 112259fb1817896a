//! Converting the FEN tags of an archive to another dialect (what `pgnfen
//! convert` does): every FEN tag value is rewritten, every other byte copied
//! unchanged.
//!
//! ```no_run
//! use pgnfen::convert;
//! use pgnfen::fen::Dialect;
//! use pgnfen::pipeline::Input;
//!
//! let options = convert::Options {
//!     output: Some("shredder.pgn".into()),
//!     ..convert::Options::new(Dialect::Shredder)
//! };
//! let summary = convert::run(&[Input::from_arg("chess960.pgn")], &options)?;
//! println!("{} FEN tags written, {} left unchanged", summary.converted, summary.unchanged);
//! # Ok::<(), pgnfen::Error>(())
//! ```

use std::io::{self, Write};
use std::path::PathBuf;

use std::cell::RefCell;
use std::rc::Rc;

use crate::class::Class;
use crate::classify::{self, VariantFamily};
use crate::error::{Error, check_inputs_exist, output_name};
use crate::fen::{Dialect, EpPolicy, VariantHint};
use crate::memo::Memo;
use crate::pgn::scan::TagName;
use crate::pgn::tags::decode_value;
use crate::pipeline::output::Output;
use crate::pipeline::sink::OpenLine;
use crate::pipeline::{self, GameInfo, Header, HeaderTag, Input, Job, Sink};
use crate::problem::Code;

pub(crate) mod job;
pub(crate) use job::{ConvertJob, EditingSink};

/// What `convert` does.
#[derive(Clone, Debug)]
pub struct Options {
    /// The dialect every FEN tag is written in.
    pub to: Dialect,
    /// The en passant policy (default: the dialect's own).
    pub ep: Option<EpPolicy>,
    /// Also insert a missing `[SetUp "1"]` before the FEN tag, and `[Variant
    /// "Chess960"]` in Chess960 games without one. (Missing clocks are
    /// completed either way: a FEN written in a dialect has all six fields.)
    pub repair: bool,
    /// The output file (a `.gz`, `.bz2`, `.zst` or `.xz` ending compresses),
    /// or standard output for `None` or `-`.
    pub output: Option<PathBuf>,
    /// Rewrite each input to itself instead (`--in-place`), one after the
    /// other: each file is written under a temporary name beside it, in the
    /// compression it had (gzip, bzip2, zstd, xz or plain, recognised by its
    /// first bytes), and renamed over it with its mode kept once it is done, so a
    /// failure leaves that file as it was (those before it are already
    /// converted). `output` is not used then.
    pub in_place: bool,
    /// Threads, progress, reading. With `run.notes`, each FEN left unchanged is
    /// reported (`FILE:LINE:COLUMN: error[CODE]: ...`), through `run.watch`'s
    /// notes when there is one, else on standard error.
    pub run: pipeline::Options,
    /// Report each FEN left unchanged as `run.notes` does, also when the
    /// run's other notes are off (the command line's `--quiet` hides
    /// summaries and notes, not the FENs it could not write).
    pub report_unchanged: bool,
}

impl Options {
    /// Converting to `to`, to standard output, with the library's defaults.
    pub fn new(to: Dialect) -> Options {
        Options {
            to,
            ep: None,
            repair: false,
            output: None,
            in_place: false,
            run: pipeline::Options::default(),
            report_unchanged: false,
        }
    }
}

/// What a `convert` run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// FEN tags written in the dialect (unchanged bytes when already in it).
    pub converted: u64,
    /// FEN tags left as they were: unreadable, or not writable in the dialect.
    pub unchanged: u64,
}

/// Copies `inputs` to `options.output` with the value of every FEN tag
/// rewritten in `options.to`; every other byte is copied unchanged. The
/// output file appears under its name only when the run succeeds (it may
/// name the input when there is one: the input is read before it is
/// replaced; one of several inputs is refused, as the others would be
/// merged into it). With
/// `options.in_place`, each input is rewritten to itself instead
/// ([`Options::in_place`]); the summary is the sum over the files.
///
/// # Errors
///
/// [`Error::Io`] when an input is missing, a folder or cannot be read, or
/// the output cannot be written; [`Error::Usage`] for an output that is one
/// of several inputs, and in place, before anything
/// is written, when an input is standard input, a zip archive, a file in a
/// format pgnfen refuses, or not a regular file (a pipe, a device).
pub fn run(inputs: &[Input], options: &Options) -> Result<Summary, Error> {
    if options.in_place {
        return run_in_place(inputs, options);
    }
    check_inputs_exist(inputs)?;
    let path = options.output.as_deref().filter(|p| p.as_os_str() != "-");
    crate::error::check_pgn_outputs("convert", path.as_slice())?;
    crate::error::check_outputs_apart_from_inputs(path.as_slice(), inputs)?;
    let name = output_name(path);
    let out = Output::create(path)
        .map_err(|e| Error::writing(&name, e))?
        .cancelled_by(options.run.cancel.clone());
    convert_into(inputs, out, &name, options)
}

/// [`run`] with [`Options::in_place`].
fn run_in_place(inputs: &[Input], options: &Options) -> Result<Summary, Error> {
    let paths = in_place_paths(inputs)?;
    let mut total = Summary {
        games: 0,
        converted: 0,
        unchanged: 0,
    };
    for path in paths {
        let name = path.display().to_string();
        let out = Output::in_place(path)
            .map_err(|e| Error::writing(&name, e))?
            .cancelled_by(options.run.cancel.clone());
        let one = convert_into(&[Input::File(path.to_path_buf())], out, &name, options)?;
        total.games += one.games;
        total.converted += one.converted;
        total.unchanged += one.unchanged;
    }
    Ok(total)
}

/// The files `--in-place` rewrites, checked before any is touched: each must
/// be a regular file (not standard input, not a zip archive), and none may
/// be named twice (by two spellings or a link).
#[doc(hidden)] // for the command line and the Python binding
pub fn in_place_paths(inputs: &[Input]) -> Result<Vec<&std::path::Path>, Error> {
    check_inputs_exist(inputs)?;
    let mut paths = Vec::with_capacity(inputs.len());
    for input in inputs {
        let Input::File(path) = input else {
            return Err(crate::error::Usage::InPlaceStdin.into());
        };
        match crate::pipeline::output::in_place_compression(path) {
            Ok(_) => paths.push(path.as_path()),
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => {
                return Err(crate::error::Usage::InPlaceFormat {
                    path: path.to_path_buf(),
                    reason: e,
                }
                .into());
            }
            Err(e) => {
                return Err(Error::Io {
                    file: path.display().to_string(),
                    error: e,
                });
            }
        }
    }
    // A file named twice (`g.pgn ./g.pgn`, a link to it) would be rewritten
    // twice: two outputs of one run that are one file.
    match crate::error::check_distinct_outputs(&paths) {
        Err(Error::Usage(crate::error::Usage::SameOutput { both })) => {
            Err(crate::error::Usage::InPlaceTwice { both }.into())
        }
        other => other.map(|()| paths),
    }
}

/// Converts `inputs` into `out` (named `name` in messages) and commits it.
fn convert_into(
    inputs: &[Input],
    out: Output,
    name: &str,
    options: &Options,
) -> Result<Summary, Error> {
    let job = ConvertJob {
        dialect: options.to,
        ep: options.ep,
        repair: options.repair,
    };
    let report = options.run.notes || options.report_unchanged;
    let mut sink = EditingSink::new(out, !report).notes_to(options.run.watch.clone());
    let games = pipeline::run(inputs, &job, &mut sink, &options.run)?;
    let (converted, unchanged) = (sink.converted, sink.unchanged);
    sink.into_inner()
        .commit_unless(options.run.cancel.as_deref())
        .map_err(|e| Error::writing(name, e))?;
    Ok(Summary {
        games,
        converted,
        unchanged,
    })
}

#[cfg(test)]
mod tests {
    use super::job::*;
    use super::*;

    fn apply(input: &[u8], edits: Vec<Edit>, pieces: usize) -> Vec<u8> {
        let mut sink = EditingSink::new(Vec::new(), true);
        sink.edits.extend(edits);
        for (i, piece) in input.chunks(pieces).enumerate() {
            sink.bytes((i * pieces) as u64, piece).unwrap();
        }
        sink.into_inner()
    }

    fn fen_tag(line: &'static [u8], line_start: u64) -> HeaderTag<'static> {
        let value_column = line.windows(5).position(|w| w == b"FEN \"").unwrap() + 5;
        HeaderTag {
            name: TagName::Fen,
            raw: b"",
            line: 1,
            line_text: line,
            value_column,
            column_base: 0,
            value_offset: line_start + value_column as u64,
            complete: true,
            line_end: b"\r\n",
        }
    }

    #[test]
    fn setup_goes_directly_before_the_fen_tag() {
        let e = insertion_before(&fen_tag(b"  [FEN \"x\"]", 100), b"[SetUp \"1\"]", b"\r\n");
        assert_eq!(
            (e.offset, e.insert.as_slice()),
            (100, &b"[SetUp \"1\"]\r\n"[..])
        );
        let e = insertion_before(
            &fen_tag(b"[Event \"y\"] [FEN \"x\"]", 100),
            b"[SetUp \"1\"]",
            b"\r\n",
        );
        assert_eq!(
            (e.offset, e.insert.as_slice()),
            (112, &b"[SetUp \"1\"] "[..])
        );
    }

    /// The tag named `name` on `line` (line number `number`), its value `raw`.
    fn tag_on(
        line: &'static [u8],
        number: u64,
        name: &str,
        raw: &'static [u8],
    ) -> HeaderTag<'static> {
        let opening = format!("{name} \"");
        let value_column = line
            .windows(opening.len())
            .position(|w| w == opening.as_bytes())
            .unwrap()
            + opening.len();
        HeaderTag {
            name: if name == "FEN" {
                TagName::Fen
            } else {
                TagName::SetUp
            },
            raw,
            line: number,
            line_text: line,
            value_column,
            column_base: 0,
            value_offset: 1000 * number + value_column as u64,
            complete: true,
            line_end: b"\n",
        }
    }

    #[test]
    fn setup_is_just_before_fen_only_with_blanks_and_one_line_end_between() {
        let adjacent = |a: (&'static [u8], u64), b: (&'static [u8], u64)| {
            pair_just_before(
                &tag_on(a.0, a.1, "SetUp", b"1"),
                &tag_on(b.0, b.1, "FEN", b"x"),
            )
        };
        let (setup, fen) = (&b"[SetUp \"1\"]"[..], &b"[FEN \"x\"]"[..]);
        assert!(adjacent((setup, 2), (fen, 3)));
        assert!(adjacent((b"[SetUp \"1\" ] \t", 2), (b" [FEN \"x\"]", 3)));
        let both: &'static [u8] = b"[Event \"a\"] [SetUp \"1\"]  [FEN \"x\"]";
        assert!(adjacent((both, 2), (both, 2)));
        // Another tag, line or text between them.
        assert!(!adjacent((setup, 2), (fen, 4)));
        let between: &'static [u8] = b"[SetUp \"1\"] [White \"x\"] [FEN \"x\"]";
        assert!(!adjacent((between, 2), (between, 2)));
        assert!(!adjacent((b"[SetUp \"1\"] [White \"x\"]", 2), (fen, 3)));
        assert!(!adjacent((setup, 2), (b"[White \"x\"] [FEN \"x\"]", 3)));
    }

    #[test]
    fn long_inserts_apply_across_pieces() {
        // Longer than an edit holds in itself on the merger.
        let long = vec![b'x'; 300];
        let input = b"[FEN \"abc\"]\n1. e4 *\n";
        let edit = Edit {
            offset: 6,
            remove: 3,
            insert: Inserted::from_slice(&long),
            end_line: false,
        };
        let mut expected = b"[FEN \"".to_vec();
        expected.extend_from_slice(&long);
        expected.extend_from_slice(b"\"]\n1. e4 *\n");
        for pieces in [1, 5, 100] {
            assert_eq!(apply(input, vec![edit.clone()], pieces), expected);
        }
    }

    #[test]
    fn an_inserted_line_ends_as_the_line_before_when_asked() {
        // A tag inserted before the input's last line, which has no line end
        // to copy: the sink ends it as the bytes before it end, whichever
        // piece (chunk) they came in.
        for eol in ["\r\n", "\n", "\r"] {
            let input = format!("[Event \"x\"]{eol}[FEN \"abc\"]");
            let at = input.find("[FEN").unwrap() as u64;
            let edit = Edit {
                offset: at,
                remove: 0,
                insert: Inserted::from_slice(b"[SetUp \"1\"]"),
                end_line: true,
            };
            let expected = format!("[Event \"x\"]{eol}[SetUp \"1\"]{eol}[FEN \"abc\"]");
            for pieces in [1, 2, 3, at as usize, at as usize - 1, 100] {
                assert_eq!(
                    apply(input.as_bytes(), vec![edit.clone()], pieces),
                    expected.as_bytes(),
                    "{eol:?} {pieces}"
                );
            }
        }
        // Nothing before it: a line feed.
        let edit = Edit {
            offset: 0,
            remove: 0,
            insert: Inserted::from_slice(b"[SetUp \"1\"]"),
            end_line: true,
        };
        assert_eq!(
            apply(b"[FEN \"abc\"]", vec![edit], 4),
            b"[SetUp \"1\"]\n[FEN \"abc\"]"
        );
    }

    #[test]
    fn edits_apply_across_pieces() {
        let input = b"[FEN \"abc\"]\n1. e4 *\n";
        let edits = vec![
            Edit {
                offset: 0,
                remove: 0,
                insert: Inserted::from_slice(b"[SetUp \"1\"]\n"),
                end_line: false,
            },
            Edit {
                offset: 6,
                remove: 3,
                insert: Inserted::from_slice(b"XYZW"),
                end_line: false,
            },
        ];
        for pieces in [1, 2, 3, 7, 100] {
            assert_eq!(
                apply(input, edits.clone(), pieces),
                b"[SetUp \"1\"]\n[FEN \"XYZW\"]\n1. e4 *\n"
            );
        }
    }

    #[test]
    fn an_output_among_several_inputs_is_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
        std::fs::write(&a, "[Event \"a\"]\n\n*\n\n").unwrap();
        std::fs::write(&b, "[Event \"b\"]\n\n*\n\n").unwrap();
        let options = Options {
            output: Some(a.clone()),
            ..Options::new(Dialect::Shredder)
        };
        let both = [Input::File(a.clone()), Input::File(b)];
        let e = run(&both, &options).unwrap_err();
        assert!(
            matches!(&e, Error::Usage(crate::Usage::OutputAmongInputs { .. })),
            "{e:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&a).unwrap(),
            "[Event \"a\"]\n\n*\n\n"
        );
        // Alone, the input is read before it is replaced.
        assert_eq!(run(&both[..1], &options).unwrap().games, 1);
        assert_eq!(
            std::fs::read_to_string(&a).unwrap(),
            "[Event \"a\"]\n\n*\n\n"
        );
    }
}
