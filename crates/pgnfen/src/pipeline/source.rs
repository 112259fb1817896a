//! Where the bytes come from: files or standard input, each opened once and
//! decompressed on the fly by its first bytes (gzip, bzip2, zstd, xz, zip), never
//! by its name. Other known compressors and containers (tar, 7z, rar, lz4, ...)
//! are recognised the same way and refused with their name, so that their
//! binary bytes are never read as games.
//!
//! A plain (uncompressed) regular file is memory-mapped when the run asks for
//! it (`Options::mmap`: the program does unless `--no-mmap` is given; the
//! library's default and Python do not), so that chunks are slices of the page
//! cache, not copies. A mapped file truncated by another program raises SIGBUS,
//! which the handler in `signals` turns into a clean error. Every other regular
//! file is read with large `read` calls. Either way its size and modification
//! time are checked again at its end: a file truncated or rewritten by another
//! program while pgnfen reads it is an error, never a crash or a silently
//! partial output. Anything else (a FIFO, a device, a process substitution) is
//! read as a stream, once.
//!
//! A zip archive yields one stream per member, in archive order, named
//! `ARCHIVE:MEMBER` in messages. Members are decompressed by a producer thread
//! into a small bounded channel, so memory stays bounded whatever a member
//! expands to.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

use crossbeam_channel::{Receiver, bounded};

use super::pipe::{PipeReader, open_fifo_for_reading};

/// How many leading bytes are looked at to recognise a compression (and to
/// tell text from binary in a zip member).
const SNIFF: usize = 64 << 10;
/// How many leading bytes [`Compression::sniff`] needs: a tar archive is only
/// known by its first 512-byte header (magic at 257, checksum over all of it).
pub(crate) const MAGIC_LEN: usize = 512;
/// The most memory the xz decoder may take. `xz -9` (and `-9e`) files need
/// 65 MiB; a file made with a larger dictionary (up to 1.5 GiB) is refused
/// rather than allowed to push the run past its memory bound.
const XZ_MEMLIMIT: u64 = 72 << 20;
/// Decompressed bytes per message from the zip thread.
const ZIP_PIECE: usize = 256 << 10;

/// One input named on the command line, or a member of a zip archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`-` on the command line).
    Stdin,
    /// A file (or a named pipe, a device, ...).
    File(PathBuf),
    /// A member of a zip archive (only ever handed to sinks, never opened by itself).
    ZipMember {
        /// The zip archive, as named.
        archive: String,
        /// The member's name in the archive.
        member: String,
    },
}

/// One stream of decoded bytes: a whole input, or one zip member.
pub struct Stream {
    /// The input to name in messages (the member for a zip).
    pub input: Input,
    /// The decoded bytes.
    pub reader: Box<dyn Read + Send>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("input", &self.input)
            .finish_non_exhaustive()
    }
}

/// The streams of one opened input, in order.
pub struct Streams {
    inner: StreamsInner,
}

impl std::fmt::Debug for Streams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.inner {
            StreamsInner::One(_) => "one",
            StreamsInner::Zip { .. } => "zip",
        };
        f.debug_struct("Streams")
            .field("kind", &kind)
            .finish_non_exhaustive()
    }
}

enum StreamsInner {
    One(Option<Stream>),
    Zip {
        archive: String,
        rx: Receiver<ZipMessage>,
        /// Small members received in one batch, not handed out yet.
        queue: std::collections::VecDeque<(String, Vec<u8>)>,
        /// The zip thread, joined when the streams are dropped.
        _thread: ZipThread,
    },
}

impl Streams {
    /// The next stream; `None` after the last. Each stream must be read to its
    /// end before the next is asked for.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> io::Result<Option<Stream>> {
        match &mut self.inner {
            StreamsInner::One(one) => Ok(one.take()),
            StreamsInner::Zip {
                archive, rx, queue, ..
            } => loop {
                if let Some((member, data)) = queue.pop_front() {
                    return Ok(Some(Stream {
                        input: Input::ZipMember {
                            archive: archive.clone(),
                            member,
                        },
                        reader: Box::new(io::Cursor::new(data)),
                    }));
                }
                match rx.recv() {
                    Ok(ZipMessage::Batch(members)) => queue.extend(members),
                    Ok(ZipMessage::Member(member)) => {
                        return Ok(Some(Stream {
                            input: Input::ZipMember {
                                archive: archive.clone(),
                                member,
                            },
                            reader: Box::new(MemberReader {
                                rx: rx.clone(),
                                piece: Vec::new(),
                                at: 0,
                                done: false,
                            }),
                        }));
                    }
                    // Left over from a member not read to its end.
                    Ok(ZipMessage::Data(_) | ZipMessage::End) => continue,
                    Ok(ZipMessage::Failed(e)) => return Err(e),
                    Err(_) => return Ok(None),
                }
            },
        }
    }

    /// All streams one after the other, as one reader (for line-oriented
    /// readers such as `pgnfen fen`, which do not care where a member ends).
    pub fn concatenated(self) -> Box<dyn Read + Send> {
        match self.inner {
            StreamsInner::One(Some(stream)) => stream.reader,
            StreamsInner::One(None) => Box::new(io::empty()),
            StreamsInner::Zip {
                rx, queue, _thread, ..
            } => Box::new(AllMembers {
                member: MemberReader {
                    rx,
                    piece: queue.into_iter().flat_map(|(_, data)| data).collect(),
                    at: 0,
                    done: false,
                },
                _thread,
            }),
        }
    }
}

impl Input {
    /// The input a command-line argument names: `-` is standard input, anything
    /// else a path (any bytes: a file name need not be UTF-8).
    pub fn from_arg(arg: impl AsRef<std::ffi::OsStr>) -> Input {
        let arg = arg.as_ref();
        if arg == "-" {
            Input::Stdin
        } else {
            Input::File(PathBuf::from(arg))
        }
    }

    /// The name used in messages (`-` reads as `<stdin>`, a zip member as
    /// `ARCHIVE:MEMBER`); bytes of a file name that are not UTF-8 are shown as
    /// U+FFFD.
    pub fn display_name(&self) -> String {
        let name = match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) => p.display().to_string(),
            Input::ZipMember { archive, member } => format!("{archive}:{member}"),
        };
        // Names are untrusted text: shown with control characters escaped, so
        // that a name cannot move the cursor or start a line of its own, and
        // with `./` before a leading `:`, so that a report's line that starts
        // with the name cannot start a GitHub workflow command (`::error`),
        // nor hold one of the runner's older form (`##[error]`) anywhere.
        let name = match crate::escape::controls(&name) {
            std::borrow::Cow::Borrowed(_) => name,
            std::borrow::Cow::Owned(escaped) => escaped,
        };
        let name = match crate::escape::legacy_command_free(&name) {
            std::borrow::Cow::Borrowed(_) => name,
            std::borrow::Cow::Owned(safe) => safe,
        };
        match crate::escape::line_start_name(&name) {
            std::borrow::Cow::Borrowed(_) => name,
            std::borrow::Cow::Owned(safe) => safe,
        }
    }

    /// The name as bytes to make a reference of (a SARIF log's file URI): a
    /// file's path as it is, bytes that are not UTF-8 and control characters
    /// included, where [`Input::display_name`] shows them replaced or
    /// escaped; a zip member's name as the archive holds it after the
    /// archive's name (as named) and `:`; `<stdin>` for standard input.
    pub fn name_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Input::File(p) => std::borrow::Cow::Borrowed(p.as_os_str().as_encoded_bytes()),
            Input::ZipMember { archive, member } => {
                std::borrow::Cow::Owned(format!("{archive}:{member}").into_bytes())
            }
            Input::Stdin => std::borrow::Cow::Borrowed(b"<stdin>"),
        }
    }

    /// Size of the raw (possibly compressed) input, when known: regular files only.
    pub fn raw_len(&self) -> Option<u64> {
        match self {
            Input::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            _ => None,
        }
    }

    /// Opens the input once and recognises its compression by its first bytes.
    /// `raw_read` counts the raw (compressed) bytes read, for the progress bar.
    ///
    /// This is the one way in for every command: the pipeline reads each
    /// [`Stream`] as its own input; `pgnfen fen` reads
    /// `input.open_streams(counter)?.concatenated()` as lines.
    pub fn open_streams(&self, raw_read: Arc<AtomicU64>) -> io::Result<Streams> {
        self.open_streams_until(raw_read, None)
    }

    /// [`Input::open_streams`] for a reading that can be cancelled (as a
    /// run through [`Options::cancel`](super::Options::cancel)): a pipe, a
    /// named pipe or a terminal is opened and read so that a read fails
    /// soon after `cancel` is set, even when no data comes (it waits with
    /// `poll` in slices instead of blocking).
    pub fn open_streams_until(
        &self,
        raw_read: Arc<AtomicU64>,
        cancel: Option<&Arc<AtomicBool>>,
    ) -> io::Result<Streams> {
        let name = self.display_name();
        let raw: Box<dyn Read + Send> = match self {
            Input::Stdin => match cancel {
                // A copy of the descriptor, read directly: `io::stdin()`
                // buffers, and bytes in its buffer are not seen by `poll`.
                Some(cancel) => Box::new(Counting {
                    inner: PipeReader::new(
                        super::output::duplicate(libc::STDIN_FILENO)?,
                        cancel.clone(),
                    ),
                    count: raw_read,
                }),
                None => Box::new(Counting {
                    inner: io::stdin(),
                    count: raw_read,
                }),
            },
            Input::File(path) => {
                let fifo = cancel.is_some()
                    && std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo());
                let file = match fifo {
                    true => open_fifo_for_reading(path)?,
                    false => File::open(path)?,
                };
                let meta = file.metadata()?;
                if meta.is_dir() {
                    return Err(io::Error::new(
                        io::ErrorKind::IsADirectory,
                        "Is a directory",
                    ));
                }
                if meta.is_file() {
                    // A regular file is sniffed in place (`pread`) and then read
                    // from its start with no buffer in between: the chunker's
                    // large reads go straight into its recycled buffers.
                    let magic = head_of(&file)?;
                    let checked = Counting {
                        inner: Checked {
                            len: meta.len(),
                            modified: meta.modified().ok(),
                            read: Some(0),
                            file,
                        },
                        count: raw_read,
                    };
                    let reader: Box<dyn Read + Send> = match Compression::sniff(&magic) {
                        Compression::None => {
                            // (Shorter than MAGIC_LEN: `magic` is the whole file.)
                            refuse_cut_magic(&magic, magic.len() < MAGIC_LEN)?;
                            Box::new(checked)
                        }
                        Compression::Zip => {
                            // A seekable archive: read by its central directory.
                            // Small: every member is found by a seek, which empties the buffer.
                            let input = BufReader::with_capacity(8 << 10, checked);
                            return Ok(zip_streams(name, ZipSource::File(input)));
                        }
                        other => decompress(other, BufReader::with_capacity(1 << 20, checked))?,
                    };
                    return Ok(one(self.clone(), reader));
                }
                match cancel {
                    Some(cancel) => Box::new(Counting {
                        inner: PipeReader::new(file, cancel.clone()),
                        count: raw_read,
                    }),
                    None => Box::new(Counting {
                        inner: file,
                        count: raw_read,
                    }),
                }
            }
            Input::ZipMember { .. } => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a zip member is opened through its archive",
                ));
            }
        };
        let mut input = BufReader::with_capacity(SNIFF, raw);
        let magic = fill_sniff(&mut input)?;
        if Compression::sniff(&magic.0) == Compression::Zip {
            let whole = io::Cursor::new(magic.0).chain(input);
            return Ok(zip_streams(name, ZipSource::Stream(Box::new(whole))));
        }
        Ok(one(self.clone(), decoder(magic, input)?))
    }

    /// The whole input as one decoded reader (zip members one after the other).
    pub fn open(&self, raw_read: Arc<AtomicU64>) -> io::Result<Box<dyn Read + Send>> {
        Ok(self.open_streams(raw_read)?.concatenated())
    }
}

