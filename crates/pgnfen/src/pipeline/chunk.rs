//! Cuts an input into chunks for parallel scanning.
//!
//! A chunk ends just before a likely game start: a line beginning with `[`
//! that follows a blank line, itself not preceded by a tag line (so a blank
//! line inside a ChessBase header is not taken for a game gap). Such a cut is
//! speculative: the merger checks it against the scanner's true state and
//! rescans the chunk when it was wrong (for instance inside a comment). When no
//! such line is found, the chunk grows up to [`MAX_CHUNK`] and is then cut at a
//! line end ("forced"), which the merger always scans itself.

use std::io::{self, Read};
use std::sync::Arc;

use memmap2::{Mmap, UncheckedAdvice};

/// The size a chunk aims at.
pub const TARGET_CHUNK: usize = 1 << 20;
/// The size beyond which a chunk is cut at any line end.
pub const MAX_CHUNK: usize = 4 << 20;
/// The sizes a caller may ask for ([`Options::chunk_sizes`](super::Options::chunk_sizes)):
/// tests ask for a few bytes; a run keeps a few chunks per thread in
/// memory, so more than this asks for gigabytes.
const ALLOWED_SIZES: std::ops::RangeInclusive<usize> = 16..=(256 << 20);

/// A (target, maximum) pair as a run uses it: each within [`ALLOWED_SIZES`],
/// the maximum no less than the target.
pub fn allowed_sizes((target, max): (usize, usize)) -> (usize, usize) {
    let target = target.clamp(*ALLOWED_SIZES.start(), *ALLOWED_SIZES.end());
    (target, max.clamp(target, *ALLOWED_SIZES.end()))
}
/// The pages of a mapped input go back to the kernel this many bytes at a
/// time (see [`Chunk::into_buffer`]).
pub const RELEASE_BLOCK: usize = 4 << 20;
const _: () = assert!(RELEASE_BLOCK.is_multiple_of(PAGE));
/// The size of a memory page: what the kernel gives back at least.
const PAGE: usize = 4096;

/// How a chunk begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// At offset 0 of the input.
    Input,
    /// At a likely game start: scan speculatively.
    Cut,
    /// Anywhere else: only the true scanner state can read it.
    Forced,
}

/// A piece of the input.
#[derive(Debug)]
pub struct Chunk {
    pub seq: u64,
    /// Absolute offset of the first byte in the (decompressed) input.
    pub offset: u64,
    /// The buffer; only `len` bytes are the chunk's. Buffers are recycled
    /// without shrinking their length, so they are zeroed once, not per chunk.
    /// For a memory-mapped input it stays unused (it is the token that bounds
    /// the chunks in flight) and the bytes are `map[mapped..mapped + len]`.
    buffer: Vec<u8>,
    len: usize,
    /// The bytes the chunk is a window of, when it is one (a mapped file, a
    /// decoded zstd frame): the chunk is `shared[mapped..mapped + len]`.
    shared: Option<Shared>,
    mapped: usize,
    pub start: Start,
    /// The input ends with this chunk.
    pub last: bool,
    /// The input broke off after this chunk (a read error: damaged
    /// compressed data): its bytes are all that could be read, and the last
    /// game in them may be cut short (the merger keeps only whole games).
    pub damaged: bool,
}

