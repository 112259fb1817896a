//! Assembles scanner events into games: where each game starts in a chunk and
//! the per-game work of the command, computed as soon as its header is complete.

use std::ops::Range;

use crate::classify::TagInput;
use crate::pgn::scan::{Event, TagName};

/// The work a command does on each game's header, on the worker threads.
pub trait Job: Sync {
    type Game: Send;
    fn game(&self, header: &Header<'_>) -> Self::Game;
}

/// One SetUp, FEN or Variant tag of a header.
#[derive(Clone, Copy, Debug)]
pub struct HeaderTag<'a> {
    pub name: TagName,
    /// The raw value between the quotes; empty when it was unreadable (a value
    /// cut by a forced chunk cut inside a line longer than the largest chunk).
    pub raw: &'a [u8],
    /// Line number, relative: add [`GameInfo::line_delta`] for the line in the input.
    pub line: u64,
    /// The tag line without its line end (as far as the chunk holds it).
    pub line_text: &'a [u8],
    /// Byte offset of the value inside `line_text`.
    pub value_column: usize,
    /// Absolute byte offset of the value in the input.
    pub value_offset: u64,
    /// Whether the value could be read (see `raw`).
    pub complete: bool,
    /// The tag line's line end (`\n`, `\r\n`, `\r`, or empty at the end of the input).
    pub line_end: &'static [u8],
}

#[derive(Clone, Debug)]
struct Slot {
    name: TagName,
    raw: Range<usize>,
    line_text: Range<usize>,
    value_column: usize,
    line: u64,
    value_offset: u64,
    complete: bool,
    line_end: &'static [u8],
}

/// The tags of one header, in order.
pub struct Header<'a> {
    arena: &'a [u8],
    slots: &'a [Slot],
}

impl<'a> Header<'a> {
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn tag(&self, i: usize) -> HeaderTag<'a> {
        let s = &self.slots[i];
        HeaderTag {
            name: s.name,
            raw: &self.arena[s.raw.clone()],
            line: s.line,
            line_text: &self.arena[s.line_text.clone()],
            value_column: s.value_column,
            value_offset: s.value_offset,
            complete: s.complete,
            line_end: s.line_end,
        }
    }

    pub fn tags(&self) -> impl Iterator<Item = HeaderTag<'a>> + '_ {
        (0..self.slots.len()).map(|i| self.tag(i))
    }

    /// The tags as the classifier takes them.
    pub fn inputs(&self) -> Vec<TagInput<'a>> {
        self.tags()
            .map(|t| TagInput {
                name: t.name,
                raw: t.raw,
            })
            .collect()
    }
}

/// Where a game starts in a chunk, and its per-game work once the header is read.
#[derive(Debug)]
pub struct Entry<G> {
    /// Absolute offset of the game's first byte (may lie before the chunk).
    pub start: u64,
    /// Line number of its first line: relative to the scan's start in a
    /// worker, absolute once the merger took the entry.
    pub line: u64,
    /// The game began in an earlier chunk.
    pub continued: bool,
    /// `None` while its header goes on past the chunk.
    pub result: Option<G>,
}

/// Turns events into [`Entry`]s; keeps the open header across chunks.
#[derive(Clone, Debug, Default)]
pub struct Builder {
    arena: Vec<u8>,
    slots: Vec<Slot>,
    /// A game is open (started, maybe still in its header).
    open: bool,
    header_done: bool,
}

impl Builder {
    /// Adds `by` to the line numbers of the open header's tags: the merger makes a
    /// worker's relative lines absolute when it adopts the worker's state, so that
    /// a header finished in a later chunk carries absolute lines throughout.
    pub fn rebase_lines(&mut self, by: u64) {
        for slot in &mut self.slots {
            slot.line += by;
        }
    }

    /// Consumes the events of one chunk (`data` starting at absolute `offset`).
    pub fn consume<J: Job>(
        &mut self,
        job: &J,
        data: &[u8],
        offset: u64,
        events: &[Event],
        out: &mut Vec<Entry<J::Game>>,
    ) {
        if self.open && !self.header_done {
            // The header of a game from an earlier chunk goes on here.
            out.push(Entry {
                start: 0,
                line: 0,
                continued: true,
                result: None,
            });
        }
        for event in events {
            match event {
                Event::GameStart {
                    offset: start,
                    line,
                } => {
                    self.arena.clear();
                    self.slots.clear();
                    self.open = true;
                    self.header_done = false;
                    out.push(Entry {
                        start: *start,
                        line: *line,
                        continued: false,
                        result: None,
                    });
                }
                Event::Tag(tag) => {
                    if !self.open || self.header_done {
                        continue;
                    }
                    let end = offset + data.len() as u64;
                    let complete = tag.value.start >= offset && tag.value.end <= end;
                    let raw_start = self.arena.len();
                    if complete {
                        let v =
                            (tag.value.start - offset) as usize..(tag.value.end - offset) as usize;
                        self.arena.extend_from_slice(&data[v]);
                    }
                    let raw = raw_start..self.arena.len();
                    let line_start = tag.line_start.max(offset);
                    let ls = (line_start - offset) as usize;
                    let le = ls.min(data.len());
                    let le =
                        memchr::memchr2(b'\n', b'\r', &data[le..]).map_or(data.len(), |i| le + i);
                    let text_start = self.arena.len();
                    if ls <= le {
                        self.arena.extend_from_slice(&data[ls..le]);
                    }
                    self.slots.push(Slot {
                        name: tag.name,
                        raw,
                        line_text: text_start..self.arena.len(),
                        value_column: tag.value.start.saturating_sub(line_start) as usize,
                        line: tag.line,
                        value_offset: tag.value.start,
                        complete,
                        line_end: match (data.get(le), data.get(le + 1)) {
                            (Some(b'\r'), Some(b'\n')) => b"\r\n",
                            (Some(b'\r'), _) => b"\r",
                            (Some(b'\n'), _) => b"\n",
                            _ => b"",
                        },
                    });
                }
                Event::HeaderEnd => {
                    if !self.open || self.header_done {
                        continue;
                    }
                    self.header_done = true;
                    let header = Header {
                        arena: &self.arena,
                        slots: &self.slots,
                    };
                    let result = job.game(&header);
                    if let Some(last) = out.last_mut() {
                        last.result = Some(result);
                    }
                }
            }
        }
    }
}