impl Input {
    /// Maps a plain, regular, non-empty file into memory, so that chunks are
    /// slices of the page cache instead of copies. `None` when it cannot or
    /// should not be (compressed, empty, not a regular file: those are read).
    /// A FIFO is never opened here: opening it would take bytes away from the
    /// one real read.
    pub(crate) fn map(&self) -> Option<Mapped> {
        let Input::File(path) = self else { return None };
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() || meta.len() == 0 {
            return None;
        }
        let file = File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() == 0 {
            return None;
        }
        // Anything but plain text (a compression, or a refused container that
        // `open_streams` names) is not mapped.
        let magic = head_of(&file).ok()?;
        if Compression::sniff(&magic) != Compression::None
            || refuse_cut_magic(&magic, magic.len() < MAGIC_LEN).is_err()
        {
            // (A file cut inside magic bytes is refused when it is opened.)
            return None;
        }
        // SAFETY: the map is read-only. If another program truncates the file
        // while it is mapped, touching a lost page raises SIGBUS, which
        // `signals` turns into a clean failure (temporary outputs removed, a
        // message naming the file, exit status 2); other changes are found by
        // `Mapped::check_unchanged` at the end.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        let _ = map.advise(memmap2::Advice::Sequential);
        Some(Mapped {
            map,
            identity: FileIdentity {
                len: meta.len(),
                modified: meta.modified().ok(),
                file,
            },
        })
    }
}

/// A memory-mapped input file, with what it was when mapped.
pub struct Mapped {
    /// The file's bytes.
    pub map: memmap2::Mmap,
    /// The open file, its size and modification time when mapped.
    pub identity: FileIdentity,
}

/// An open file with its size and modification time when it was opened.
pub struct FileIdentity {
    file: File,
    len: u64,
    modified: Option<SystemTime>,
}

impl FileIdentity {
    /// An error when the file's size or modification time moved since it was
    /// mapped (another program wrote to it during the run).
    pub fn check_unchanged(&self) -> io::Result<()> {
        check_unchanged(&self.file, self.len, self.modified)
    }
}

/// The message of an input that changed under the run (`what`: how), the
/// same wherever the change is seen (the checks here, a read error of a
/// changed file, the SIGBUS handler of a truncated mapped file).
pub(crate) fn changed_message(what: &str) -> String {
    format!(
        "the file changed while pgnfen read it ({what}); the run stopped and wrote no output file"
    )
}

/// The error of [`changed_message`].
pub(crate) fn changed(what: &str) -> io::Error {
    io::Error::other(changed_message(what))
}

/// An error when `file`'s size or modification time is no longer `len` and
/// `modified`, those it had when opened (another program wrote to it during
/// the run), for mapped files and zstd files read frame by frame alike.
pub(crate) fn check_unchanged(
    file: &File,
    len: u64,
    modified: Option<SystemTime>,
) -> io::Result<()> {
    let meta = file.metadata()?;
    if meta.len() != len || meta.modified().ok() != modified {
        return Err(changed(&what_changed(len, meta.len())));
    }
    Ok(())
}

/// What tells one state of a regular file from another: its size,
/// modification time, device and inode. Taken when a run opens an input (to
/// tell a read error that a change under the run caused, a compressed file
/// rewritten reading as corrupt data, from a file corrupt all along) and when
/// `export --tags all` reads its names (the rows are read in a second pass).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FileStamp {
    len: u64,
    modified: Option<SystemTime>,
    dev: u64,
    ino: u64,
}

impl FileStamp {
    /// The stamp of the file at `path` now (following links, as opening does).
    pub(crate) fn of(path: &std::path::Path) -> io::Result<FileStamp> {
        std::fs::metadata(path).map(|m| FileStamp::from_metadata(&m))
    }

    /// The stamp of `input` when it is a regular file.
    pub(crate) fn of_input(input: &Input) -> Option<FileStamp> {
        let Input::File(path) = input else {
            return None;
        };
        let m = std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)?;
        Some(FileStamp::from_metadata(&m))
    }

    fn from_metadata(m: &std::fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            len: m.len(),
            modified: m.modified().ok(),
            dev: m.dev(),
            ino: m.ino(),
        }
    }

    /// How the file at `path` differs from this stamp, in words for
    /// [`changed`], or `None` when it does not.
    pub(crate) fn change(&self, path: &std::path::Path) -> Option<String> {
        match FileStamp::of(path) {
            Ok(now) if (now.dev, now.ino) != (self.dev, self.ino) => {
                Some("replaced by another file".to_string())
            }
            Ok(now) if now.len != self.len || now.modified != self.modified => {
                Some(what_changed(self.len, now.len))
            }
            Ok(_) => None,
            Err(gone) => Some(format!("it can no longer be read: {gone}")),
        }
    }
}

/// What changed in a file that had `len` bytes when opened and has `now`:
/// its size, or (the same size) its modification time, as when it is
/// rewritten in place.
pub(crate) fn what_changed(len: u64, now: u64) -> String {
    if len == now {
        format!("modified since it was opened, at the same size of {len} bytes")
    } else {
        format!("size {len} when opened, {now} now")
    }
}

