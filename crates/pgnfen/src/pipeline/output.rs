//! Where results go: standard output, or a file written under a temporary name
//! in the same folder and renamed into place on success, compressed by its
//! ending (`.gz`, `.bz2`, `.xz`, `.zst`). A `.zst` file is written as independent
//! frames in pzstd's layout, compressed on threads of its own
//! (`frame_writer`), so that it can be read back in parallel.
//!
//! The file looks like any other the user makes: a new one gets the mode the
//! umask gives, a replaced one keeps its mode (and owner and group, where
//! permitted); a symbolic link is written through (its target is replaced, the
//! link stays). Errors name the user's path, never the temporary one.

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::frame_writer::FrameWriter;
use super::pipe::SpecialOutput;
use super::signals;
use super::source::{Compression, Input};

/// The zstd level of `.zst` outputs. Level 1, not the `zstd` tool's default 3:
/// on PGN it compresses about 1.5× faster for a file about 9 % larger
/// (writing an archive's games as `.zst` took 1.45× the time of writing them
/// plain, against 1.9× at level 3; docs/performance.md). Whoever wants the
/// smallest file recompresses once; a filter's output is usually read again.
const ZSTD_LEVEL: i32 = 1;

/// Threads that compress `.zst` outputs; 0: one per core.
static COMPRESSION_THREADS: AtomicUsize = AtomicUsize::new(0);

/// Sets how many threads compress `.zst` outputs (the run's `-j`; the
/// command line sets it once, before any output is created). 0: one per
/// core. The threads are the process's, shared by every `.zst` output; a
/// later setting can add threads, not take them away.
#[doc(hidden)] // for the command line and the Python binding
pub fn set_compression_threads(threads: usize) {
    COMPRESSION_THREADS.store(threads, Ordering::Relaxed);
}

/// The threads that compress `.zst` frames: those of the run, at most one
/// per core (as the workers, see `worker_pool`).
fn compression_threads() -> usize {
    match COMPRESSION_THREADS.load(Ordering::Relaxed) {
        0 => super::cores(),
        n => n.min(super::cores()),
    }
}

/// Small enough that the long runs of bytes the merger hands over in one call
/// bypass the buffer (no copy), large enough for compressors' small writes.
const BUFFER: usize = 64 << 10;
/// The xz preset of `.xz` outputs when a run writes at most two files (`-o`,
/// `--rest`): preset 3 (a 4 MiB dictionary) takes about 32 MiB per encoder,
/// where xz's default preset 6 would take 94 MiB, past the run's memory bound.
const XZ_PRESET: u32 = 3;

/// The xz encoder of one of `outputs` files written at once. Past two (a
/// `split`, up to 42 files), preset 0 with a dictionary that keeps all the
/// encoders together under about 64 MiB: 256 KiB (3 MiB an encoder) for up
/// to 12 files, 64 KiB (about 1.5 MiB) beyond. The files are larger than at
/// preset 3 (by about a fifth on PGN: 4.73 MB and 4.78 MB against 4.02 MB
/// for 20 MB of the test corpus), and still smaller than zstd's (5.11 MB).
fn xz_encoder(
    file: BufWriter<Disk>,
    outputs: usize,
) -> io::Result<liblzma::write::XzEncoder<BufWriter<Disk>>> {
    if outputs <= 2 {
        return Ok(liblzma::write::XzEncoder::new(file, XZ_PRESET));
    }
    let failed = |e: liblzma::stream::Error| io::Error::other(format!("xz encoder: {e}"));
    let mut lzma = liblzma::stream::LzmaOptions::new_preset(0).map_err(failed)?;
    lzma.dict_size(if outputs <= 12 { 256 << 10 } else { 64 << 10 });
    let mut filters = liblzma::stream::Filters::new();
    filters.lzma2(&lzma);
    let stream =
        liblzma::stream::Stream::new_stream_encoder(&filters, liblzma::stream::Check::Crc64)
            .map_err(failed)?;
    Ok(liblzma::write::XzEncoder::new_stream(file, stream))
}

/// The bzip2 level of one of `outputs` files written at once. An encoder
/// takes about eight times its block of 100 kB a level: bzip2's default
/// level 6 about 5 MB, which 42 `split` outputs (every class and speed)
/// would make 215 MB, past the run's memory bound. Past two files, level 1
/// (about 1.2 MB an encoder, 50 MB for 42).
fn bzip2_level(outputs: usize) -> bzip2::Compression {
    if outputs <= 2 {
        bzip2::Compression::default()
    } else {
        bzip2::Compression::fast()
    }
}

enum Target {
    Stdout(BufWriter<io::Stdout>),
    Plain(BufWriter<Disk>),
    /// A device or pipe named on the command line (`/dev/null`, a FIFO), or
    /// a descriptor the process was given: written in place.
    Special(BufWriter<SpecialOutput>),
    Gzip(flate2::write::GzEncoder<BufWriter<Disk>>),
    Bzip2(bzip2::write::BzEncoder<BufWriter<Disk>>),
    Zstd(FrameWriter<BufWriter<Disk>>),
    Xz(liblzma::write::XzEncoder<BufWriter<Disk>>),
}

/// Bytes of an output file after which the kernel is asked to start writing
/// them to disk ([`Disk`]).
const WRITEBACK_STEP: u64 = 2 << 20;

/// An output file (the temporary one, renamed into place on commit) that has
/// the kernel start writing each [`WRITEBACK_STEP`] bytes to disk once they
/// are written, without waiting for it (`sync_file_range`). The `fsync`
/// before the rename then has at most that much left to write: without it,
/// it wrote the whole file while nothing else ran (11 to 16 ms for the 17 MB
/// of `export`'s Parquet file of the benchmark archive, 1.5 ms with it; about
/// 0.2 s of `filter`'s 0.93 s when it writes 576 MB; seconds for a large
/// output).
struct Disk {
    file: File,
    /// Bytes written (the file is written from its start, in order).
    written: u64,
    /// Bytes whose writing to disk was asked for.
    started: u64,
}

impl Disk {
    fn new(file: File) -> Disk {
        Disk {
            file,
            written: 0,
            started: 0,
        }
    }

