//! Bytes that must wait (a game whose destination is not known yet), in memory
//! up to a limit and in an anonymous temporary file beyond it, so that memory
//! stays bounded whatever the input.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// An error of the spill file, named after the folder it lives in: it is
/// no output the user named (the system's temporary folder, `TMPDIR`), and
/// a full or missing folder there must not be taken for a problem of `-o`.
fn spill_error(e: io::Error) -> io::Error {
    let folder = std::env::temp_dir();
    let file = format!(
        "{} (the temporary folder where pgnfen holds the bytes of a game waiting for its header; set TMPDIR to use another)",
        folder.display()
    );
    io::Error::other(super::output::WriteError { file, error: e })
}

/// In-memory bytes before spilling to disk.
pub const MEMORY_LIMIT: usize = 16 << 20;

/// A first-in, first-out byte store with an absolute start offset.
#[derive(Debug, Default)]
pub struct Spool {
    memory: Vec<u8>,
    file: Option<File>,
    /// Bytes in the file (they come before `memory`).
    in_file: u64,
    offset: u64,
    limit: usize,
}

impl Spool {
    pub fn new() -> Spool {
        Spool::with_limit(MEMORY_LIMIT)
    }

    pub fn with_limit(limit: usize) -> Spool {
        Spool {
            limit,
            ..Spool::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        self.memory.is_empty() && self.in_file == 0
    }

    /// Absolute offset of the first byte held.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Appends bytes that start at absolute `offset` (when the spool is empty)
    /// or follow the bytes held.
    pub fn push(&mut self, offset: u64, data: &[u8]) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        if self.is_empty() {
            self.offset = offset;
        }
        if self.memory.len() + data.len() > self.limit.max(1) {
            let file = match &mut self.file {
                Some(f) => f,
                None => self.file.insert(tempfile::tempfile().map_err(spill_error)?),
            };
            file.write_all(&self.memory).map_err(spill_error)?;
            file.write_all(data).map_err(spill_error)?;
            self.in_file += (self.memory.len() + data.len()) as u64;
            self.memory.clear();
            return Ok(());
        }
        self.memory.extend_from_slice(data);
        Ok(())
    }

    /// Hands every byte held to `out` in order (with its absolute offset) and empties the spool.
    pub fn drain(&mut self, mut out: impl FnMut(u64, &[u8]) -> io::Result<()>) -> io::Result<()> {
        let mut at = self.offset;
        if let Some(file) = &mut self.file
            && self.in_file > 0
        {
            file.seek(SeekFrom::Start(0)).map_err(spill_error)?;
            let mut buf = vec![0; 1 << 20];
            let mut left = self.in_file;
            while left > 0 {
                let n = file
                    .read(&mut buf[..left.min(1 << 20) as usize])
                    .map_err(spill_error)?;
                if n == 0 {
                    return Err(spill_error(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "spool file shorter than written",
                    )));
                }
                out(at, &buf[..n])?;
                at += n as u64;
                left -= n as u64;
            }
            file.set_len(0).map_err(spill_error)?;
            file.seek(SeekFrom::Start(0)).map_err(spill_error)?;
        }
        self.in_file = 0;
        if !self.memory.is_empty() {
            out(at, &self.memory)?;
            self.memory.clear();
        }
        if self.memory.capacity() > self.limit {
            self.memory.shrink_to(self.limit);
        }
        Ok(())
    }

    /// Moves everything held into `other` (which must be empty).
    pub fn move_into(&mut self, other: &mut Spool) -> io::Result<()> {
        debug_assert!(other.is_empty());
        if self.file.is_none() {
            std::mem::swap(&mut self.memory, &mut other.memory);
            other.offset = self.offset;
            return Ok(());
        }
        self.drain(|offset, data| other.push(offset, data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drained(s: &mut Spool) -> (u64, Vec<u8>) {
        let mut out = Vec::new();
        let mut first = None;
        s.drain(|o, d| {
            first.get_or_insert(o);
            out.extend_from_slice(d);
            Ok(())
        })
        .unwrap();
        (first.unwrap_or(0), out)
    }

    #[test]
    fn keeps_order_in_memory_and_on_disk() {
        for limit in [1, 5, 1000] {
            let mut s = Spool::with_limit(limit);
            s.push(10, b"abc").unwrap();
            s.push(13, b"defgh").unwrap();
            s.push(18, b"ij").unwrap();
            assert_eq!(drained(&mut s), (10, b"abcdefghij".to_vec()));
            assert!(s.is_empty());
            s.push(50, b"xyz").unwrap();
            assert_eq!(drained(&mut s), (50, b"xyz".to_vec()));
        }
    }

    #[test]
    fn moves_between_spools() {
        let mut a = Spool::with_limit(2);
        a.push(7, b"hello").unwrap();
        let mut b = Spool::with_limit(100);
        a.move_into(&mut b).unwrap();
        assert!(a.is_empty());
        assert_eq!(drained(&mut b), (7, b"hello".to_vec()));
    }
}