impl Chunk {
    /// The chunk's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.shared {
            Some(Shared::Map(map)) => &map[self.mapped..self.mapped + self.len],
            Some(Shared::Lent(lent)) => &(**lent).as_ref()[self.mapped..self.mapped + self.len],
            None => &self.buffer[..self.len],
        }
    }

    /// Keeps only the first `len` bytes (a damaged chunk's whole games).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Whether the chunk is a window of bytes a reader lent.
    #[cfg(test)]
    pub fn is_lent(&self) -> bool {
        matches!(self.shared, Some(Shared::Lent(_)))
    }

    /// The buffer, for reuse. A mapped chunk's pages are given back to the
    /// kernel first, so that the resident memory of a mapped input stays the
    /// size of the chunks in flight plus [`RELEASE_BLOCK`], not of the file.
    ///
    /// Pages go back a block of [`RELEASE_BLOCK`] at a time, when the chunk
    /// that reaches the block's end is done (the merger recycles chunks in
    /// input order, so the chunks before it are done too), and the rest of
    /// the file with its last chunk. Each release makes the kernel interrupt
    /// every core running the process to drop its view of the pages; a
    /// release per chunk (1 MiB) was 2 % of `export`'s samples in a profile;
    /// 4 MiB blocks hold 3 to 6 MiB more at the peak than that, 8 MiB blocks
    /// 7 to 10 MiB and were no faster.
    pub fn into_buffer(self) -> Vec<u8> {
        if let Some(Shared::Map(map)) = &self.shared {
            let release = release_range(self.mapped, self.mapped + self.len, self.last);
            if !release.is_empty() {
                // SAFETY: MADV_DONTNEED on a read-only shared file mapping only drops
                // resident pages; a later access reads them from the file again. No
                // reference into these pages outlives this chunk except in chunks
                // still in flight, which would simply fault the page back in.
                let _ = unsafe {
                    map.unchecked_advise_range(
                        UncheckedAdvice::DontNeed,
                        release.start,
                        release.len(),
                    )
                };
            }
        }
        self.buffer
    }
}

/// The bytes of a mapped input to give back when its chunk `start..end` is
/// done (see [`Chunk::into_buffer`]): every block this chunk reached the end
/// of, and with the last chunk the rest up to its last whole page.
fn release_range(start: usize, end: usize, last: bool) -> std::ops::Range<usize> {
    let block = |at: usize| at / RELEASE_BLOCK * RELEASE_BLOCK;
    if last {
        block(start)..end / PAGE * PAGE
    } else {
        block(start)..block(end)
    }
}

/// What a chunk that is a window holds on to.
#[derive(Debug)]
enum Shared {
    /// A memory-mapped file.
    Map(Arc<Mmap>),
    /// Bytes a reader lent ([`Lend`]): a decoded zstd frame.
    Lent(Arc<dyn LentBytes>),
}

/// The bytes a reader lends and the range of them not read yet.
pub type Lent = (Arc<dyn LentBytes>, std::ops::Range<usize>);

/// Bytes lent by a reader for chunks to share (freed, or recycled, when the
/// last chunk holding them is done).
pub trait LentBytes: AsRef<[u8]> + Send + Sync + std::fmt::Debug {}

/// A reader that can lend the bytes it would copy out next, so that a chunk
/// lying wholly inside them needs no copy: a multi-frame zstd file lends
/// each decoded frame (see [`Chunker::next_chunk`]). Readers that cannot
/// lend keep the default.
pub trait Lend: Read {
    /// The unread bytes of the reader's current block, `bytes[range]`, if it
    /// has such a block (none at the end, nor for a reader that only copies).
    ///
    /// Infallible: a reader that must do work that can fail (decode the next
    /// block) does it in `read`, whose failure the chunker handles (the
    /// games before it are handed on first).
    fn lend(&mut self) -> Option<Lent> {
        None
    }

    /// Takes the first `n` bytes lent as read.
    fn consume(&mut self, _n: usize) {}
}

impl Lend for Box<dyn Read + Send + '_> {}
impl Lend for io::Empty {}
impl Lend for &[u8] {}

/// Where a chunker's bytes come from.
pub enum Source<R> {
    /// A stream (standard input, a decompressor, a file read with `read`).
    Read(R),
    /// A whole plain file, memory-mapped: chunks are slices of it, no copy.
    Map(Arc<Mmap>),
}

/// Reads an input into [`Chunk`]s.
pub struct Chunker<R> {
    source: Source<R>,
    carry: Vec<u8>,
    next_start: Start,
    offset: u64,
    seq: u64,
    eof: bool,
    done: bool,
    target: usize,
    max: usize,
    /// The run's cancellation flag ([`super::Options::cancel`]), looked at
    /// between reads: a pipe that trickles would otherwise hold a cancelled
    /// run until a whole chunk came.
    cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// A read error met after some bytes of a chunk were read (a truncated
    /// `.gz`): the complete games before it went out in a chunk first, and
    /// the error is the next chunk's.
    failed: Option<io::Error>,
}