    /// Asks the kernel to start writing the bytes written since the last ask.
    /// Only a hint: a write error surfaces at the `fsync` of [`Output::commit`].
    fn start_writeback(&mut self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let (from, len) = (self.started, self.written - self.started);
            // SAFETY: `sync_file_range` touches no memory of this process; the
            // descriptor is open for as long as `self.file` lives.
            unsafe {
                libc::sync_file_range(
                    self.file.as_raw_fd(),
                    from as libc::off64_t,
                    len as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
        self.started = self.written;
    }
}

impl Write for Disk {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written - self.started >= WRITEBACK_STEP {
            self.start_writeback();
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// A write error, with the output's name as the user gave it.
#[derive(Debug)]
pub(crate) struct WriteError {
    /// The output, as named by the caller.
    pub file: String,
    /// What went wrong (said in the message: the source is what lies under
    /// it, as for [`crate::Error::Io`]).
    pub error: io::Error,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.error)
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}

/// A system error and what the user can do about it, said after it; the
/// error's code is still found inside ([`os_error_code`]).
#[derive(Debug, thiserror::Error)]
#[error("{error}; {hint}")]
pub(crate) struct WithHint {
    pub error: io::Error,
    pub hint: String,
}

impl WithHint {
    /// `error` with `hint` after it, of the same kind.
    pub(crate) fn wrap(error: io::Error, hint: String) -> io::Error {
        io::Error::new(error.kind(), WithHint { error, hint })
    }
}

/// An output's folder that cannot take the temporary file the output is
/// written to first: the error is the folder's, which the system's own
/// words (`Permission denied` about the output's name) would not say.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FolderError {
    /// The folder is missing.
    #[error("the folder {folder} does not exist")]
    Missing {
        folder: String,
        #[source]
        source: io::Error,
    },
    /// The folder refuses new files (permissions, a read-only file system).
    #[error(
        "cannot create a file in the folder {folder}: {error}; an output is written there \
         under a temporary name, then renamed into place, so its folder must take new files"
    )]
    Closed { folder: String, error: io::Error },
}

impl FolderError {
    /// `e`, from creating a temporary file in `dir`, said of the folder when
    /// it is the folder's fault.
    fn of(dir: &Path, e: io::Error) -> io::Error {
        let folder = dir.display().to_string();
        let kind = e.kind();
        match kind {
            io::ErrorKind::NotFound if !dir.exists() => {
                io::Error::new(kind, FolderError::Missing { folder, source: e })
            }
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                io::Error::new(kind, FolderError::Closed { folder, error: e })
            }
            _ => e,
        }
    }
}

/// The operating system's error code inside `e`, also when `e` wraps it
/// (as an output's error about its folder does).
#[doc(hidden)] // for the command line and the Python binding
pub fn os_error_code(e: &io::Error) -> Option<i32> {
    if let Some(code) = e.raw_os_error() {
        return Some(code);
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = e.get_ref().map(|r| r as _);
    while let Some(s) = source {
        if let Some(inner) = said_within(s) {
            return os_error_code(inner);
        }
        if let Some(io) = s.downcast_ref::<io::Error>() {
            return os_error_code(io);
        }
        source = s.source();
    }
    None
}

/// The system's error inside one of pgnfen's own wrappers that say it in
/// their message (and so do not give it again as their `source()`).
fn said_within<'e>(e: &'e (dyn std::error::Error + 'static)) -> Option<&'e io::Error> {
    if let Some(w) = e.downcast_ref::<WriteError>() {
        Some(&w.error)
    } else if let Some(FolderError::Closed { error, .. }) = e.downcast_ref::<FolderError>() {
        Some(error)
    } else if let Some(NotReplaced(error)) = e.downcast_ref::<NotReplaced>() {
        Some(error)
    } else if let Some(crate::pipeline::NoThread(error)) = e.downcast_ref() {
        Some(error)
    } else if let Some(WithHint { error, .. }) = e.downcast_ref() {
        Some(error)
    } else {
        None
    }
}

/// An output stream; files appear under their name only after [`Output::commit`].
pub struct Output {
    target: Target,
    /// The temporary file and the path it is renamed to.
    temp: Option<(tempfile::TempPath, PathBuf)>,
    /// The name in messages (the path as given, or `<stdout>`).
    name: String,
    /// For `--in-place`: the file it replaces (device and inode, as read).
    /// Another file renamed over that name meanwhile is not replaced.
    replaces: Option<(u64, u64)>,
    /// The run's cancellation flag ([`Output::cancelled_by`]).
    cancel: Option<Arc<AtomicBool>>,
}

impl std::fmt::Debug for Output {
    /// Its name and whether it is a file still under its temporary name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("name", &self.name)
            .field("temporary", &self.temp.as_ref().map(|(temp, _)| &**temp))
            .finish_non_exhaustive()
    }
}

/// Bytes of the output's name kept in its temporary file's name.
const TEMP_NAME_KEEP: usize = 200;

impl Drop for Output {
    fn drop(&mut self) {
        // Not committed: the temporary file goes, under the signal registry's lock.
        if let Some((temp, _)) = self.temp.take() {
            let path = temp.to_path_buf();
            signals::retire(&path, || drop(temp));
        }
    }
}

/// An output whose bytes are all written and on disk under its temporary
/// name, waiting to be renamed into place with the run's other outputs
/// ([`Output::commit_all`]).
struct Finished {
    temp: Option<(tempfile::TempPath, PathBuf)>,
    replaces: Option<(u64, u64)>,
}

impl Drop for Finished {
    fn drop(&mut self) {
        // Not renamed: the temporary file goes, as an uncommitted output's.
        if let Some((temp, _)) = self.temp.take() {
            let path = temp.to_path_buf();
            signals::retire(&path, || drop(temp));
        }
    }
}

/// Puts the outputs of one run in place (each temporary file at its path),
/// in order; when one cannot be, those before it are put back as they were
/// and the temporary files after it removed. On failure: the position of
/// the output that failed, and its error.
fn place_all(
    renames: Vec<Option<(tempfile::TempPath, PathBuf)>>,
) -> Result<(), (usize, io::Error)> {
    let mut placed = Vec::with_capacity(renames.len());
    for (i, rename) in renames.into_iter().enumerate() {
        let Some((temp, path)) = rename else {
            continue;
        };
        match place(temp, &path) {
            Ok(how) => placed.push((how, path)),
            Err(e) => {
                for (how, path) in placed.into_iter().rev() {
                    how.undo(&path);
                }
                return Err((i, e));
            }
        }
    }
    for (how, _) in placed {
        // The old files, now under the temporary names, go.
        if let Placed::Exchanged(old, _) = how {
            let _ = old.close();
        }
    }
    Ok(())
}

/// How an output was put in place, so that it can be undone while the run's
/// other outputs are.
enum Placed {
    /// It replaced a file by an exchange of the two names: the old file is
    /// under the temporary name, the new one (device, inode) at the output's.
    Exchanged(tempfile::TempPath, (u64, u64)),
    /// It was renamed to a name where no file was.
    Created,
    /// It was renamed over a file (where names cannot be exchanged): the old
    /// file is gone.
    Replaced,
}

impl Placed {
    /// Puts back what was at the output's name before (as far as it can).
    fn undo(self, path: &Path) {
        match self {
            // Exchanged again, the temporary name holds the new file, which
            // goes when `old` is dropped. Only while the name holds this
            // run's file: another program's, put there since, stays (and
            // the old file goes, as it would have had this run succeeded).
            Placed::Exchanged(old, new) => match identity(path) {
                Some(now) if now == new => {
                    if exchange(&old, path).is_err() {
                        let _ = std::fs::rename(&old, path);
                    }
                }
                // The name went meanwhile: the old file goes back to it.
                None => {
                    let _ = std::fs::rename(&old, path);
                }
                Some(_) => {}
            },
            Placed::Created => {
                let _ = std::fs::remove_file(path);
            }
            Placed::Replaced => {}
        }
    }
}

/// The device and inode of what `path` names (not following a link).
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

/// Puts a finished output in place. A file already at `path` is exchanged
/// with it in one step (Linux's `RENAME_EXCHANGE`), so that if a later
/// output of the same run cannot be put in place (a file in a sticky folder
/// that belongs to someone else, an immutable one), this one can be put
/// back; where names cannot be exchanged, it is renamed over the file.
fn place(temp: tempfile::TempPath, path: &Path) -> io::Result<Placed> {
    if exchange(&temp, path).is_ok() {
        // A folder made at the output's name in the last instant would now
        // be under the temporary name, where nothing removes it: put back,
        // and refused as a rename over it would have been.
        if std::fs::symlink_metadata(&temp).is_ok_and(|m| m.is_dir()) {
            let _ = exchange(&temp, path);
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "Is a directory",
            ));
        }
        let new = identity(path).unwrap_or_default();
        return Ok(Placed::Exchanged(temp, new));
    }
    // No file at the name, a file system that cannot exchange names (NFS,
    // FAT: EINVAL), or a file that cannot be replaced at all: the rename
    // decides, and its error is the one told.
    let existed = std::fs::symlink_metadata(path).is_ok();
    temp.persist(path).map_err(|e| {
        let e = without_temp_path(e.error);
        if existed {
            // Said as what could not be done ("Operation not permitted"
            // alone reads as if the run could not even start), holding the
            // system's error, so that its code is still found
            // ([`os_error_code`], Python's `errno`).
            io::Error::new(e.kind(), NotReplaced(e))
        } else {
            e
        }
    })?;
    Ok(if existed {
        Placed::Replaced
    } else {
        Placed::Created
    })
}

