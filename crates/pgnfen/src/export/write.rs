//! Writing the record batches of an export: Parquet (zstd-compressed column
//! chunks, row groups of bounded size), CSV or JSON lines, to an [`Output`]
//! (a temporary file renamed into place when everything was written).

use std::io::{self, Write};
use std::path::Path;

use arrow_array::RecordBatch;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;

use super::text::{Csv, JsonLines};
use super::{Batches, Error, Summary};
use crate::pipeline::output::{Output, WriteError};

/// Rows per Parquet row group. The writer keeps a row group's encoded pages
/// in memory until it is complete, so this bounds the writer's memory (about
/// 10–30 MiB for lichess-like headers); readers such as DuckDB read row groups
/// in parallel, so a large archive still has many.
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// Bytes the writer may hold for the row group in progress (its
/// [`ArrowWriter::memory_size`]: pages encoded and not yet written) before the
/// row group is ended early: a row group of long, incompressible values
/// (hostile headers) would otherwise hold up to [`ROW_GROUP_ROWS`] of them.
/// The row groups of the benchmark archive stay under 6 MB, so they end by
/// rows (and the output's bytes do not change); headers with many tags
/// beyond the columns (ChessBase files: 15 more per game) reach 8 MiB first.
/// 16 MiB until 2026-11-30: such headers then peaked 10 MiB higher.
pub const ROW_GROUP_BYTES: usize = 8 << 20;

/// Parquet leaf columns of the default export, for which a row group holds
/// [`ROW_GROUP_ROWS`] rows (see [`row_group_rows`]).
const DEFAULT_LEAVES: usize = 30;

/// Rows per row group for a schema of `leaves` Parquet columns:
/// [`ROW_GROUP_ROWS`] up to the default columns' number, proportionally more
/// beyond. The writer keeps the metadata of every column chunk written (about
/// 1.3 KiB each, with its page offsets) until the footer, so memory grows
/// with row groups times columns: about a quarter of a byte a game with the
/// default columns; with 256 tag columns and row groups of 131,072 rows,
/// three bytes (129 MiB for 19 million games; 103 MiB with this scaling;
/// 2026-12-05); with row groups of 4,000 rows and 1,000 columns (until
/// 2026-11-29), 250 bytes. The memory of the row group in progress is
/// bounded by [`ROW_GROUP_BYTES`] whatever its rows.
fn row_group_rows(leaves: usize) -> usize {
    ROW_GROUP_ROWS * leaves.div_ceil(DEFAULT_LEAVES).max(1)
}

/// Parquet leaf columns of an Arrow schema of the export (a map has two).
fn leaves(schema: &arrow_schema::Schema) -> usize {
    use arrow_schema::DataType;
    schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Map(..) => 2,
            _ => 1,
        })
        .sum()
}

/// zstd level of the Parquet column chunks: level 1, as for `.zst` outputs.
/// Level 3 (zstd's default) made files 2 % smaller but `export` 5–13 % slower
/// (paired runs on the 1 GB benchmark archive, 2026-11-28): zstd was the
/// Parquet writer's largest cost, a tenth of the run's CPU.
pub const ZSTD_LEVEL: i32 = 1;

/// Columns whose values repeat a lot in any archive, so that a dictionary
/// page pays off: their pages hold small indices into it, and readers group by
/// them quickly. Other string columns (names, sites, FENs, times) are mostly
/// distinct per game; building a dictionary for them cost about 0.5 s of CPU
/// per GiB of PGN in the benchmark and did not make the file smaller.
const DICTIONARY: [&str; 14] = [
    "file",
    "class",
    "speed",
    "variant",
    "Event",
    "Result",
    "ECO",
    "Opening",
    "TimeControl",
    "Termination",
    "Date",
    "UTCDate",
    "Round",
    "SetUp",
];

/// The integer columns that grow from row to row (`game`, `offset`, `line`)
/// or stay small (`length`): written as differences (DELTA_BINARY_PACKED),
/// their pages are a few bits per row instead of 8 bytes. As plain integers
/// they were nearly half the bytes zstd compressed (78 of 165 MB on the 1 GB
/// benchmark archive).
const DELTA: [&str; 4] = ["game", "offset", "length", "line"];