/// The first [`MAGIC_LEN`] bytes of a regular file (fewer if it is shorter),
/// read in place (`pread`): the file's own offset is left at its start.
pub(crate) fn head_of(file: &File) -> io::Result<Vec<u8>> {
    let mut magic = vec![0u8; MAGIC_LEN];
    let mut n = 0;
    while n < magic.len() {
        match std::os::unix::fs::FileExt::read_at(file, &mut magic[n..], n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    magic.truncate(n);
    Ok(magic)
}

fn one(input: Input, reader: Box<dyn Read + Send>) -> Streams {
    Streams {
        inner: StreamsInner::One(Some(Stream { input, reader })),
    }
}

/// The first bytes of an input (short reads from pipes included), for
/// recognising its compression: the bytes, and whether the input ended there.
fn fill_sniff<R: Read>(input: &mut BufReader<R>) -> io::Result<(Vec<u8>, bool)> {
    let mut head = Vec::new();
    while head.len() < MAGIC_LEN {
        let more = input.fill_buf()?;
        if more.is_empty() {
            // The end, already: never read again (on a terminal, a second read
            // would wait for a second Ctrl-D).
            return Ok((head, true));
        }
        head.extend_from_slice(more);
        let n = more.len();
        input.consume(n);
    }
    Ok((head, false))
}

/// Refuses an input that is `whole` (nothing follows it) and ends inside
/// the magic bytes of a compressed format, such as the first two bytes of a
/// zstd file: a download or copy cut short, not text to read as a game of
/// junk. Two bytes at least (one could be any text), three for zip (`PK`),
/// four for bzip2 (`BZh` and a digit).
pub(crate) fn refuse_cut_magic(whole: &[u8], ended: bool) -> io::Result<()> {
    // (bzip2's own three letters, `BZh`, are text: only `BZh`, a block
    // size digit and what follows is taken for a cut bzip2 file.)
    const MAGICS: [(&[u8], &str); 3] = [
        (&[0x28, 0xb5, 0x2f, 0xfd], "a zstd file"),
        (&[0xfd, b'7', b'z', b'X', b'Z', 0x00], "an xz file"),
        (b"PK\x03\x04", "a zip archive"),
    ];
    if !ended || whole.len() < 2 {
        return Ok(());
    }
    if is_cut_bzip2_head(whole) {
        return Err(cut_magic(whole, "a bzip2 file"));
    }
    for (magic, what) in MAGICS {
        let shortest = if what == "a zip archive" { 3 } else { 2 };
        if whole.len() >= shortest && whole.len() < magic.len() && magic.starts_with(whole) {
            return Err(cut_magic(whole, what));
        }
    }
    Ok(())
}

fn cut_magic(whole: &[u8], what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "the input ends after {} bytes, inside the magic bytes of {what}: a file cut short",
            whole.len()
        ),
    )
}

/// `BZh`, a block size digit and at most 5 bytes of a block or stream-end magic.
fn is_cut_bzip2_head(whole: &[u8]) -> bool {
    const BLOCK: [u8; 6] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
    const END: [u8; 6] = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];
    match whole {
        [b'B', b'Z', b'h', b'1'..=b'9', rest @ ..] => {
            rest.len() < 6 && (BLOCK.starts_with(rest) || END.starts_with(rest))
        }
        _ => false,
    }
}

/// The decoder the first bytes ask for, over `head` followed by the rest of `input`.
fn decoder<R: Read + Send + 'static>(
    (head, ended): (Vec<u8>, bool),
    input: BufReader<R>,
) -> io::Result<Box<dyn Read + Send>> {
    let compression = Compression::sniff(&head);
    if compression == Compression::None {
        refuse_cut_magic(&head, ended)?;
    }
    let rest: Box<dyn Read + Send> = if ended {
        Box::new(io::empty())
    } else {
        Box::new(input)
    };
    let input = BufReader::with_capacity(1 << 20, io::Cursor::new(head).chain(rest));
    decompress(compression, input)
}

/// `input` decompressed as `compression` says (and refused if what it holds
/// is itself compressed or an archive: [`Unnested`]).
fn decompress<R: BufRead + Send + 'static>(
    compression: Compression,
    input: R,
) -> io::Result<Box<dyn Read + Send>> {
    let unnested = |inner: Box<dyn Read + Send>| -> Box<dyn Read + Send> {
        Box::new(Unnested::new(inner, compression))
    };
    Ok(match compression {
        Compression::None | Compression::Zip => Box::new(input),
        Compression::Gzip => unnested(Box::new(DecoderErrors {
            inner: GzMembers::new(input),
            format: "gzip",
        })),
        Compression::Bzip2 => unnested(Box::new(DecoderErrors {
            inner: bzip2::bufread::MultiBzDecoder::new(input),
            format: "bzip2",
        })),
        Compression::Zstd => unnested(Box::new(DecoderErrors {
            inner: ZstdReader(zstd::stream::read::Decoder::with_buffer(input)?),
            format: "zstd",
        })),
        Compression::Xz => {
            // CONCATENATED: every stream of the file, as `xz -T0` (one stream
            // per block group) and `cat a.xz b.xz` make them.
            let stream = liblzma::stream::Stream::new_stream_decoder(
                XZ_MEMLIMIT,
                liblzma::stream::CONCATENATED,
            )
            .map_err(|e| io::Error::other(format!("cannot start the xz decoder: {e}")))?;
            unnested(Box::new(XzReader(liblzma::bufread::XzDecoder::new_stream(
                input, stream,
            ))))
        }
        Compression::Refused(what) => return Err(refused(what)),
    })
}

/// The decoded bytes of a compressed input, refused at the first read if
/// they begin as a compressed file or an archive would (`.tar.gz`, a zip
/// gzipped again): those would otherwise be read as PGN, their headers
/// copied into the outputs as text.
pub(crate) struct Unnested<R> {
    inner: R,
    outer: Compression,
    /// The first decoded bytes, read ahead to be recognised, and how many of
    /// them were handed out; `None` once all were.
    head: Option<(Vec<u8>, usize)>,
    /// The error that ended the reading of those first bytes, returned once
    /// they were handed out: a small file whose data is followed by damage
    /// (trailing garbage, a cut) gives its games before the error, as a
    /// larger one does.
    failed: Option<io::Error>,
}

impl<R: Read> Unnested<R> {
    pub(crate) fn new(inner: R, outer: Compression) -> Unnested<R> {
        Unnested {
            inner,
            outer,
            head: None,
            failed: None,
        }
    }

    /// Reads the first bytes and refuses what they show.
    fn check(&mut self) -> io::Result<()> {
        let mut head = vec![0; MAGIC_LEN];
        let mut n = 0;
        while n < head.len() {
            match self.inner.read(&mut head[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if n == 0 => return Err(e),
                Err(e) => {
                    // Judged by what was read, as a file that ends there.
                    self.failed = Some(e);
                    break;
                }
            }
        }
        head.truncate(n);
        let inner = Compression::sniff(&head);
        if inner != Compression::None {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} inside {} is not read; unpack it first",
                    inner.describe(),
                    self.outer.describe()
                ),
            ));
        }
        self.head = Some((head, 0));
        Ok(())
    }
}

/// Lends what the reader lends once the first bytes were checked and handed
/// out (the first chunk is read, so copied).
impl<R: super::chunk::Lend> super::chunk::Lend for Unnested<R> {
    fn lend(&mut self) -> Option<super::chunk::Lent> {
        if self.outer != Compression::None || self.head.is_some() || self.failed.is_some() {
            return None;
        }
        self.inner.lend()
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
    }
}

impl<R: Read> Read for Unnested<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.outer != Compression::None {
            self.check()?;
            self.outer = Compression::None;
        }
        if let Some((head, at)) = &mut self.head {
            let n = buf.len().min(head.len() - *at);
            buf[..n].copy_from_slice(&head[*at..*at + n]);
            *at += n;
            if *at == head.len() {
                self.head = None;
            }
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
        }
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.inner.read(buf)
    }
}

/// The error for an input in a format pgnfen recognises but does not read.
pub(crate) fn refused(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{what}, not PGN text: pgnfen reads plain, gzip, bzip2, zstd, xz and zip files; \
             unpack it first"
        ),
    )
}

/// The members of a gzip file one after another, as `gzip -d` reads them.
/// After a member comes another (its magic bytes), the end, or zero bytes
/// to the end (padding, such as a tape's blocks, which `gzip -d` skips);
/// anything else is refused, saying so: flate2's `MultiGzDecoder` read a
/// few such bytes as a header cut short, and zeros as a damaged one.
struct GzMembers<R: BufRead> {
    /// The member being read; `None` once the input is done.
    member: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: BufRead> GzMembers<R> {
    fn new(input: R) -> Self {
        GzMembers {
            member: Some(flate2::bufread::GzDecoder::new(input)),
        }
    }

    /// What follows a member that ended: the next member, or `None` at the
    /// end of the input.
    fn after(mut input: R) -> io::Result<Option<flate2::bufread::GzDecoder<R>>> {
        let head = input.fill_buf()?;
        if head.is_empty() {
            return Ok(None);
        }
        if head.starts_with(&[0x1f, 0x8b]) || head == [0x1f] {
            return Ok(Some(flate2::bufread::GzDecoder::new(input)));
        }
        loop {
            let bytes = input.fill_buf()?;
            if bytes.is_empty() {
                return Ok(None);
            }
            if bytes.iter().any(|&b| b != 0) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "gzip data cannot be read: bytes that are not gzip follow the last \
                     member (trailing garbage: the file holds something else after its \
                     compressed data)",
                ));
            }
            let n = bytes.len();
            input.consume(n);
        }
    }
}

impl<R: BufRead> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while let Some(member) = self.member.as_mut() {
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let Some(member) = self.member.take() else {
                break;
            };
            self.member = GzMembers::after(member.into_inner())?;
        }
        Ok(0)
    }
}

