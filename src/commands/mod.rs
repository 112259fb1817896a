//! The commands, each a thin layer over the library: flags in, the library's
//! entry point, results printed for people (or as JSON, CSV, ...).

pub mod check;
pub mod convert;
pub mod explain;
pub mod export;
pub mod fen;
pub mod filter;
pub mod index;
pub mod manual;
pub mod split;
pub mod stats;

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use pgnfen::Error;
pub use pgnfen::pipeline::check_inputs_exist;
use pgnfen::pipeline::{Input, Options, Watch};

use crate::progress::Progress;

use crate::cli::Global;

/// How a command ended, when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Exit status 0.
    Clean,
    /// Exit status 1: `check` found an error, or `fen` an invalid record.
    Problems,
}

/// The inputs named on the command line; standard input when none is. Paths
/// stay `OsStr` from the command line to `open`: a file name need not be UTF-8.
pub fn inputs(args: &[std::path::PathBuf]) -> Vec<Input> {
    if args.is_empty() {
        vec![Input::Stdin]
    } else {
        args.iter().map(Input::from_arg).collect()
    }
}

/// The pipeline options the global flags ask for, for a command that writes
/// its results to standard output only at the end (`stats`) or not at all.
pub fn options(global: &Global) -> Options {
    options_with(global, false)
}

/// The pipeline options of a command that streams its results to `output`
/// as it reads (`None` or `-`: standard output). On a terminal the progress
/// bar shows by default, but not when those results stream to the terminal
/// too: the bar's redrawing would mix with them (`check`'s diagnostics,
/// games printed by `filter`); `--progress` shows it all the same.
pub fn options_streaming(global: &Global, output: Option<&Path>) -> Options {
    let to_stdout = output.is_none_or(|p| p.as_os_str() == "-");
    options_with(global, to_stdout && io::stdout().is_terminal())
}

fn options_with(global: &Global, results_on_terminal: bool) -> Options {
    // `-j 0` is refused by the flag parser.
    let threads = global
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // `.zst` outputs are compressed on as many threads as the run has.
    pgnfen::pipeline::output::set_compression_threads(threads);
    let progress = !global.quiet
        && !global.no_progress
        && (global.progress || (io::stderr().is_terminal() && !results_on_terminal));
    Options {
        notes: !global.quiet,
        mmap: !global.no_mmap,
        watch: progress.then(|| Arc::new(Progress::default()) as Arc<dyn Watch>),
        ..Options::new(threads)
    }
}

/// Whether two files are one (device and inode: however they are named).
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// `-o FILE` with several inputs, FILE one of them, would merge every input
/// into that one file and lose what it held: a usage error, before anything
/// is read, that points to `--in-place` (what such a command line usually
/// means). With one input, `-o` naming it rewrites it, as documented.
pub fn refuse_output_among_inputs(output: Option<&Path>, args: &[PathBuf]) -> Result<(), Error> {
    let Some(output) = output else {
        return Ok(());
    };
    // Standard input counts as one of the inputs merged (`-o a.pgn a.pgn -`),
    // and the same file however it is named (`./a.pgn`, a link).
    if pgnfen::pipeline::output_among_inputs(output, &inputs(args)) {
        return Err(Error::usage(format!(
            "-o {} names one of the {} inputs: the others would be merged into it; \
             to rewrite each input to itself, use --in-place instead of -o",
            output.display(),
            args.len()
        )));
    }
    Ok(())
}

/// A standard stream that an output writes to and that is also one of the
/// inputs (`pgnfen filter a.pgn >> a.pgn`, `--rest - < ...`,
/// `-o /dev/stdout >> a.pgn`, `convert - < a.pgn >> a.pgn`): what is written would be read
/// again, and the run would grow the file until the disk is full. A usage
/// error before anything is read, as `cat` refuses "input file is output
/// file". `outputs` are the command's outputs as given: `None` is standard
/// output (no `-o`), a path is one of the standard streams when it names one
/// (`-`, `/dev/stdout`, `/dev/fd/2`); files written under a temporary name
/// are no concern. A single input that the shell's `>` emptied reads as
/// empty and is let through; with more inputs, the later ones would be read
/// after the first one's games were written into them.
pub fn refuse_streams_among_inputs(
    args: &[PathBuf],
    outputs: &[Option<&Path>],
) -> Result<(), Error> {
    let streams: Vec<std::fs::Metadata> = outputs
        .iter()
        .filter_map(|output| match output {
            None => Some(1),
            Some(p) if p.as_os_str() == "-" => Some(1),
            Some(p) => pgnfen::pipeline::output::own_descriptor(p),
        })
        .filter_map(pgnfen::pipeline::descriptor_metadata)
        .filter(std::fs::Metadata::is_file)
        .collect();
    if streams.is_empty() {
        return Ok(());
    }
    let stdin = [PathBuf::from("-")];
    let named = if args.is_empty() { &stdin[..] } else { args };
    for arg in named {
        let meta = if arg.as_os_str() == "-" {
            pgnfen::pipeline::descriptor_metadata(0)
        } else {
            std::fs::metadata(arg).ok()
        };
        let Some(meta) = meta else { continue };
        if streams.iter().any(|s| same_file(s, &meta)) && (meta.len() > 0 || named.len() > 1) {
            let what = if arg.as_os_str() == "-" {
                "standard input is the file an output writes to".to_string()
            } else {
                format!(
                    "the input {} is the file an output writes to",
                    arg.display()
                )
            };
            return Err(Error::usage(format!(
                "{what} (through standard output or a stream named as a path): pgnfen would \
                 read back what it writes; send the output to another file"
            )));
        }
    }
    Ok(())
}

/// After a run: a warning for each `--tag` whose tag no game held (most often
/// a misspelled name: `whiteelo` for `WhiteElo`), naming the closest tag name
/// that the inputs do hold. A selection on such a tag keeps no game (or every
/// game, for `!=`/`!~`) without any other sign that something is off.
pub fn warn_unseen_tags(global: &Global, exprs: &[pgnfen::select::TagExpr], inputs: &[Input]) {
    if global.quiet {
        return;
    }
    for (name, near) in pgnfen::TagExpr::unseen(exprs, inputs) {
        let warning = pgnfen::select::unseen_tag_warning(&name, near.as_deref(), "--tag");
        say!("pgnfen: warning: {warning}");
    }
}
