//! Where the bytes come from: files or standard input, decompressed on the fly
//! by their ending (`.gz`, `.bz2`, `.zst`).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// One input named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    pub fn from_arg(arg: &str) -> Input {
        if arg == "-" {
            Input::Stdin
        } else {
            Input::File(PathBuf::from(arg))
        }
    }

    /// The name used in messages (`-` reads as `<stdin>`).
    pub fn display_name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::File(p) => p.display().to_string(),
        }
    }

    /// Size of the raw (possibly compressed) input, when known.
    pub fn raw_len(&self) -> Option<u64> {
        match self {
            Input::Stdin => None,
            Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
        }
    }

    /// Opens the input, decompressing by file ending. `raw_read` counts the raw
    /// bytes read (for the progress bar).
    pub fn open(&self, raw_read: Arc<AtomicU64>) -> io::Result<Box<dyn Read + Send>> {
        match self {
            Input::Stdin => {
                // Standard input has no name to go by: a compressed stream is
                // recognised by its magic bytes (`zstdcat`-less pipelines).
                let mut input = io::BufReader::with_capacity(
                    1 << 20,
                    Counting {
                        inner: io::stdin(),
                        count: raw_read,
                    },
                );
                let magic = io::BufRead::fill_buf(&mut input)?;
                Ok(match Compression::sniff(magic) {
                    Compression::None => Box::new(input),
                    Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(input)),
                    Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(input)),
                    Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(input)?),
                })
            }
            Input::File(path) => {
                let file = Counting {
                    inner: File::open(path)?,
                    count: raw_read,
                };
                Ok(match Compression::of(path) {
                    Compression::None => Box::new(file),
                    Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(
                        io::BufReader::with_capacity(1 << 20, file),
                    )),
                    Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(
                        io::BufReader::with_capacity(1 << 20, file),
                    )),
                    Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(file)?),
                })
            }
        }
    }
}

impl Input {
    /// Maps a plain (uncompressed, non-empty, regular) file into memory, so that
    /// chunks are slices of it instead of copies. `None` when it cannot be, or
    /// should not be, mapped; the input is then read as a stream.
    pub fn map(&self) -> Option<memmap2::Mmap> {
        let Input::File(path) = self else { return None };
        if Compression::of(path) != Compression::None {
            return None;
        }
        let file = File::open(path).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() == 0 {
            return None;
        }
        // SAFETY: the map is read-only. If another program truncates the file
        // while pgnfen reads it, the lost pages fault (SIGBUS), the trade-off
        // every mmap reader (ripgrep, grep -mmap) makes; `--no-mmap` avoids it.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        let _ = map.advise(memmap2::Advice::Sequential);
        Some(map)
    }
}

/// The compression a file name asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Zstd,
}

impl Compression {
    /// The compression whose magic bytes start `data` (never a PGN's start).
    pub fn sniff(data: &[u8]) -> Compression {
        match data {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
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

    pub fn of(path: &Path) -> Compression {
        match path.extension().and_then(|e| e.to_str()) {
            Some("gz") => Compression::Gzip,
            Some("bz2") => Compression::Bzip2,
            Some("zst") => Compression::Zstd,
            _ => Compression::None,
        }
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
