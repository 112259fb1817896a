//! Splitting an archive by class and speed (what `pgnfen split` does): every
//! game to the file named by a template with `{class}` replaced by the game's
//! class and `{speed}` by its speed ([`crate::speed`]), in one pass, byte for
//! byte, in input order. A template needs at least one of the two; games
//! whose placeholders give the same name share the file.
//!
//! Every file that may receive games is opened (under a temporary name, next
//! to its final name) before any input is read, so that a folder without
//! write permission is reported at once and nothing is written. Missing
//! folders of the template are created first (as `mkdir -p`); those left
//! empty at the end are removed again. At the end only the files that received games are moved into
//! place: the others are removed, and an existing file of that name is left
//! as it was (so six runs on six small inputs do not leave a litter of empty
//! files; the summary names the files written).
//!
//! ```
//! use pgnfen::{pipeline::Input, split};
//!
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("games.pgn");
//! # std::fs::write(&path, "[Event \"a\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
//! #     [FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1\"]\n\n1. e4 *\n\n\
//! #     [Event \"b\"]\n\n1. d4 *\n")?;
//! let options = split::Options {
//!     template: dir.path().join("out/{class}.pgn"),
//!     ..split::Options::default()
//! };
//! let summary = split::run(&[Input::from_arg(&path)], &options)?;
//! assert_eq!(summary.games, 2);
//! assert!(dir.path().join("out/chess960.pgn").exists());
//! assert!(dir.path().join("out/standard.pgn").exists());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::class::Class;
use crate::error::{Error, Usage, check_distinct_outputs, check_inputs_exist};
use crate::filter::Selection;
use crate::pipeline::output::Output;
use crate::pipeline::sink::OpenLine;
use crate::pipeline::{self, GameInfo, Header, Input, Job, Sink};
use crate::select::Selector;
use crate::speed::Speed;

/// The class placeholder of a template.
pub(crate) const PLACEHOLDER: &str = "{class}";

/// The speed placeholder of a template.
pub(crate) const SPEED_PLACEHOLDER: &str = "{speed}";

/// Whether `template` holds `placeholder` (in its bytes: the rest of the name
/// need not be UTF-8).
fn names(template: &Path, placeholder: &str) -> bool {
    use std::os::unix::ffi::OsStrExt;
    memchr::memmem::find(template.as_os_str().as_bytes(), placeholder.as_bytes()).is_some()
}

/// The first word in braces of `template` (`{`, a letter, then letters,
/// digits or `_`, `}`) that is neither `class` nor `speed`, in its file name
/// or in a folder that does not exist yet. Braces around anything else
/// (`{}`, `{a b}`, `{2024}`) and the names of existing folders are taken as
/// they are.
fn unknown_placeholder(template: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let mut folder = PathBuf::new();
    let mut components = template.components().peekable();
    while let Some(component) = components.next() {
        folder.push(component);
        let is_file_name = components.peek().is_none();
        let Some(word) = unknown_word(component.as_os_str().as_bytes()) else {
            continue;
        };
        if is_file_name || !folder.is_dir() {
            return Some(word);
        }
    }
    None
}

/// The first `{word}` of `name` that is no placeholder (see
/// [`unknown_placeholder`]).
fn unknown_word(name: &[u8]) -> Option<String> {
    let mut rest = name;
    while let Some(open) = memchr::memchr(b'{', rest) {
        let after = &rest[open + 1..];
        let len = after
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let word = &after[..len];
        let braced = &rest[open..(open + len + 2).min(rest.len())];
        if after.get(len) == Some(&b'}')
            && word.first().is_some_and(u8::is_ascii_alphabetic)
            && braced != PLACEHOLDER.as_bytes()
            && braced != SPEED_PLACEHOLDER.as_bytes()
        {
            return Some(String::from_utf8_lossy(word).into_owned());
        }
        rest = after;
    }
    None
}

/// `template` with every occurrence of `placeholder` replaced by `value`,
/// in the template's bytes.
fn replace(template: &Path, placeholder: &str, value: &str) -> PathBuf {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut rest = template.as_os_str().as_bytes();
    let mut path = Vec::with_capacity(rest.len() + 8);
    while let Some(at) = memchr::memmem::find(rest, placeholder.as_bytes()) {
        path.extend_from_slice(&rest[..at]);
        path.extend_from_slice(value.as_bytes());
        rest = &rest[at + placeholder.len()..];
    }
    path.extend_from_slice(rest);
    PathBuf::from(std::ffi::OsString::from_vec(path))
}

