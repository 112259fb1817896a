//! `.zst` outputs written as independent frames in pzstd's layout, compressed
//! on worker threads.
//!
//! A file written as one zstd frame can only be decoded from its start by one
//! thread, so pgnfen's own parallel reader ([`super::frames`]) and the
//! partitions of `pgnfen.dask` could not split an output of pgnfen. Here the
//! output is cut into frames of [`FRAME`] bytes (before compression); each is
//! compressed on its own by a pool of threads and written, in order, after a
//! 12-byte skippable frame that announces its compressed size, exactly as
//! `pzstd` does: `zstd -d`, `pzstd -d` (which then decodes in parallel too) and
//! every zstd library read the file as one stream, and [`super::frames`] finds
//! each frame from its announcement without walking its blocks.
//!
//! Each frame records its decompressed size (the parallel reader reserves
//! exactly that) and a checksum (as the `zstd` tool writes by default).
//!
//! Memory: the frame being filled, plus at most [`Self::max_pending`] frames
//! handed to the threads (each its input and its compressed output): 8 at
//! most, about 20 MiB, whatever the number of threads. The buffers come back
//! with the compressed frames and are filled again: a new 2 MiB buffer per
//! frame was memory the kernel had to map and clear page by page, 40,000
//! page faults more than a plain output on the benchmark's `filter` (576 MB
//! written), most of them in the copy of the games into the frame.
//!
//! The threads are the process's, shared by every `.zst` output ([`pool`]),
//! and a run that writes many files at once (`split`: up to 42) writes
//! smaller frames ([`frame_size_among`]), so that their buffers together
//! stay within the run's memory bound. With a set of threads and 2 MiB
//! frames per file, a `split` into 42 `.zst` files held 250 to 370 MiB.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::Mutex;

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};

/// Bytes of output per frame, before compression: pzstd's size at its fast
/// levels, small enough that the parallel reader keeps eight frames in flight
/// within its memory budget, large enough that the ratio stays within a
/// percent or two of one frame.
pub const FRAME: usize = 2 << 20;

/// The skippable frame magic number pzstd uses for its announcements.
const SKIPPABLE_MAGIC: u32 = 0x184D_2A50;

/// Most frames handed to the threads and not yet written.
const MAX_PENDING: usize = 8;

/// What the frames of the files a run writes at once may take together:
/// each file holds its frame being filled and, once frames are in flight, a
/// buffer for the next one's input and one for its compressed bytes.
const FRAMES_BUDGET: usize = 8 << 20;

/// The smallest frame: PGN still compresses within a few percent of what
/// 2 MiB frames give (zstd level 1's window is 512 KiB).
const MIN_FRAME: usize = 128 << 10;

/// The frame size of each of `outputs` `.zst` files written at once: [`FRAME`]
/// for one or two (`-o`, `--rest`), else a power of two such that their
/// frames fit in [`FRAMES_BUDGET`], at least [`MIN_FRAME`]: 1 MiB for a
/// `split` by class or by speed (6 or 7 files), 128 KiB for one by both (42).
pub fn frame_size_among(outputs: usize) -> usize {
    if outputs <= 2 {
        return FRAME;
    }
    let share = FRAMES_BUDGET / outputs;
    // The largest power of two not above the share.
    let size = 1usize << (usize::BITS - 1 - share.max(1).leading_zeros());
    size.clamp(MIN_FRAME, FRAME)
}

/// A frame to compress at a level, a buffer for its compressed bytes, and
/// where to send the result.
type Job = (i32, Vec<u8>, Vec<u8>, Sender<io::Result<Compressed>>);

/// The compression threads of the process, shared by every `.zst` output:
/// a run that writes 42 files compresses on as many threads, each with one
/// zstd context, as one that writes a single file, not on a set per file.
/// Started as outputs ask for them, they wait for frames as long as the
/// process lives.
struct Pool {
    jobs: Sender<Job>,
    queue: Receiver<Job>,
    threads: usize,
    /// The process that started the threads: a child made by `fork` (a
    /// Python program's `multiprocessing`) has none of them, and starts its own.
    process: u32,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);