impl<R: Lend> Chunker<R> {
    /// The reader (of a chunker that has one).
    #[cfg(test)]
    pub fn reader(&mut self) -> &mut R {
        match &mut self.source {
            Source::Read(r) => r,
            Source::Map(_) => panic!("a mapped input has no reader"),
        }
    }

    /// A chunker with other sizes (small ones exercise the cut logic in tests).
    pub fn with_sizes(source: Source<R>, target: usize, max: usize) -> Self {
        let (target, max) = allowed_sizes((target, max));
        Chunker {
            source,
            carry: Vec::new(),
            next_start: Start::Input,
            offset: 0,
            seq: 0,
            eof: false,
            done: false,
            target,
            max,
            cancel: None,
            failed: None,
        }
    }

    /// How the first chunk begins: [`Start::Input`] (the default) at an
    /// input's first byte, [`Start::Cut`] for a reader that begins at a
    /// game's start inside an input (a partition after the file's first
    /// byte), where a byte order mark is no part of the input.
    pub fn first_start(mut self, start: Start) -> Self {
        self.next_start = start;
        self
    }

    /// Stops reading (with the error of a cancelled run) once `cancel` is set.
    pub fn cancelled_by(mut self, cancel: Option<Arc<std::sync::atomic::AtomicBool>>) -> Self {
        self.cancel = cancel;
        self
    }

    /// The next chunk, read into `buf` (a recycled buffer), or `None` at the end.
    pub fn next_chunk(&mut self, mut buf: Vec<u8>) -> io::Result<Option<Chunk>> {
        if self.done {
            return Ok(None);
        }
        if let Some(e) = self.failed.take() {
            self.done = true;
            return Err(e);
        }
        if let Source::Map(map) = &self.source {
            let map = map.clone();
            return Ok(Some(self.next_mapped(map, buf)));
        }
        if let Some(chunk) = self.next_lent(&mut buf)? {
            return Ok(Some(chunk));
        }
        let mut filled = self.carry.len();
        if buf.len() < filled {
            buf.resize(filled, 0);
        }
        buf[..filled].copy_from_slice(&self.carry);
        self.carry.clear();
        let mut want = self.target.max(filled);
        let cut = loop {
            if let Err(e) = self.fill(&mut buf, &mut filled, want) {
                // The bytes read before the failure (a truncated or corrupt
                // stream) go on first, marked: the merger hands on the games
                // whose end they hold (a consumer of the games, Python's
                // `games()`, gets every whole one before the error), not the
                // one the failure cut short.
                if e.kind() == io::ErrorKind::Interrupted || filled == 0 {
                    return Err(e);
                }
                self.failed = Some(e);
                let start = self.next_start;
                let mut chunk = self.emit(buf, None, 0, filled, start, false);
                chunk.damaged = true;
                return Ok(Some(chunk));
            }
            if self.eof {
                break None;
            }
            if let Some(p) = find_cut(&buf[..filled], filled / 2) {
                break Some((p, Start::Cut));
            }
            if filled >= self.max {
                break Some((forced_cut(&buf[..filled]), Start::Forced));
            }
            want = filled + self.target;
        };
        let start = self.next_start;
        let (len, last) = match cut {
            Some((p, next)) => {
                self.carry.extend_from_slice(&buf[p..filled]);
                self.next_start = next;
                (p, false)
            }
            None => {
                self.done = true;
                (filled, true)
            }
        };
        Ok(Some(self.emit(buf, None, 0, len, start, last)))
    }