/// Columns that keep min/max statistics besides the integer columns: readers
/// skip row groups by them (`where Date >= '2024'`). Min/max of the other
/// string columns cost CPU for every value and are rarely of use.
const STATISTICS: [&str; 4] = ["class", "Date", "UTCDate", "Event"];

/// The Parquet writer's settings for this schema (see [`DICTIONARY`],
/// [`STATISTICS`], [`row_group_rows`], [`ZSTD_LEVEL`]).
fn properties(
    schema: &arrow_schema::Schema,
) -> Result<WriterProperties, parquet::errors::ParquetError> {
    use arrow_schema::DataType;
    use parquet::file::properties::EnabledStatistics;
    use parquet::schema::types::ColumnPath;
    let path = |parts: &[&str]| ColumnPath::new(parts.iter().map(|p| p.to_string()).collect());
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL)?))
        .set_max_row_group_row_count(Some(row_group_rows(leaves(schema))))
        .set_created_by(format!("pgnfen {}", env!("CARGO_PKG_VERSION")))
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::Chunk);
    for field in schema.fields() {
        let name = field.name().as_str();
        match field.data_type() {
            DataType::Utf8 => {
                if DICTIONARY.contains(&name) {
                    props = props.set_column_dictionary_enabled(path(&[name]), true);
                }
                if !STATISTICS.contains(&name) {
                    props =
                        props.set_column_statistics_enabled(path(&[name]), EnabledStatistics::None);
                }
            }
            // The problem codes and the other tags' names repeat: dictionaries.
            DataType::List(_) => {
                props = props
                    .set_column_dictionary_enabled(path(&[name, "list", "item"]), true)
                    .set_column_statistics_enabled(
                        path(&[name, "list", "item"]),
                        EnabledStatistics::None,
                    );
            }
            DataType::Map(..) => {
                for leaf in ["key", "value"] {
                    props = props
                        .set_column_dictionary_enabled(
                            path(&[name, "entries", leaf]),
                            leaf == "key",
                        )
                        .set_column_statistics_enabled(
                            path(&[name, "entries", leaf]),
                            EnabledStatistics::None,
                        );
                }
            }
            DataType::Int64 if DELTA.contains(&name) => {
                props = props.set_column_encoding(path(&[name]), Encoding::DELTA_BINARY_PACKED);
            }
            _ => {}
        }
    }
    Ok(props.build())
}

/// The file formats of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Apache Parquet (`.parquet`).
    Parquet,
    /// Comma-separated values (`.csv`).
    Csv,
    /// JSON lines (`.jsonl`).
    Jsonl,
}

impl Format {
    /// Every format, in the order `--format` lists them.
    pub const ALL: [Format; 3] = [Format::Parquet, Format::Csv, Format::Jsonl];

    /// The format's name, as `--format` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
        }
    }

    /// The format an output's name asks for: `.parquet`, `.csv`, `.jsonl`
    /// (or `.ndjson`), the last two also with a compression ending (`.csv.zst`,
    /// `.jsonl.xz`).
    pub fn from_path(path: &Path) -> Option<Format> {
        // The name's bytes: a name need not be UTF-8 for its ending to be.
        let name = path.file_name()?.as_encoded_bytes().to_ascii_lowercase();
        // The ending of a compression (one pgnfen writes, or one it names in
        // a refusal when the output is made) is not the format's.
        let base = match compression_of(path) {
            Ok(crate::pipeline::Compression::None) => &name[..],
            _ => name
                .iter()
                .rposition(|&b| b == b'.')
                .map_or(&name[..], |dot| &name[..dot]),
        };
        if base.ends_with(b".parquet") {
            // A compressed Parquet file is no Parquet file for any reader:
            // `check_output` refuses the combination.
            return Some(Format::Parquet);
        }
        if base.ends_with(b".csv") {
            return Some(Format::Csv);
        }
        if base.ends_with(b".jsonl") || base.ends_with(b".ndjson") {
            return Some(Format::Jsonl);
        }
        None
    }

    /// The format of an output: its name's ([`Format::from_path`]), else JSON
    /// lines when it is a device or a pipe (`/dev/stdout`, a shell's
    /// `>(gzip > x.gz)`), which has no ending to go by, as standard output
    /// gets JSON lines; `None` for any other name without a known ending.
    pub fn of_output(path: &Path) -> Option<Format> {
        Format::from_path(path).or_else(|| {
            std::fs::metadata(path)
                .is_ok_and(|m| !m.is_file() && !m.is_dir())
                .then_some(Format::Jsonl)
        })
    }
}

