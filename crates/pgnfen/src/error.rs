//! The one error type of the library's entry points.

use std::io;
use std::path::{Path, PathBuf};

use crate::pipeline::output::WriteError;
use crate::pipeline::{Input, RunError};

/// Why a run failed. The command line prints it after `pgnfen: ` and exits
/// with status 2; the Python package raises `ValueError` for [`Error::Usage`]
/// and an `OSError` for the others.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad argument (an unknown class, a malformed `--tag` expression, two
    /// outputs naming one file, ...): nothing was read or written.
    #[error("{0}")]
    Usage(String),
    /// Reading an input or writing an output failed; `file` is the path as the
    /// caller gave it (never a temporary name).
    #[error("{file}: {source}")]
    Io {
        /// The input or output, as named by the caller (`<stdout>` for
        /// standard output).
        file: String,
        /// What went wrong.
        #[source]
        source: io::Error,
    },
    /// Standard output was closed (`| head`): a normal, quiet end for a
    /// command-line program.
    #[error("broken pipe")]
    BrokenPipe,
}

impl Error {
    /// An error writing to `file`, where a closed pipe is not an error.
    pub fn writing(file: &str, source: io::Error) -> Error {
        if source.kind() == io::ErrorKind::BrokenPipe {
            Error::BrokenPipe
        } else {
            Error::Io {
                file: file.to_string(),
                source,
            }
        }
    }
}

impl From<RunError> for Error {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Input(e) => Error::Io {
                file: e.file,
                source: e.source,
            },
            RunError::Sink(e) => sink_error(e),
        }
    }
}

impl From<crate::export::Error> for Error {
    fn from(e: crate::export::Error) -> Self {
        match e {
            crate::export::Error::Usage(message) => Error::Usage(format!("export: {message}")),
            crate::export::Error::Run(e) => e.into(),
            crate::export::Error::Write(e) => sink_error(e),
        }
    }
}

/// A sink's error, named by the output that failed when an [`Output`] raised
/// it (a full disk names the file).
///
/// [`Output`]: crate::pipeline::output::Output
fn sink_error(e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        return Error::BrokenPipe;
    }
    let kind = e.kind();
    if e.get_ref().is_some_and(|r| r.is::<WriteError>()) {
        // Checked just above: the downcast succeeds.
        if let Some(Ok(w)) = e.into_inner().map(|r| r.downcast::<WriteError>()) {
            return Error::Io {
                file: w.file,
                source: w.source,
            };
        }
        return Error::Io {
            file: "<output>".into(),
            source: io::Error::from(kind),
        };
    }
    Error::writing("<output>", e)
}

/// Checks every file input before any work starts, so that a missing file is
/// reported at once rather than after the others were read. Only regular
/// files are opened here: opening a FIFO would take its writer's first bytes
/// away from the real read (each input is opened once to be read).
pub fn check_inputs_exist(inputs: &[Input]) -> Result<(), Error> {
    for input in inputs {
        let Input::File(path) = input else { continue };
        let checked = std::fs::metadata(path).and_then(|meta| {
            if meta.is_dir() {
                Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "is a directory",
                ))
            } else if meta.is_file() {
                std::fs::File::open(path).map(drop)
            } else {
                Ok(())
            }
        });
        if let Err(source) = checked {
            return Err(Error::Io {
                file: input.display_name(),
                source,
            });
        }
    }
    Ok(())
}

/// Refuses two outputs of one run that are the same file, before anything is
/// read: the same path, two spellings of it, a hard link or a symbolic link to
/// it, or `-` (standard output) twice. An output may name an input.
pub(crate) fn check_distinct_outputs(outputs: &[&Path]) -> Result<(), Error> {
    let mut seen: Vec<(OutputId, &Path)> = Vec::new();
    for &path in outputs {
        let id = OutputId::of(path);
        if let Some((_, first)) = seen.iter().find(|(other, _)| *other == id) {
            let show = |p: &Path| {
                if p.as_os_str() == "-" {
                    "standard output".to_string()
                } else {
                    p.display().to_string()
                }
            };
            let both = if id == OutputId::Stdout {
                "standard output twice".to_string()
            } else {
                format!("{} and {}", show(first), show(path))
            };
            return Err(Error::Usage(format!(
                "two outputs name the same file ({both}): the second would overwrite the first"
            )));
        }
        seen.push((id, path));
    }
    Ok(())
}

/// What an output path names, for telling two outputs apart.
#[derive(Debug, PartialEq, Eq)]
enum OutputId {
    Stdout,
    /// An existing file (links followed): its device and inode.
    Inode(u64, u64),
    /// A file still to be made: its folder, resolved, and its name.
    New(PathBuf),
}

impl OutputId {
    fn of(path: &Path) -> OutputId {
        use std::os::unix::fs::MetadataExt;
        if path.as_os_str() == "-" {
            return OutputId::Stdout;
        }
        if let Ok(meta) = std::fs::metadata(path) {
            return OutputId::Inode(meta.dev(), meta.ino());
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dir = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
        OutputId::New(dir.join(path.file_name().unwrap_or_default()))
    }
}

/// The name of an output in messages: its path, or `<stdout>`.
pub(crate) fn output_name(path: Option<&Path>) -> String {
    path.map_or("<stdout>".to_string(), |p| p.display().to_string())
}