/// The file of each class: the template with `{class}` replaced (every
/// occurrence).
pub(crate) fn class_path(template: &Path, class: Class) -> PathBuf {
    replace(template, PLACEHOLDER, class.as_str())
}

/// The file of a game of this class and speed: the template with `{class}`
/// and `{speed}` replaced (every occurrence).
pub(crate) fn file_path(template: &Path, class: Class, speed: Speed) -> PathBuf {
    replace(
        &class_path(template, class),
        SPEED_PLACEHOLDER,
        speed.as_str(),
    )
}

/// Each game's class and speed (class-major, [`combination`]) when it is
/// written, `None` when it is not.
struct SplitJob<'a> {
    selection: &'a Selection,
    /// Whether the template names the speed (else every written game is
    /// filed under [`Speed::Unknown`], which the name does not show).
    by_speed: bool,
}

/// The index of a (class, speed) pair, class-major: below 6 × 7.
fn combination(class: Class, speed: Speed) -> usize {
    class.index() * Speed::ALL.len() + speed.index()
}

impl Job for SplitJob<'_> {
    type Game = Option<u8>;

    fn game(&self, header: &Header<'_>) -> Option<u8> {
        let (class, speed, keep) = self.selection.judge_speed(header);
        let speed = match speed {
            Some(speed) if self.by_speed => speed,
            _ => Speed::Unknown,
        };
        keep.then(|| combination(class, speed) as u8)
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.selection.selector.names()
    }
}

/// A file's output and the games written to it.
struct ClassOutput {
    path: PathBuf,
    output: Output,
    games: u64,
}

struct Files {
    /// The distinct files, in order of their first (class, speed).
    outputs: Vec<ClassOutput>,
    /// The file of each (class, speed) combination; `None` for those not
    /// written (not in `--class` or `--speed`).
    files: Vec<Option<u8>>,
    /// Where the current game's bytes go (`None`: nowhere).
    current: Option<usize>,
    /// Games not written (their class or speed not listed, or a `--tag` did not hold).
    skipped: u64,
    /// Where the last bytes went and how they end.
    open_line: OpenLine<usize>,
}

/// The destination of games that are not written.
const NOWHERE: u8 = u8::MAX;

impl Files {
    fn file(&self, game: Option<u8>) -> Option<u8> {
        game.and_then(|c| self.files.get(usize::from(c)).copied().flatten())
    }
}

impl Sink<Option<u8>> for Files {
    fn begin_input(&mut self, _input: &Input) -> io::Result<()> {
        match self.open_line.take() {
            Some((i, missing)) => self.outputs[i].output.write_all(missing),
            None => Ok(()),
        }
    }

    fn begin_game(&mut self, _info: &GameInfo, game: Option<u8>) -> io::Result<()> {
        self.current = self.file(game).map(usize::from);
        match self.current {
            Some(i) => self.outputs[i].games += 1,
            None => self.skipped += 1,
        }
        Ok(())
    }

    fn destination(&self, game: &Option<u8>) -> Option<u8> {
        Some(self.file(*game).unwrap_or(NOWHERE))
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        match self.current {
            // The output's error names its file.
            Some(i) => {
                self.open_line.wrote(i, data);
                self.outputs[i].output.write_all(data)
            }
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
            crate::pipeline::signals::retire_folder(dir);
        }
    }
}

impl CreatedFolders {
    /// Creates the folder `path` goes in and any missing folder above it, as
    /// `mkdir -p` does (checked before any input is read).
    fn make_for(&mut self, path: &Path, run: Option<&Arc<AtomicBool>>) -> Result<(), Error> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut missing = Vec::new();
        for d in dir.ancestors().filter(|d| !d.as_os_str().is_empty()) {
            match std::fs::metadata(d) {
                Ok(meta) if meta.is_dir() => break,
                Ok(_) => {
                    return Err(Usage::SplitNotAFolder {
                        path: path.to_path_buf(),
                        ancestor: d.to_path_buf(),
                    }
                    .into());
                }
                Err(_) => missing.push(d),
            }
        }
        for d in missing.into_iter().rev() {
            match std::fs::create_dir(d) {
                Ok(()) => {
                    crate::pipeline::signals::register_folder(d, run);
                    self.0.push(d.to_path_buf());
                }
                // Made meanwhile by someone else: theirs, not ours to remove.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
                Err(e) => {
                    return Err(Usage::SplitFolder {
                        path: path.to_path_buf(),
                        folder: d.to_path_buf(),
                        reason: e,
                    }
                    .into());
                }
            }
        }
        Ok(())
    }
}

