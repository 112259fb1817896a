//! Where results go: standard output, or a file written under a temporary name
//! in the same folder and renamed into place on success, compressed by its
//! ending (`.gz`, `.bz2`, `.zst`).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::source::Compression;

/// Small enough that the long runs of bytes the merger hands over in one call
/// bypass the buffer (no copy), large enough for compressors' small writes.
const BUFFER: usize = 64 << 10;

enum Target {
    Stdout(BufWriter<io::Stdout>),
    Plain(BufWriter<File>),
    /// A device or pipe named on the command line (`/dev/null`, a FIFO): written in place.
    Special(BufWriter<File>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
    Bzip2(bzip2::write::BzEncoder<BufWriter<File>>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<File>>),
}

/// An output stream; files appear under their name only after [`Output::commit`].
pub struct Output {
    target: Target,
    temp: Option<(tempfile::TempPath, PathBuf)>,
}

impl Output {
    /// Standard output.
    pub fn stdout() -> Output {
        Output {
            target: Target::Stdout(BufWriter::with_capacity(BUFFER, io::stdout())),
            temp: None,
        }
    }

    /// A file, or standard output for `None` or `-`.
    pub fn create(path: Option<&Path>) -> io::Result<Output> {
        let Some(path) = path.filter(|p| p.as_os_str() != "-") else {
            return Ok(Output::stdout());
        };
        // Only regular files get the write-then-rename treatment: renaming over
        // `/dev/null` or a named pipe would replace it.
        if let Ok(meta) = std::fs::metadata(path)
            && !meta.is_file()
        {
            let file = std::fs::OpenOptions::new().write(true).open(path)?;
            return Ok(Output {
                target: Target::Special(BufWriter::with_capacity(BUFFER, file)),
                temp: None,
            });
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(dir)?;
        let (file, temp_path) = temp.into_parts();
        let file = BufWriter::with_capacity(BUFFER, file);
        let target = match Compression::of(path) {
            Compression::None => Target::Plain(file),
            Compression::Gzip => Target::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::default(),
            )),
            Compression::Bzip2 => Target::Bzip2(bzip2::write::BzEncoder::new(
                file,
                bzip2::Compression::default(),
            )),
            Compression::Zstd => Target::Zstd(zstd::stream::write::Encoder::new(file, 3)?),
        };
        Ok(Output {
            target,
            temp: Some((temp_path, path.to_path_buf())),
        })
    }

    /// Finishes the stream and moves a file into place. Without this call a
    /// file output is deleted.
    pub fn commit(self) -> io::Result<()> {
        let file = match self.target {
            Target::Stdout(mut w) => return w.flush(),
            Target::Special(mut w) => return w.flush(),
            Target::Plain(w) => w,
            Target::Gzip(w) => w.finish()?,
            Target::Bzip2(w) => w.finish()?,
            Target::Zstd(w) => w.finish()?,
        };
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all().ok();
        if let Some((temp, path)) = self.temp {
            temp.persist(&path).map_err(|e| e.error)?;
        }
        Ok(())
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.target {
            Target::Stdout(w) => w.write(buf),
            Target::Plain(w) | Target::Special(w) => w.write(buf),
            Target::Gzip(w) => w.write(buf),
            Target::Bzip2(w) => w.write(buf),
            Target::Zstd(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.target {
            Target::Stdout(w) => w.write_all(buf),
            Target::Plain(w) | Target::Special(w) => w.write_all(buf),
            Target::Gzip(w) => w.write_all(buf),
            Target::Bzip2(w) => w.write_all(buf),
            Target::Zstd(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.target {
            Target::Stdout(w) => w.flush(),
            Target::Plain(w) | Target::Special(w) => w.flush(),
            Target::Gzip(w) => w.flush(),
            Target::Bzip2(w) => w.flush(),
            Target::Zstd(w) => w.flush(),
        }
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
    fn devices_are_written_in_place_not_replaced() {
        let mut out = Output::create(Some(Path::new("/dev/null"))).unwrap();
        out.write_all(b"gone").unwrap();
        out.commit().unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "/dev/null must stay a device");
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
}