    /// The next chunk as a window of the bytes the reader lends, when the
    /// cut that reading would find lies in them: the very chunk reading
    /// gives, without copying its bytes. The carry (what the last chunk read
    /// past its cut) is the lent bytes' own when the reader read it from
    /// them: the window then begins with it. `None` (nothing read)
    /// otherwise: when the search for a cut would read past the lent bytes
    /// (the next block, or the end of the input) or force a cut, the chunk is
    /// read, copying, as from any reader.
    fn next_lent(&mut self, token: &mut Vec<u8>) -> io::Result<Option<Chunk>> {
        let Source::Read(reader) = &mut self.source else {
            return Ok(None);
        };
        let Some((lent, range)) = reader.lend() else {
            return Ok(None);
        };
        // The reader's last `range.start` bytes came from the lent bytes, so a
        // carry no longer than that is their bytes just before `range`.
        let back = self.carry.len();
        if back > range.start {
            return Ok(None);
        }
        let from = range.start - back;
        let rest = &(*lent).as_ref()[from..range.end];
        // The search of the reading path, step for step.
        let mut want = self.target.max(back);
        let len = loop {
            if want >= rest.len() {
                return Ok(None);
            }
            if let Some(p) = find_cut(&rest[..want], want / 2) {
                break p;
            }
            if want >= self.max {
                return Ok(None);
            }
            want += self.target;
        };
        if len >= back {
            reader.consume(len - back);
            self.carry.clear();
        } else {
            // A cut inside the carry: the rest of it is still the bytes just
            // before `range`.
            self.carry.drain(..len);
        }
        let start = std::mem::replace(&mut self.next_start, Start::Cut);
        let token = std::mem::take(token);
        Ok(Some(self.emit(
            token,
            Some(Shared::Lent(lent)),
            from,
            len,
            start,
            false,
        )))
    }

    /// The next chunk of a mapped file: the same cuts, found in place.
    fn next_mapped(&mut self, map: Arc<Mmap>, token: Vec<u8>) -> Chunk {
        let pos = self.offset as usize;
        let mut want = self.target;
        let (len, last, next) = loop {
            let end = (pos + want).min(map.len());
            let window = &map[pos..end];
            if end == map.len() {
                self.done = true;
                break (window.len(), true, Start::Cut);
            }
            if let Some(p) = find_cut(window, window.len() / 2) {
                break (p, false, Start::Cut);
            }
            if window.len() >= self.max {
                break (forced_cut(window), false, Start::Forced);
            }
            want += self.target;
        };
        let start = std::mem::replace(&mut self.next_start, next);
        self.emit(token, Some(Shared::Map(map)), pos, len, start, last)
    }

    fn emit(
        &mut self,
        buffer: Vec<u8>,
        shared: Option<Shared>,
        mapped: usize,
        len: usize,
        start: Start,
        last: bool,
    ) -> Chunk {
        let chunk = Chunk {
            seq: self.seq,
            offset: self.offset,
            buffer,
            len,
            shared,
            mapped,
            start,
            last,
            damaged: false,
        };
        self.seq += 1;
        self.offset += len as u64;
        chunk
    }

