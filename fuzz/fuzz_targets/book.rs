//! `cargo fuzz run book`: a FEN/EPD book streamed in blocks of any size, from
//! a reader that hands its bytes over in reads of any sizes, gives the lines
//! that a plain reading of the whole text gives: every line in order with its
//! number, its text and its line end (`\n`, `\r\n`, a lone `\r`, or none at
//! the end), a leading UTF-8 byte-order mark passed on before them, and
//! nothing else. The reference below splits the bytes itself; it borrows
//! nothing from `pgnfen::book`.
//!
//! Input: the first byte chooses the block size (1 to 64 bytes), the second
//! the pattern of read sizes; the rest is the book.
#![no_main]

use std::io::{self, Read};

use libfuzzer_sys::fuzz_target;
use pgnfen::book::{self, Line, Render, Sink};

/// What the renderer reports: a record line, or bytes passed on as they are.
#[derive(Debug, PartialEq, Eq)]
enum Item {
    Line {
        number: u64,
        text: Vec<u8>,
        end: Vec<u8>,
    },
    Passed(Vec<u8>),
}

struct Echo;

impl Render for Echo {
    type Run = Vec<Item>;
    fn run(&self, data: &[u8], lines: &[Line], first: u64) -> Vec<Item> {
        (first..)
            .zip(lines)
            .map(|(number, l)| Item::Line {
                number,
                text: l.text(data).to_vec(),
                end: l.ending(data).to_vec(),
            })
            .collect()
    }
    fn long_part(&self, bytes: &[u8]) -> Option<Vec<Item>> {
        Some(vec![Item::Passed(bytes.to_vec())])
    }
    fn long_line_end(&self, _end: &[u8], line: u64) -> Vec<Item> {
        // No line of a fuzz input comes near the 1 MiB limit.
        panic!("line {line} reported too long");
    }
}

struct Collect(Vec<Item>);

impl Sink<Vec<Item>> for Collect {
    type Error = ();
    fn emit(&mut self, run: Vec<Item>) -> Result<(), ()> {
        self.0.extend(run);
        Ok(())
    }
}

/// Hands `data` over in reads of the sizes `pattern` cycles through (1 to 8
/// bytes), whatever the buffer offered: a pipe or a slow device.
struct Trickle<'a> {
    data: &'a [u8],
    pattern: u8,
    step: u32,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = 1 + ((self.pattern.rotate_left(self.step % 8) as usize) & 7);
        self.step += 1;
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// The reference reading: the mark, then every line with its end.
fn reference(book: &[u8]) -> Vec<Item> {
    let mut items = Vec::new();
    let mut rest = book;
    if let Some(after) = rest.strip_prefix(b"\xEF\xBB\xBF") {
        items.push(Item::Passed(b"\xEF\xBB\xBF".to_vec()));
        rest = after;
    }
    let mut number = 1;
    while !rest.is_empty() {
        let text_len = rest
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .unwrap_or(rest.len());
        let end_len = match &rest[text_len..] {
            [b'\r', b'\n', ..] => 2,
            [] => 0,
            _ => 1,
        };
        items.push(Item::Line {
            number,
            text: rest[..text_len].to_vec(),
            end: rest[text_len..text_len + end_len].to_vec(),
        });
        number += 1;
        rest = &rest[text_len + end_len..];
    }
    items
}

/// Passed bytes that arrive in parts are one piece of the text.
fn joined(items: Vec<Item>) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    for item in items {
        match (out.last_mut(), item) {
            (Some(Item::Passed(last)), Item::Passed(more)) => last.extend(more),
            (_, item) => out.push(item),
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let [block, pattern, book @ ..] = data else {
        return;
    };
    let block = 1 + (*block as usize & 63);
    let mut reader = Trickle {
        data: book,
        pattern: *pattern,
        step: 0,
    };
    let mut got = Collect(Vec::new());
    if book::stream_in_blocks(&mut reader, &Echo, false, block, &mut got).is_err() {
        panic!("a stream that cannot fail failed");
    }
    let got = joined(got.0);
    assert_eq!(got, reference(book), "blocks of {block}");
    // The lines and their ends are the book again, byte for byte.
    let mut again = Vec::new();
    for item in got {
        match item {
            Item::Passed(bytes) => again.extend(bytes),
            Item::Line { text, end, .. } => {
                again.extend(text);
                again.extend(end);
            }
        }
    }
    assert_eq!(again, book);
});