impl std::fmt::Display for Format {
    /// Its name, as [`Format::as_str`] writes it and `parse` reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Format {
    type Err = crate::ParseNameError;

    /// `parquet`, `csv` or `jsonl`, as `--format` takes them.
    fn from_str(s: &str) -> Result<Format, crate::ParseNameError> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| crate::ParseNameError::new("format", s, Some("parquet, csv or jsonl")))
    }
}

impl Format {
    /// Whether this format can be written to `path`: Parquet compresses its
    /// column chunks itself, and a `.parquet.gz` would be a file no reader
    /// opens.
    pub fn check_output(self, path: Option<&Path>) -> Result<(), CompressedParquet> {
        check_output(self, path)
    }
}

impl Format {
    /// Whether `path`'s name asks for another format than this one
    /// (`--format jsonl -o x.parquet`): a table under a name that says
    /// Parquet, CSV or JSON lines is read by that name, and a reader of the
    /// other format fails on its first bytes. A name without a known ending
    /// (`x.txt`, `-`, a pipe) takes any format.
    pub fn check_name(self, path: Option<&Path>) -> Result<(), FormatMismatch> {
        let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
            return Ok(());
        };
        match Format::from_path(path) {
            Some(named) if named != self => Err(FormatMismatch {
                path: path.to_path_buf(),
                named,
                given: self,
            }),
            _ => Ok(()),
        }
    }

    /// The format's name in a sentence: Parquet, CSV, JSON lines.
    fn title(self) -> &'static str {
        match self {
            Format::Parquet => "Parquet",
            Format::Csv => "CSV",
            Format::Jsonl => "JSON lines",
        }
    }
}

/// An output whose name asks for another format than the one given
/// ([`Format::check_name`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {}", path.display(), self.advice())]
pub struct FormatMismatch {
    path: std::path::PathBuf,
    named: Format,
    given: Format,
}

impl FormatMismatch {
    /// The output's name, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The format the name asks for.
    pub fn named(&self) -> Format {
        self.named
    }

    /// The format given.
    pub fn given(&self) -> Format {
        self.given
    }

    /// The message without the output's name: the two formats, and the
    /// name that would fit (its compression ending kept unless the format
    /// given is Parquet, which compresses inside).
    pub fn advice(&self) -> String {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (base, ending) = crate::pipeline::Compression::split_written_ending(&name);
        let stem = base.rfind('.').map_or(base, |dot| &base[..dot]);
        let kept = if self.given == Format::Parquet {
            ""
        } else {
            ending
        };
        let fitting = self
            .path
            .with_file_name(format!("{stem}.{}{kept}", self.given.as_str()));
        format!(
            "the name asks for {} but the format given is {}; name it {}, or leave the format to the name",
            self.named.title(),
            self.given.title(),
            fitting.display()
        )
    }
}

/// A Parquet output whose name asks for a compression too
/// ([`Format::check_output`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {}", path.display(), self.advice())]
pub struct CompressedParquet {
    path: std::path::PathBuf,
}

impl CompressedParquet {
    /// The output's name, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The message without the output's name: why, and what to write.
    pub fn advice(&self) -> String {
        format!(
            "Parquet files are compressed inside (zstd column chunks); write {} without the compression ending",
            self.path.with_extension("").display()
        )
    }
}

/// The compression an output's name asks for, as every output reads it.
fn compression_of(
    path: &Path,
) -> Result<crate::pipeline::Compression, crate::pipeline::UnwritableEnding> {
    crate::pipeline::Compression::for_output(path)
}

