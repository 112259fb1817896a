//! The frames of a zstd file, decoded in parallel on the worker threads.
//!
//! `pzstd` (and so the lichess database) writes a file as independent frames,
//! each announced by a 12-byte skippable frame that holds its compressed size.
//! One decoder thread cannot keep up with the scanners on such input, so a
//! regular zstd file of several frames is read by [`ParallelFrames`]: a
//! [`FrameWalker`] finds where each frame lies (from pzstd's announcement when it
//! is present and checks out, else by walking the frame's block headers), the
//! frames are decoded on the rayon pool that also scans the chunks, and the
//! decoded frames are read out in file order, so the chunker sees exactly the
//! bytes a sequential decoder would give.
//!
//! Memory: a frame is decoded in one shot into a buffer reserved for it (only
//! the pages written become resident; zstd may not write past the
//! reservation). The frames held, the one being read out and those decoded or
//! being decoded ahead, are bounded by the sum of their reservations,
//! [`BUDGET`] (24 MiB): the frame being read out and two ahead for pzstd's
//! frames of level 3 (8 MiB), six ahead for level 1 (2 MiB, the most frames in
//! flight on two cores); a frame of level 19 (32 MiB, pzstd's largest) is read
//! alone, decoded when it is needed (the frame being read out is always
//! allowed). A job whose own buffers are large and whose work per byte is
//! several times the decoding's (`export`, the library's game reader) asks for
//! [`LEAN_BUDGET`] instead ([`Job::frames_ahead`](super::game::Job::frames_ahead)):
//! frames of level 3 one at a time.
//! The chunks that lie inside a decoded frame are windows of it, not copies
//! ([`Lend`]; only the chunk across two frames is copied), so a frame read
//! out stays held while chunks in flight hold it: such frames count in the
//! budget too, and no frame is decoded ahead while they fill it. Frames of
//! more than half the budget are not lent (their chunks are copied): with
//! [`LEAN_BUDGET`], pzstd's frames of level 3 are still held one at a time.
//! The compressed bytes of the frames being decoded come on top (a fifth to
//! a third of their size for PGN), and the recycled buffers (as many as were
//! in use at once). A frame bigger than its reservation (a frame with no size
//! in its header, such as `zstd` writes for a pipe, that turns out huge), or
//! whose compressed bytes could not fit it, is decoded again, streaming, by
//! the reading thread itself, with bounded memory: its compressed bytes are
//! never read whole.
//!
//! Only regular files take this path: a file is read with `pread` at the
//! frames' offsets. Standard input and FIFOs, and files of one frame, keep the
//! sequential decoder.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

use crossbeam_channel::{Receiver, bounded};

use super::chunk::{Lend, Lent, LentBytes};
use zstd::zstd_safe;

const ZSTD_MAGIC: u32 = 0xFD2F_B528;
/// A frame of a size beyond this is never decoded in one shot: the reading
/// thread streams it. pzstd's frames are at most 32 MiB (its window log is at
/// most 23 and a frame holds four windows).
pub const FRAME_CAP: usize = 32 << 20;
/// The largest sum of the reservations of the frames held: the one being
/// read out and those in flight (at least the one being read out).
pub const BUDGET: usize = 24 << 20;
/// The budget of a job whose own work per byte is several times the
/// decoding's and whose own buffers are large: pzstd's frames of level 3 (8
/// MiB) are then decoded one at a time, by the reading thread when it needs
/// the next (and the workers scan the chunks in flight meanwhile); three
/// ahead for level 1 (2 MiB). `export` over the pzstd benchmark archive: 93
/// MiB at its peak instead of 107 with one frame ahead, 1.10 to 1.13 of the
/// wall time; a Python `games()` loop: 88 MiB instead of 95, as fast.
pub const LEAN_BUDGET: usize = 8 << 20;
/// The smallest reservation for a frame of unknown size.
const MIN_RESERVE: usize = 1 << 20;

/// Random access to the compressed bytes.
pub trait ReadAt {
    /// Fills `buf` from `offset`; an error if the input ends first.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;
}

impl ReadAt for File {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        FileExt::read_exact_at(self, buf, offset)
    }
}

impl ReadAt for [u8] {
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match self.get(start..).and_then(|s| s.get(..buf.len())) {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }
}

/// Where one zstd frame lies in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Offset of its magic number.
    pub start: u64,
    /// Offset just past its last byte (block or checksum).
    pub end: u64,
    /// The decompressed size its header declares, if it declares one.
    pub content_size: Option<u64>,
}

/// Finds the frames of a zstd file one after the other, skipping skippable
/// frames (and using pzstd's, which announce the next frame's size).
#[derive(Clone, Debug)]
pub struct FrameWalker {
    pos: u64,
    len: u64,
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

fn truncated(start: u64) -> io::Error {
    invalid(format!(
        "truncated zstd data: the frame at byte {start} runs past the end of the file"
    ))
}

fn u32_at(src: &(impl ReadAt + ?Sized), offset: u64) -> io::Result<u32> {
    let mut b = [0u8; 4];
    src.read_exact_at(&mut b, offset)?;
    Ok(u32::from_le_bytes(b))
}

fn is_skippable(magic: u32) -> bool {
    magic & 0xFFFF_FFF0 == 0x184D_2A50
}

impl FrameWalker {
    /// A walker over a file of `len` bytes, from its start.
    pub fn new(len: u64) -> FrameWalker {
        FrameWalker { pos: 0, len }
    }

    /// A walker over `start..end` of a file (a partition), `start` being the
    /// start of a frame or of a skippable frame.
    pub fn range(start: u64, end: u64) -> FrameWalker {
        FrameWalker {
            pos: start,
            len: end,
        }
    }

