//! `pgnfen export`: flags → `pgnfen::export` (the library does the work).

use pgnfen::export::{self, ExportOptions, Format, TagColumns};
use pgnfen::pipeline::output::Output;

use crate::cli::{ExportArgs, ExportFormat, Global};
use crate::commands::{
    Error, Outcome, check_inputs_exist, inputs, options_streaming, refuse_streams_among_inputs,
};
use crate::format::thousands;

/// The format: `--format`, else `-o`'s ending, else JSON lines (on standard
/// output, a device or a pipe).
fn format(args: &ExportArgs) -> Result<Format, Error> {
    let output = args.output.as_deref().filter(|p| p.as_os_str() != "-");
    let format = match (args.format, output) {
        (Some(ExportFormat::Parquet), _) => Format::Parquet,
        (Some(ExportFormat::Csv), _) => Format::Csv,
        (Some(ExportFormat::Jsonl), _) => Format::Jsonl,
        (None, Some(path)) => Format::of_output(path).ok_or_else(|| {
            Error::usage(format!(
                "export: cannot tell the format from the name {} (end it in .parquet, .csv or .jsonl, or give --format)",
                path.display()
            ))
        })?,
        (None, None) => Format::Jsonl,
    };
    format
        .check_output(output)
        .map_err(|e| Error::usage(e.to_string()))?;
    format
        .check_name(output)
        .map_err(|e| Error::usage(e.to_string()))?;
    if args.csv_raw && format != Format::Csv {
        return Err(Error::usage(format!(
            "export: --csv-raw is for CSV, and this export writes {}",
            format.as_str()
        )));
    }
    Ok(format)
}

fn parquet_on_a_terminal() -> Error {
    Error::usage("export: Parquet is binary; write it to a file with -o FILE.parquet (or pipe it)")
}

fn run_error(e: export::Error) -> Error {
    e.into()
}

pub fn run(global: &Global, args: &ExportArgs) -> Result<Outcome, Error> {
    let format = format(args)?;
    let tags = match &args.tags {
        None => TagColumns::Default,
        Some(arg) => TagColumns::parse(arg),
    };
    let selector = args.select.selector();
    let inputs = inputs(&args.inputs);
    let export_options = ExportOptions {
        tags,
        selector,
        encoding: args
            .encoding
            .parse()
            .map_err(|e: pgnfen::ParseNameError| Error::usage(e.to_string()))?,
        csv_raw: args.csv_raw,
        ..ExportOptions::default()
    };
    // Named columns are checked before anything is read or created.
    if let TagColumns::Named(names) = &export_options.tags {
        export::Columns::named(names).map_err(|e| Error::Usage(pgnfen::Usage::Export(e)))?;
    }
    check_inputs_exist(&inputs)?;
    refuse_streams_among_inputs(&args.inputs, &[args.output.as_deref()])?;
    let name = args
        .output
        .as_ref()
        .map_or("<stdout>".to_string(), |p| p.display().to_string());
    let output = Output::create(args.output.as_deref()).map_err(|e| Error::writing(&name, e))?;
    // Standard output, or a path that names a terminal (`-o /dev/tty`).
    if format == Format::Parquet && output.is_terminal() {
        return Err(parquet_on_a_terminal());
    }
    let pipeline = options_streaming(global, args.output.as_deref());
    let columns = export::columns(&inputs, &export_options, &pipeline).map_err(run_error)?;
    if let Some((names, at_least)) = columns.past_limit() {
        // Never silent, even under -q: these tags have no column of their own.
        say!(
            "pgnfen: warning: --tags all makes at most {} columns; {}{} went to other_tags",
            thousands(export::Columns::MAX_ALL as u64),
            if at_least { "at least " } else { "" },
            crate::format::count(names as u64, "more tag name", "more tag names"),
        );
    }
    let batches = export::batches(&inputs, columns, &export_options, &pipeline);
    let summary = export::write(batches, format, output).map_err(run_error)?;
    crate::commands::warn_unseen_tags(global, &args.select.tag, &inputs);
    if !global.quiet {
        say!(
            "pgnfen: exported {} of {} {} ({})",
            thousands(summary.rows),
            thousands(summary.games),
            if summary.games == 1 { "game" } else { "games" },
            format.as_str()
        );
    }
    if summary.dropped_pairs > 0 {
        // Never silent, even under -q: the table lacks these tags.
        say!(
            "pgnfen: warning: {} in {} {} not exported (a header beyond {} tags or {} MiB of tag text)",
            crate::format::count(summary.dropped_pairs, "tag", "tags"),
            crate::format::count(summary.games_with_dropped_pairs, "game", "games"),
            if summary.dropped_pairs == 1 {
                "was"
            } else {
                "were"
            },
            export::Summary::MAX_PAIRS,
            export::Summary::PAIR_BUDGET >> 20
        );
    }
    Ok(Outcome::Clean)
}

/// Before the run's threads start: when every input is a plain file that the
/// run maps (and `--no-mmap` is not given), [`keep_freed_memory`].
pub fn tune_allocator(global: &Global, args: &ExportArgs) {
    if !global.no_mmap
        && !args.inputs.is_empty()
        && args.inputs.iter().all(|path| is_plain_file(path))
    {
        keep_freed_memory();
    }
}

/// Has glibc's allocator keep freed blocks of up to 1 MiB for the next ones,
/// for `export`. By default its threshold moves: a freed block above 128 KiB
/// is unmapped at first, and its pages fault in again when the next one is
/// made (`export`'s column buffers and compressed pages did that thousands of
/// times a run), until the threshold has risen to the largest block freed so
/// far, after which blocks of many MiB come from the heap and leave holes
/// there that it cannot give back. A fixed 1 MiB keeps the first gain (0.962
/// of `export`'s wall time on the benchmark archive when both thresholds
/// were raised to 32 and 64 MiB, 21 paired runs; 1 MiB instead of 32 MiB:
/// 0.993, 10 pairs) without the second: the peak over 400 MB of headers
/// with 15 tags beyond the columns went from 108 to 90 MiB. The other
/// commands reuse their large buffers and gained 1 % or less: not for them.
/// Nor for an input that `export` does not map (compressed, a zip, standard
/// input, `--no-mmap`): its chunks are then buffers of the heap, a zstd
/// file's frames are decoded on every thread, and the defaults held less (a
/// zip of the plain archive: 83 MiB instead of 87, its gzip 76 instead of
/// 85).
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes two of the allocator's thresholds; it is
    // called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 64 << 20);
    }
}

/// Whether `path` is a regular file of uncompressed text, which the run maps
/// (reading a FIFO here would take its bytes from the run).
fn is_plain_file(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(16);
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && std::fs::File::open(path).is_ok_and(|f| f.take(16).read_to_end(&mut head).is_ok())
        && pgnfen::pipeline::Compression::sniff(&head) == pgnfen::pipeline::Compression::None
}