pub(crate) fn check_output(format: Format, path: Option<&Path>) -> Result<(), CompressedParquet> {
    let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
        return Ok(());
    };
    let compressed = !matches!(compression_of(path), Ok(crate::pipeline::Compression::None));
    if format == Format::Parquet && compressed {
        return Err(CompressedParquet {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// A write error that names the output.
fn named(output_name: &str, e: io::Error) -> Error {
    if e.get_ref().is_some_and(|r| r.is::<WriteError>()) {
        return Error::Write(e);
    }
    Error::Write(io::Error::new(
        e.kind(),
        WriteError {
            file: output_name.to_string(),
            error: e,
        },
    ))
}

/// A Parquet error as an I/O error (the I/O error it wraps when it is one).
fn parquet_error(e: parquet::errors::ParquetError) -> io::Error {
    match e {
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<io::Error>() {
            Ok(io) => *io,
            Err(other) => io::Error::other(other),
        },
        other => io::Error::other(other),
    }
}

/// Rows of a text batch written between two looks at the cancellation flag
/// (about 50 ms through bzip2, the slowest compressor).
const TEXT_SLICE_ROWS: usize = 1024;

/// A batch as slices of [`TEXT_SLICE_ROWS`] rows (views, no copy).
fn slices(batch: &RecordBatch) -> impl Iterator<Item = RecordBatch> + '_ {
    (0..batch.num_rows())
        .step_by(TEXT_SLICE_ROWS)
        .map(|start| batch.slice(start, TEXT_SLICE_ROWS.min(batch.num_rows() - start)))
}

/// Writes every batch to `output` in `format` and commits it (renamed into
/// place) when the run succeeded; on an error the output is dropped, so a
/// file output leaves nothing behind. CSV cells are escaped unless the export
/// was started with [`ExportOptions::csv_raw`](super::ExportOptions::csv_raw).
///
/// Every step's error converts into [`crate::Error`] with `?`:
///
/// ```
/// use std::path::Path;
/// use pgnfen::export::{self, ExportOptions, Format};
/// use pgnfen::pipeline::{Input, Options, output::Output};
///
/// fn to_parquet(input: &Path, path: &Path) -> Result<u64, pgnfen::Error> {
///     let inputs = [Input::from_arg(input)];
///     let (options, run) = (ExportOptions::default(), Options::new(2));
///     let format = Format::from_path(path).unwrap_or(Format::Parquet);
///     format.check_output(Some(path))?; // x.parquet.zst: no reader opens it
///     format.check_name(Some(path))?; // a name of another format
///     let columns = export::columns(&inputs, &options, &run)?;
///     let batches = export::batches(&inputs, columns, &options, &run);
///     let output = Output::create(Some(path)).map_err(|error| pgnfen::Error::Io {
///         file: path.display().to_string(),
///         error,
///     })?;
///     Ok(export::write(batches, format, output)?.rows)
/// }
/// # let dir = tempfile::tempdir()?;
/// # let pgn = dir.path().join("g.pgn");
/// # std::fs::write(&pgn, "[Event \"a\"]\n\n1. e4 *\n")?;
/// assert_eq!(to_parquet(&pgn, &dir.path().join("h.parquet"))?, 1);
/// let refused = to_parquet(&pgn, &dir.path().join("h.parquet.zst")).unwrap_err();
/// assert!(matches!(refused, pgnfen::Error::Usage(_)), "{refused}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Parquet into a compressing output (`h.parquet.zst`) is refused with
/// [`CompressedParquet`]'s message, and nothing is written: no Parquet
/// reader opens such a file. ([`Format::check_output`] says so from the
/// name alone, before any work.)
pub fn write(mut batches: Batches, format: Format, output: Output) -> Result<Summary, Error> {
    let csv_raw = batches.csv_raw;
    let name = output.name().to_string();
    if format == Format::Parquet && output.is_compressed() {
        let refused = CompressedParquet {
            path: name.clone().into(),
        };
        return Err(Error::Write(io::Error::new(
            io::ErrorKind::InvalidInput,
            refused,
        )));
    }
    // A cancelled run (Ctrl-C in Python) stops feeding batches at its next
    // chunk, but the batches already made would still be written: a text
    // batch through bzip2 or xz takes a second or two. So the flag is looked
    // at between batches, and between slices of a text batch.
    let cancel = batches.cancel.clone();
    let cancelled = || {
        if cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
        {
            Err(named(&name, crate::pipeline::cancelled()))
        } else {
            Ok(())
        }
    };
    let schema = batches.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let output = match format {
        Format::Parquet => {
            let props = properties(&schema).map_err(|e| named(&name, parquet_error(e)))?;
            let mut writer = ArrowWriter::try_new(output, schema.clone(), Some(props))
                .map_err(|e| named(&name, parquet_error(e)))?;
            for batch in batches.by_ref() {
                let batch = batch?;
                cancelled()?;
                writer
                    .write(&batch)
                    .map_err(|e| named(&name, parquet_error(e)))?;
                // The writer holds a row group's pages until it is complete.
                if writer.memory_size() >= ROW_GROUP_BYTES {
                    writer.flush().map_err(|e| named(&name, parquet_error(e)))?;
                }
            }
            writer
                .into_inner()
                .map_err(|e| named(&name, parquet_error(e)))?
        }
        Format::Csv => {
            let mut csv = Csv::with_raw(output, &names, csv_raw).map_err(|e| named(&name, e))?;
            for batch in batches.by_ref() {
                for part in slices(&batch?) {
                    cancelled()?;
                    csv.write_batch(&part).map_err(|e| named(&name, e))?;
                }
            }
            csv.into_inner().map_err(|e| named(&name, e))?
        }
        Format::Jsonl => {
            let mut jsonl = JsonLines::new(output, &names);
            for batch in batches.by_ref() {
                for part in slices(&batch?) {
                    cancelled()?;
                    jsonl.write_batch(&part).map_err(|e| named(&name, e))?;
                }
            }
            jsonl.into_inner()
        }
    };
    let summary = batches.summary().unwrap_or_default();
    let mut output = output;
    output.flush().map_err(|e| named(&name, e))?;
    output
        .commit_unless(batches.cancel.as_deref())
        .map_err(|e| named(&name, e))?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::Columns;
    use parquet::arrow::ArrowSchemaConverter;

    #[test]
    fn parquet_into_a_compressing_output_is_refused() {
        use crate::export::{ExportOptions, batches, columns};
        use crate::pipeline::{Input, Options};
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.pgn");
        std::fs::write(&input, b"[Event \"a\"]\n\n1. e4 *\n").unwrap();
        let inputs = [Input::from_arg(&input)];
        let (options, run) = (ExportOptions::default(), Options::new(1));
        let to = |out: &Path| {
            let rows = batches(
                &inputs,
                columns(&inputs, &options, &run).unwrap(),
                &options,
                &run,
            );
            write(rows, Format::Parquet, Output::create(Some(out)).unwrap())
        };
        let out = dir.path().join("h.parquet.zst");
        let e = to(&out).unwrap_err();
        let expected = format!(
            "{}: Parquet files are compressed inside (zstd column chunks); \
             write {} without the compression ending",
            out.display(),
            out.with_extension("").display()
        );
        assert_eq!(e.to_string(), expected);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "only the input"
        );
        // Into a plain file it is written.
        let out = dir.path().join("h.parquet");
        let summary = to(&out).unwrap();
        assert_eq!(summary.rows, 1);
        assert_eq!(&std::fs::read(&out).unwrap()[..4], b"PAR1");
    }

    #[test]
    fn row_groups_grow_with_the_columns_beyond_the_default() {
        // The default columns keep their row groups (and so their bytes).
        let schema = Columns::default_tags().schema();
        let parquet = ArrowSchemaConverter::new().convert(&schema).unwrap();
        assert_eq!(leaves(&schema), parquet.num_columns());
        assert_eq!(leaves(&schema), DEFAULT_LEAVES);
        assert_eq!(row_group_rows(leaves(&schema)), ROW_GROUP_ROWS);
        assert_eq!(row_group_rows(0), ROW_GROUP_ROWS);
        assert_eq!(row_group_rows(DEFAULT_LEAVES + 1), 2 * ROW_GROUP_ROWS);
        assert_eq!(row_group_rows(271), 10 * ROW_GROUP_ROWS);
    }

    #[test]
    fn devices_and_pipes_get_json_lines() {
        let dir = tempfile::tempdir().unwrap();
        let f = |p: &Path| Format::of_output(p);
        assert_eq!(f(Path::new("/dev/null")), Some(Format::Jsonl));
        // A name's ending wins; a file or a folder without one has no format.
        assert_eq!(f(Path::new("/dev/x.csv")), Some(Format::Csv));
        let file = dir.path().join("out");
        std::fs::write(&file, b"").unwrap();
        assert_eq!(f(&file), None);
        assert_eq!(f(dir.path()), None);
        assert_eq!(f(&dir.path().join("missing")), None);
    }

    #[test]
    fn formats_from_names() {
        let f = |s: &str| Format::from_path(Path::new(s));
        assert_eq!(f("a.parquet"), Some(Format::Parquet));
        assert_eq!(f("A.PARQUET"), Some(Format::Parquet));
        assert_eq!(f("a.csv"), Some(Format::Csv));
        assert_eq!(f("a.csv.zst"), Some(Format::Csv));
        assert_eq!(f("a.csv.xz"), Some(Format::Csv));
        assert_eq!(f("a.ndjson.XZ"), Some(Format::Jsonl));
        assert_eq!(f("a.jsonl.bz2"), Some(Format::Jsonl));
        // A compression pgnfen does not write: the format still shows, and
        // making the output names the ending it refuses.
        assert_eq!(f("a.csv.lz4"), Some(Format::Csv));
        assert_eq!(f("dir/a.jsonl.gz"), Some(Format::Jsonl));
        assert_eq!(f("a.ndjson"), Some(Format::Jsonl));
        assert_eq!(f("a.txt"), None);
        // A name that is not UTF-8 has its ending all the same.
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let g = |b: &[u8]| Format::from_path(Path::new(std::ffi::OsStr::from_bytes(b)));
            assert_eq!(g(b"e\xe9.csv"), Some(Format::Csv));
            assert_eq!(g(b"\xe9.PARQUET"), Some(Format::Parquet));
            assert_eq!(g(b"e\xe9.jsonl.gz"), Some(Format::Jsonl));
            assert_eq!(g(b"e\xe9.txt"), None);
        }
        assert_eq!(f("a.pgn.zst"), None);
        let refused = check_output(Format::Parquet, Some(Path::new("a.parquet.zst"))).unwrap_err();
        assert_eq!(refused.path(), Path::new("a.parquet.zst"));
        assert_eq!(
            refused.to_string(),
            "a.parquet.zst: Parquet files are compressed inside (zstd column chunks); \
             write a.parquet without the compression ending"
        );
        assert!(check_output(Format::Parquet, Some(Path::new("a.parquet.xz"))).is_err());
        assert!(check_output(Format::Parquet, Some(Path::new("a.parquet"))).is_ok());
        assert!(check_output(Format::Csv, Some(Path::new("a.csv.zst"))).is_ok());
    }

    #[test]
    fn a_format_reads_back_its_name() {
        for format in Format::ALL {
            assert_eq!(format.to_string().parse::<Format>(), Ok(format));
        }
        let e = "xlsx".parse::<Format>().unwrap_err().to_string();
        assert!(
            e.contains("xlsx") && e.contains("parquet, csv or jsonl"),
            "{e}"
        );
    }

    #[test]
    fn a_name_of_another_format_is_refused_with_the_name_that_fits() {
        let refused =
            |f: Format, p: &str| f.check_name(Some(Path::new(p))).unwrap_err().to_string();
        assert_eq!(
            refused(Format::Jsonl, "out/x.parquet"),
            "out/x.parquet: the name asks for Parquet but the format given is JSON lines; \
             name it out/x.jsonl, or leave the format to the name"
        );
        assert!(refused(Format::Csv, "x.jsonl.zst").contains("name it x.csv.zst,"));
        assert!(refused(Format::Parquet, "x.CSV.gz").contains("asks for CSV"));
        assert!(refused(Format::Parquet, "x.CSV.gz").contains("name it x.parquet,"));
        assert!(refused(Format::Parquet, "x.csv.gz").contains("name it x.parquet,"));
        assert!(refused(Format::Jsonl, "x.csv").contains("name it x.jsonl,"));
        // Names that say nothing, or say the same, take the format given.
        for (format, name) in [
            (Format::Csv, "x.txt"),
            (Format::Jsonl, "-"),
            (Format::Jsonl, "x.ndjson.gz"),
            (Format::Parquet, "x.parquet"),
            (Format::Csv, "x"),
        ] {
            assert!(format.check_name(Some(Path::new(name))).is_ok(), "{name}");
        }
        assert!(Format::Csv.check_name(None).is_ok());
    }
}