/// The queue of the pool, which gets `threads` threads if it has fewer.
fn pool(threads: usize) -> io::Result<Sender<Job>> {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if pool
        .as_ref()
        .is_some_and(|p| p.process != std::process::id())
    {
        *pool = None;
    }
    let pool = pool.get_or_insert_with(|| {
        let (jobs, queue) = unbounded();
        Pool {
            jobs,
            queue,
            threads: 0,
            process: std::process::id(),
        }
    });
    while pool.threads < threads {
        let queue = pool.queue.clone();
        std::thread::Builder::new()
            .name(format!("pgnfen-zstd-{}", pool.threads))
            .spawn(move || compress_frames(&queue))
            .map_err(super::no_thread)?;
        pool.threads += 1;
    }
    Ok(pool.jobs.clone())
}

/// A pool thread: compresses each frame it is handed at its level (with a
/// context kept per level) and sends it back.
fn compress_frames(queue: &Receiver<Job>) {
    let mut contexts: Vec<(i32, io::Result<zstd::bulk::Compressor<'static>>)> = Vec::new();
    for (level, input, mut frame, reply) in queue {
        let at = match contexts.iter().position(|(l, _)| *l == level) {
            Some(at) => at,
            None => {
                contexts.push((level, compressor(level)));
                contexts.len() - 1
            }
        };
        let result = match &mut contexts[at].1 {
            Ok(c) => compress_into(c, &input, &mut frame).map(|()| Compressed { frame, input }),
            Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
        };
        // The writer may be gone (an error elsewhere): nothing to tell.
        let _ = reply.send(result);
    }
}

/// A compressed frame, and the buffer its input was in (to be filled again).
struct Compressed {
    frame: Vec<u8>,
    input: Vec<u8>,
}

/// A writer of pzstd-layout zstd frames onto `W`.
pub struct FrameWriter<W: Write> {
    /// Always `Some` until [`FrameWriter::finish`] takes it.
    inner: Option<W>,
    /// The frame being filled.
    buf: Vec<u8>,
    /// Bytes of each frame before compression.
    frame_size: usize,
    /// The zstd level.
    level: i32,
    /// The threads' queue (`None` with one thread: frames are compressed here).
    jobs: Option<Sender<Job>>,
    /// The results of the frames handed out, in output order.
    pending: VecDeque<Receiver<io::Result<Compressed>>>,
    max_pending: usize,
    /// The compressor of the single-threaded case.
    local: Option<zstd::bulk::Compressor<'static>>,
    /// Emptied buffers of frames written, for the next frames' input and
    /// compressed bytes (at most as many as frames can be in flight).
    spare_inputs: Vec<Vec<u8>>,
    spare_outputs: Vec<Vec<u8>>,
    /// Whether a frame was written (an empty output still gets one frame, so
    /// that it is a valid zstd file).
    frames: u64,
}

fn compressor(level: i32) -> io::Result<zstd::bulk::Compressor<'static>> {
    let mut c = zstd::bulk::Compressor::new(level)?;
    c.include_checksum(true)?;
    c.include_contentsize(true)?;
    Ok(c)
}

/// Compresses `input` into `out` (emptied first, grown to the bound once).
fn compress_into(
    c: &mut zstd::bulk::Compressor<'static>,
    input: &[u8],
    out: &mut Vec<u8>,
) -> io::Result<()> {
    out.clear();
    out.reserve(zstd::zstd_safe::compress_bound(input.len()));
    c.compress_to_buffer(input, out)?;
    Ok(())
}

impl<W: Write> FrameWriter<W> {
    /// A writer compressing at `level` on `threads` threads (1: no thread is
    /// started, the caller's thread compresses).
    #[cfg(test)]
    pub fn new(inner: W, level: i32, threads: usize) -> io::Result<FrameWriter<W>> {
        FrameWriter::with_frames(inner, level, threads, FRAME)
    }

    /// [`FrameWriter::new`] with frames of `frame_size` bytes before
    /// compression (see [`frame_size_among`]).
    pub fn with_frames(
        inner: W,
        level: i32,
        threads: usize,
        frame_size: usize,
    ) -> io::Result<FrameWriter<W>> {
        let threads = threads.clamp(1, MAX_PENDING);
        let frame_size = frame_size.clamp(1, FRAME);
        let mut writer = FrameWriter {
            inner: Some(inner),
            buf: Vec::with_capacity(frame_size),
            frame_size,
            level,
            jobs: None,
            pending: VecDeque::new(),
            max_pending: (threads + 1).min(MAX_PENDING),
            local: None,
            spare_inputs: Vec::new(),
            spare_outputs: Vec::new(),
            frames: 0,
        };
        if threads == 1 {
            writer.local = Some(compressor(level)?);
            return Ok(writer);
        }
        writer.jobs = Some(pool(threads)?);
        Ok(writer)
    }