    /// The offset the next frame (or skippable frame) starts at.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The next data frame; `None` at the end of the file. Bytes that are not a
    /// frame (a non-zstd tail, a cut frame) are an error naming their offset.
    pub fn next_frame(&mut self, src: &(impl ReadAt + ?Sized)) -> io::Result<Option<Frame>> {
        let mut announced = None;
        loop {
            if self.pos >= self.len {
                return Ok(None);
            }
            let at = self.pos;
            if self.len - at < 4 {
                return Err(invalid(format!(
                    "not zstd data at byte {at} ({} stray bytes at the end)",
                    self.len - at
                )));
            }
            let magic = u32_at(src, at)?;
            if is_skippable(magic) {
                if self.len - at < 8 {
                    return Err(truncated(at));
                }
                let size = u64::from(u32_at(src, at + 4)?);
                let end = at + 8 + size;
                if end > self.len {
                    return Err(truncated(at));
                }
                // pzstd's announcement: four bytes, the next frame's compressed size.
                announced = if size == 4 {
                    Some(u64::from(u32_at(src, at + 8)?))
                } else {
                    None
                };
                self.pos = end;
                continue;
            }
            if magic != ZSTD_MAGIC {
                return Err(invalid(format!(
                    "not zstd data at byte {at} (after the last zstd frame)"
                )));
            }
            let frame = self.frame_at(src, at, announced)?;
            self.pos = frame.end;
            return Ok(Some(frame));
        }
    }

    /// The frame whose magic number is at `start`.
    fn frame_at(
        &self,
        src: &(impl ReadAt + ?Sized),
        start: u64,
        announced: Option<u64>,
    ) -> io::Result<Frame> {
        let need = |pos: u64, n: u64| {
            if pos + n > self.len {
                Err(truncated(start))
            } else {
                Ok(())
            }
        };
        need(start, 5)?;
        let mut d = [0u8; 1];
        src.read_exact_at(&mut d, start + 4)?;
        let descriptor = d[0];
        if descriptor & 0x08 != 0 {
            return Err(invalid(format!(
                "corrupt zstd frame at byte {start}: reserved bit set in its header"
            )));
        }
        let single_segment = descriptor & 0x20 != 0;
        let checksum = descriptor & 0x04 != 0;
        let dict_bytes = [0u64, 1, 2, 4][usize::from(descriptor & 3)];
        let size_bytes = match descriptor >> 6 {
            0 if single_segment => 1,
            0 => 0,
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let size_at = start + 5 + u64::from(!single_segment) + dict_bytes;
        let header_end = size_at + size_bytes;
        need(start, header_end - start)?;
        let content_size = if size_bytes == 0 {
            None
        } else {
            let mut b = [0u8; 8];
            src.read_exact_at(&mut b[..size_bytes as usize], size_at)?;
            let v = u64::from_le_bytes(b);
            Some(if size_bytes == 2 { v + 256 } else { v })
        };
        // pzstd's announcement is believed when the frame it announces ends
        // where the file does or another frame starts; a wrong one can only
        // make the decoder fail on that frame, never change the output.
        if let Some(size) = announced {
            let end = start + size;
            let fits = end == self.len
                || (end > header_end
                    && end + 4 <= self.len
                    && u32_at(src, end).is_ok_and(|m| m == ZSTD_MAGIC || is_skippable(m)));
            if fits {
                return Ok(Frame {
                    start,
                    end,
                    content_size,
                });
            }
        }
        // Walk the block headers: 3 bytes each, little-endian: last-block bit,
        // two bits of type, 21 bits of size.
        let mut pos = header_end;
        loop {
            need(pos, 3)?;
            let mut h = [0u8; 4];
            src.read_exact_at(&mut h[..3], pos)?;
            let header = u32::from_le_bytes(h);
            let last = header & 1 != 0;
            let size = u64::from(header >> 3);
            let body = match (header >> 1) & 3 {
                0 | 2 => size,
                1 => 1,
                _ => {
                    return Err(invalid(format!(
                        "corrupt zstd frame at byte {start}: reserved block type at byte {pos}"
                    )));
                }
            };
            pos += 3 + body;
            need(pos, 0)?;
            if last {
                break;
            }
        }
        if checksum {
            pos += 4;
            need(pos, 0)?;
        }
        Ok(Frame {
            start,
            end: pos,
            content_size,
        })
    }
}

/// Whether a regular zstd file has more than one data frame: the walk of its
/// first frame, when the second exists. Cheap for pzstd files (the first frame
/// is announced); a file whose first frame has no announcement and no size (or
/// a large one) is not walked: it takes the sequential path, as a single-frame
/// file does.
pub fn several_frames(file: &File, len: u64) -> bool {
    let mut walker = FrameWalker::new(len);
    let Ok(magic) = u32_at(file, 0) else {
        return false;
    };
    if magic == ZSTD_MAGIC {
        // Unannounced: walk the first frame only when it is known to be small.
        let mut head = [0u8; 18]; // the longest frame header
        let n = head.len().min(len as usize);
        if FileExt::read_exact_at(file, &mut head[..n], 0).is_err() {
            return false;
        }
        let small = zstd_safe::get_frame_content_size(&head[..n])
            .ok()
            .flatten()
            .is_some_and(|size| size <= FRAME_CAP as u64);
        if !small {
            return false;
        }
    }
    matches!(walker.next_frame(file), Ok(Some(_))) && walker.position() < len
}

/// A reader that decodes the frames of `path` on `pool`, when `path` is a
/// regular zstd file of several frames; `None` otherwise (the caller opens it
/// the usual way, which also reports any error).
pub fn open<'p>(
    path: &std::path::Path,
    pool: &'p super::LazyPool,
    raw_read: Arc<AtomicU64>,
    budget: usize,
) -> Option<ParallelFrames<'p>> {
    // Never open anything but a regular file here: opening a FIFO would take
    // its bytes away from the one real read.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut magic = [0u8; 16];
    let n = magic.len().min(meta.len() as usize);
    FileExt::read_exact_at(&file, &mut magic[..n], 0).ok()?;
    if super::source::Compression::sniff(&magic[..n]) != super::source::Compression::Zstd
        || !several_frames(&file, meta.len())
    {
        return None;
    }
    // Started only now that there is work for it; should the threads fail to
    // start, the file is read the sequential way (which reports any error).
    let pool = pool.get().ok()?;
    Some(
        ParallelFrames::new(pool, file, meta.len(), meta.modified().ok(), raw_read)
            .with_budget(budget),
    )
}

