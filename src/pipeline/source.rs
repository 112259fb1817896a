//! Where the bytes come from: files or standard input, each opened once and
//! decompressed on the fly by its first bytes (gzip, bzip2, zstd, zip), never by
//! its name.
//!
//! A regular file is read with large `read` calls (not memory-mapped), and its
//! size and modification time are checked again at its end: a file truncated or
//! rewritten by another program while pgnfen reads it is an error, never a
//! SIGBUS or a silently partial output. Anything else (a FIFO, a device, a
//! process substitution) is read as a stream, once.
//!
//! A zip archive yields one stream per member, in archive order, named
//! `ARCHIVE:MEMBER` in messages. Members are decompressed by a producer thread
//! into a small bounded channel, so memory stays bounded whatever a member
//! expands to.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use crossbeam_channel::{Receiver, bounded};

/// How many leading bytes are looked at to recognise a compression (and to
/// tell text from binary in a zip member).
const SNIFF: usize = 64 << 10;
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

/// The streams of one opened input, in order.
pub struct Streams {
    inner: StreamsInner,
}

enum StreamsInner {
    One(Option<Stream>),
    Zip {
        archive: String,
        rx: Receiver<ZipMessage>,
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
            StreamsInner::Zip { archive, rx, .. } => loop {
                match rx.recv() {
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
            StreamsInner::Zip { rx, _thread, .. } => Box::new(AllMembers {
                member: MemberReader {
                    rx,
                    piece: Vec::new(),
                    at: 0,
                    done: false,
                },
                _thread,
            }),
        }
    }
}

impl Input {
    /// The input a command-line argument names: `-` is standard input, anything else a path.
    pub fn from_arg(arg: &str) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::File(PathBuf::from(arg))
        }
    }

    /// The name used in messages (`-` reads as `<stdin>`, a zip member as
    /// `ARCHIVE:MEMBER`).
    pub fn display_name(&self) -> String {
        let name = match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) => p.display().to_string(),
            Input::ZipMember { archive, member } => format!("{archive}:{member}"),
        };
        // Names are untrusted text: shown with control characters escaped, so
        // that a name cannot move the cursor or start a line of its own.
        match crate::escape::controls(&name) {
            std::borrow::Cow::Borrowed(_) => name,
            std::borrow::Cow::Owned(escaped) => escaped,
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
        let name = self.display_name();
        let raw: Box<dyn Read + Send> = match self {
            Input::Stdin => Box::new(Counting {
                inner: io::stdin(),
                count: raw_read,
            }),
            Input::File(path) => {
                let file = File::open(path)?;
                let meta = file.metadata()?;
                if meta.is_dir() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "is a directory",
                    ));
                }
                if meta.is_file() {
                    // A regular file is sniffed in place (`pread`) and then read
                    // from its start with no buffer in between: the chunker's
                    // large reads go straight into its recycled buffers.
                    let mut magic = [0u8; 16];
                    let mut n = 0;
                    while n < magic.len() {
                        match std::os::unix::fs::FileExt::read_at(&file, &mut magic[n..], n as u64)
                        {
                            Ok(0) => break,
                            Ok(k) => n += k,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(e) => return Err(e),
                        }
                    }
                    let checked = Counting {
                        inner: Checked {
                            len: meta.len(),
                            modified: meta.modified().ok(),
                            read: Some(0),
                            file,
                        },
                        count: raw_read,
                    };
                    let reader: Box<dyn Read + Send> = match Compression::sniff(&magic[..n]) {
                        Compression::None => Box::new(checked),
                        Compression::Zip => {
                            // A seekable archive: read by its central directory.
                            let input = BufReader::with_capacity(SNIFF, checked);
                            return Ok(zip_streams(name, ZipSource::File(input)));
                        }
                        other => decompress(other, BufReader::with_capacity(1 << 20, checked))?,
                    };
                    return Ok(one(self.clone(), reader));
                }
                Box::new(Counting {
                    inner: file,
                    count: raw_read,
                })
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
    pub fn map(&self) -> Option<Mapped> {
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
        let mut magic = [0u8; 16];
        let n = (&file).read(&mut magic).ok()?;
        if Compression::sniff(&magic[..n]) != Compression::None {
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
        return Err(io::Error::other(format!(
            "the file changed while pgnfen read it (size {len} when opened, {} now); \
             nothing was written",
            meta.len(),
        )));
    }
    Ok(())
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
    while head.len() < 16 {
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

/// The decoder the first bytes ask for, over `head` followed by the rest of `input`.
fn decoder<R: Read + Send + 'static>(
    (head, ended): (Vec<u8>, bool),
    input: BufReader<R>,
) -> io::Result<Box<dyn Read + Send>> {
    let compression = Compression::sniff(&head);
    let rest: Box<dyn Read + Send> = if ended {
        Box::new(io::empty())
    } else {
        Box::new(input)
    };
    let input = BufReader::with_capacity(1 << 20, io::Cursor::new(head).chain(rest));
    decompress(compression, input)
}

/// `input` decompressed as `compression` says.
fn decompress<R: BufRead + Send + 'static>(
    compression: Compression,
    input: R,
) -> io::Result<Box<dyn Read + Send>> {
    Ok(match compression {
        Compression::None | Compression::Zip => Box::new(input),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(input)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(input)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(input)?),
    })
}

/// A compression, as recognised by magic bytes or asked for by an output's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Zstd,
    Zip,
}

