//! Splitting an archive by class (what `pgnfen split` does): every game to
//! the file named by a template with `{class}` replaced by the game's class,
//! in one pass, byte for byte, in input order.
//!
//! Every file that may receive games is opened (under a temporary name, next
//! to its final name) before any input is read, so that a folder without
//! write permission is reported at once and nothing is written. Missing
//! folders of the template are created first (as `mkdir -p`); those left
//! empty at the end are removed again. At the end only the files that received games are moved into
//! place: the others are removed, and an existing file of that name is left
//! as it was (so six runs on six small inputs do not leave a litter of empty
//! files; the summary names the files written).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::class::Class;
use crate::error::{Error, check_inputs_exist};
use crate::filter::Selection;
use crate::pipeline::output::Output;
use crate::pipeline::{self, GameInfo, Header, Input, Job, Sink};
use crate::select::{Selector, TagExpr};

/// The placeholder a template must hold.
pub const PLACEHOLDER: &str = "{class}";

/// The file of each class: the template with `{class}` replaced (every
/// occurrence). Replaced in the template's bytes: the rest of the name need
/// not be UTF-8.
pub fn class_path(template: &Path, class: Class) -> PathBuf {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut rest = template.as_os_str().as_bytes();
    let mut path = Vec::with_capacity(rest.len() + 8);
    while let Some(at) = memchr::memmem::find(rest, PLACEHOLDER.as_bytes()) {
        path.extend_from_slice(&rest[..at]);
        path.extend_from_slice(class.as_str().as_bytes());
        rest = &rest[at + PLACEHOLDER.len()..];
    }
    path.extend_from_slice(rest);
    PathBuf::from(std::ffi::OsString::from_vec(path))
}

/// Each game's class when it is written, `None` when it is not.
struct SplitJob<'a>(&'a Selection);

impl Job for SplitJob<'_> {
    type Game = Option<Class>;

    fn game(&self, header: &Header<'_>) -> Option<Class> {
        let (class, keep) = self.0.judge(header);
        keep.then_some(class)
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.0.tags.names()
    }
}

/// A class's output and the games written to it.
struct ClassOutput {
    path: PathBuf,
    output: Output,
    games: u64,
}

struct Files {
    /// By class index; `None` for classes not written (not in `--class`).
    outputs: Vec<Option<ClassOutput>>,
    /// Where the current game's bytes go (`None`: nowhere).
    current: Option<usize>,
    /// Games not written (their class not listed, or a `--tag` did not hold).
    skipped: u64,
}

/// The destination of games that are not written.
const NOWHERE: u8 = u8::MAX;

impl Sink<Option<Class>> for Files {
    fn begin_game(&mut self, _info: &GameInfo, class: Option<Class>) -> io::Result<()> {
        self.current = class.map(Class::index);
        match self.current.and_then(|i| self.outputs[i].as_mut()) {
            Some(out) => out.games += 1,
            None => {
                self.current = None;
                self.skipped += 1;
            }
        }
        Ok(())
    }

    fn destination(&self, class: &Option<Class>) -> Option<u8> {
        Some(class.map_or(NOWHERE, |c| c.index() as u8))
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        match self.current.and_then(|i| self.outputs[i].as_mut()) {
            Some(out) => out
                .output
                .write_all(data)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", out.path.display()))),
            None => Ok(()),
        }
    }
}

/// The folders `split` created for its files, outermost first. Whatever is
/// left empty at the end (no game of the class, or a failed run, whose
/// temporary files are gone by then) is removed again, so a run leaves only
/// the folders that hold its files; a folder that existed is never touched.
#[derive(Default)]
struct CreatedFolders(Vec<PathBuf>);

impl Drop for CreatedFolders {
    fn drop(&mut self) {
        for dir in self.0.iter().rev() {
            // Fails, as it should, on a folder that holds anything.
            let _ = std::fs::remove_dir(dir);
        }
    }
}