/// Cuts a regular zstd file into partitions of whole frames of about `target`
/// compressed bytes each (at least one frame each): the compressed byte
/// ranges, in order, covering the file. A partition starts where its first
/// frame's announcement (pzstd's skippable frame) starts, so that
/// [`ParallelFrames::range`] reads it as a file of its own; its decoded bytes
/// are those of its frames, and the partitions' decoded bytes one after the
/// other are the file's. Every frame is walked (announced frames cost one
/// `pread` each), so this is for planning a cluster run, not for the CLI.
pub fn partitions(file: &File, target: u64) -> io::Result<Vec<std::ops::Range<u64>>> {
    let len = file.metadata()?.len();
    let mut walker = FrameWalker::new(len);
    let mut parts = Vec::new();
    let mut start = 0;
    let mut before = walker.position();
    while walker.next_frame(file)?.is_some() {
        let end = walker.position();
        // Cut before this frame (at its announcement) when the partition is
        // big enough without it.
        if before > start && end - start > target {
            parts.push(start..before);
            start = before;
        }
        before = end;
    }
    if len > start || parts.is_empty() {
        parts.push(start..len);
    }
    Ok(parts)
}

/// A frame decoded, or found bigger than its reservation.
enum Decoded {
    Bytes(Vec<u8>),
    TooBig,
}

/// A `Vec` that zstd may fill up to `cap` bytes only, whatever its capacity
/// (a recycled buffer may be larger than the frame's reservation).
struct Capped<'a> {
    vec: &'a mut Vec<u8>,
    cap: usize,
}

// SAFETY: `capacity` never exceeds the vector's own capacity, `as_mut_ptr` is
// its buffer, and zstd reports through `filled_until` how many bytes from the
// start it wrote (at most `capacity`), which are then initialised.
unsafe impl zstd_safe::WriteBuf for Capped<'_> {
    fn as_slice(&self) -> &[u8] {
        self.vec.as_slice()
    }
    fn capacity(&self) -> usize {
        self.cap.min(self.vec.capacity())
    }
    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.vec.as_mut_ptr()
    }
    unsafe fn filled_until(&mut self, n: usize) {
        // SAFETY: see the impl.
        unsafe { self.vec.set_len(n) }
    }
}

/// Buffers of frames read out (and of compressed frames), for the next
/// frames: a fresh buffer costs a page fault per 4 KiB written, and freed ones
/// linger in the allocator's per-thread arenas (on 8 threads, 125 MiB resident
/// instead of 60). Buffers are only made when none is free and are all kept, so
/// their number is that of the frames in flight at the busiest moment (bounded
/// by the budget); the cap is a safety net.
#[derive(Default)]
struct Buffers {
    out: Vec<Vec<u8>>,
    src: Vec<Vec<u8>>,
}
type FreeList = Arc<std::sync::Mutex<Buffers>>;
const FREE_BUFFERS: usize = 64;
/// The largest buffer of decoded bytes kept: every frame decoded in one shot
/// reuses buffers (the budget bounds how many are in use at once).
const FREE_MAX: usize = FRAME_CAP;
/// The largest buffer of compressed bytes kept: those of pzstd's usual
/// levels (a fifth to a third of 2–8 MiB); a bigger one is given back rather
/// than kept for the rest of the run.
const FREE_SRC_MAX: usize = 8 << 20;

fn put_back(list: &mut Vec<Vec<u8>>, buf: Vec<u8>, most: usize) {
    if buf.capacity() > 0 && buf.capacity() <= most && list.len() < FREE_BUFFERS {
        list.push(buf);
    }
}

/// Decodes one whole frame (`src` holds exactly it) into `out` (emptied
/// first), writing at most `cap` bytes.
fn decode_frame(src: &[u8], cap: usize, mut out: Vec<u8>) -> io::Result<Decoded> {
    thread_local! {
        static DCTX: std::cell::RefCell<Option<zstd_safe::DCtx<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    // One-shot decoding writes straight into the output (no window buffer);
    // the pages of the reservation beyond the frame's size are never touched.
    out.clear();
    out.reserve_exact(cap);
    let result = DCTX.with(|cell| {
        let mut cell = cell.borrow_mut();
        let dctx = cell.get_or_insert_with(zstd_safe::DCtx::create);
        let _ = dctx.reset(zstd_safe::ResetDirective::SessionOnly);
        dctx.decompress(&mut Capped { vec: &mut out, cap }, src)
    });
    match result {
        Ok(_) => Ok(Decoded::Bytes(out)),
        Err(code)
            if zstd_safe::is_error_kind(
                code,
                zstd_safe::zstd_sys::ZSTD_ErrorCode::ZSTD_error_dstSize_tooSmall,
            ) =>
        {
            Ok(Decoded::TooBig)
        }
        Err(code) => Err(invalid(zstd_safe::get_error_name(code).to_string())),
    }
}

/// The compressed bytes `start..end` of a file, read with `pread`.
struct Range {
    file: Arc<File>,
    pos: u64,
    end: u64,
}

impl Read for Range {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (buf.len() as u64).min(self.end - self.pos) as usize;
        if n == 0 {
            return Ok(0);
        }
        let k = self.file.read_at(&mut buf[..n], self.pos)?;
        if k == 0 {
            return Err(truncated(self.pos));
        }
        self.pos += k as u64;
        Ok(k)
    }
}

/// A frame handed to the pool (or left to the reading thread).
struct InFlight {
    frame: Frame,
    /// The bytes reserved for its output (counted against the budget); 0 for a
    /// frame the reading thread streams.
    reserved: usize,
    /// Set by whoever starts decoding it: a worker, or the reading thread when
    /// it needs the frame before any worker took it.
    claimed: Arc<AtomicBool>,
    rx: Receiver<io::Result<Decoded>>,
}