/// An existing output that could not be replaced, and the system's reason.
#[derive(Debug)]
struct NotReplaced(io::Error);

impl std::fmt::Display for NotReplaced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the existing file cannot be replaced: {}", self.0)
    }
}

// No `source()`: the message says the system's reason already.
impl std::error::Error for NotReplaced {}

/// Exchanges the files at two names, atomically. Called through
/// `syscall` rather than glibc's wrapper, which only glibc 2.28 and later
/// have (a wheel built for older systems would not link).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: renameat2 with two NUL-terminated paths relative to the
    // working folder, and a flag; it writes no memory of ours.
    let done = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Elsewhere names are not exchanged: outputs are renamed into place.
#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// The OS error inside a `tempfile` error, without the temporary path it adds.
fn without_temp_path(e: io::Error) -> io::Error {
    if e.raw_os_error().is_some() {
        return e;
    }
    match os_error_code(&e) {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::from(e.kind()),
    }
}

/// Symbolic links followed at most, as the system's own calls do (ELOOP
/// beyond).
const MAX_LINKS: usize = 40;

/// Where a symbolic link points, read as the system reads it: a relative
/// target from the link's folder.
fn link_target(link: &Path, target: PathBuf) -> PathBuf {
    match link.parent() {
        Some(dir) if target.is_relative() => dir.join(target),
        _ => target,
    }
}

/// The end of the chain of symbolic links that starts at `path`: the first
/// path that is no link (it need not exist: writing through a dangling
/// chain makes it, as the shell's `>` does). A loop, or more than
/// [`MAX_LINKS`] links, is the system's "too many levels of symbolic links".
pub(crate) fn through_links(path: &Path) -> io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        match std::fs::read_link(&path) {
            Ok(target) => path = link_target(&path, target),
            // Not a link, or nothing there: the chain ends here (an error of
            // its folder shows when the file is made).
            Err(_) => return Ok(path),
        }
    }
    Err(io::Error::from_raw_os_error(libc::ELOOP))
}

/// A copy of descriptor `fd` of this process (`F_DUPFD_CLOEXEC`), owned by
/// the file returned; an error when `fd` is not open.
pub(crate) fn duplicate(fd: i32) -> io::Result<File> {
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl only reads `fd` (EBADF when it is not open) and returns
    // a new descriptor that nothing else owns.
    let copy = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if copy < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `copy` is a fresh descriptor, owned from here on by the file.
    Ok(unsafe { File::from_raw_fd(copy) })
}

/// The standard stream of this process that `path` names, directly or
/// through symbolic links: `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, or
/// `/dev/fd/N` and `/proc/self/fd/N` (or this process's number for `self`)
/// for N 0 to 2. Such a path is a stream the shell handed over, however it
/// was opened (`>> log` appends), and behind it may lie a regular file that
/// renaming over would replace (what `>> log` held before lost, and what is
/// written after it too). Higher descriptors are not taken: pgnfen opens
/// some of its own (its signal thread's), which `/dev/fd/4` would name.
#[doc(hidden)] // for the command line and the Python binding
pub fn own_descriptor(path: &Path) -> Option<i32> {
    let mut path = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        if let Some(fd) = descriptor_path(&path) {
            return Some(fd);
        }
        path = link_target(&path, std::fs::read_link(&path).ok()?);
    }
    None
}