/// An xz decoder whose errors say that the input is xz (liblzma's own
/// messages, "corrupt data", do not say which layer failed).
struct XzReader<R>(liblzma::bufread::XzDecoder<R>);

impl<R: BufRead> Read for XzReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            let memory = e
                .get_ref()
                .and_then(|r| r.downcast_ref::<liblzma::stream::Error>())
                .is_some_and(|e| *e == liblzma::stream::Error::MemLimit);
            if memory {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "xz data made with a dictionary that needs more than {} MiB to \
                         decompress (at most `xz -9` is read)",
                        XZ_MEMLIMIT >> 20
                    ),
                )
            } else if e.kind() == io::ErrorKind::Interrupted {
                e
            } else {
                // liblzma tells a cut from bytes after the last stream that
                // are no stream (too few for a header: "premature eof";
                // more: "data error") by neither word.
                let lower = e.to_string().to_lowercase();
                let why = if lower.contains("eof") {
                    " (the file ends inside compressed data: it was cut short, or a \
                     few bytes that are not xz follow its last stream)"
                } else if lower.contains("data error") || lower.contains("format") {
                    " (the compressed data is damaged, or bytes that are not xz follow \
                     its last stream: trailing garbage)"
                } else {
                    ""
                };
                io::Error::new(e.kind(), format!("xz data cannot be read: {e}{why}"))
            }
        })
    }
}

/// A decoder whose errors say which format could not be read and, for the
/// usual causes, why: the decoders' own words ("incomplete frame",
/// "decompression not finished but EOF reached", "invalid gzip header")
/// name neither the format nor the cause. (xz has its own wrapper.)
struct DecoderErrors<R> {
    inner: R,
    format: &'static str,
}

impl<R: Read> Read for DecoderErrors<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let text = e.to_string();
            // (A message of this module's own already names the format.)
            if e.kind() == io::ErrorKind::Interrupted
                || text.starts_with(&format!("{} data ", self.format))
            {
                return e;
            }
            let lower = text.to_lowercase();
            let why = if lower.contains("incomplete")
                || lower.contains("eof")
                || lower.contains("end of file")
            {
                " (the file ends inside compressed data: it was cut short)"
            } else if lower.contains("checksum") {
                " (the compressed data is damaged: what it decodes to does not \
                 match its checksum)"
            } else if self.format == "zstd" && lower.contains("dictionary") {
                // zstd's words ("Dictionary mismatch") do not say that the
                // frame needs a dictionary the reader was not given.
                " (the data was compressed with a zstd dictionary, which pgnfen \
                 cannot be given: decompress it first with `zstd -d -D DICTIONARY`)"
            } else if self.format == "bzip2" && lower.contains("header missing") {
                // After a stream, only another stream may follow.
                " (bytes that are not bzip2 follow its last stream: trailing \
                 garbage or padding)"
            } else if self.format == "gzip" && lower.contains("header") {
                // Most often what follows the last member (`gzip -d` warns
                // "trailing garbage ignored" and goes on; pgnfen loses no
                // byte without saying so).
                " (a member's header is damaged, or bytes that are not gzip \
                 follow the compressed data: trailing garbage or padding)"
            } else {
                ""
            };
            io::Error::new(
                e.kind(),
                format!("{} data cannot be read: {text}{why}", self.format),
            )
        })
    }
}

/// A zstd decoder whose refusal of a frame with a window above zstd's
/// default limit (128 MiB: frames made with `zstd --long=28` or more) says
/// so; zstd's own words are "Frame requires too much memory for decoding".
/// The limit stays, as `zstd -d` keeps it without `--long`: such a window is
/// memory the decoder would hold for the whole frame.
pub(crate) struct ZstdReader<R>(pub(crate) R);

impl<R: Read> Read for ZstdReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            if e.to_string().contains("requires too much memory") {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "zstd data made with a window larger than 128 MiB (`zstd --long=28` or \
                     more), which pgnfen does not decode; decompress it with `zstd -d \
                     --long=31` first, or compress it again without `--long`",
                )
            } else {
                e
            }
        })
    }
}

/// A compression, as recognised by magic bytes or asked for by an output's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (one member or several).
    Gzip,
    /// bzip2 (one stream or several).
    Bzip2,
    /// zstd (one frame or several, skippable frames among them).
    Zstd,
    /// A zip archive (read member by member; never written).
    Zip,
    /// xz (one stream or several, as `xz -T0` writes).
    Xz,
    /// A format recognised by its magic bytes that pgnfen does not read: its
    /// name, for the message ("a tar archive").
    Refused(&'static str),
}

/// Whether `data` (at least 512 bytes) starts with a tar header: a header
/// checksum that adds up, with `ustar` at offset 257 (POSIX and GNU tar) or,
/// in the old V7 format that has no magic, a name padded with NUL bytes,
/// which no text holds. A text never has both by chance.
fn is_tar(data: &[u8]) -> bool {
    let Some(header) = data.get(..512) else {
        return false;
    };
    let ustar = &header[257..262] == b"ustar";
    let v7_name = header[0] != 0 && header[..100].contains(&0);
    if !ustar && !v7_name {
        return false;
    }
    // The checksum field: octal digits, ended by NUL or space.
    let field = &header[148..156];
    let digits: Vec<u8> = field
        .iter()
        .copied()
        .skip_while(|b| *b == b' ')
        .take_while(u8::is_ascii_digit)
        .collect();
    let Some(stored) = std::str::from_utf8(&digits)
        .ok()
        .and_then(|d| u32::from_str_radix(d, 8).ok())
    else {
        return false;
    };
    tar_checksum(header) == stored
}

/// A tar header's checksum: the sum of its 512 bytes, with the checksum
/// field itself read as eight spaces.
fn tar_checksum(header: &[u8]) -> u32 {
    header
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u32::from(b)
            }
        })
        .sum()
}

/// Whether `data` starts with an `.lzma` (LZMA-alone) header: a properties
/// byte (lc, lp, pb: below 225) and a dictionary size of 2^n or 2^n + 2^(n-1)
/// from 4 KiB on, as every LZMA encoder writes. Such a size has at most two
/// bits set, so the header holds NUL bytes and is never the start of a text.
fn is_lzma_alone(data: &[u8]) -> bool {
    let [props, d0, d1, d2, d3, ..] = *data else {
        return false;
    };
    if data.len() < 13 || props >= 225 {
        return false;
    }
    let dict = u32::from_le_bytes([d0, d1, d2, d3]);
    if dict < 4096 {
        return false;
    }
    let top = 1u32 << (31 - dict.leading_zeros());
    dict == top || dict == top + top / 2
}

/// What follows the skippable frames (zstd's and lz4's, magic `0x184D2A5?`,
/// then a 4-byte little-endian length) that start `data`; `None` when they
/// run past its end. Their number is bounded by `data`'s length.
fn after_skippable_frames(mut data: &[u8]) -> Option<&[u8]> {
    while let [0x50..=0x5f, 0x2a, 0x4d, 0x18, l0, l1, l2, l3, ..] = *data {
        let length = usize::try_from(u32::from_le_bytes([l0, l1, l2, l3])).ok()?;
        data = data.get(8usize.checked_add(length)?..)?;
    }
    Some(data)
}

impl Compression {
    /// The compression whose magic bytes start `data` (never a PGN's start).
    pub fn sniff(data: &[u8]) -> Compression {
        match data {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            // A skippable frame: pzstd (and so the lichess database) starts
            // every file with one, announcing the first frame's size. lz4
            // shares the format of skippable frames, so the frame after them
            // decides (zstd when they run past the bytes at hand).
            [0x50..=0x5f, 0x2a, 0x4d, 0x18, ..] => match after_skippable_frames(data) {
                Some(next @ [0x04, 0x22, 0x4d, 0x18, ..] | next @ [0x02, 0x21, 0x4c, 0x18, ..]) => {
                    Compression::sniff(next)
                }
                _ => Compression::Zstd,
            },
            // A local file header, or the end record of an empty archive.
            [b'P', b'K', 3, 4, ..] | [b'P', b'K', 5, 6, ..] => Compression::Zip,
            // A block, or the end of a stream without one (an empty stream,
            // which `bzip2` writes for empty input: such a file may start a
            // concatenation of streams).
            [
                b'B',
                b'Z',
                b'h',
                b'1'..=b'9',
                0x31,
                0x41,
                0x59,
                0x26,
                0x53,
                0x59,
                ..,
            ]
            | [
                b'B',
                b'Z',
                b'h',
                b'1'..=b'9',
                0x17,
                0x72,
                0x45,
                0x38,
                0x50,
                0x90,
                ..,
            ] => Compression::Bzip2,
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Xz,
            // Recognised and refused: read as PGN they would be "games" of junk.
            [0x04, 0x22, 0x4d, 0x18, ..] => Compression::Refused("an lz4 file"),
            [0x02, 0x21, 0x4c, 0x18, ..] => Compression::Refused("an lz4 file (legacy format)"),
            [b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c, ..] => Compression::Refused("a 7z archive"),
            [b'R', b'a', b'r', b'!', 0x1a, 0x07, 0x00, ..] => {
                Compression::Refused("a rar archive (RAR 4)")
            }
            [b'R', b'a', b'r', b'!', 0x1a, 0x07, 0x01, 0x00, ..] => {
                Compression::Refused("a rar archive (RAR 5)")
            }
            [b'B', b'Z', b'3', b'v', b'1', ..] => Compression::Refused("a bzip3 file"),
            [b'L', b'Z', b'I', b'P', 0 | 1, ..] => Compression::Refused("an lzip file"),
            [0x1f, 0x9d, ..] => Compression::Refused("a compress (.Z) file"),
            [0x89, b'L', b'Z', b'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a, ..] => {
                Compression::Refused("an lzop file")
            }
            [
                0xff,
                0x06,
                0x00,
                0x00,
                b's',
                b'N',
                b'a',
                b'P',
                b'p',
                b'Y',
                ..,
            ] => Compression::Refused("a snappy file"),
            [b'M', b'S', b'C', b'F', 0, 0, 0, 0, ..] => Compression::Refused("a cab archive"),
            [b'x', b'a', b'r', b'!', 0x00, 0x1c, ..] => Compression::Refused("a xar archive"),
            [b'!', b'<', b'a', b'r', b'c', b'h', b'>', b'\n', ..] => {
                Compression::Refused("an ar archive")
            }
            _ if is_lzma_alone(data) => Compression::Refused("an lzma file"),
            _ if is_tar(data) => Compression::Refused("a tar archive"),
            _ => Compression::None,
        }
    }