    /// Reads until `filled` reaches `want` or the input ends.
    fn fill(&mut self, buf: &mut Vec<u8>, filled: &mut usize, want: usize) -> io::Result<()> {
        if buf.len() < want {
            buf.resize(want, 0);
        }
        while *filled < want && !self.eof {
            let Source::Read(reader) = &mut self.source else {
                return Ok(());
            };
            if self
                .cancel
                .as_ref()
                .is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed))
            {
                return Err(super::cancelled());
            }
            match reader.read(&mut buf[*filled..want]) {
                Ok(0) => self.eof = true,
                Ok(n) => *filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

/// The last likely game start at or after `from` (never 0): a line starting with
/// `[` after a blank line, whose own preceding line is not a tag line.
fn find_cut(buf: &[u8], from: usize) -> Option<usize> {
    let from = from.max(1);
    memchr::memrchr_iter(b'[', &buf[from..])
        .map(|i| i + from)
        .find(|&q| is_likely_start(buf, q))
}

/// The first likely game start at or after `from` (never 0), as [`find_cut`]
/// judges one: where a partition of a file guesses its first game starts.
pub(crate) fn first_likely_start(buf: &[u8], from: usize) -> Option<usize> {
    let from = from.max(1).min(buf.len());
    memchr::memchr_iter(b'[', &buf[from..])
        .map(|i| i + from)
        .find(|&q| is_likely_start(buf, q))
}

/// Whether the `[` at `q` (> 0) starts a line after a blank line whose own
/// preceding line is not a tag line (so a blank line inside a ChessBase
/// header is not taken for a game gap). Needs both lines in `buf`.
fn is_likely_start(buf: &[u8], q: usize) -> bool {
    if !matches!(buf[q - 1], b'\n' | b'\r') {
        return false;
    }
    // The blank line before q.
    let Some((blank_start, blank_end)) = previous_line(buf, q) else {
        return false;
    };
    if !buf[blank_start..blank_end]
        .iter()
        .all(|&b| b == b' ' || b == b'\t')
    {
        return false;
    }
    let Some((s, e)) = previous_line(buf, blank_start) else {
        return false;
    };
    let first = buf[s..e].iter().find(|&&b| b != b' ' && b != b'\t');
    first != Some(&b'[')
}

/// The content range of the line that ends just before `line_start` (which must
/// follow a line terminator), if that line's own start is known.
fn previous_line(buf: &[u8], line_start: usize) -> Option<(usize, usize)> {
    if line_start == 0 {
        return None;
    }
    let mut end = line_start - 1;
    if buf[end] == b'\n' && end > 0 && buf[end - 1] == b'\r' {
        end -= 1;
    }
    let start = memchr::memrchr2(b'\n', b'\r', &buf[..end])? + 1;
    Some((start, end))
}

/// A cut at the last line end, not between `\r` and `\n`; the whole buffer when
/// there is none (a line longer than the maximum chunk).
fn forced_cut(buf: &[u8]) -> usize {
    // A final `\r` may be the first half of a `\r\n` whose `\n` is not read yet.
    let end = if buf.last() == Some(&b'\r') {
        buf.len() - 1
    } else {
        buf.len()
    };
    match memchr::memrchr2(b'\n', b'\r', &buf[..end]) {
        // Before `end`, a `\r` is the last line-end byte only if no `\n` follows it.
        Some(i) => i + 1,
        None if end > 0 => end,
        None => buf.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(input: &[u8], target: usize, max: usize) -> Vec<Chunk> {
        let read = collect(Chunker::with_sizes(Source::Read(input), target, max));
        // A mapped file gives the very same chunks.
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, input).unwrap();
        if !input.is_empty() {
            // SAFETY: a private temporary file nobody else changes.
            let map = Arc::new(unsafe { Mmap::map(&file) }.unwrap());
            let mapped = collect(Chunker::<&[u8]>::with_sizes(Source::Map(map), target, max));
            // The same bytes in order, cut at the same likely game starts (forced
            // cuts may fall elsewhere: the stream grows its buffer differently).
            let joined: Vec<u8> = mapped.iter().flat_map(|c| c.bytes().to_vec()).collect();
            assert_eq!(joined, input);
            assert!(mapped.last().unwrap().last);
            let cuts = |cs: &[Chunk]| {
                cs.iter()
                    .filter(|c| c.start == Start::Cut)
                    .map(|c| c.offset)
                    .collect::<Vec<_>>()
            };
            if read.iter().all(|c| c.start != Start::Forced) {
                assert_eq!(cuts(&read), cuts(&mapped));
            }
        }
        // Lent in blocks, as a multi-frame zstd file is: the very same chunks.
        for block in [7, target / 2 + 1, 3 * target + 5, input.len().max(1)] {
            let lent = collect(Chunker::with_sizes(
                Source::Read(Blocks::new(input, &[block])),
                target,
                max,
            ));
            assert_eq!(described(&lent), described(&read), "blocks of {block}");
        }
        read
    }

    /// A chunk as (offset, bytes, start, last).
    fn described(cs: &[Chunk]) -> Vec<(u64, Vec<u8>, Start, bool)> {
        cs.iter()
            .map(|c| (c.offset, c.bytes().to_vec(), c.start, c.last))
            .collect()
    }

    /// Bytes lent in blocks, as a multi-frame zstd file's decoded frames are
    /// (`ParallelFrames`): reading copies them out, a block at a time.
    struct Blocks {
        blocks: Vec<Arc<Block>>,
        /// The block being read and how much of it was.
        i: usize,
        at: usize,
    }

    #[derive(Debug)]
    struct Block(Vec<u8>);

    impl AsRef<[u8]> for Block {
        fn as_ref(&self) -> &[u8] {
            &self.0
        }
    }

    impl LentBytes for Block {}

    impl Blocks {
        /// `data` cut into blocks of `sizes` (in turn, again and again).
        fn new(data: &[u8], sizes: &[usize]) -> Blocks {
            let mut blocks = Vec::new();
            let mut rest = data;
            for &size in sizes.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (block, tail) = rest.split_at(size.clamp(1, rest.len()));
                blocks.push(Arc::new(Block(block.to_vec())));
                rest = tail;
            }
            Blocks {
                blocks,
                i: 0,
                at: 0,
            }
        }
    }

    impl Read for Blocks {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            while let Some(block) = self.blocks.get(self.i) {
                if self.at < block.0.len() {
                    let n = buf.len().min(block.0.len() - self.at);
                    buf[..n].copy_from_slice(&block.0[self.at..self.at + n]);
                    self.at += n;
                    return Ok(n);
                }
                (self.i, self.at) = (self.i + 1, 0);
            }
            Ok(0)
        }
    }

