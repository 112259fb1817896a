//! Pipes, FIFOs and sockets, read and written so that a run that can be
//! cancelled ([`Options::cancel`](super::Options::cancel): Ctrl-C in Python)
//! stops even when the other end neither reads nor writes.
//!
//! A read or write that blocks cannot be taken back, so a cancellable run
//! never starts one that could block: it waits with `poll` in slices of
//! [`CANCEL_POLL`](super::CANCEL_POLL), looking at its flag between them,
//! and only then reads or writes. A run without a flag (the command line,
//! whose signal handler ends the process) reads and writes as always.
//!
//! Only what a pipe needs is changed: regular files never block for long, and
//! a terminal or device is written as a file is.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{CANCEL_POLL, cancelled_in_io};

/// Whether descriptor `fd` is a pipe, FIFO or socket.
pub(crate) fn fd_is_pipe(fd: RawFd) -> bool {
    crate::error::descriptor_metadata(fd).is_some_and(|meta| {
        let kind = meta.file_type();
        kind.is_fifo() || kind.is_socket()
    })
}

/// Waits until `fd` is ready for `events` (or reports an error or a hang-up,
/// which the next read or write returns), looking at `cancel` between
/// slices of [`CANCEL_POLL`]. Without a flag it waits as long as it takes.
fn wait(fd: RawFd, events: libc::c_short, cancel: Option<&AtomicBool>) -> io::Result<()> {
    let slice = match cancel {
        Some(_) => CANCEL_POLL.as_millis() as libc::c_int,
        None => -1,
    };
    loop {
        if cancel.is_some_and(|c| c.load(Ordering::Acquire)) {
            return Err(cancelled_in_io());
        }
        let mut poll = libc::pollfd {
            fd,
            events,
            revents: 0,
        };
        // SAFETY: one valid `pollfd`, for the duration of the call.
        match unsafe { libc::poll(&mut poll, 1, slice) } {
            0 => {}
            n if n > 0 => return Ok(()),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// Sets `O_NONBLOCK` on a descriptor whose open file description is this
/// process's own (never one shared with the shell, such as standard output,
/// where the flag would reach other programs).
fn set_nonblocking(file: &File) -> io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor `file` owns, with flags only.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Opens the FIFO at `path` for reading without waiting for a writer
/// (`O_NONBLOCK`, which then stays on: [`PipeReader`] waits for data with
/// `poll`), for a run that can be cancelled.
pub(crate) fn open_fifo_for_reading(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// A pipe, FIFO or terminal read by a run that can be cancelled: each read
/// waits for data with `poll`, so that it never blocks. The descriptor may
/// be non-blocking (a FIFO opened by [`open_fifo_for_reading`]: a read
/// that finds nothing after all waits again) or shared (standard input).
pub(crate) struct PipeReader<R> {
    inner: R,
    cancel: Arc<AtomicBool>,
}

impl<R: Read + AsRawFd> PipeReader<R> {
    pub(crate) fn new(inner: R, cancel: Arc<AtomicBool>) -> PipeReader<R> {
        PipeReader { inner, cancel }
    }
}

impl<R: Read + AsRawFd> Read for PipeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            // A FIFO opened without a writer yet shows neither data nor a
            // hang-up until one comes: `poll` waits for it, where a
            // non-blocking read would return 0 as if the input had ended.
            wait(self.inner.as_raw_fd(), libc::POLLIN, Some(&self.cancel))?;
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                other => return other,
            }
        }
    }
}

/// The pipe-aware end of a special output file (`Target::Special`): a FIFO,
/// a device, or a descriptor the process was given.
///
/// A FIFO named by the user is opened by pgnfen, so its open file
/// description is pgnfen's own: it is made non-blocking, and a write that
/// finds the pipe full waits with `poll`. When no program reads it yet, its
/// opening waits for the first write (or the end of the run), so that it
/// too can be cancelled. A pipe that is shared (standard output, or
/// standard error named as `/dev/stderr`) cannot be made non-blocking:
/// a cancellable run waits for room with `poll` and writes at most
/// `PIPE_BUF` bytes at a time, which a pipe with room takes without
/// waiting.
pub(crate) struct SpecialOutput {
    state: Special,
    /// The descriptor is a pipe (or FIFO or socket).
    pipe: bool,
    /// The descriptor is non-blocking (a FIFO pgnfen opened).
    nonblocking: bool,
    cancel: Option<Arc<AtomicBool>>,
}