    /// A name for messages: "a tar archive", "an xz file".
    pub fn describe(self) -> &'static str {
        match self {
            Compression::None => "plain text",
            Compression::Gzip => "a gzip file",
            Compression::Bzip2 => "a bzip2 file",
            Compression::Zstd => "a zstd file",
            Compression::Zip => "a zip archive",
            Compression::Xz => "an xz file",
            Compression::Refused(what) => what,
        }
    }

    /// A file name cut before the ending of a compression pgnfen writes
    /// (`.gz`, `.bz2`, `.xz`, `.zst`, case ignored): (`x.csv`, `.zst`) for
    /// `x.csv.zst`, (`x.csv`, ``) for `x.csv`. For the checks that read the
    /// format under that ending.
    pub(crate) fn split_written_ending(name: &str) -> (&str, &str) {
        let lower = name.to_ascii_lowercase();
        match [".gz", ".bz2", ".xz", ".zst"]
            .into_iter()
            .find(|ending| lower.ends_with(ending))
        {
            Some(ending) => name.split_at(name.len() - ending.len()),
            None => (name, ""),
        }
    }

    /// The compression an output file's name asks for. `Err` names an ending
    /// of a compression pgnfen does not write, which must not silently become
    /// a plain file.
    pub fn for_output(path: &Path) -> Result<Compression, UnwritableEnding> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        // `x.tar.gz` asks for a tar archive, as `x.tgz` does: pgnfen would
        // write compressed PGN under it.
        let inner = Path::new(path.file_stem().unwrap_or_default())
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if let (Some("tar"), Some(e @ ("gz" | "bz2" | "zst" | "xz"))) =
            (inner.as_deref(), ext.as_deref())
        {
            return Err(UnwritableEnding {
                ending: format!("tar.{e}"),
            });
        }
        match ext.as_deref() {
            Some("gz") => Ok(Compression::Gzip),
            Some("bz2") => Ok(Compression::Bzip2),
            Some("zst") => Ok(Compression::Zstd),
            Some("xz") => Ok(Compression::Xz),
            Some(
                e @ ("lz4" | "lzma" | "zip" | "7z" | "br" | "lz" | "z" | "tgz" | "tbz2" | "txz"
                | "lzo" | "sz" | "rar" | "zstd" | "bz" | "tbz" | "tzst" | "tar" | "bz3"
                | "gzip" | "bzip2"),
            ) => Err(UnwritableEnding {
                ending: e.to_string(),
            }),
            _ => Ok(Compression::None),
        }
    }
}

/// An output name whose ending asks for a compression or an archive that
/// pgnfen does not write ([`Compression::for_output`]): the caller's mistake.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pgnfen cannot write .{ending} files (it writes .gz, .bz2, .zst, .xz or plain text)")]
pub struct UnwritableEnding {
    ending: String,
}

impl UnwritableEnding {
    /// The ending refused, in lower case and without its dot (`lz4`).
    pub fn ending(&self) -> &str {
        &self.ending
    }
}

/// A regular file that reports a change under the run: at its end, the bytes
/// read must match the size it had when opened, and neither size nor
/// modification time may have moved.
struct Checked {
    file: File,
    len: u64,
    modified: Option<SystemTime>,
    /// Bytes read front to back; `None` once the file was read out of order.
    read: Option<u64>,
}

impl Read for Checked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        if let Some(read) = &mut self.read {
            *read += n as u64;
        }
        if n == 0 && !buf.is_empty() {
            let meta = self.file.metadata()?;
            let short = self.read.is_some_and(|r| r != self.len);
            if short || meta.len() != self.len || meta.modified().ok() != self.modified {
                return Err(changed(&what_changed(self.len, meta.len())));
            }
        }
        Ok(n)
    }
}

struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl Seek for Checked {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        // An archive read by its directory is not read front to back: its
        // change check is the size and time only.
        self.read = None;
        self.file.seek(pos)
    }
}

enum ZipMessage {
    /// Members small enough for one piece each: their names and all their
    /// bytes, up to about a piece in all. One message for many members: an
    /// archive of 100,000 one-game members costs no hand-over per member.
    Batch(Vec<(String, Vec<u8>)>),
    /// A member starts (its name).
    Member(String),
    Data(Vec<u8>),
    /// The member ended.
    End,
    Failed(io::Error),
}

enum ZipSource {
    /// A regular file: members in central-directory order.
    File(BufReader<Counting<Checked>>),
    /// Standard input or a pipe: copied to a temporary file, then read like one.
    Stream(Box<dyn Read + Send>),
}

/// Joins the zip thread when the last reader of its channel is gone.
struct ZipThread(Option<std::thread::JoinHandle<()>>);

impl Drop for ZipThread {
    fn drop(&mut self) {
        // The thread stops at its next send once the receivers are dropped; it
        // is not joined here (the receiver this struct sits beside may still
        // exist), so a stuck read cannot hang the program's exit.
        drop(self.0.take());
    }
}

fn zip_streams(archive: String, source: ZipSource) -> Streams {
    // A few pieces in flight: memory is bounded (16 pieces of at most 256 KiB)
    // whatever a member expands to, and the zip thread can run ahead of the
    // reader through a run of small members.
    let (tx, rx) = bounded::<ZipMessage>(16);
    let name = archive.clone();
    let thread = std::thread::Builder::new()
        .name("pgnfen-zip".into())
        .spawn(move || {
            let mut tx = ZipTx {
                tx,
                batch: Vec::new(),
                bytes: 0,
            };
            let result = match source {
                ZipSource::File(file) => zip_members_seekable(file, &mut tx),
                ZipSource::Stream(input) => zip_members_streamed(input, &mut tx),
            };
            match result {
                Ok(()) => tx.flush(),
                Err(e) => tx.send(ZipMessage::Failed(e)),
            };
        });
    let thread = match thread {
        Ok(t) => Some(t),
        Err(e) => {
            let (tx2, rx2) = bounded(1);
            let _ = tx2.send(ZipMessage::Failed(super::no_thread(e)));
            return Streams {
                inner: StreamsInner::Zip {
                    archive: name,
                    rx: rx2,
                    queue: Default::default(),
                    _thread: ZipThread(None),
                },
            };
        }
    };
    Streams {
        inner: StreamsInner::Zip {
            archive: name,
            rx,
            queue: Default::default(),
            _thread: ZipThread(thread),
        },
    }
}

/// The zip thread's end of the channel: small members are gathered into
/// batches, sent when they reach a piece's size, before any other message, and
/// at the end.
struct ZipTx {
    tx: crossbeam_channel::Sender<ZipMessage>,
    batch: Vec<(String, Vec<u8>)>,
    bytes: usize,
}

impl ZipTx {
    /// Sends a message after the members gathered so far; `false` when nobody
    /// listens any more.
    fn send(&mut self, message: ZipMessage) -> bool {
        self.flush() && self.tx.send(message).is_ok()
    }

    /// A whole member, sent with others.
    fn whole(&mut self, name: String, data: Vec<u8>) -> bool {
        // A name counts too: a batch of empty members with long names is
        // bounded. So does the room a member's buffer holds beyond its bytes
        // (its first piece is sized by the size it declares, which may lie):
        // a batch of 1,700 members of 150 bytes had held 4 KiB each, 7 MB,
        // and the 16 batches in flight 110 MB.
        self.bytes += data.capacity() + name.len() + 64;
        self.batch.push((name, data));
        self.bytes < ZIP_PIECE || self.flush()
    }