    /// Hands the filled frame over (or compresses it here), writing finished
    /// frames while too many are waiting.
    fn submit(&mut self) -> io::Result<()> {
        if let Some(c) = &mut self.local {
            let mut frame = self.spare_outputs.pop().unwrap_or_default();
            compress_into(c, &self.buf, &mut frame)?;
            self.buf.clear();
            self.write_frame(&frame)?;
            self.spare_outputs.push(frame);
            return Ok(());
        }
        // Written frames first: their buffers are the ones filled next.
        while self.pending.len() >= self.max_pending {
            self.write_next()?;
        }
        let frame = self.spare_outputs.pop().unwrap_or_default();
        let next = self
            .spare_inputs
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(self.frame_size));
        let data = std::mem::replace(&mut self.buf, next);
        let (reply, result) = bounded(1);
        let sent = self
            .jobs
            .as_ref()
            .map(|jobs| jobs.send((self.level, data, frame, reply)));
        if !matches!(sent, Some(Ok(()))) {
            return Err(io::Error::other("the zstd compression threads stopped"));
        }
        self.pending.push_back(result);
        Ok(())
    }

    /// Waits for the oldest frame handed out and writes it.
    fn write_next(&mut self) -> io::Result<()> {
        let Some(result) = self.pending.pop_front() else {
            return Ok(());
        };
        let Compressed { frame, mut input } = result
            .recv()
            .map_err(|_| io::Error::other("a zstd compression thread stopped"))??;
        self.write_frame(&frame)?;
        input.clear();
        self.spare_inputs.push(input);
        self.spare_outputs.push(frame);
        Ok(())
    }

    /// pzstd's announcement (a skippable frame holding the compressed size),
    /// then the frame.
    fn write_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        let size = u32::try_from(frame.len())
            .map_err(|_| io::Error::other("a zstd frame larger than 4 GiB"))?;
        let mut head = [0u8; 12];
        head[..4].copy_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
        head[4..8].copy_from_slice(&4u32.to_le_bytes());
        head[8..].copy_from_slice(&size.to_le_bytes());
        let inner = self.inner.as_mut().ok_or_else(finished)?;
        inner.write_all(&head)?;
        inner.write_all(frame)?;
        self.frames += 1;
        Ok(())
    }

    /// Compresses and writes what is left, waits for every frame, stops the
    /// threads and gives back the inner writer (not flushed).
    pub fn finish(mut self) -> io::Result<W> {
        if !self.buf.is_empty() || (self.frames == 0 && self.pending.is_empty()) {
            self.submit()?;
        }
        while !self.pending.is_empty() {
            self.write_next()?;
        }
        Ok(self.inner.take().expect("finish runs once"))
    }
}

fn finished() -> io::Error {
    io::Error::other("the zstd output is already finished")
}