    impl Lend for Blocks {
        fn lend(&mut self) -> Option<Lent> {
            while let Some(block) = self.blocks.get(self.i) {
                if self.at < block.0.len() {
                    let lent: Arc<dyn LentBytes> = block.clone();
                    return Some((lent, self.at..block.0.len()));
                }
                (self.i, self.at) = (self.i + 1, 0);
            }
            None
        }

        fn consume(&mut self, n: usize) {
            self.at += n;
        }
    }

    #[test]
    fn lent_blocks_give_windows_without_copies() {
        let game = b"[Event \"a\"]\n[Site \"b\"]\n\n1. e4 e5 1-0\n\n";
        let input: Vec<u8> = game
            .iter()
            .cycle()
            .take(game.len() * 400)
            .copied()
            .collect();
        let lent = collect(Chunker::with_sizes(
            Source::Read(Blocks::new(&input, &[4096])),
            256,
            1024,
        ));
        let windows = lent.iter().filter(|c| c.is_lent()).count();
        // Most chunks lie inside a block (16 chunks a block, one across).
        assert!(windows * 10 > lent.len() * 8, "{windows} of {}", lent.len());
        assert_eq!(described(&lent), described(&chunks(&input, 256, 1024)));
    }

    fn collect<R: Lend>(mut c: Chunker<R>) -> Vec<Chunk> {
        let mut out = Vec::new();
        while let Some(chunk) = c.next_chunk(Vec::new()).unwrap() {
            out.push(chunk);
        }
        out
    }

    #[test]
    fn chunks_cover_the_input_in_order() {
        let game = b"[Event \"a\"]\n\n[Site \"b\"]\n\n1. e4 e5 1-0\n\n";
        let input: Vec<u8> = game.iter().cycle().take(game.len() * 50).copied().collect();
        let cs = chunks(&input, 64, 256);
        assert!(cs.len() > 5);
        let joined: Vec<u8> = cs.iter().flat_map(|c| c.bytes().to_vec()).collect();
        assert_eq!(joined, input);
        assert!(cs.last().unwrap().last);
        for c in &cs[1..] {
            assert_eq!(c.start, Start::Cut);
            // Never inside the ChessBase-style blank line of a header.
            assert!(
                c.bytes().starts_with(b"[Event"),
                "{:?}",
                String::from_utf8_lossy(&c.bytes()[..20])
            );
        }
    }