/// The descriptor a path of `/dev` or `/proc` names by its spelling.
fn descriptor_path(path: &Path) -> Option<i32> {
    let text = path.to_str()?;
    match text {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let number = text.strip_prefix("/dev/fd/").or_else(|| {
        let (process, number) = text.strip_prefix("/proc/")?.split_once("/fd/")?;
        let own = process == "self"
            || process == "thread-self"
            || process == std::process::id().to_string();
        own.then_some(number)
    })?;
    number.parse().ok().filter(|fd| (0..=2).contains(fd))
}

impl Output {
    /// Standard output.
    pub fn stdout() -> Output {
        Output {
            target: Target::Stdout(BufWriter::with_capacity(BUFFER, io::stdout())),
            temp: None,
            name: "<stdout>".into(),
            replaces: None,
            cancel: None,
        }
    }

    /// A descriptor this process was given, written where it stands (its
    /// offset, its `O_APPEND`), named `name` in messages.
    fn descriptor(fd: i32, name: String) -> io::Result<Output> {
        if fd == 1 {
            return Ok(Output {
                target: Target::Stdout(BufWriter::with_capacity(BUFFER, io::stdout())),
                temp: None,
                name,
                replaces: None,
                cancel: None,
            });
        }
        let file = duplicate(fd)?;
        Ok(Output {
            target: Target::Special(BufWriter::with_capacity(
                BUFFER,
                SpecialOutput::shared(file),
            )),
            temp: None,
            name,
            replaces: None,
            cancel: None,
        })
    }

    /// A file, or standard output for `None` or `-`. Errors (an unwritable
    /// folder, an ending pgnfen cannot compress to) name no temporary path;
    /// the caller adds the output's name.
    pub fn create(path: Option<&Path>) -> io::Result<Output> {
        Output::create_among(path, 1)
    }

    /// [`Output::create`] for one of `outputs` files a run writes at once
    /// (`split`'s): `.xz` encoders and `.zst` frames take memory of their
    /// own, so when there are more than two, each gets a smaller share (see
    /// `xz_encoder` and `frame_writer::frame_size_among`).
    pub fn create_among(path: Option<&Path>, outputs: usize) -> io::Result<Output> {
        let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
            return Ok(Output::stdout());
        };
        let compression = Compression::for_output(path)
            .map_err(|refused| io::Error::new(io::ErrorKind::InvalidInput, refused))?;
        Output::create_file(path, compression, outputs)
    }

    /// A file written in `compression` whatever its name says: `--in-place`
    /// rewrites `book.epd.gz` (or a gzip file named `book.epd`) as gzip again,
    /// because the format is the input's, recognised by its first bytes
    /// (the compression its name asks for).
    pub fn create_as(path: &Path, compression: Compression) -> io::Result<Output> {
        Output::create_file(path, compression, 1)
    }

    fn create_file(path: &Path, compression: Compression, outputs: usize) -> io::Result<Output> {
        let name = path.display().to_string();
        // `/dev/stdout` and its kind are the streams the shell handed over
        // (`>> log`), written through, never replaced (see `own_descriptor`).
        if let Some(fd) = own_descriptor(path) {
            return Output::descriptor(fd, name);
        }
        // Only regular files get the write-then-rename treatment: renaming over
        // `/dev/null` or a named pipe would replace it.
        let existing = std::fs::metadata(path).ok();
        if let Some(meta) = &existing
            && !meta.is_file()
        {
            let special = SpecialOutput::open(path, meta.file_type())?;
            return Ok(Output {
                target: Target::Special(BufWriter::with_capacity(BUFFER, special)),
                temp: None,
                name,
                replaces: None,
                cancel: None,
            });
        }
        // A symbolic link is written through: its target is what gets
        // replaced (or made, at the end of a dangling chain of links).
        let destination = through_links(path)?;
        let dir = match destination.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut file_name = destination
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // The temporary name adds 12 bytes (`.NAME.XXXXXX.tmp`): a name near
        // the file system's limit of 255 bytes is shortened in it.
        if file_name.len() > TEMP_NAME_KEEP {
            let mut end = TEMP_NAME_KEEP;
            while !file_name.is_char_boundary(end) {
                end -= 1;
            }
            file_name.truncate(end);
        }
        // Created with 0666 less the umask, like any new file; the temporary
        // file's default 0600 must not survive the rename.
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{file_name}."))
            .suffix(".tmp")
            .make_in(dir, |p| {
                // Registered before it exists, so that a signal cannot leave it.
                signals::register(p);
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o666)
                    .open(p);
                if file.is_err() {
                    signals::retire(p, || ());
                }
                file
            })
            .map_err(|e| FolderError::of(dir, without_temp_path(e)))?;
        let (file, temp_path) = temp.into_parts();
        if let Some(meta) = &existing {
            // A replaced file keeps its mode, owner and group (a chown is only
            // permitted to root or to the owner keeping a group of theirs).
            let _ = std::os::unix::fs::fchown(&file, Some(meta.uid()), Some(meta.gid()));
            // Not the set-user-ID and set-group-ID bits: new contents
            // written by whoever runs pgnfen must not run with another's
            // rights (`cp` and `install` drop them too).
            file.set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o1777))
                .map_err(without_temp_path)?;
        }
        let file = BufWriter::with_capacity(BUFFER, Disk::new(file));
        let target = match compression {
            Compression::None | Compression::Zip => Target::Plain(file),
            Compression::Gzip => Target::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::default(),
            )),
            Compression::Bzip2 => {
                Target::Bzip2(bzip2::write::BzEncoder::new(file, bzip2_level(outputs)))
            }
            Compression::Zstd => Target::Zstd(FrameWriter::with_frames(
                file,
                ZSTD_LEVEL,
                compression_threads(),
                super::frame_writer::frame_size_among(outputs),
            )?),
            Compression::Xz => Target::Xz(xz_encoder(file, outputs)?),
            Compression::Refused(_) => {
                // `for_output` never returns it: an ending is not a magic number.
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "pgnfen cannot write this format",
                ));
            }
        };
        Ok(Output {
            target,
            temp: Some((temp_path, destination)),
            name,
            replaces: None,
            cancel: None,
        })
    }

    /// The output that rewrites the file `path` in place: written under a
    /// temporary name beside it, in the compression its first bytes show, and
    /// renamed over it (keeping its mode) on [`Output::commit`].
    pub fn in_place(path: &Path) -> io::Result<Output> {
        // The file read: checked again just before it is replaced.
        let read = std::fs::metadata(path)?;
        let mut output = Output::create_as(path, in_place_compression(path)?)?;
        output.replaces = Some((read.dev(), read.ino()));
        Ok(output)
    }

    /// Whether it compresses what it is given (its name ends in `.gz`,
    /// `.bz2`, `.xz` or `.zst`, or [`Output::create_as`] asked for it).
    pub fn is_compressed(&self) -> bool {
        matches!(
            self.target,
            Target::Gzip(_) | Target::Bzip2(_) | Target::Zstd(_) | Target::Xz(_)
        )
    }

    /// Whether it writes to a terminal: standard output on one, or a path
    /// that names one (`/dev/tty`, `/dev/stdout` on a terminal), where a
    /// binary format would only garble the screen.
    pub fn is_terminal(&self) -> bool {
        match &self.target {
            Target::Stdout(_) => io::stdout().is_terminal(),
            Target::Special(file) => file.get_ref().is_terminal(),
            _ => false,
        }
    }

    /// Makes the writing of a run that can be cancelled
    /// ([`Options::cancel`](super::Options::cancel)) stop soon after `cancel`
    /// is set, whatever the output, with an error of kind `Other`
    /// ("interrupted": not `Interrupted`, which `write_all` and the buffers
    /// around a writer would retry for ever): a slow
    /// compressor (xz, bzip2, gzip) takes the merger's long runs of bytes in
    /// slices of 16 KiB and looks at the flag before each,
    /// and a pipe or FIFO that nobody reads or empties is waited for with
    /// `poll` in slices (see `pipe`). Without it (the command line, whose
    /// signal handler ends the process) nothing changes.
    pub fn cancelled_by(mut self, cancel: Option<Arc<AtomicBool>>) -> Output {
        let Some(flag) = cancel else { return self };
        // Standard output through Rust's own handle cannot wait with `poll`:
        // a pipe there is written through a copy of its descriptor instead
        // (nothing is buffered yet; the handle buffers nothing of pgnfen's
        // elsewhere).
        if let Target::Stdout(w) = &self.target
            && w.buffer().is_empty()
            && super::pipe::fd_is_pipe(libc::STDOUT_FILENO)
            && let Ok(file) = duplicate(libc::STDOUT_FILENO)
        {
            self.target = Target::Special(BufWriter::with_capacity(
                BUFFER,
                SpecialOutput::shared(file),
            ));
        }
        if let Target::Special(w) = &mut self.target {
            w.get_mut().set_cancel(Some(flag.clone()));
        }
        if let Some((temp, _)) = &self.temp {
            signals::owned_by(temp, &flag);
        }
        self.cancel = Some(flag);
        self
    }

    /// The output's name in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Finishes the stream and moves a file into place. Without this call a
    /// file output is deleted.
    pub fn commit(self) -> io::Result<()> {
        Output::commit_all(vec![self]).map_err(|(_, e)| e)
    }

    /// [`Output::commit`], unless `cancel` is set by the time the file would
    /// be renamed (see [`Output::commit_all_unless`]).
    pub fn commit_unless(self, cancel: Option<&AtomicBool>) -> io::Result<()> {
        Output::commit_all_unless(vec![self], cancel).map_err(|(_, e)| e)
    }

    /// Commits the outputs of one run together: every stream is finished and
    /// on disk before the first file is renamed into place, and the renames
    /// happen under the signal registry's lock, so that a failure (a full
    /// disk, a folder gone) or a signal leaves either every existing output
    /// as it was or none (`filter`'s kept games and rest, `split`'s files).
    /// An output that cannot be put in place after others were (a file of
    /// someone else's in a sticky folder, an immutable file) has those put
    /// back: each replaced file was exchanged with its new version (Linux's
    /// `RENAME_EXCHANGE`), which can be exchanged back. Only on a file
    /// system that cannot exchange two names does a later failure leave the
    /// earlier outputs replaced. On failure: the position of the output that
    /// failed, and its error; every temporary file is gone.
    pub fn commit_all(outputs: Vec<Output>) -> Result<(), (usize, io::Error)> {
        Output::commit_all_unless(outputs, None)
    }

    /// [`Output::commit_all`] for a run that can be cancelled
    /// ([`Options::cancel`](super::Options::cancel)): a cancel that comes
    /// while the outputs are finished and synced (tens of milliseconds for a
    /// large one) still stops them, as it is looked at under the signal
    /// registry's lock, just before the first rename. (The Python binding
    /// cancels when a signal handler raises, and promises that the outputs
    /// are then left as they were.)
    pub fn commit_all_unless(
        outputs: Vec<Output>,
        cancel: Option<&AtomicBool>,
    ) -> Result<(), (usize, io::Error)> {
        let mut ready = Vec::with_capacity(outputs.len());
        for (i, output) in outputs.into_iter().enumerate() {
            // An error drops what is ready, which removes its temporary files.
            ready.push(output.finish().map_err(|e| (i, e))?);
        }
        // A folder where an output goes (made meanwhile) would fail its
        // rename after the others had been made: refused before any.
        for (i, r) in ready.iter().enumerate() {
            if let Some((_, path)) = &r.temp
                && std::fs::metadata(path).is_ok_and(|m| m.is_dir())
            {
                return Err((
                    i,
                    io::Error::new(io::ErrorKind::IsADirectory, "Is a directory"),
                ));
            }
        }
        let temps: Vec<PathBuf> = ready
            .iter()
            .filter_map(|r| r.temp.as_ref().map(|(temp, _)| temp.to_path_buf()))
            .collect();
        // Taken out first: a `Finished` dropped under the lock would take it
        // again. A rename that fails (rare: the folder's permissions changed)
        // drops the temporary files after it, which deletes them.
        let renames: Vec<Option<(tempfile::TempPath, PathBuf)>> =
            ready.iter_mut().map(|r| r.temp.take()).collect();
        // The files `--in-place` rewrites: another program may have renamed
        // a newer file over one meanwhile (an editor, `sed -i`, another
        // run), which must not be replaced by the rewrite of the old one.
        let replaced: Vec<Option<(u64, u64)>> = ready.iter().map(|r| r.replaces).collect();
        signals::retire_all(&temps, || {
            if cancel.is_some_and(|c| c.load(Ordering::Acquire)) {
                // Dropped here, the temporary files go.
                drop(renames);
                return Err((0, super::cancelled()));
            }
            for (i, (rename, read)) in renames.iter().zip(&replaced).enumerate() {
                if let (Some((_, path)), Some(read)) = (rename, read)
                    && identity(path).is_some_and(|now| now != *read)
                {
                    drop(renames);
                    return Err((
                        i,
                        io::Error::other(
                            "another file was renamed over it while pgnfen rewrote it; \
                             that file is left as it is (run again to rewrite it)",
                        ),
                    ));
                }
            }
            place_all(renames)
        })
    }

    /// Finishes the stream and writes it to disk, without renaming it yet.
    fn finish(mut self) -> io::Result<Finished> {
        let target = std::mem::replace(
            &mut self.target,
            Target::Stdout(BufWriter::new(io::stdout())),
        );
        let file = match target {
            Target::Stdout(mut w) => w.flush().map(|()| None)?,
            Target::Special(mut w) => w.flush().map(|()| None)?,
            Target::Plain(w) => Some(w),
            Target::Gzip(w) => Some(w.finish()?),
            Target::Bzip2(w) => Some(w.finish()?),
            Target::Zstd(w) => Some(w.finish()?),
            Target::Xz(w) => Some(w.finish()?),
        };
        if let Some(file) = file {
            let file = file.into_inner().map_err(|e| e.into_error())?.file;
            // A late write error (a full disk, NFS) surfaces here; a file
            // system that cannot sync at all (EINVAL, ENOTSUP) is no error.
            if let Err(e) = file.sync_all()
                && !matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOTSUP))
            {
                return Err(e);
            }
        }
        Ok(Finished {
            temp: self.temp.take(),
            replaces: self.replaces,
        })
    }

    fn named(&self, e: io::Error) -> io::Error {
        // Keeps the kind (a closed pipe stays quiet) and adds the user's name.
        io::Error::new(
            e.kind(),
            WriteError {
                file: self.name.clone(),
                error: e,
            },
        )
    }
}