impl CreatedFolders {
    /// Creates the folder `path` goes in and any missing folder above it, as
    /// `mkdir -p` does (checked before any input is read).
    fn make_for(&mut self, path: &Path) -> Result<(), Error> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut missing = Vec::new();
        for d in dir.ancestors().filter(|d| !d.as_os_str().is_empty()) {
            match std::fs::metadata(d) {
                Ok(meta) if meta.is_dir() => break,
                Ok(_) => {
                    return Err(Error::Usage(format!(
                        "split: cannot write {}: {} is not a folder",
                        path.display(),
                        d.display()
                    )));
                }
                Err(_) => missing.push(d),
            }
        }
        for d in missing.into_iter().rev() {
            match std::fs::create_dir(d) {
                Ok(()) => self.0.push(d.to_path_buf()),
                // Made meanwhile by someone else: theirs, not ours to remove.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
                Err(e) => {
                    return Err(Error::Usage(format!(
                        "split: cannot write {}: cannot create the folder {}: {e}",
                        path.display(),
                        d.display()
                    )));
                }
            }
        }
        Ok(())
    }
}

/// What `split` does.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The path of each class's file, with `{class}` in it (replaced by the
    /// class name; a `.gz`, `.bz2` or `.zst` ending compresses).
    pub template: PathBuf,
    /// The classes written (every class when empty).
    pub classes: Vec<Class>,
    /// Only the games for which all of these hold are written.
    pub tags: Vec<TagExpr>,
    /// Threads, progress, reading.
    pub run: pipeline::Options,
}

/// What a `split` run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// The files written, in class order, and the games each received.
    pub files: Vec<(PathBuf, u64)>,
    /// Games not written (their class not listed, or a tag expression did not hold).
    pub skipped: u64,
}

/// Writes every game of `inputs` to its class's file, in one pass.
///
/// # Errors
///
/// [`Error::Usage`] for a template without `{class}`, a malformed tag
/// expression or a folder that cannot be created, before anything is read; [`Error::Io`]
/// when an input cannot be read or a file written.
pub fn run(inputs: &[Input], options: &Options) -> Result<Summary, Error> {
    let template = options.template.as_path();
    if memchr::memmem::find(
        std::os::unix::ffi::OsStrExt::as_bytes(template.as_os_str()),
        PLACEHOLDER.as_bytes(),
    )
    .is_none()
    {
        return Err(Error::Usage(format!(
            "split: the output template {:?} has no {PLACEHOLDER}; write e.g. -o 'out/{PLACEHOLDER}.pgn'",
            template.display().to_string(),
        )));
    }
    let selection = Selection {
        classes: options.classes.clone(),
        chess960_positions: Vec::new(),
        tags: Selector::new(&options.tags),
    };
    selection.tags.validate()?;
    let written: Vec<Class> = Class::ALL
        .iter()
        .copied()
        .filter(|c| selection.classes.is_empty() || selection.classes.contains(c))
        .collect();
    check_inputs_exist(inputs)?;
    // Declared before the outputs, so dropped after them: their temporary
    // files are gone before the folders are tried for removal.
    let mut folders = CreatedFolders::default();
    for &class in &written {
        folders.make_for(&class_path(template, class))?;
    }
    let mut outputs: Vec<Option<ClassOutput>> = Class::ALL.iter().map(|_| None).collect();
    for &class in &written {
        let path = class_path(template, class);
        let output = Output::create(Some(&path))
            .map_err(|e| Error::writing(&path.display().to_string(), e))?;
        outputs[class.index()] = Some(ClassOutput {
            path,
            output,
            games: 0,
        });
    }
    let mut files = Files {
        outputs,
        current: None,
        skipped: 0,
    };
    let games = pipeline::run(inputs, &SplitJob(&selection), &mut files, &options.run)?;
    // Commit every file that received games; the others are dropped, which
    // removes their temporary files.
    let mut summary = Summary {
        games,
        files: Vec::new(),
        skipped: files.skipped,
    };
    for out in files.outputs.into_iter().flatten() {
        if out.games == 0 {
            continue;
        }
        out.output
            .commit()
            .map_err(|e| Error::writing(&out.path.display().to_string(), e))?;
        summary.files.push((out.path, out.games));
    }
    Ok(summary)
}