    /// A stream that gives `data`, then fails (a truncated `.gz`).
    struct Failing<'a>(&'a [u8]);

    impl Lend for Failing<'_> {}

    impl Read for Failing<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "cut short"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_stream_that_fails_hands_on_what_it_read_first_marked_damaged() {
        let game = b"[Event \"a\"]\n\n1. e4 e5 1-0\n\n";
        let mut input: Vec<u8> = game.iter().cycle().take(game.len() * 10).copied().collect();
        input.extend_from_slice(b"[Event \"cut\"]\n\n1. e4");
        // One chunk would hold it all: the failure comes within the first.
        // Every byte read goes on, marked; the merger keeps the whole games.
        let mut chunker = Chunker::with_sizes(Source::Read(Failing(&input)), 1 << 16, 1 << 17);
        let first = chunker.next_chunk(Vec::new()).unwrap().unwrap();
        assert_eq!(first.bytes(), &input[..]);
        assert!(!first.last && first.damaged);
        let err = chunker.next_chunk(Vec::new()).unwrap_err();
        assert_eq!(err.to_string(), "cut short");
        assert!(chunker.next_chunk(Vec::new()).unwrap().is_none());
        // A chunk read whole before is not marked.
        let mut chunker = Chunker::with_sizes(Source::Read(Failing(&input)), 64, 128);
        let read = chunker.next_chunk(Vec::new()).unwrap().unwrap();
        assert!(!read.damaged);
        // Nothing read before the failure: the error at once.
        let mut chunker = Chunker::with_sizes(Source::Read(Failing(b"")), 64, 128);
        assert!(chunker.next_chunk(Vec::new()).is_err());
        let mut chunker = Chunker::with_sizes(Source::Read(Failing(b"[")), 64, 128);
        assert!(chunker.next_chunk(Vec::new()).unwrap().unwrap().damaged);
    }

    #[test]
    fn long_lines_force_cuts_at_line_ends() {
        let mut input = vec![b'x'; 300];
        input.extend_from_slice(b"\r\n");
        input.extend(vec![b'y'; 300]);
        let cs = chunks(&input, 64, 128);
        let joined: Vec<u8> = cs.iter().flat_map(|c| c.bytes().to_vec()).collect();
        assert_eq!(joined, input);
        assert!(cs.iter().skip(1).all(|c| c.start == Start::Forced));
    }

    #[test]
    fn empty_input_gives_one_empty_last_chunk() {
        let cs = chunks(b"", 64, 128);
        assert_eq!(cs.len(), 1);
        assert!(cs[0].last && cs[0].bytes().is_empty());
    }

    #[test]
    fn forced_cut_never_splits_crlf() {
        assert_eq!(forced_cut(b"ab\r\ncd"), 4);
        assert_eq!(forced_cut(b"ab\ncd\r"), 3);
        assert_eq!(forced_cut(b"abcd"), 4);
        assert_eq!(forced_cut(b"ab\r\ncd\n"), 7);
        assert_eq!(forced_cut(b"x\r\n[E]\n"), 7);
        assert_eq!(forced_cut(b"ab\r"), 2);
    }

    proptest::proptest! {
        /// Chunks read from bytes lent in blocks of any sizes are those read
        /// by copying: the same offsets, bytes, starts and ends, forced cuts
        /// and cuts inside the carry included.
        #[test]
        fn lent_chunks_are_the_chunks_read(
            pieces in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just(&b"[Event \"x\"]\n"[..]),
                    proptest::strategy::Just(&b"[Site \"y\"]\n"[..]),
                    proptest::strategy::Just(&b"\n"[..]),
                    proptest::strategy::Just(&b"\r\n"[..]),
                    proptest::strategy::Just(&b"1. e4 {a [b} e5 1-0 "[..]),
                    proptest::strategy::Just(&b"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"[..]),
                ],
                0..400,
            ),
            sizes in proptest::collection::vec(1usize..700, 1..6),
            target in 16usize..300,
            extra in 0usize..600,
        ) {
            let input: Vec<u8> = pieces.concat();
            let max = target + extra;
            let read = collect(Chunker::with_sizes(Source::Read(&input[..]), target, max));
            let lent = collect(Chunker::with_sizes(
                Source::Read(Blocks::new(&input, &sizes)),
                target,
                max,
            ));
            proptest::prop_assert_eq!(described(&lent), described(&read));
        }

        /// Chunks done in input order give back every whole page of the file
        /// once, each only once the chunk holding its last byte is done.
        #[test]
        fn mapped_pages_are_released_once_and_only_when_read(
            lengths in proptest::collection::vec(0usize..3 * RELEASE_BLOCK, 1..12),
        ) {
            let mut released = Vec::new();
            let mut start = 0;
            for (i, &len) in lengths.iter().enumerate() {
                let end = start + len;
                let range = release_range(start, end, i + 1 == lengths.len());
                proptest::prop_assert!(range.end <= end);
                if !range.is_empty() {
                    released.push(range);
                }
                start = end;
            }
            // Disjoint, in order, and together every whole page.
            let mut at = 0;
            for range in &released {
                proptest::prop_assert_eq!(range.start, at);
                at = range.end;
            }
            proptest::prop_assert_eq!(at, start / PAGE * PAGE);
        }
    }
}