/// The compression to write `path` back in when it is rewritten in place: the
/// one its first bytes show, as the reader recognises it. A zip archive (the
/// records of several members cannot be put back one by one) and anything
/// but a regular file are refused with a message for the user.
pub(crate) fn in_place_compression(path: &Path) -> io::Result<Compression> {
    use std::io::Read;
    // Looked at before opening: opening a named pipe would wait for a writer.
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file; --in-place rewrites files only",
        ));
    }
    let file = File::open(path)?;
    let magic = super::source::head_of(&file)?;
    // Every compression the reader recognises and `create_as` writes comes
    // back as itself; a new one (xz) needs an arm in `create_as` and nothing
    // here, unless it is a container like zip.
    let compression = match Compression::sniff(&magic) {
        Compression::Zip => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a zip archive cannot be rewritten in place; convert it to another file with -o",
            ));
        }
        Compression::Refused(what) => return Err(super::source::refused(what)),
        other => other,
    };
    // Whatever reading it would refuse (a file cut inside magic bytes, a tar
    // inside gzip) is refused now, before the first input is rewritten: the
    // first bytes are read as the run will read them.
    let mut head = [0u8; super::source::MAGIC_LEN];
    let mut reader = Input::File(path.to_path_buf())
        .open(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)))?;
    let mut n = 0;
    while n < head.len() {
        match reader.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(compression)
}