impl<W: Write> Write for FrameWriter<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut rest = data;
        while !rest.is_empty() {
            let room = self.frame_size - self.buf.len();
            let (now, later) = rest.split_at(room.min(rest.len()));
            self.buf.extend_from_slice(now);
            rest = later;
            if self.buf.len() == self.frame_size {
                self.submit()?;
            }
        }
        Ok(data.len())
    }

    /// Writes the frames already handed out and flushes the inner writer; the
    /// frame being filled is not cut short (that would only shrink frames).
    fn flush(&mut self) -> io::Result<()> {
        while !self.pending.is_empty() {
            self.write_next()?;
        }
        self.inner.as_mut().ok_or_else(finished)?.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn text(n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n);
        let mut i = 0u64;
        while out.len() < n {
            out.extend_from_slice(format!("[Event \"game {i}\"]\n\n1. e4 e5 *\n\n").as_bytes());
            i += 1;
        }
        out.truncate(n);
        out
    }

    fn frames_of(data: &[u8]) -> Vec<super::super::frames::Frame> {
        let mut walker = super::super::frames::FrameWalker::new(data.len() as u64);
        let mut frames = Vec::new();
        while let Some(f) = walker.next_frame(data).unwrap() {
            frames.push(f);
        }
        frames
    }

    #[test]
    fn frames_are_announced_sized_and_decode_to_the_input() {
        for threads in [1, 3] {
            let input = text(5 * FRAME + 123);
            let mut w = FrameWriter::new(Vec::new(), 3, threads).unwrap();
            // Writes of every size, across frame boundaries.
            for piece in input.chunks(700_001) {
                w.write_all(piece).unwrap();
            }
            let out = w.finish().unwrap();
            let frames = frames_of(&out);
            assert_eq!(frames.len(), 6, "{threads} threads");
            for (i, f) in frames.iter().enumerate() {
                let want = if i < 5 { FRAME } else { 123 } as u64;
                assert_eq!(f.content_size, Some(want));
                // Announced: the 12 bytes before the frame are pzstd's skippable frame.
                let at = f.start as usize - 12;
                assert_eq!(&out[at..at + 8], &[0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0]);
                let size = u32::from_le_bytes(out[at + 8..at + 12].try_into().unwrap());
                assert_eq!(u64::from(size), f.end - f.start);
            }
            let mut back = Vec::new();
            zstd::stream::read::Decoder::new(&out[..])
                .unwrap()
                .read_to_end(&mut back)
                .unwrap();
            assert!(back == input, "{threads} threads: the bytes come back");
        }
    }

    #[test]
    fn frame_buffers_are_filled_again_and_stay_few() {
        for threads in [1, 2, 4] {
            let mut w = FrameWriter::new(Vec::new(), 1, threads).unwrap();
            let piece = text(FRAME / 3);
            let mut buffers = std::collections::HashSet::new();
            for _ in 0..60 {
                w.write_all(&piece).unwrap();
                buffers.insert(w.buf.as_ptr() as usize);
                // Never more buffers than frames can be in flight, plus the
                // one being filled.
                assert!(w.spare_inputs.len() + w.pending.len() <= w.max_pending);
                assert!(w.spare_outputs.len() <= w.max_pending);
            }
            // 20 frames through at most `max_pending + 1` input buffers.
            assert!(
                buffers.len() <= w.max_pending + 1,
                "{threads} threads: {} buffers",
                buffers.len()
            );
            let out = w.finish().unwrap();
            assert_eq!(frames_of(&out).len(), 20);
            let back = zstd::stream::decode_all(&out[..]).unwrap();
            assert!(
                back == piece.repeat(60),
                "{threads} threads: the bytes come back"
            );
        }
    }

    #[test]
    fn many_outputs_share_the_budget_in_smaller_frames() {
        assert_eq!(frame_size_among(1), FRAME);
        assert_eq!(frame_size_among(2), FRAME);
        assert_eq!(frame_size_among(3), FRAME);
        assert_eq!(frame_size_among(6), 1 << 20);
        assert_eq!(frame_size_among(7), 1 << 20);
        assert_eq!(frame_size_among(42), MIN_FRAME);
        assert_eq!(frame_size_among(usize::MAX), MIN_FRAME);
        for outputs in 3..=64 {
            let size = frame_size_among(outputs);
            assert!(size.is_power_of_two());
            assert!(size * outputs <= FRAMES_BUDGET || size == MIN_FRAME);
        }
        // Frames of that size read back as the input.
        let input = text(3 * MIN_FRAME + 5);
        let mut w = FrameWriter::with_frames(Vec::new(), 1, 2, MIN_FRAME).unwrap();
        w.write_all(&input).unwrap();
        let out = w.finish().unwrap();
        assert_eq!(frames_of(&out).len(), 4);
        assert!(zstd::stream::decode_all(&out[..]).unwrap() == input);
    }

    #[test]
    fn an_empty_output_is_one_empty_frame() {
        let out = FrameWriter::new(Vec::new(), 3, 2)
            .unwrap()
            .finish()
            .unwrap();
        assert_eq!(frames_of(&out).len(), 1);
        assert!(zstd::stream::decode_all(&out[..]).unwrap().is_empty());
    }

    #[test]
    fn a_failing_inner_writer_is_an_error_not_a_hang() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = FrameWriter::new(Full, 3, 2).unwrap();
        let input = text(4 * FRAME);
        let result = w.write_all(&input).and_then(|()| w.finish().map(|_| ()));
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::StorageFull);
    }
}