impl Compression {
    /// The compression whose magic bytes start `data` (never a PGN's start).
    pub fn sniff(data: &[u8]) -> Compression {
        match data {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            // A skippable frame: pzstd (and so the lichess database) starts
            // every file with one, announcing the first frame's size.
            [0x50..=0x5f, 0x2a, 0x4d, 0x18, ..] => Compression::Zstd,
            // A local file header, or the end record of an empty archive.
            [b'P', b'K', 3, 4, ..] | [b'P', b'K', 5, 6, ..] => Compression::Zip,
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
            ] => Compression::Bzip2,
            _ => Compression::None,
        }
    }

    /// The compression an output file's name asks for. `Err` names an ending
    /// of a compression pgnfen does not write, which must not silently become
    /// a plain file.
    pub fn for_output(path: &Path) -> Result<Compression, String> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("gz") => Ok(Compression::Gzip),
            Some("bz2") => Ok(Compression::Bzip2),
            Some("zst") => Ok(Compression::Zstd),
            Some(
                e @ ("xz" | "lz4" | "lzma" | "zip" | "7z" | "br" | "lz" | "z" | "tgz" | "tbz2"
                | "txz" | "lzo" | "sz" | "rar"),
            ) => Err(format!(
                "pgnfen cannot write .{e} files (it writes .gz, .bz2, .zst or plain text)"
            )),
            _ => Ok(Compression::None),
        }
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
                return Err(io::Error::other(format!(
                    "the file changed while pgnfen read it (size {} when opened, {} now); \
                     nothing was written",
                    self.len,
                    meta.len(),
                )));
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
    /// Standard input or a pipe: members in the order of their local headers.
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
    // Two pieces in flight: memory is bounded whatever a member expands to.
    let (tx, rx) = bounded::<ZipMessage>(2);
    let name = archive.clone();
    let thread = std::thread::Builder::new()
        .name("pgnfen-zip".into())
        .spawn(move || {
            let send = |m| tx.send(m).is_ok();
            let result = match source {
                ZipSource::File(file) => zip_members_seekable(file, &send),
                ZipSource::Stream(input) => zip_members_streamed(input, &send),
            };
            if let Err(e) = result {
                send(ZipMessage::Failed(e));
            }
        });
    let thread = match thread {
        Ok(t) => Some(t),
        Err(e) => {
            let (tx2, rx2) = bounded(1);
            let _ = tx2.send(ZipMessage::Failed(e));
            return Streams {
                inner: StreamsInner::Zip {
                    archive: name,
                    rx: rx2,
                    _thread: ZipThread(None),
                },
            };
        }
    };
    Streams {
        inner: StreamsInner::Zip {
            archive: name,
            rx,
            _thread: ZipThread(thread),
        },
    }
}

fn zip_error(e: zip::result::ZipError) -> io::Error {
    match e {
        zip::result::ZipError::Io(e) => e,
        e => io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a readable zip: {e}"),
        ),
    }
}

fn zip_members_seekable(
    file: BufReader<Counting<Checked>>,
    send: &dyn Fn(ZipMessage) -> bool,
) -> io::Result<()> {
    let mut archive = zip::ZipArchive::new(file).map_err(zip_error)?;
    for i in 0..archive.len() {
        let member = archive.by_index(i).map_err(zip_error)?;
        if !send_member(member, send)? {
            return Ok(());
        }
    }
    Ok(())
}

fn zip_members_streamed(
    mut input: Box<dyn Read + Send>,
    send: &dyn Fn(ZipMessage) -> bool,
) -> io::Result<()> {
    while let Some(member) = zip::read::read_zipfile_from_stream(&mut input).map_err(zip_error)? {
        if !send_member(member, send)? {
            return Ok(());
        }
    }
    Ok(())
}

/// Sends one member's bytes; `false` when nobody listens any more.
fn send_member<R: Read + ?Sized>(
    mut member: zip::read::ZipFile<'_, R>,
    send: &dyn Fn(ZipMessage) -> bool,
) -> io::Result<bool> {
    if member.is_dir() {
        return Ok(true);
    }
    let name = member.name().map_err(zip_error)?.into_owned();
    let fail = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    if !send(ZipMessage::Member(name.clone())) {
        return Ok(false);
    }
    let mut first = true;
    loop {
        let mut piece = vec![0; ZIP_PIECE];
        let mut filled = 0;
        while filled < piece.len() {
            match member.read(&mut piece[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(fail(e.to_string())),
            }
        }
        piece.truncate(filled);
        if first {
            first = false;
            // A member must be text: PGN or EPD, not an archive inside the
            // archive nor a binary file.
            let head = &piece[..piece.len().min(SNIFF)];
            if Compression::sniff(head) != Compression::None {
                return Err(fail(
                    "a compressed file inside a zip is not read; unpack it first".into(),
                ));
            }
            if memchr::memchr(0, head).is_some() {
                return Err(fail("binary data (NUL bytes), not PGN or EPD text".into()));
            }
        }
        if piece.is_empty() {
            break;
        }
        if !send(ZipMessage::Data(piece)) {
            return Ok(false);
        }
    }
    Ok(send(ZipMessage::End))
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
    fn output_endings() {
        assert_eq!(
            Compression::for_output(Path::new("a.pgn.zst")),
            Ok(Compression::Zstd)
        );
        assert_eq!(
            Compression::for_output(Path::new("a.pgn")),
            Ok(Compression::None)
        );
        assert!(Compression::for_output(Path::new("a.pgn.xz")).is_err());
        assert!(Compression::for_output(Path::new("a.ZIP")).is_err());
    }
}