    /// Sends the gathered members.
    fn flush(&mut self) -> bool {
        if self.batch.is_empty() {
            return true;
        }
        self.bytes = 0;
        self.tx
            .send(ZipMessage::Batch(std::mem::take(&mut self.batch)))
            .is_ok()
    }
}

fn zip_error(e: zip::result::ZipError) -> io::Error {
    match e {
        zip::result::ZipError::Io(e) => e,
        e => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a readable zip: {}", zip_reason(&e)),
        ),
    }
}

/// The zip library's reason, in words a user can act on: it names a record
/// cut short by its Rust type (`zip::format::blocks::Zip32CDEBlock`).
fn zip_reason(e: &zip::result::ZipError) -> String {
    match e {
        zip::result::ZipError::InvalidArchive(m) if m.starts_with("Unexpected end of ") => {
            "the file ends inside one of its records (is it cut short?)".to_string()
        }
        // "Could not find EOCD": the end of central directory record, last
        // in every zip, is what a cut download loses first.
        zip::result::ZipError::InvalidArchive(m) if m.contains("EOCD") => {
            "its last record, the list of its members, is missing (is it cut short?)".to_string()
        }
        e => e.to_string(),
    }
}

fn zip_members_seekable<R: Read + io::Seek>(mut file: R, tx: &mut ZipTx) -> io::Result<()> {
    file.rewind()?;
    let mut head = Vec::with_capacity(4);
    (&mut file).take(4).read_to_end(&mut head)?;
    file.rewind()?;
    // The central directory walked entry by entry, not `ZipArchive`, which
    // keys the members by name: of two members with one name (a zip may hold
    // them, as `zip` appending to an archive and Python's `zipfile` write)
    // it would read only the last, in the first one's place.
    let mut archive = zip::unstable::read::ZipIterable::try_new(file, zip::read::Config::default())
        .map_err(zip_error)?;
    let members = archive.files().map_err(zip_error)?;
    let mut last_entry = None;
    let mut first_member_listed = false;
    while let Some(entry) = members.next() {
        let entry = entry.map_err(zip_error)?;
        last_entry = Some(entry.central_header_start());
        first_member_listed |= entry.header_start() == 0;
        if entry.is_dir() {
            continue;
        }
        // A member that cannot be opened (encrypted, or its local header
        // unreadable) is an error of that member, named `ARCHIVE:MEMBER`, not
        // of the archive: the members before it were read.
        let name = entry.name().map_err(zip_error)?.into_owned();
        let opened = if entry.encrypted() {
            Err((
                io::ErrorKind::InvalidData,
                "it is encrypted, and pgnfen reads no encrypted member (unpack it first)".into(),
            ))
        } else {
            entry
                .with_reader(members.reader_mut(), zip::ZipReadOptions::new())
                .map_err(|e| match &e {
                    zip::result::ZipError::Io(io) => (io.kind(), io.to_string()),
                    _ => (io::ErrorKind::InvalidData, zip_reason(&e)),
                })
        };
        let member = match opened {
            Ok(member) => member,
            Err((kind, why)) => {
                if !tx.send(ZipMessage::Member(name)) {
                    return Ok(());
                }
                return Err(io::Error::new(
                    kind,
                    format!("the zip member cannot be read: {why}"),
                ));
            }
        };
        if !send_member(member, tx)? {
            return Ok(());
        }
    }
    // The end record's count of members is what the walk trusts: one that
    // says too few would lose members without a word.
    let untrusted = |what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a readable zip: {what}; its members cannot all be found"),
        )
    };
    match last_entry {
        _ if head == b"PK\x03\x04" && !first_member_listed => Err(untrusted(
            "the member it begins with is not in its central directory (two zips \
             joined end to end, or a copy of an end record in the archive's comment?)",
        )),
        Some(at) if another_entry_after(members.reader_mut(), at)? => Err(untrusted(
            "its central directory holds more members than its end record counts",
        )),
        _ => Ok(()),
    }
}

/// Whether another central directory entry follows the one at `at`.
fn another_entry_after<R: Read + io::Seek>(reader: &mut R, at: u64) -> io::Result<bool> {
    // A central entry: 46 bytes, with the lengths of the name, the extra
    // field and the comment that follow at 28, 30 and 32.
    let mut fixed = [0u8; 46];
    reader.seek(io::SeekFrom::Start(at))?;
    reader.read_exact(&mut fixed)?;
    let len = |i: usize| u64::from(u16::from_le_bytes([fixed[i], fixed[i + 1]]));
    reader.seek(io::SeekFrom::Start(at + 46 + len(28) + len(30) + len(32)))?;
    let mut next = Vec::with_capacity(4);
    reader.take(4).read_to_end(&mut next)?;
    Ok(next == b"PK\x01\x02")
}

/// A zip from standard input or a pipe: copied to an unnamed temporary file
/// first, then read by its central directory like a regular file. Read as it
/// comes, by its local headers, a member whose sizes follow its data (a data
/// descriptor, as `zip - ...`, Python's `zipfile` and Java write to a pipe)
/// could not be read at all.
fn zip_members_streamed(mut input: Box<dyn Read + Send>, tx: &mut ZipTx) -> io::Result<()> {
    // Named with its folder, as the spill file is: the system's temporary
    // folder, which no argument named.
    let copy_error = |what: &str, e: io::Error| {
        io::Error::new(
            e.kind(),
            format!(
                "a zip from a pipe is read from a temporary copy in {}, which {what}: {e} \
                 (set TMPDIR to use another folder)",
                std::env::temp_dir().display()
            ),
        )
    };
    let mut copy = tempfile::tempfile().map_err(|e| copy_error("cannot be made", e))?;
    io::copy(&mut input, &mut copy).map_err(|e| copy_error("failed", e))?;
    io::Seek::rewind(&mut copy)?;
    zip_members_seekable(BufReader::with_capacity(8 << 10, copy), tx)
}

/// Sends one member's bytes; `false` when nobody listens any more.
fn send_member<R: Read + ?Sized>(
    mut member: zip::read::ZipFile<'_, R>,
    tx: &mut ZipTx,
) -> io::Result<bool> {
    let name = member.name().map_err(zip_error)?.into_owned();
    let fail = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    // The first piece is sized by the size the member declares (one more byte
    // to see its end), so that a small member costs a small allocation; a
    // false size only makes that first piece shorter or longer than needed.
    let declared = usize::try_from(member.size()).unwrap_or(ZIP_PIECE);
    let mut want = declared.saturating_add(1).clamp(64, ZIP_PIECE);
    let mut first = true;
    loop {
        let mut piece = vec![0; want];
        want = ZIP_PIECE;
        let mut filled = 0;
        let mut ended = false;
        while filled < piece.len() {
            match member.read(&mut piece[filled..]) {
                Ok(0) => {
                    ended = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // A member not started yet is started first, so that the
                    // error is named `ARCHIVE:MEMBER` (as for a refused member).
                    if first && !tx.send(ZipMessage::Member(name.clone())) {
                        return Ok(false);
                    }
                    // The zip library's words ("Invalid checksum") name
                    // neither the layer nor, for a method it lacks, what is read.
                    let hint = if e.to_string().contains("not supported") {
                        " (pgnfen reads stored, deflated, deflate64, bzip2, LZMA, xz and zstd members)"
                    } else {
                        ""
                    };
                    return Err(fail(format!("the zip member cannot be read: {e}{hint}")));
                }
            }
        }
        piece.truncate(filled);
        if first {
            // A member is read as a file is: a compressed file or an
            // archive inside the archive is refused (its bytes are no
            // text), anything else is read as text, binary data and NUL
            // bytes too (a member with no tag line gets the warning that a
            // file without one gets).
            let head = &piece[..piece.len().min(SNIFF)];
            let inner = Compression::sniff(head);
            let refusal = if inner != Compression::None {
                Some(format!(
                    "{} inside a zip is not read; unpack it first",
                    inner.describe()
                ))
            } else if let Err(cut) = refuse_cut_magic(&piece, ended) {
                Some(cut.to_string())
            } else {
                None
            };
            if let Some(refusal) = refusal {
                // The member is started first, so that the error reaches the
                // reader of that member and is named `ARCHIVE:MEMBER`.
                if !tx.send(ZipMessage::Member(name)) {
                    return Ok(false);
                }
                return Err(fail(refusal));
            }
            if ended {
                return Ok(tx.whole(name, piece));
            }
            if !tx.send(ZipMessage::Member(name.clone())) {
                return Ok(false);
            }
            first = false;
        }
        if piece.is_empty() {
            break;
        }
        if !tx.send(ZipMessage::Data(piece)) {
            return Ok(false);
        }
        if ended {
            break;
        }
    }
    Ok(tx.send(ZipMessage::End))
}

/// The bytes of one zip member, as they come from the zip thread.
struct MemberReader {
    rx: Receiver<ZipMessage>,
    piece: Vec<u8>,
    at: usize,
    done: bool,
}