impl Output {
    fn write_raw(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.target {
            Target::Stdout(w) => w.write(buf),
            Target::Plain(w) => w.write(buf),
            Target::Special(w) => w.write(buf),
            Target::Gzip(w) => w.write(buf),
            Target::Bzip2(w) => w.write(buf),
            Target::Zstd(w) => w.write(buf),
            Target::Xz(w) => w.write(buf),
        }
    }

    fn write_all_raw(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.target {
            Target::Stdout(w) => w.write_all(buf),
            Target::Plain(w) => w.write_all(buf),
            Target::Special(w) => w.write_all(buf),
            Target::Gzip(w) => w.write_all(buf),
            Target::Bzip2(w) => w.write_all(buf),
            Target::Zstd(w) => w.write_all(buf),
            Target::Xz(w) => w.write_all(buf),
        }
    }

    fn flush_raw(&mut self) -> io::Result<()> {
        match &mut self.target {
            Target::Stdout(w) => w.flush(),
            Target::Plain(w) => w.flush(),
            Target::Special(w) => w.flush(),
            Target::Gzip(w) => w.flush(),
            Target::Bzip2(w) => w.flush(),
            Target::Zstd(w) => w.flush(),
            Target::Xz(w) => w.flush(),
        }
    }
}

/// Bytes a slow compressor takes between two looks at a run's cancellation
/// flag ([`Output::cancelled_by`]). xz's preset 3 compresses PGN at 5 to 10
/// MB/s but text it cannot shorten much (long comments of hex, measured
/// for the test of this) at 0.7 MB/s on this project's machine: 16 KiB is
/// then about 20 ms. (The merger hands over up to a whole chunk of 4 MiB
/// in one call: it took xz up to a second, and six on such text.)
const CANCELLABLE_SLICE: usize = 16 << 10;