/// What `split` does.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The path of each file, with `{class}` or `{speed}` (or both) in it,
    /// replaced by the game's class and speed names; a `.gz`, `.bz2`, `.xz` or
    /// `.zst` ending compresses. Missing folders are created.
    pub template: PathBuf,
    /// The classes written (every class when empty).
    pub classes: Vec<Class>,
    /// Only the games for which every tag expression holds, of the speeds
    /// listed (every speed when none is), are written.
    pub selector: Selector,
    /// Threads, progress, reading.
    pub run: pipeline::Options,
}

/// What a `split` run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Games read.
    pub games: u64,
    /// The files written, in class order (then speed order), and the games
    /// each received.
    pub files: Vec<(PathBuf, u64)>,
    /// Games not written (their class or speed not listed, or a tag
    /// expression did not hold).
    pub skipped: u64,
}

/// Writes every game of `inputs` to the file of its class and speed, in one pass.
///
/// # Errors
///
/// [`Error::Usage`] for a template with neither `{class}` nor `{speed}`, tag
/// expressions that name more distinct tags than one run can look for, or a
/// folder that cannot be created, before anything is read; [`Error::Io`] when an input cannot be read or a file
/// written.
pub fn run(inputs: &[Input], options: &Options) -> Result<Summary, Error> {
    let template = options.template.as_path();
    if let Some(placeholder) = unknown_placeholder(template) {
        let suggestion = ["class", "speed"]
            .into_iter()
            .find(|p| strsim::jaro_winkler(&placeholder.to_lowercase(), p) > 0.8);
        return Err(Usage::SplitPlaceholder {
            template: template.to_path_buf(),
            placeholder,
            suggestion,
        }
        .into());
    }
    let by_speed = names(template, SPEED_PLACEHOLDER);
    if !names(template, PLACEHOLDER) && !by_speed {
        return Err(Usage::SplitTemplate {
            template: template.to_path_buf(),
        }
        .into());
    }
    let mut tags = options.selector.clone();
    // The speed is read only when a file name or the selection needs it.
    if by_speed {
        tags = tags.with_time_control();
    }
    let selection = Selection {
        classes: options.classes.clone(),
        chess960_positions: Vec::new(),
        selector: tags,
    };
    selection.selector.validate()?;
    let listed = options.selector.speeds();
    let speeds: Vec<Speed> = if by_speed {
        Speed::ALL
            .iter()
            .copied()
            .filter(|s| listed.is_empty() || listed.contains(s))
            .collect()
    } else {
        // Not in the name: every written game is filed under one speed.
        vec![Speed::Unknown]
    };
    let mut combos: Vec<(Class, Speed, PathBuf)> = Vec::new();
    for &class in Class::ALL
        .iter()
        .filter(|c| selection.classes.is_empty() || selection.classes.contains(c))
    {
        for &speed in &speeds {
            combos.push((class, speed, file_path(template, class, speed)));
        }
    }
    check_inputs_exist(inputs)?;
    // Declared before the outputs, so dropped after them: their temporary
    // files are gone before the folders are tried for removal.
    let mut folders = CreatedFolders::default();
    for (_, _, path) in &combos {
        folders.make_for(path, options.run.cancel.as_ref())?;
    }
    // Names the template gives alike share their file; different names
    // that reach one file (a link, `a/../a`) would overwrite each other.
    let mut distinct: Vec<&Path> = Vec::new();
    for (_, _, path) in &combos {
        if !distinct.contains(&path.as_path()) {
            distinct.push(path);
        }
    }
    crate::error::check_pgn_outputs("split", &distinct)?;
    check_distinct_outputs(&distinct)?;
    let outputs = distinct.len();
    let mut files = Files {
        outputs: Vec::new(),
        files: vec![None; Class::ALL.len() * Speed::ALL.len()],
        current: None,
        skipped: 0,
        open_line: OpenLine::default(),
    };
    for (class, speed, path) in combos {
        let i = match files.outputs.iter().position(|o| o.path == path) {
            Some(i) => i,
            None => {
                let output = match Output::create_among(Some(&path), outputs) {
                    // Its folder removed since it was made or found (by
                    // another split into the same tree, which removes the
                    // empty folders it made): made again, once.
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        folders.make_for(&path, options.run.cancel.as_ref())?;
                        Output::create_among(Some(&path), outputs)
                    }
                    other => other,
                }
                .map_err(|e| {
                    Error::writing(&path.display().to_string(), open_files_hint(e, outputs))
                })?
                .cancelled_by(options.run.cancel.clone());
                files.outputs.push(ClassOutput {
                    path,
                    output,
                    games: 0,
                });
                files.outputs.len() - 1
            }
        };
        // At most 42 files: indices fit a byte, below NOWHERE.
        files.files[combination(class, speed)] = Some(i as u8);
    }
    let games = pipeline::run(
        inputs,
        &SplitJob {
            selection: &selection,
            by_speed,
        },
        &mut files,
        &options.run,
    )?;
    // Commit every file that received games; the others are dropped, which
    // removes their temporary files.
    let mut summary = Summary {
        games,
        files: Vec::new(),
        skipped: files.skipped,
    };
    // All together, or none (see `Output::commit_all`).
    let (written, outputs): (Vec<(PathBuf, u64)>, Vec<Output>) = files
        .outputs
        .into_iter()
        .filter(|out| out.games > 0)
        .map(|out| ((out.path, out.games), out.output))
        .unzip();
    Output::commit_all_unless(outputs, options.run.cancel.as_deref())
        .map_err(|(i, e)| Error::writing(&written[i].0.display().to_string(), e))?;
    summary.files = written;
    Ok(summary)
}