enum Special {
    Open(File),
    /// A FIFO that no program had opened for reading when the output was made.
    Waiting(PathBuf),
}

impl SpecialOutput {
    /// A device or FIFO at `path` (not a regular file): opened for writing
    /// now, unless it is a FIFO without a reader (then at its first use).
    pub(crate) fn open(path: &Path, file_type: std::fs::FileType) -> io::Result<SpecialOutput> {
        if !file_type.is_fifo() {
            let file = std::fs::OpenOptions::new().write(true).open(path)?;
            return Ok(SpecialOutput::shared(file));
        }
        let state = match open_fifo_nonblocking(path) {
            Ok(file) => Special::Open(file),
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => Special::Waiting(path.to_path_buf()),
            Err(e) => return Err(e),
        };
        Ok(SpecialOutput {
            state,
            pipe: true,
            nonblocking: true,
            cancel: None,
        })
    }

    /// A descriptor whose open file description may be shared (standard
    /// output, a copy of one the process was given, a device).
    pub(crate) fn shared(file: File) -> SpecialOutput {
        SpecialOutput {
            pipe: fd_is_pipe(file.as_raw_fd()),
            state: Special::Open(file),
            nonblocking: false,
            cancel: None,
        }
    }

    /// Looks at `cancel` while waiting for a reader or for room.
    pub(crate) fn set_cancel(&mut self, cancel: Option<Arc<AtomicBool>>) {
        self.cancel = cancel;
    }

    /// The file, opened now if it is a FIFO that was waiting for a reader.
    fn file(&mut self) -> io::Result<&mut File> {
        if let Special::Waiting(path) = &self.state {
            let file = open_fifo_when_read(path, self.cancel.as_deref())?;
            self.state = Special::Open(file);
        }
        match &mut self.state {
            Special::Open(file) => Ok(file),
            Special::Waiting(_) => unreachable!("opened above"),
        }
    }

    /// Whether it writes to a terminal.
    pub(crate) fn is_terminal(&self) -> bool {
        use std::io::IsTerminal;
        matches!(&self.state, Special::Open(file) if file.is_terminal())
    }
}

impl Drop for SpecialOutput {
    fn drop(&mut self) {
        // A FIFO never opened (a run that failed before writing to it) is
        // opened and closed now, so that a program that comes to read it
        // sees an end, as when it was opened at the start, instead of
        // waiting for ever. A cancelled run does not wait for the reader.
        if matches!(self.state, Special::Waiting(_)) {
            let _ = self.file();
        }
    }
}