/// The decoded bytes of a multi-frame zstd file, in order, decoded on the pool.
pub struct ParallelFrames<'p> {
    pool: &'p rayon::ThreadPool,
    file: Arc<File>,
    len: u64,
    modified: Option<SystemTime>,
    walker: FrameWalker,
    walked_all: bool,
    /// The walk's error (a frame that runs past the end of a cut file),
    /// returned once the frames walked before it were read out: a damaged
    /// file hands on all it holds intact, however many frames the walk was
    /// ahead.
    walk_error: Option<io::Error>,
    /// A frame walked but not handed out: the budget had no room for it.
    pending: Option<Frame>,
    queue: VecDeque<InFlight>,
    max_in_flight: usize,
    /// The sum of the reservations of the frames held at most.
    budget: usize,
    /// The reservations of the frames in flight.
    reserved: usize,
    /// The bytes of the frame being read out (0 when none is).
    held: usize,
    /// Frames read out that chunks still hold (windows of them, [`Lend`]),
    /// with their sizes: they count in the budget until they are freed.
    pinned: Vec<(std::sync::Weak<DecodedFrame>, usize)>,
    /// The reservation for the next frame of unknown size: the largest frame
    /// seen so far (pzstd's frames all have the same size but the last).
    reserve: usize,
    largest: usize,
    /// The frame being read out (shared with the chunks that are windows of
    /// it: [`Lend`]) and how much of it was.
    current: Option<Arc<DecodedFrame>>,
    at: usize,
    free: FreeList,
    /// A frame decoded by streaming on this thread.
    streaming: Option<Box<dyn Read + Send>>,
    raw_read: Arc<AtomicU64>,
}

impl<'p> ParallelFrames<'p> {
    /// Reads `file` (a regular file of `len` bytes, modified at `modified` when
    /// opened), decoding its frames on `pool`; `raw_read` follows the
    /// compressed bytes read out.
    pub fn new(
        pool: &'p rayon::ThreadPool,
        file: File,
        len: u64,
        modified: Option<SystemTime>,
        raw_read: Arc<AtomicU64>,
    ) -> Self {
        ParallelFrames {
            max_in_flight: 2 * pool.current_num_threads() + 2,
            budget: BUDGET,
            held: 0,
            pinned: Vec::new(),
            pool,
            file: Arc::new(file),
            len,
            modified,
            walker: FrameWalker::new(len),
            walked_all: false,
            walk_error: None,
            pending: None,
            queue: VecDeque::new(),
            reserved: 0,
            reserve: FRAME_CAP,
            largest: 0,
            current: None,
            at: 0,
            free: FreeList::default(),
            streaming: None,
            raw_read,
        }
    }

    /// Holds at most `budget` bytes of reservations, the frame being read out
    /// included (that frame whatever the budget).
    pub fn with_budget(mut self, budget: usize) -> Self {
        self.budget = budget;
        self
    }

    /// Reads only the frames of `start..end` (a partition from [`partitions`]).
    #[cfg(test)]
    pub fn range(mut self, start: u64, end: u64) -> Self {
        self.walker = FrameWalker::range(start, end.min(self.len));
        self
    }

    /// Hands frames to the pool while the budget allows (always one when no
    /// frame is held).
    fn submit(&mut self) -> io::Result<()> {
        while self.queue.len() < self.max_in_flight {
            let frame = match self.pending.take() {
                Some(frame) => frame,
                None if self.walked_all => break,
                None => match self.walker.next_frame(&*self.file) {
                    Ok(Some(frame)) => frame,
                    Ok(None) => {
                        self.walked_all = true;
                        break;
                    }
                    Err(e) => {
                        self.walked_all = true;
                        self.walk_error = Some(e);
                        break;
                    }
                },
            };
            let reserve = match frame.content_size {
                // (An empty frame still gets a byte: 0 means "streamed".)
                Some(size) if size <= FRAME_CAP as u64 => (size as usize).max(1),
                Some(_) => 0,
                None => self.reserve,
            };
            let alone = self.queue.is_empty() && self.held == 0;
            if !alone && self.held + self.reserved + self.pinned() + reserve > self.budget {
                // Its own reservation is what must fit (a frame bigger than
                // those before it, such as a file's last frames of another
                // level, waits for room).
                self.pending = Some(frame);
                break;
            }
            let claimed = Arc::new(AtomicBool::new(false));
            let (tx, rx) = bounded(1);
            if reserve > 0 {
                let file = self.file.clone();
                let claim = claimed.clone();
                let free = self.free.clone();
                // Never blocks (a channel of one, sent to once), so a worker
                // can always finish it: the pool cannot dead-lock on it.
                self.pool.spawn_fifo(move || {
                    if !claim.swap(true, Ordering::AcqRel) {
                        let _ = tx.send(read_and_decode(&file, frame, reserve, &free));
                    }
                });
            } else {
                claimed.store(true, Ordering::Release);
            }
            self.reserved += reserve;
            self.queue.push_back(InFlight {
                frame,
                reserved: reserve,
                claimed,
                rx,
            });
        }
        Ok(())
    }

    /// Makes the next frame's bytes current; `false` at the end. The current
    /// frame has been read out: its buffer is free for the next ones.
    fn next_frame(&mut self) -> io::Result<bool> {
        // Its buffer goes back to the free list once no chunk holds it.
        if let Some(done) = self.current.take()
            && Arc::strong_count(&done) > 1
        {
            self.pinned.push((Arc::downgrade(&done), done.bytes.len()));
        }
        self.held = 0;
        self.at = 0;
        self.submit()?;
        let Some(next) = self.queue.pop_front() else {
            if let Some(e) = self.walk_error.take() {
                return Err(e);
            }
            self.check_unchanged()?;
            return Ok(false);
        };
        self.reserved -= next.reserved;
        let frame = next.frame;
        let at = |e: io::Error| {
            io::Error::new(e.kind(), format!("zstd frame at byte {}: {e}", frame.start))
        };
        let decoded = if next.reserved == 0 {
            Decoded::TooBig
        } else if !next.claimed.swap(true, Ordering::AcqRel) {
            // No worker has started it: decoding it here beats waiting.
            read_and_decode(&self.file, frame, next.reserved, &self.free).map_err(at)?
        } else {
            next.rx
                .recv()
                .map_err(|_| io::Error::other("a decoding task was lost"))?
                .map_err(at)?
        };
        // The frames before this one were read out: the progress bar follows.
        self.raw_read.store(frame.end, Ordering::Relaxed);
        match decoded {
            Decoded::Bytes(bytes) => {
                self.largest = self.largest.max(bytes.len());
                self.reserve = self.largest.clamp(MIN_RESERVE, FRAME_CAP);
                // Only the pages written are resident: a frame of unknown
                // size holds its length, not its reservation.
                self.held = bytes.len();
                self.current = Some(Arc::new(DecodedFrame {
                    bytes,
                    free: self.free.clone(),
                }));
            }
            Decoded::TooBig => {
                self.reserve = FRAME_CAP;
                let range = Range {
                    file: self.file.clone(),
                    pos: frame.start,
                    end: frame.end,
                };
                let decoder = zstd::stream::read::Decoder::new(range).map_err(at)?;
                self.streaming = Some(Box::new(FrameErrors {
                    inner: super::source::ZstdReader(decoder),
                    start: frame.start,
                }));
            }
        }
        // Keep the pool busy while this frame is read out.
        self.submit()?;
        Ok(true)
    }