impl Read for MemberReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.piece.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(ZipMessage::Data(piece)) => {
                    self.piece = piece;
                    self.at = 0;
                }
                Ok(ZipMessage::End) | Err(_) => self.done = true,
                Ok(ZipMessage::Failed(e)) => {
                    self.done = true;
                    return Err(e);
                }
                // Only the concatenated reader sees the next member's start.
                Ok(ZipMessage::Member(_)) => {}
                Ok(ZipMessage::Batch(members)) => {
                    self.piece = members.into_iter().flat_map(|(_, data)| data).collect();
                    self.at = 0;
                    self.done = true;
                }
            }
        }
        let n = buf.len().min(self.piece.len() - self.at);
        buf[..n].copy_from_slice(&self.piece[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Every member of a zip, one after the other.
struct AllMembers {
    member: MemberReader,
    _thread: ZipThread,
}

impl Read for AllMembers {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // `End` of one member: go on with the next, until the channel closes.
            match self.member.rx.recv() {
                Ok(ZipMessage::Member(_)) => self.member.done = false,
                // All its bytes at once: nothing more comes for this member.
                Ok(ZipMessage::Batch(members)) => {
                    self.member.piece = members.into_iter().flat_map(|(_, data)| data).collect();
                    self.member.at = 0;
                    self.member.done = true;
                }
                Ok(ZipMessage::Data(piece)) => {
                    self.member.piece = piece;
                    self.member.at = 0;
                    self.member.done = false;
                }
                Ok(ZipMessage::End) => {}
                Ok(ZipMessage::Failed(e)) => return Err(e),
                Err(_) => return Ok(0),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn read_all(input: &Input) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        input
            .open(Arc::new(AtomicU64::new(0)))?
            .read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn compression_is_recognised_by_content_not_name() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"[Event \"x\"]\n\n1. e4 *\n".repeat(1000);
        let gz = dir.path().join("named.pgn");
        let mut enc = flate2::write::GzEncoder::new(
            File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        enc.write_all(&text).unwrap();
        enc.finish().unwrap();
        assert_eq!(read_all(&Input::File(gz)).unwrap(), text);
        let plain = dir.path().join("named.gz");
        std::fs::write(&plain, &text).unwrap();
        assert_eq!(read_all(&Input::File(plain)).unwrap(), text);
    }

    #[test]
    fn zip_members_come_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.zip");
        let mut zip = zip::ZipWriter::new(File::create(&path).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let big = b"[Event \"b\"]\n\n1. d4 *\n\n".repeat(100_000);
        zip.start_file("one.pgn", options).unwrap();
        zip.write_all(b"[Event \"a\"]\n\n1. e4 *\n").unwrap();
        zip.start_file("two.pgn", options).unwrap();
        zip.write_all(&big).unwrap();
        zip.finish().unwrap();
        let mut streams = Input::File(path.clone())
            .open_streams(Arc::new(AtomicU64::new(0)))
            .unwrap();
        let mut names = Vec::new();
        while let Some(mut s) = streams.next().unwrap() {
            let mut data = Vec::new();
            s.reader.read_to_end(&mut data).unwrap();
            names.push((s.input.display_name(), data.len()));
        }
        let a = path.display().to_string();
        assert_eq!(
            names,
            vec![
                (format!("{a}:one.pgn"), 21),
                (format!("{a}:two.pgn"), big.len())
            ]
        );
        assert_eq!(read_all(&Input::File(path)).unwrap().len(), 21 + big.len());
    }

    #[test]
    fn a_bzip2_file_may_start_with_an_empty_stream() {
        // `bzip2` writes a stream without blocks for empty input (as pgnfen
        // does for an output without games); concatenated with others, the
        // file had been read as text, one game of compressed junk.
        use std::io::Write;
        let pgn = b"[Event \"x\"]\n\n1. e4 *\n";
        let stream = |data: &[u8]| {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        };
        let empty = stream(b"");
        assert_eq!(Compression::sniff(&empty), Compression::Bzip2);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cat.pgn.bz2");
        std::fs::write(&path, [empty.clone(), stream(pgn), empty].concat()).unwrap();
        assert_eq!(read_all(&Input::File(path)).unwrap(), pgn);
    }

    #[test]
    fn a_file_cut_inside_magic_bytes_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for (bytes, what) in [
            (&b"\x28\xb5"[..], "a zstd file"),
            (b"\x28\xb5\x2f", "a zstd file"),
            (b"\xfd7zX", "an xz file"),
            (b"BZh9", "a bzip2 file"),
            (b"BZh9\x31\x41\x59", "a bzip2 file"),
            (b"BZh9\x17\x72", "a bzip2 file"),
            (b"PK\x03", "a zip archive"),
        ] {
            let path = dir.path().join("cut");
            std::fs::write(&path, bytes).unwrap();
            let e = read_all(&Input::File(path.clone())).unwrap_err();
            assert!(e.to_string().contains(what), "{bytes:?}: {e}");
            assert!(e.to_string().contains("cut short"), "{bytes:?}: {e}");
            assert!(
                Input::File(path).map().is_none(),
                "{bytes:?} mapped as text"
            );
            // From a stream too.
            let e = refuse_cut_magic(bytes, true).unwrap_err();
            assert!(e.to_string().contains(what), "{e}");
            // Not when more follows.
            assert!(refuse_cut_magic(bytes, false).is_ok());
        }
        // Text that merely starts like one: one byte, `PK` alone, `BZh` and a letter.
        for bytes in [
            &b"\x28"[..],
            b"PK",
            b"BZ",
            b"BZh",
            b"BZhx",
            b"[Event \"x\"]",
        ] {
            assert!(refuse_cut_magic(bytes, true).is_ok(), "{bytes:?}");
        }
    }

    #[test]
    fn every_member_is_read_after_a_comment_and_in_a_zip64() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let zip_of = |members: usize, comment: usize| {
            let path = dir.path().join(format!("{members}-{comment}.zip"));
            let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored);
            for i in 0..members {
                zip.start_file(format!("{i}.pgn"), options).unwrap();
                writeln!(zip, "[Event \"{i}\"]\n\n*").unwrap();
            }
            let _ = zip.set_comment("c".repeat(comment));
            zip.finish().unwrap();
            path
        };
        // Classic end record (with an archive comment after it), and zip64:
        // more than 65,535 members.
        for (members, comment) in [(3, 0), (3, 60_000), (70_000, 10)] {
            let text = read_all(&Input::File(zip_of(members, comment))).unwrap();
            let expected: String = (0..members)
                .map(|i| format!("[Event \"{i}\"]\n\n*\n"))
                .collect();
            assert!(text == expected.as_bytes(), "{members} members");
        }
    }

    /// An end record that counts too few members, or one found in the
    /// archive's comment (which the end record is searched back from the end
    /// for), is refused rather than read short.
    #[test]
    fn an_end_record_that_would_lose_members_is_refused() {
        use std::io::Write;
        let zip_of = |comment: &[u8]| {
            let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
            for name in ["a.pgn", "b.pgn", "c.pgn"] {
                zip.start_file(name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                zip.write_all(b"[Event \"x\"]\n\n*\n").unwrap();
            }
            zip.set_raw_comment(comment.into()).unwrap();
            zip.finish().unwrap().into_inner()
        };
        let dir = tempfile::tempdir().unwrap();
        let read = |bytes: &[u8]| {
            let path = dir.path().join("z.zip");
            std::fs::write(&path, bytes).unwrap();
            read_all(&Input::File(path))
        };
        let whole = zip_of(b"");
        assert_eq!(read(&whole).unwrap(), b"[Event \"x\"]\n\n*\n".repeat(3));
        // Two members counted, on this disk and in all.
        let mut short = whole.clone();
        let end = short.len() - 22;
        short[end + 8..end + 12].copy_from_slice(&[2, 0, 2, 0]);
        let e = read(&short).unwrap_err();
        assert!(
            e.to_string()
                .contains("holds more members than its end record counts"),
            "{e}"
        );
        // A comment holding an end record of no members, and two zips joined
        // (`cat a.zip b.zip`: the second's directory lists its members alone).
        let mut comment = b"see PK".to_vec();
        comment.extend_from_slice(&[5, 6]);
        comment.extend_from_slice(&[0; 18]);
        let joined = [whole.clone(), whole.clone()].concat();
        for bytes in [zip_of(&comment), joined] {
            let e = read(&bytes).unwrap_err();
            assert!(
                e.to_string().contains("begins with is not in its central"),
                "{e}"
            );
        }
    }

    #[test]
    fn known_formats_are_recognised_by_their_magic_bytes() {
        let pgn = b"[Event \"x\"]\n\n1. e4 *\n";
        let cases: Vec<(Vec<u8>, Compression)> = vec![
            (b"\xfd7zXZ\0\0\x04".to_vec(), Compression::Xz),
            (
                vec![0x04, 0x22, 0x4d, 0x18, 0x64],
                Compression::Refused("an lz4 file"),
            ),
            // lz4 writes skippable frames as zstd does: the frame after them
            // names the format.
            (
                vec![
                    0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9, 0x04, 0x22, 0x4d, 0x18, 0x64,
                ],
                Compression::Refused("an lz4 file"),
            ),
            (
                vec![
                    0x5f, 0x2a, 0x4d, 0x18, 0, 0, 0, 0, 0x50, 0x2a, 0x4d, 0x18, 1, 0, 0, 0, 7,
                    0x02, 0x21, 0x4c, 0x18,
                ],
                Compression::Refused("an lz4 file (legacy format)"),
            ),
            (
                vec![
                    0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4, 0x28, 0xb5, 0x2f, 0xfd,
                ],
                Compression::Zstd,
            ),
            // A skippable frame longer than the bytes at hand: zstd, as before.
            (
                vec![
                    0x50, 0x2a, 0x4d, 0x18, 0xff, 0xff, 0xff, 0xff, 0x04, 0x22, 0x4d, 0x18,
                ],
                Compression::Zstd,
            ),
            (
                b"7z\xbc\xaf\x27\x1c\0\x04".to_vec(),
                Compression::Refused("a 7z archive"),
            ),
            (
                b"Rar!\x1a\x07\x00".to_vec(),
                Compression::Refused("a rar archive (RAR 4)"),
            ),
            (
                b"Rar!\x1a\x07\x01\x00".to_vec(),
                Compression::Refused("a rar archive (RAR 5)"),
            ),
            (b"BZ3v1\0".to_vec(), Compression::Refused("a bzip3 file")),
            // lzma-alone: 0x5d, then a 64 MiB and a 1.5 MiB dictionary.
            (
                vec![
                    0x5d, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                ],
                Compression::Refused("an lzma file"),
            ),
            (
                vec![0x5d, 0, 0, 0x18, 0, 0, 0x10, 0, 0, 0, 0, 0, 0],
                Compression::Refused("an lzma file"),
            ),
            (pgn.to_vec(), Compression::None),
            (Vec::new(), Compression::None),
        ];
        for (data, expected) in cases {
            let mut data = data;
            data.extend_from_slice(pgn);
            assert_eq!(Compression::sniff(&data), expected, "{data:?}");
        }
    }

    #[test]
    fn lzma_needs_a_real_dictionary_size() {
        // A properties byte below 225 with a size of many bits set is text.
        assert!(!is_lzma_alone(b"[Event \"lzma\"]\n"));
        assert!(!is_lzma_alone(&[
            0x5d, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0, 0, 0, 0, 0
        ]));
        // Below 4 KiB: not an encoder's dictionary.
        assert!(!is_lzma_alone(&[
            0x5d, 0, 0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        ]));
        // Too short to hold the header.
        assert!(!is_lzma_alone(&[0x5d, 0, 0, 0x80, 0]));
        assert!(is_lzma_alone(&[
            0x5d, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0
        ]));
    }

    /// A tar header for one file, with a correct checksum unless `break_sum`.
    fn tar_header(break_sum: bool) -> Vec<u8> {
        let mut h = v7_tar_header(false);
        h[257..263].copy_from_slice(b"ustar\0");
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum::<u32>() + u32::from(break_sum);
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        h
    }

    /// A header of the V7 format (no magic), as `tar --format=v7` writes it.
    fn v7_tar_header(break_sum: bool) -> Vec<u8> {
        let mut h = vec![0u8; 512];
        h[..9].copy_from_slice(b"games.pgn");
        h[100..108].copy_from_slice(b"0000644\0");
        h[124..136].copy_from_slice(b"00000000020\0");
        h[156] = b'0';
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| u32::from(b)).sum::<u32>() + u32::from(break_sum);
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        h
    }

    #[test]
    fn tar_is_known_by_magic_and_checksum() {
        assert_eq!(
            Compression::sniff(&tar_header(false)),
            Compression::Refused("a tar archive")
        );
        // `ustar` at 257 with a wrong checksum: not a tar header.
        assert_eq!(Compression::sniff(&tar_header(true)), Compression::None);
        // A header cut short is not recognised (nor read as tar).
        assert_eq!(
            Compression::sniff(&tar_header(false)[..300]),
            Compression::None
        );
        // The V7 format has no magic: its NUL-padded name and the checksum.
        assert_eq!(
            Compression::sniff(&v7_tar_header(false)),
            Compression::Refused("a tar archive")
        );
        assert_eq!(Compression::sniff(&v7_tar_header(true)), Compression::None);
        // A text whose checksum field happened to add up is still no tar:
        // its name field holds no NUL.
        let mut text = v7_tar_header(false);
        for b in text[..100].iter_mut().filter(|b| **b == 0) {
            *b = b' ';
        }
        let sum = tar_checksum(&text);
        text[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        assert_eq!(Compression::sniff(&text), Compression::None);
    }

    #[test]
    fn refused_inputs_are_errors_naming_the_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.pgn");
        std::fs::write(&path, b"7z\xbc\xaf\x27\x1c\0\x04 and more").unwrap();
        let err = read_all(&Input::File(path.clone())).unwrap_err();
        assert!(err.to_string().contains("a 7z archive"), "{err}");
        // Never mapped as a plain file either.
        assert!(Input::File(path).map().is_none());
    }

    #[test]
    fn xz_streams_are_all_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut data = Vec::new();
        for part in [
            &b"[Event \"a\"]\n\n1. e4 *\n\n"[..],
            b"[Event \"b\"]\n\n1. d4 *\n",
        ] {
            let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 1);
            enc.write_all(part).unwrap();
            data.extend(enc.finish().unwrap());
        }
        let path = dir.path().join("two.xz");
        std::fs::write(&path, &data).unwrap();
        assert_eq!(
            read_all(&Input::File(path)).unwrap(),
            b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n"
        );
    }

    #[test]
    fn many_small_zip_members_come_in_order_with_a_large_one_between() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.zip");
        let mut zip = zip::ZipWriter::new(File::create(&path).unwrap());
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let big = b"[Event \"b\"]\n\n1. d4 *\n\n".repeat(50_000);
        let mut expected = Vec::new();
        for i in 0..3000 {
            let name = format!("m{i}.pgn");
            let data = if i == 1500 {
                big.clone()
            } else {
                format!("[Event \"{i}\"]\n\n1. e4 *\n").into_bytes()
            };
            zip.start_file(name.as_str(), options).unwrap();
            zip.write_all(&data).unwrap();
            expected.push((name, data));
        }
        zip.finish().unwrap();
        let mut streams = Input::File(path.clone())
            .open_streams(Arc::new(AtomicU64::new(0)))
            .unwrap();
        let mut got = Vec::new();
        while let Some(mut s) = streams.next().unwrap() {
            let mut data = Vec::new();
            s.reader.read_to_end(&mut data).unwrap();
            let Input::ZipMember { member, .. } = s.input else {
                panic!("not a member")
            };
            got.push((member, data));
        }
        assert!(got == expected);
        let whole: Vec<u8> = expected.into_iter().flat_map(|(_, d)| d).collect();
        assert!(read_all(&Input::File(path)).unwrap() == whole);
    }

    #[test]
    fn a_change_is_named_by_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.pgn");
        std::fs::write(&path, "[Event \"a\"]\n").unwrap();
        let file = File::open(&path).unwrap();
        let meta = file.metadata().unwrap();
        let (len, modified) = (meta.len(), meta.modified().ok());
        check_unchanged(&file, len, modified).unwrap();
        // Rewritten with as many bytes: the size is not what changed.
        let later = modified.unwrap() + std::time::Duration::from_secs(5);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let e = check_unchanged(&file, len, modified)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("(modified since it was opened, at the same size of 12 bytes)"),
            "{e}"
        );
        std::fs::write(&path, "x").unwrap();
        let e = check_unchanged(&file, len, modified)
            .unwrap_err()
            .to_string();
        assert!(e.contains("(size 12 when opened, 1 now)"), "{e}");
    }

    #[test]
    fn output_endings() {
        assert_eq!(
            Compression::for_output(Path::new("a.pgn.zst")),
            Ok(Compression::Zstd)
        );
        assert_eq!(
            Compression::for_output(Path::new("a.pgn")),
            Ok(Compression::None)
        );
        assert_eq!(
            Compression::for_output(Path::new("a.pgn.xz")),
            Ok(Compression::Xz)
        );
        let refused = Compression::for_output(Path::new("a.pgn.LZ4")).unwrap_err();
        assert_eq!(refused.ending(), "lz4");
        assert!(
            refused
                .to_string()
                .starts_with("pgnfen cannot write .lz4 files")
        );
        assert!(Compression::for_output(Path::new("a.ZIP")).is_err());
        // A tar archive asked for by two endings, as by one (`.tgz`).
        let tar = Compression::for_output(Path::new("games.TAR.gz")).unwrap_err();
        assert_eq!(tar.ending(), "tar.gz");
        assert!(Compression::for_output(Path::new("games.tar.zst")).is_err());
        assert_eq!(
            Compression::for_output(Path::new("tar.gz")),
            Ok(Compression::Gzip)
        );
        assert_eq!(
            Compression::for_output(Path::new("star.pgn.gz")),
            Ok(Compression::Gzip)
        );
    }
}