impl Output {
    /// The bytes of `buf` to hand on in one call: all of them, unless the
    /// run can be cancelled and the output compresses slowly (then a slice,
    /// after a look at the flag).
    fn next_slice<'b>(&self, buf: &'b [u8]) -> io::Result<&'b [u8]> {
        match &self.cancel {
            Some(cancel)
                if matches!(
                    self.target,
                    Target::Gzip(_) | Target::Bzip2(_) | Target::Xz(_)
                ) =>
            {
                if cancel.load(Ordering::Acquire) {
                    return Err(super::cancelled_in_io());
                }
                Ok(&buf[..buf.len().min(CANCELLABLE_SLICE)])
            }
            _ => Ok(buf),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let slice = self.next_slice(buf).map_err(|e| self.named(e))?;
        self.write_raw(slice).map_err(|e| self.named(e))
    }

    fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        if self.cancel.is_none() {
            return self.write_all_raw(buf).map_err(|e| self.named(e));
        }
        while !buf.is_empty() {
            let slice = self.next_slice(buf).map_err(|e| self.named(e))?;
            self.write_all_raw(slice).map_err(|e| self.named(e))?;
            buf = &buf[slice.len()..];
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_raw().map_err(|e| self.named(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.pgn");
        let mut out = Output::create(Some(&path)).unwrap();
        out.write_all(b"hello").unwrap();
        assert!(!path.exists());
        out.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"hello");
    }

    /// An output whose folder is missing or refuses new files says so of the
    /// folder (the system's error names only the file), keeping the error's
    /// code; an output whose folder exists but cannot take it (`/proc/self`)
    /// keeps the system's words.
    #[test]
    fn a_folder_that_cannot_take_the_output_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nodir");
        let e = Output::create(Some(&missing.join("x.pgn"))).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            e.to_string(),
            format!("the folder {} does not exist", missing.display())
        );
        assert_eq!(os_error_code(&e), Some(libc::ENOENT));
        assert!(!missing.exists());
        // Root may write anywhere: the refusal is made up, as the system gives it.
        let e = FolderError::of(dir.path(), io::Error::from_raw_os_error(libc::EACCES));
        assert_eq!(e.kind(), io::ErrorKind::PermissionDenied);
        assert!(
            e.to_string().starts_with(&format!(
                "cannot create a file in the folder {}: Permission denied (os error 13); ",
                dir.path().display()
            )),
            "{e}"
        );
        assert_eq!(os_error_code(&e), Some(libc::EACCES));
        let e = FolderError::of(dir.path(), io::Error::from_raw_os_error(libc::ENOENT));
        assert_eq!(
            e.raw_os_error(),
            Some(libc::ENOENT),
            "the folder exists: the system's words"
        );
        let e = FolderError::of(dir.path(), io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
    }

    /// Printed as a chain (`anyhow`'s `{:#}`, a loop over `source()`), an
    /// output's errors say each thing once: a wrapper whose message already
    /// holds the system's error does not give it again as its source, and
    /// its code is still found inside ([`os_error_code`], Python's `errno`).
    #[test]
    fn an_error_chain_says_each_reason_once() {
        let system = || io::Error::from_raw_os_error(libc::EPERM);
        let dir = tempfile::tempdir().unwrap();
        let wrapped = [
            io::Error::other(WriteError {
                file: "out.pgn".into(),
                error: system(),
            }),
            FolderError::of(dir.path(), io::Error::from_raw_os_error(libc::EACCES)),
            io::Error::new(io::ErrorKind::PermissionDenied, NotReplaced(system())),
            crate::pipeline::no_thread(io::Error::from_raw_os_error(libc::EAGAIN)),
            io::Error::other(WriteError {
                file: "out.pgn".into(),
                error: io::Error::new(io::ErrorKind::PermissionDenied, NotReplaced(system())),
            }),
        ];
        for e in wrapped {
            let error = crate::Error::Io {
                file: "out.pgn".into(),
                error: e,
            };
            let mut chain = vec![error.to_string()];
            let mut next = std::error::Error::source(&error);
            while let Some(cause) = next {
                chain.push(cause.to_string());
                next = cause.source();
            }
            for pair in chain.windows(2) {
                assert!(!pair[0].contains(&pair[1]), "said twice: {chain:?}");
            }
            let crate::Error::Io { error, .. } = error else {
                unreachable!()
            };
            assert!(os_error_code(&error).is_some(), "{error}: no code found");
        }
        // The missing folder's message does not say the system's error: it
        // stays the source, also of the library's error, for a program that
        // wants the whole story.
        let missing = dir.path().join("nodir");
        let e = Output::create(Some(&missing.join("x.pgn"))).err().unwrap();
        let error = crate::Error::writing("x.pgn", e);
        let cause = std::error::Error::source(&error).expect("the system's error");
        assert_eq!(
            cause.to_string(),
            io::Error::from_raw_os_error(libc::ENOENT).to_string()
        );
        assert!(!error.to_string().contains(&cause.to_string()), "{error}");
        assert!(cause.source().is_none());
    }

    /// A file written past several writeback steps, in pieces of odd sizes,
    /// holds its bytes in order; the writeback was asked for each whole step.
    #[test]
    fn a_file_past_writeback_steps_holds_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let bytes: Vec<u8> = (0..5 * (1u32 << 20) + 12_345)
            .map(|i| (i % 251) as u8)
            .collect();
        let mut disk = Disk::new(File::create(dir.path().join("d")).unwrap());
        for piece in bytes.chunks(777_777) {
            disk.write_all(piece).unwrap();
        }
        assert_eq!(disk.written, bytes.len() as u64);
        assert_eq!(disk.started / WRITEBACK_STEP, 2);
        assert!(disk.written - disk.started < WRITEBACK_STEP);
        assert_eq!(std::fs::read(dir.path().join("d")).unwrap(), bytes);

        for name in ["out.pgn", "out.pgn.gz"] {
            let path = dir.path().join(name);
            let mut out = Output::create(Some(&path)).unwrap();
            for piece in bytes.chunks(300_001) {
                out.write_all(piece).unwrap();
            }
            out.commit().unwrap();
            let mut back = Vec::new();
            Input::File(path)
                .open(std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)))
                .unwrap()
                .read_to_end(&mut back)
                .unwrap();
            assert!(back == bytes, "{name}");
        }
    }

    #[test]
    fn uncommitted_file_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.pgn.zst");
        let mut out = Output::create(Some(&path)).unwrap();
        out.write_all(b"hello").unwrap();
        drop(out);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn outputs_committed_together_are_all_replaced_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept.pgn.gz");
        let rest = dir.path().join("rest.pgn");
        std::fs::write(&kept, b"old kept").unwrap();
        std::fs::write(&rest, b"old rest").unwrap();
        // The second fails when it is finished (a full disk): the first, which
        // was complete, must not have replaced its file.
        let mut a = Output::create(Some(&kept)).unwrap();
        a.write_all(b"new kept").unwrap();
        let mut full = Output::create(Some(Path::new("/dev/full"))).unwrap();
        full.write_all(b"lost").unwrap();
        let (i, e) = Output::commit_all(vec![a, full]).unwrap_err();
        assert_eq!((i, e.kind()), (1, io::ErrorKind::StorageFull));
        assert_eq!(std::fs::read(&kept).unwrap(), b"old kept");
        let names = |dir: &Path| -> Vec<String> {
            let mut n: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            n.sort();
            n
        };
        assert_eq!(names(dir.path()), ["kept.pgn.gz", "rest.pgn"]);
        // A folder made where the second goes, while the run wrote it.
        let other = dir.path().join("other.pgn");
        let mut a = Output::create(Some(&kept)).unwrap();
        a.write_all(b"new kept").unwrap();
        let mut b = Output::create(Some(&other)).unwrap();
        b.write_all(b"other").unwrap();
        std::fs::create_dir(&other).unwrap();
        let (i, e) = Output::commit_all(vec![a, b]).unwrap_err();
        assert_eq!((i, e.kind()), (1, io::ErrorKind::IsADirectory));
        assert_eq!(std::fs::read(&kept).unwrap(), b"old kept");
        std::fs::remove_dir(&other).unwrap();
        assert_eq!(names(dir.path()), ["kept.pgn.gz", "rest.pgn"]);
        // Both fine: both replaced.
        let mut a = Output::create(Some(&kept)).unwrap();
        a.write_all(b"new kept").unwrap();
        let mut b = Output::create(Some(&rest)).unwrap();
        b.write_all(b"new rest").unwrap();
        Output::commit_all(vec![a, b]).unwrap();
        assert_ne!(std::fs::read(&kept).unwrap(), b"old kept");
        assert_eq!(std::fs::read(&rest).unwrap(), b"new rest");
        assert_eq!(names(dir.path()), ["kept.pgn.gz", "rest.pgn"]);
    }

    #[test]
    fn a_name_near_the_limit_gets_a_shorter_temporary_name() {
        let dir = tempfile::tempdir().unwrap();
        // 251 bytes, and 254 of two-byte characters (cut on a boundary).
        for name in [
            format!("{}.pgn", "a".repeat(247)),
            format!("{}.pgn", "é".repeat(125)),
        ] {
            let path = dir.path().join(name);
            let mut out = Output::create(Some(&path)).unwrap();
            out.write_all(b"x").unwrap();
            out.commit().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"x");
        }
    }

    #[test]
    fn a_slow_compressor_looks_at_the_flag_between_slices() {
        let dir = tempfile::tempdir().unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        for name in ["a.pgn.xz", "a.pgn.bz2", "a.pgn.gz"] {
            let path = dir.path().join(name);
            let mut out = Output::create(Some(&path))
                .unwrap()
                .cancelled_by(Some(flag.clone()));
            // Uncancelled, every byte goes through, slice after slice.
            let text = b"[Event \"e\"]\n\n1. e4 *\n\n".repeat(10_000);
            out.write_all(&text).unwrap();
            flag.store(true, Ordering::Release);
            let e = out.write_all(&text).unwrap_err();
            // Not `Interrupted`, which the loops around a writer retry.
            assert_ne!(e.kind(), io::ErrorKind::Interrupted, "{name}");
            assert!(e.to_string().contains(name), "{e}");
            drop(out);
            assert!(!path.exists());
            flag.store(false, Ordering::Release);
            let mut out = Output::create(Some(&path))
                .unwrap()
                .cancelled_by(Some(flag.clone()));
            out.write_all(&text).unwrap();
            out.commit().unwrap();
            let mut back = Vec::new();
            Input::File(path.clone())
                .open(Arc::new(std::sync::atomic::AtomicU64::new(0)))
                .unwrap()
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, text, "{name}");
        }
    }

    #[test]
    fn a_run_cancelled_while_its_outputs_are_finished_replaces_none() {
        // Python cancels when a signal handler raises: an output finished
        // (and synced, tens of milliseconds) after that must not be renamed.
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept.pgn");
        std::fs::write(&kept, b"old").unwrap();
        let mut out = Output::create(Some(&kept)).unwrap();
        out.write_all(b"new").unwrap();
        let cancel = AtomicBool::new(true);
        let e = out.commit_unless(Some(&cancel)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::Interrupted);
        assert_eq!(std::fs::read(&kept).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut out = Output::create(Some(&kept)).unwrap();
        out.write_all(b"new").unwrap();
        out.commit_unless(Some(&AtomicBool::new(false))).unwrap();
        assert_eq!(std::fs::read(&kept).unwrap(), b"new");
    }

    #[test]
    fn devices_are_written_in_place_not_replaced() {
        let mut out = Output::create(Some(Path::new("/dev/null"))).unwrap();
        out.write_all(b"gone").unwrap();
        out.commit().unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "/dev/null must stay a device");
    }

    /// A temporary file in `dir` holding `text`, as an output's.
    fn temp_in(dir: &Path, text: &str) -> tempfile::TempPath {
        let mut t = tempfile::NamedTempFile::new_in(dir).unwrap();
        t.write_all(text.as_bytes()).unwrap();
        t.into_temp_path()
    }

    /// The names in `dir`.
    fn names_in(dir: &Path) -> Vec<std::ffi::OsString> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect()
    }

    #[test]
    fn outputs_placed_before_one_that_fails_are_put_back() {
        // Three outputs: one replaces a file, one is new, and the third's
        // temporary file is gone (removed by another program), so that it
        // cannot be placed: the folder ends as it began.
        let dir = tempfile::tempdir().unwrap();
        let temp = |text: &str| temp_in(dir.path(), text);
        let old = dir.path().join("old.pgn");
        std::fs::write(&old, "OLD").unwrap();
        let lost = temp("LOST");
        std::fs::remove_file(&lost).unwrap();
        let renames = vec![
            Some((temp("NEW 1"), old.clone())),
            None,
            Some((temp("NEW 2"), dir.path().join("new.pgn"))),
            Some((lost, dir.path().join("third.pgn"))),
            Some((temp("NEW 4"), dir.path().join("fourth.pgn"))),
        ];
        let (i, e) = place_all(renames).unwrap_err();
        assert_eq!((i, e.kind()), (3, io::ErrorKind::NotFound));
        assert_eq!(names_in(dir.path()), ["old.pgn"]);
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "OLD");
        // All placed: the new files only.
        let renames = vec![
            Some((temp("NEW 1"), old.clone())),
            Some((temp("NEW 2"), dir.path().join("new.pgn"))),
        ];
        place_all(renames).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "NEW 1");
    }

    #[test]
    fn an_exchanged_output_is_put_back_and_a_created_one_removed() {
        let dir = tempfile::tempdir().unwrap();
        let temp = |text: &str| temp_in(dir.path(), text);
        let old = dir.path().join("old.pgn");
        std::fs::write(&old, "OLD").unwrap();
        let new = dir.path().join("new.pgn");
        let exchanged = place(temp("NEW 1"), &old).unwrap();
        let created = place(temp("NEW 2"), &new).unwrap();
        assert!(matches!(exchanged, Placed::Exchanged(..)));
        assert!(matches!(created, Placed::Created));
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "NEW 1");
        assert_eq!(std::fs::read_to_string(&new).unwrap(), "NEW 2");
        // Undone as a failed run undoes them: the folder is as it was.
        created.undo(&new);
        exchanged.undo(&old);
        assert_eq!(names_in(dir.path()), ["old.pgn"]);
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "OLD");
        // Another program's file put at the name since is not swapped away.
        let exchanged = place(temp("NEW 1"), &old).unwrap();
        let theirs = dir.path().join("theirs");
        std::fs::write(&theirs, "THEIRS").unwrap();
        std::fs::rename(&theirs, &old).unwrap();
        exchanged.undo(&old);
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "THEIRS");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        std::fs::write(&old, "OLD").unwrap();
        // Kept, the old file under the temporary name goes.
        let Placed::Exchanged(previous, _) = place(temp("NEW 3"), &old).unwrap() else {
            panic!("a file system of this test's that cannot exchange names");
        };
        assert_eq!(std::fs::read_to_string(&previous).unwrap(), "OLD");
        previous.close().unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert_eq!(std::fs::read_to_string(&old).unwrap(), "NEW 3");
    }

    #[test]
    fn in_place_never_replaces_a_file_renamed_over_its_input_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.epd");
        std::fs::write(&path, b"old\n").unwrap();
        let mut out = Output::in_place(&path).unwrap();
        out.write_all(b"rewritten old\n").unwrap();
        // An editor saves a newer version meanwhile (write, then rename).
        let newer = dir.path().join("newer");
        std::fs::write(&newer, b"newer\n").unwrap();
        std::fs::rename(&newer, &path).unwrap();
        let e = out.commit().unwrap_err();
        assert!(e.to_string().contains("renamed over it"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), b"newer\n");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left");
        // Untouched meanwhile: rewritten.
        let mut out = Output::in_place(&path).unwrap();
        out.write_all(b"rewritten newer\n").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"rewritten newer\n");
    }

    #[test]
    fn in_place_keeps_the_input_compression_whatever_the_name() {
        let dir = tempfile::tempdir().unwrap();
        // A gzip file whose name says nothing of it.
        let path = dir.path().join("book.epd");
        let mut out = Output::create_as(&path, Compression::Gzip).unwrap();
        out.write_all(b"records").unwrap();
        out.commit().unwrap();
        assert_eq!(in_place_compression(&path).unwrap(), Compression::Gzip);
        let plain = dir.path().join("plain.epd.zst");
        std::fs::write(&plain, b"not compressed").unwrap();
        assert_eq!(in_place_compression(&plain).unwrap(), Compression::None);
        let zip = dir.path().join("a.zip");
        std::fs::write(&zip, b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0").unwrap();
        let e = in_place_compression(&zip).unwrap_err();
        assert!(e.to_string().contains("zip"), "{e}");
        assert!(in_place_compression(dir.path()).is_err(), "a folder");
    }

    #[test]
    fn compressed_output_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.gz", "a.bz2", "a.zst"] {
            let path = dir.path().join(name);
            let mut out = Output::create(Some(&path)).unwrap();
            out.write_all(b"some pgn").unwrap();
            out.commit().unwrap();
            let mut back = Vec::new();
            let count = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
            let mut r = super::super::Input::File(path).open(count).unwrap();
            io::Read::read_to_end(&mut r, &mut back).unwrap();
            assert_eq!(back, b"some pgn");
        }
    }

    #[test]
    fn zst_output_is_in_frames_of_pzstd_layout() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.pgn.zst");
        let mut out = Output::create(Some(&path)).unwrap();
        let game = b"[Event \"x\"]\n\n1. e4 *\n\n";
        let total = 3 * super::super::frame_writer::FRAME + 1;
        let mut written = 0;
        while written < total {
            out.write_all(game).unwrap();
            written += game.len();
        }
        out.commit().unwrap();
        let data = std::fs::read(&path).unwrap();
        // Starts with pzstd's announcement of the first frame's size.
        assert_eq!(&data[..8], &[0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0]);
        let file = File::open(&path).unwrap();
        assert!(super::super::frames::several_frames(
            &file,
            data.len() as u64
        ));
    }
}