    /// The bytes of the frames read out that chunks still hold.
    fn pinned(&mut self) -> usize {
        self.pinned.retain(|(frame, _)| frame.strong_count() > 0);
        self.pinned.iter().map(|(_, n)| n).sum()
    }

    /// The file must not have changed under the run (as for plain files).
    fn check_unchanged(&self) -> io::Result<()> {
        super::source::check_unchanged(&self.file, self.len, self.modified)
    }
}

fn read_and_decode(file: &File, frame: Frame, cap: usize, free: &FreeList) -> io::Result<Decoded> {
    let n = (frame.end - frame.start) as usize;
    if n > compressed_cap(cap) {
        // Its content cannot fit: streamed, without reading it whole (a frame
        // of unknown size may hold gigabytes).
        return Ok(Decoded::TooBig);
    }
    let (mut src, out) = match free.lock() {
        Ok(mut f) => (
            f.src.pop().unwrap_or_default(),
            f.out.pop().unwrap_or_default(),
        ),
        Err(_) => Default::default(),
    };
    // A buffer much bigger than this frame (a file's one frame of level 19
    // among frames of 1 MiB) would keep its pages for the rest of the run:
    // given back instead.
    let out = if out.capacity() > 2 * cap.max(MIN_RESERVE) {
        Vec::new()
    } else {
        out
    };
    // A recycled buffer is only zeroed where it grows.
    if src.len() < n {
        src.resize(n, 0);
    }
    src.truncate(n);
    FileExt::read_exact_at(file, &mut src, frame.start).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            truncated(frame.start)
        } else {
            e
        }
    })?;
    let decoded = decode_frame(&src, cap, out);
    if let Ok(mut f) = free.lock() {
        put_back(&mut f.src, src, FREE_SRC_MAX);
    }
    decoded
}

/// The most compressed bytes a frame of at most `cap` decoded bytes takes, as
/// zstd writes it (its bound, a frame header and a checksum). Another writer
/// could spend more (many tiny blocks): such a frame is streamed, as a frame
/// too big for its reservation is.
fn compressed_cap(cap: usize) -> usize {
    zstd_safe::compress_bound(cap).saturating_add(32)
}

/// Names the frame in the errors of a streamed frame.
pub(crate) struct FrameErrors<R> {
    pub(crate) inner: R,
    pub(crate) start: u64,
}

impl<R: Read> Read for FrameErrors<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            io::Error::new(e.kind(), format!("zstd frame at byte {}: {e}", self.start))
        })
    }
}

impl Read for ParallelFrames<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if let Some(stream) = &mut self.streaming {
                let n = stream.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                self.streaming = None;
            }
            let current = self.current.as_deref().map_or(&[][..], |f| &f.bytes[..]);
            if self.at < current.len() {
                let n = buf.len().min(current.len() - self.at);
                buf[..n].copy_from_slice(&current[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            if !self.next_frame()? {
                return Ok(0);
            }
        }
    }
}

impl Lend for ParallelFrames<'_> {
    /// The unread rest of the frame being read out. None once it is read
    /// out: the next frame comes through `read`, which hands on the games
    /// before a frame that fails to decode, as for any reader; nor for a frame
    /// streamed on this thread, nor for a frame of more than half the budget
    /// (chunks may hold it while the next is read out, and a lean budget, one
    /// frame at a time, would then hold two: its chunks are copied).
    fn lend(&mut self) -> Option<Lent> {
        if self.streaming.is_some() {
            return None;
        }
        match &self.current {
            Some(frame) if self.at < frame.bytes.len() && 2 * frame.bytes.len() <= self.budget => {
                let lent: Arc<dyn LentBytes> = frame.clone();
                Some((lent, self.at..frame.bytes.len()))
            }
            _ => None,
        }
    }

    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// A frame's decoded bytes, shared by the chunks that are windows of it; its
/// buffer goes back to the free list when the last of them is done.
pub struct DecodedFrame {
    bytes: Vec<u8>,
    free: FreeList,
}

impl std::fmt::Debug for DecodedFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DecodedFrame({} bytes)", self.bytes.len())
    }
}