/// Opens a FIFO for writing without waiting: ENXIO when no program reads it.
fn open_fifo_nonblocking(path: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Opens a FIFO for writing once a program reads it, non-blocking. With a
/// flag it tries again every [`CANCEL_POLL`] (nothing can be polled for a
/// reader to come); without one it waits in `open`.
fn open_fifo_when_read(path: &Path, cancel: Option<&AtomicBool>) -> io::Result<File> {
    let Some(cancel) = cancel else {
        let file = std::fs::OpenOptions::new().write(true).open(path)?;
        set_nonblocking(&file)?;
        return Ok(file);
    };
    loop {
        if cancel.load(Ordering::Acquire) {
            return Err(cancelled_in_io());
        }
        match open_fifo_nonblocking(path) {
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => std::thread::sleep(CANCEL_POLL),
            other => return other,
        }
    }
}

impl Write for SpecialOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let (pipe, nonblocking) = (self.pipe, self.nonblocking);
        let cancel = self.cancel.clone();
        let file = self.file()?;
        let fd = file.as_raw_fd();
        if nonblocking {
            loop {
                match file.write(buf) {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        wait(fd, libc::POLLOUT, cancel.as_deref())?;
                    }
                    other => return other,
                }
            }
        }
        match cancel {
            Some(cancel) if pipe => {
                wait(fd, libc::POLLOUT, Some(&cancel))?;
                file.write(&buf[..buf.len().min(libc::PIPE_BUF)])
            }
            _ => file.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        // A FIFO that nothing was written to is opened all the same, so that
        // its reader sees the end of an empty output rather than waiting.
        self.file()?.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn fifo(dir: &tempfile::TempDir) -> PathBuf {
        let path = dir.path().join("pipe");
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        path
    }

    /// Sets `flag` after `after`, from another thread.
    fn cancel_after(flag: &Arc<AtomicBool>, after: Duration) -> std::thread::JoinHandle<()> {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(after);
            flag.store(true, Ordering::Release);
        })
    }

    #[test]
    fn a_fifo_without_writer_is_read_until_cancelled_not_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(&dir);
        let flag = Arc::new(AtomicBool::new(false));
        let file = open_fifo_for_reading(&path).unwrap();
        let mut reader = PipeReader::new(file, flag.clone());
        let setter = cancel_after(&flag, Duration::from_millis(100));
        let start = Instant::now();
        let e = reader.read(&mut [0u8; 16]).unwrap_err();
        setter.join().unwrap();
        // Not `Interrupted`, which the loops around a reader retry.
        assert_ne!(e.kind(), io::ErrorKind::Interrupted);
        assert!(
            start.elapsed() >= Duration::from_millis(90),
            "it waited, not read an end"
        );
        assert!(start.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn a_fifo_is_read_whole_once_its_writer_comes() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(&dir);
        let flag = Arc::new(AtomicBool::new(false));
        let file = open_fifo_for_reading(&path).unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                let mut w = std::fs::OpenOptions::new().write(true).open(path).unwrap();
                for _ in 0..100 {
                    w.write_all(&[b'x'; 10_000]).unwrap();
                }
            })
        };
        let mut all = Vec::new();
        PipeReader::new(file, flag).read_to_end(&mut all).unwrap();
        writer.join().unwrap();
        assert_eq!(all.len(), 1_000_000);
    }

    #[test]
    fn a_fifo_nobody_reads_is_written_until_cancelled() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(&dir);
        // Nobody has it open for reading: the opening waits for its first use.
        let meta = std::fs::metadata(&path).unwrap();
        let mut out = SpecialOutput::open(&path, meta.file_type()).unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        out.set_cancel(Some(flag.clone()));
        let setter = cancel_after(&flag, Duration::from_millis(100));
        let start = Instant::now();
        let e = out.write_all(b"game").unwrap_err();
        setter.join().unwrap();
        assert_ne!(e.kind(), io::ErrorKind::Interrupted);
        assert!(start.elapsed() < Duration::from_secs(2));

        // A reader that never reads: the pipe fills, and the write waits.
        let _reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&path)
            .unwrap();
        let mut out = SpecialOutput::open(&path, meta.file_type()).unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        out.set_cancel(Some(flag.clone()));
        let setter = cancel_after(&flag, Duration::from_millis(100));
        let e = out.write_all(&vec![b'x'; 4 << 20]).unwrap_err();
        setter.join().unwrap();
        assert_ne!(e.kind(), io::ErrorKind::Interrupted);
    }

    #[test]
    fn a_fifo_whose_reader_comes_late_gets_every_byte_also_when_nothing_is_written() {
        for bytes in [0usize, 300_000] {
            let dir = tempfile::tempdir().unwrap();
            let path = fifo(&dir);
            let meta = std::fs::metadata(&path).unwrap();
            // No flag: the command line's case, which waits as long as it takes.
            let mut out = SpecialOutput::open(&path, meta.file_type()).unwrap();
            let reader = {
                let path = path.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(50));
                    std::fs::read(path).unwrap().len()
                })
            };
            out.write_all(&vec![b'x'; bytes]).unwrap();
            // The end of an empty output is seen too: the FIFO is opened.
            out.flush().unwrap();
            drop(out);
            assert_eq!(reader.join().unwrap(), bytes);
        }
    }

    #[test]
    fn a_fifo_of_a_run_that_failed_before_writing_still_ends_for_its_reader() {
        let dir = tempfile::tempdir().unwrap();
        let path = fifo(&dir);
        let meta = std::fs::metadata(&path).unwrap();
        let out = SpecialOutput::open(&path, meta.file_type()).unwrap();
        let reader = {
            let path = path.clone();
            std::thread::spawn(move || std::fs::read(path).unwrap().len())
        };
        drop(out);
        assert_eq!(reader.join().unwrap(), 0);
    }
}