/// `e` with a word on the limit of open files when it is what failed: every
/// file is opened before the first game is read (the command line raises
/// its soft limit to 256 when it can; a library leaves its host's limits
/// alone).
fn open_files_hint(e: io::Error, outputs: usize) -> io::Error {
    if e.raw_os_error() != Some(libc::EMFILE) {
        return e;
    }
    crate::pipeline::output::WithHint::wrap(
        e,
        format!(
            "split opens each of its {outputs} files before it reads a game, so the limit on \
             open files (ulimit -n) must leave room for them"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Too many open files says why split needs them, keeping the code
    /// (Python's `errno`); any other error is left as it is.
    #[test]
    fn too_many_open_files_says_why() {
        let e = open_files_hint(io::Error::from_raw_os_error(libc::EMFILE), 42);
        let error = Error::writing("out/blitz-standard.pgn", e);
        assert!(
            error.to_string().starts_with(
                "out/blitz-standard.pgn: Too many open files; split opens each of its 42 files"
            ),
            "{error}"
        );
        let Error::Io { error, .. } = error else {
            panic!("an I/O error")
        };
        assert_eq!(
            crate::pipeline::output::os_error_code(&error),
            Some(libc::EMFILE)
        );
        let other = open_files_hint(io::Error::from_raw_os_error(libc::EACCES), 42);
        assert_eq!(other.raw_os_error(), Some(libc::EACCES));
    }

    #[test]
    fn words_in_braces_other_than_the_placeholders_are_found() {
        let unknown = |t: &str| unknown_placeholder(Path::new(t));
        assert_eq!(unknown("out/{class}-{speed}.pgn"), None);
        assert_eq!(unknown("out/{Speed}.pgn").as_deref(), Some("Speed"));
        assert_eq!(unknown("{class}/{x_1}.pgn").as_deref(), Some("x_1"));
        // Braces around no word are part of a name, and so is a word in
        // doubled braces around a placeholder.
        for name in [
            "{}{class}",
            "{a b}{class}",
            "{1-2}{class}",
            "{2024}-{class}",
            "{{class}}",
            "{class",
        ] {
            assert_eq!(unknown(name), None, "{name}");
        }
        // A folder's name is taken as it is once the folder exists.
        let dir = tempfile::tempdir().unwrap();
        let template = dir.path().join("{run}/{class}.pgn");
        assert_eq!(unknown_placeholder(&template).as_deref(), Some("run"));
        std::fs::create_dir(dir.path().join("{run}")).unwrap();
        assert_eq!(unknown_placeholder(&template), None);
    }
}