impl AsRef<[u8]> for DecodedFrame {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl LentBytes for DecodedFrame {}

impl Drop for DecodedFrame {
    fn drop(&mut self) {
        if let Ok(mut free) = self.free.lock() {
            put_back(&mut free.out, std::mem::take(&mut self.bytes), FREE_MAX);
        }
    }
}

impl Drop for ParallelFrames<'_> {
    fn drop(&mut self) {
        // Frames no worker started are not decoded for nothing.
        for f in &self.queue {
            f.claimed.store(true, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pzstd-style file: each frame announced by a 12-byte skippable frame.
    fn pzstd_like(parts: &[&[u8]], announce: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for part in parts {
            let frame = frame_with(part, false, true);
            if announce {
                out.extend_from_slice(&0x184D_2A50u32.to_le_bytes());
                out.extend_from_slice(&4u32.to_le_bytes());
                out.extend_from_slice(&(frame.len() as u32).to_le_bytes());
            }
            out.extend_from_slice(&frame);
        }
        out
    }

    fn walk(data: &[u8]) -> io::Result<Vec<Frame>> {
        let mut w = FrameWalker::new(data.len() as u64);
        let mut frames = Vec::new();
        while let Some(f) = w.next_frame(data)? {
            frames.push(f);
        }
        Ok(frames)
    }

    fn frame_with(data: &[u8], size: bool, checksum: bool) -> Vec<u8> {
        let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 5).unwrap();
        enc.include_contentsize(size).unwrap();
        enc.include_checksum(checksum).unwrap();
        if size {
            enc.set_pledged_src_size(Some(data.len() as u64)).unwrap();
        }
        std::io::Write::write_all(&mut enc, data).unwrap();
        enc.finish().unwrap()
    }

    /// PGN-like text that does not compress to nothing (a frame of it has
    /// many blocks), different for each seed.
    fn text(n: usize, seed: u8) -> Vec<u8> {
        let words: [&[u8]; 8] = [
            b"e4 ",
            b"Nf3 ",
            b"{ a comment } ",
            b"1-0\n\n",
            b"[Event \"x\"]\n",
            b"d5 ",
            b"O-O ",
            b"\n",
        ];
        let mut state = u64::from(seed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(1);
        let mut out = Vec::with_capacity(n + 16);
        while out.len() < n {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            out.extend_from_slice(words[(state >> 61) as usize]);
            out.extend_from_slice(format!("{} ", (state >> 40) % 1000).as_bytes());
        }
        out.truncate(n);
        out
    }

    #[test]
    fn announced_frames_are_found_without_walking_blocks() {
        let a = text(300_000, 1);
        let b = text(5, 2);
        let data = pzstd_like(&[&a, &b, b""], true);
        let frames = walk(&data).unwrap();
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[0].start, 12);
        assert_eq!(frames[1].start, frames[0].end + 12);
        assert_eq!(frames[2].end, data.len() as u64);
        for (f, part) in frames.iter().zip([&a[..], &b[..], b""]) {
            let src = &data[f.start as usize..f.end as usize];
            assert!(zstd::decode_all(src).unwrap() == part);
        }
        // The announcement is used as is: a block header the walk would
        // reject (reserved block type; 12 + 6 bytes of headers before it) is
        // never read.
        let mut odd = data.clone();
        odd[18] |= 0b110;
        assert_eq!(walk(&odd).unwrap(), frames);
        // The same ends found by walking the blocks.
        assert_eq!(
            walk(&pzstd_like(&[&a, &b, b""], false))
                .unwrap()
                .iter()
                .map(|f| f.end - f.start)
                .collect::<Vec<_>>(),
            frames.iter().map(|f| f.end - f.start).collect::<Vec<_>>()
        );
    }

    #[test]
    fn frames_with_and_without_size_and_checksum() {
        let a = text(200_000, 3);
        let b = text(70_000, 4);
        for size in [false, true] {
            for checksum in [false, true] {
                let fa = frame_with(&a, size, checksum);
                let fb = frame_with(&b, !size, checksum);
                let data = [&fa[..], &fb[..]].concat();
                let frames = walk(&data).unwrap();
                assert_eq!(
                    frames,
                    vec![
                        Frame {
                            start: 0,
                            end: fa.len() as u64,
                            content_size: size.then_some(a.len() as u64),
                        },
                        Frame {
                            start: fa.len() as u64,
                            end: data.len() as u64,
                            content_size: (!size).then_some(b.len() as u64),
                        },
                    ],
                    "size {size} checksum {checksum}"
                );
            }
        }
    }

    #[test]
    fn a_wrong_announcement_falls_back_to_the_blocks() {
        let a = text(100_000, 5);
        let mut data = pzstd_like(&[&a, &a], true);
        // Announce one byte too many for the first frame.
        let announced = u32::from_le_bytes(data[8..12].try_into().unwrap());
        data[8..12].copy_from_slice(&(announced + 1).to_le_bytes());
        let frames = walk(&data).unwrap();
        assert_eq!(frames[0].end - frames[0].start, u64::from(announced));
        assert_eq!(frames.len(), 2);
    }

    #[test]
    fn other_skippable_frames_are_skipped() {
        let a = text(1000, 6);
        let f = zstd::encode_all(&a[..], 1).unwrap();
        let mut data = Vec::new();
        data.extend_from_slice(&0x184D_2A5Fu32.to_le_bytes());
        data.extend_from_slice(&9u32.to_le_bytes());
        data.extend_from_slice(b"123456789");
        data.extend_from_slice(&f);
        data.extend_from_slice(&0x184D_2A53u32.to_le_bytes());
        data.extend_from_slice(&0u32.to_le_bytes());
        let frames = walk(&data).unwrap();
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].start, 17);
    }

    #[test]
    fn a_non_zstd_tail_and_a_cut_frame_are_errors() {
        let a = text(50_000, 7);
        let good = pzstd_like(&[&a, &a], false);
        let mut tail = good.clone();
        tail.extend_from_slice(b"[Event \"junk\"]\n");
        let e = walk(&tail).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("not zstd data at byte {}", good.len())),
            "{e}"
        );
        let mut stray = good.clone();
        stray.extend_from_slice(b"ab");
        assert!(walk(&stray).unwrap_err().to_string().contains("stray"));
        let last = walk(&good).unwrap()[1];
        for cut in [
            good.len() - 1,
            good.len() - 20,
            (last.start + last.end) as usize / 2,
        ] {
            let e = walk(&good[..cut]).unwrap_err();
            assert!(e.to_string().contains("truncated"), "{cut}: {e}");
        }
        // A cut announced file: the announcement does not fit, the walk finds the cut.
        let announced = pzstd_like(&[&a, &a], true);
        let e = walk(&announced[..announced.len() - 5]).unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
    }

    #[test]
    fn decoding_respects_the_reservation() {
        let a = text(3 << 20, 8);
        let f = frame_with(&a, false, true);
        match decode_frame(&f, 4 << 20, Vec::new()).unwrap() {
            Decoded::Bytes(b) => assert!(b == a),
            Decoded::TooBig => panic!("fits"),
        }
        assert!(matches!(
            decode_frame(&f, 1 << 20, vec![0; 8 << 20]).unwrap(),
            Decoded::TooBig
        ));
        let mut bad = f.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x55;
        bad[mid + 1] ^= 0x55;
        assert!(decode_frame(&bad, 4 << 20, Vec::new()).is_err());
    }

    /// Calls `f` with the frames of `data` (a zstd file) read on a pool of
    /// `threads` under `budget`.
    fn with_frames<T>(
        data: &[u8],
        threads: usize,
        budget: usize,
        f: impl FnOnce(ParallelFrames<'_>) -> T,
    ) -> T {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, data).unwrap();
        let meta = file.metadata().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let frames = ParallelFrames::new(
            &pool,
            file,
            meta.len(),
            meta.modified().ok(),
            Arc::new(AtomicU64::new(0)),
        )
        .with_budget(budget);
        f(frames)
    }

    fn read_parallel(data: &[u8], threads: usize) -> io::Result<Vec<u8>> {
        with_frames(data, threads, BUDGET, |mut r| {
            let mut out = Vec::new();
            r.read_to_end(&mut out)?;
            Ok(out)
        })
    }

    /// Reads `data` (a zstd file) on 4 threads under `budget`: the bytes,
    /// and the most frames in flight and bytes held (read out and in
    /// flight) seen between reads.
    fn read_watching(data: &[u8], budget: usize) -> (Vec<u8>, usize, usize) {
        with_frames(data, 4, budget, |mut r| {
            let (mut frames, mut held, mut out, mut buf) = (0, 0, Vec::new(), vec![0; 64 << 10]);
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
                frames = frames.max(r.queue.len());
                held = held.max(r.held + r.reserved);
            }
            (out, frames, held)
        })
    }

    #[test]
    fn frames_held_stay_within_the_budget() {
        // Twelve frames of 1 MiB.
        let parts: Vec<Vec<u8>> = (0..12).map(|i| text(1 << 20, i as u8)).collect();
        let refs: Vec<&[u8]> = parts.iter().map(|p| &p[..]).collect();
        let data = pzstd_like(&refs, true);
        let most = |budget: usize| {
            let (out, frames, held) = read_watching(&data, budget);
            assert!(out == parts.concat());
            (frames, held)
        };
        // The default budget: as many as may be in flight (2 × 4 threads + 2).
        assert_eq!(most(BUDGET), (10, 11 << 20));
        // Room for two frames: the one read out and one ahead.
        assert_eq!(most(2 << 20), (1, 2 << 20));
        // Less than a frame: each frame alone, decoded when it is needed.
        assert_eq!(most(1 << 19), (0, 1 << 20));
    }

    /// `n` small games, numbered.
    fn numbered_games(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| format!("[Event \"{i}\"]\n[Site \"x\"]\n\n1. e4 e5 1-0\n\n").into_bytes())
            .collect()
    }

    /// Chunked with the frames lent: the chunks of the plain bytes, most of
    /// them windows of the frames, and the frames that chunks in flight
    /// still hold count in the budget: no frame is decoded ahead while they
    /// fill it (the frame read out is always allowed, so the chunks in
    /// flight, 2.5 MiB here, can hold three frames besides it).
    #[test]
    fn lent_frames_give_the_plain_chunks_within_the_budget() {
        use crate::pipeline::chunk::{Chunker, Source};
        // Twelve frames of 1 MiB of games, the frames cutting games anywhere.
        let games = numbered_games(300_000);
        let refs: Vec<&[u8]> = games.chunks(1 << 20).take(12).collect();
        let plain = refs.concat();
        let budget = 3 << 20;
        let (target, max) = (64 << 10, 256 << 10);
        let (chunks, lent, held) = with_frames(&pzstd_like(&refs, true), 4, budget, |frames| {
            let mut chunker = Chunker::with_sizes(Source::Read(frames), target, max);
            let mut expected = Chunker::with_sizes(Source::Read(&plain[..]), target, max);
            // Chunks in flight: the last forty stay alive.
            let mut in_flight = VecDeque::new();
            let (mut chunks, mut lent, mut held) = (0, 0, 0);
            while let Some(chunk) = chunker.next_chunk(Vec::new()).unwrap() {
                let want = expected.next_chunk(Vec::new()).unwrap().unwrap();
                assert_eq!(
                    (chunk.offset, chunk.bytes(), chunk.start, chunk.last),
                    (want.offset, want.bytes(), want.start, want.last)
                );
                let r = chunker.reader();
                held = held.max(r.held + r.reserved + r.pinned());
                lent += usize::from(chunk.is_lent());
                chunks += 1;
                in_flight.push_back(chunk);
                if in_flight.len() > 40 {
                    in_flight.pop_front();
                }
            }
            assert!(expected.next_chunk(Vec::new()).unwrap().is_none());
            (chunks, lent, held)
        });
        assert!(chunks > 150, "{chunks}");
        assert!(lent > chunks * 3 / 4, "{lent} of {chunks} lent");
        assert!(
            held <= budget + (2 << 20),
            "{held} held under a budget of {budget}"
        );
    }

    /// A frame that fails to decode: the lent chunks before the error are
    /// those of a reader that fails where the frame begins (every complete
    /// game before it handed on first), then the error.
    #[test]
    fn lent_frames_hand_on_the_games_before_a_corrupt_frame() {
        use crate::pipeline::chunk::{Chunker, Lend, Source};
        /// The bytes, then an error.
        struct Failing<'a>(&'a [u8]);
        impl Read for Failing<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() {
                    return Err(io::Error::other("failed"));
                }
                let n = buf.len().min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        impl Lend for Failing<'_> {}

        let games = numbered_games(60_000);
        let refs: Vec<&[u8]> = games.chunks(256 << 10).take(8).collect();
        let mut data = Vec::new();
        let mut starts = Vec::new();
        for part in &refs {
            starts.push(data.len());
            data.extend_from_slice(&frame_with(part, true, true));
        }
        // Frame 5's block damaged (past its header).
        for b in &mut data[starts[5] + 40..starts[5] + 56] {
            *b ^= 0x5A;
        }
        let good = refs[..5].concat();
        let (target, max) = (32 << 10, 128 << 10);
        let chunks = with_frames(&data, 2, BUDGET, |frames| {
            let mut lent = Chunker::with_sizes(Source::Read(frames), target, max);
            let mut expected = Chunker::with_sizes(Source::Read(Failing(&good)), target, max);
            let mut chunks = 0;
            loop {
                match (lent.next_chunk(Vec::new()), expected.next_chunk(Vec::new())) {
                    (Ok(Some(a)), Ok(Some(b))) => {
                        assert_eq!((a.offset, a.bytes()), (b.offset, b.bytes()));
                        chunks += 1;
                    }
                    (Err(e), Err(_)) => {
                        assert!(e.to_string().contains("zstd frame at byte"), "{e}");
                        return chunks;
                    }
                    (a, b) => panic!(
                        "{:?} against {:?}",
                        a.map(|c| c.map(|c| c.offset)),
                        b.map(|c| c.map(|c| c.offset))
                    ),
                }
            }
        });
        assert!(chunks > 30, "{chunks}");
    }

    /// A frame bigger than those before it (its size declared) is held
    /// against the budget by its own size, not by the largest seen so far.
    #[test]
    fn a_bigger_frame_waits_for_room_in_the_budget() {
        let sizes = [1, 1, 1, 1, 3, 1, 1, 3, 3, 1];
        let parts: Vec<Vec<u8>> = sizes
            .iter()
            .enumerate()
            .map(|(i, mib)| text(mib << 20, i as u8))
            .collect();
        let data: Vec<u8> = parts
            .iter()
            .flat_map(|p| frame_with(p, true, true))
            .collect();
        for budget in [3 << 20, 4 << 20, 5 << 20] {
            let (out, _, held) = read_watching(&data, budget);
            assert!(out == parts.concat());
            assert!(held <= budget, "{held} held under a budget of {budget}");
        }
    }

    /// A frame whose compressed bytes exceed what its reservation could
    /// hold is streamed without being read whole (a frame of unknown size
    /// after smaller ones may be gigabytes).
    #[test]
    fn a_frame_too_big_for_its_reservation_is_not_read_whole() {
        let small = text(1 << 20, 1);
        // Incompressible: as many compressed bytes as decoded ones.
        let mut noise = vec![0u8; 3 << 20];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for b in noise.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        let big = frame_with(&noise, false, true);
        assert!(big.len() > compressed_cap(1 << 20));
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, &big).unwrap();
        let frame = Frame {
            start: 0,
            end: big.len() as u64,
            content_size: None,
        };
        // Refused before any byte is read: no buffer was taken or made.
        let free = FreeList::default();
        assert!(matches!(
            read_and_decode(&file, frame, 1 << 20, &free).unwrap(),
            Decoded::TooBig
        ));
        assert!(free.lock().unwrap().src.is_empty());
        // And the file reads whole all the same.
        let mut data = pzstd_like(&[&small], false);
        data.extend_from_slice(&big);
        let expect = [&small[..], &noise].concat();
        for threads in [1, 2] {
            assert!(read_parallel(&data, threads).unwrap() == expect);
        }
    }

    #[test]
    fn parallel_reading_gives_the_sequential_bytes() {
        let parts: Vec<Vec<u8>> = (0..40).map(|i| text(20_000 + 997 * i, i as u8)).collect();
        let refs: Vec<&[u8]> = parts.iter().map(|p| &p[..]).collect();
        let whole = parts.concat();
        for announce in [true, false] {
            let data = pzstd_like(&refs, announce);
            for threads in [1, 2, 3] {
                assert!(read_parallel(&data, threads).unwrap() == whole);
            }
        }
        // A frame much bigger than the others (and of unknown size) is
        // streamed after its one-shot decoding found it too big.
        let big = text(5 << 20, 9);
        let mut data = pzstd_like(&[&parts[0], &parts[1]], true);
        data.extend(frame_with(&big, false, true));
        data.extend(pzstd_like(&[&parts[2]], true));
        let expect = [&parts[0][..], &parts[1], &big, &parts[2]].concat();
        assert!(read_parallel(&data, 2).unwrap() == expect);
    }

    #[test]
    fn partitions_cover_the_file_in_whole_frames() {
        let parts: Vec<Vec<u8>> = (0..30).map(|i| text(10_000 + 3_001 * i, i as u8)).collect();
        let refs: Vec<&[u8]> = parts.iter().map(|p| &p[..]).collect();
        let whole = parts.concat();
        for announce in [true, false] {
            let data = pzstd_like(&refs, announce);
            let mut file = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut file, &data).unwrap();
            let frame_starts: Vec<u64> = walk(&data)
                .unwrap()
                .iter()
                .map(|f| f.start - if announce { 12 } else { 0 })
                .collect();
            for target in [1, 5_000, 20_000, 100_000, 1 << 40] {
                let cuts = partitions(&file, target).unwrap();
                assert_eq!(cuts.first().unwrap().start, 0);
                assert_eq!(cuts.last().unwrap().end, data.len() as u64);
                for pair in cuts.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start);
                    assert!(frame_starts.contains(&pair[1].start), "{target}");
                }
                // Whole frames, never more than one over the target.
                for c in &cuts {
                    let frames = frame_starts.iter().filter(|&&s| c.contains(&s)).count();
                    assert!(frames >= 1);
                    assert!(frames == 1 || c.end - c.start <= target, "{target}: {c:?}");
                }
                if target == 1 {
                    assert_eq!(cuts.len(), parts.len());
                }
                if target == 1 << 40 {
                    assert_eq!(cuts.len(), 1);
                }
                // Each partition read on its own; together they are the file.
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(2)
                    .build()
                    .unwrap();
                let mut joined = Vec::new();
                for c in &cuts {
                    let f = file.try_clone().unwrap();
                    let meta = f.metadata().unwrap();
                    let mut r = ParallelFrames::new(
                        &pool,
                        f,
                        meta.len(),
                        meta.modified().ok(),
                        Arc::new(AtomicU64::new(0)),
                    )
                    .range(c.start, c.end);
                    r.read_to_end(&mut joined).unwrap();
                }
                assert!(joined == whole, "{target}");
            }
        }
    }

    #[test]
    fn a_corrupt_frame_is_an_error_naming_its_offset() {
        let parts: Vec<Vec<u8>> = (0..6).map(|i| text(50_000, i as u8)).collect();
        let refs: Vec<&[u8]> = parts.iter().map(|p| &p[..]).collect();
        let mut data = pzstd_like(&refs, true);
        let frames = walk(&data).unwrap();
        let f = frames[3];
        let mid = ((f.start + f.end) / 2) as usize;
        for b in &mut data[mid..mid + 8] {
            *b ^= 0xA5;
        }
        let Err(e) = read_parallel(&data, 2) else {
            panic!("a corrupt frame was read");
        };
        assert!(
            e.to_string()
                .contains(&format!("zstd frame at byte {}", f.start)),
            "{e}"
        );
    }
}
