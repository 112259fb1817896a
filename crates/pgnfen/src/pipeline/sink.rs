//! What receives a run's games: a [`Sink`] gets each game's result and bytes
//! in input order, with a [`GameInfo`] saying where the game lies.

use std::io;

use super::Input;

/// Where a game lies in its input.
#[derive(Clone, Copy, Debug)]
pub struct GameInfo {
    /// 1-based game number within its input.
    pub index: u64,
    /// Absolute offset of its first byte.
    pub offset: u64,
    /// Its first line (1-based) in the input.
    pub line: u64,
    /// Add to the relative line numbers of [`HeaderTag::line`](crate::pipeline::game::HeaderTag::line) for lines in the input.
    pub line_delta: u64,
}

/// Receives the games of an input in order, on the merger thread.
pub trait Sink<G> {
    /// A new input starts (before its first game).
    fn begin_input(&mut self, _input: &Input) -> io::Result<()> {
        Ok(())
    }
    /// A game starts; its bytes follow through [`Sink::bytes`].
    fn begin_game(&mut self, info: &GameInfo, game: G) -> io::Result<()>;
    /// The next bytes of the current game; `offset` is absolute in the input.
    fn bytes(&mut self, offset: u64, data: &[u8]) -> io::Result<()>;
    /// Bytes that belong to no game: an input of blank lines only. Only `convert`
    /// keeps them (it changes nothing but FEN values).
    fn orphan_bytes(&mut self, _offset: u64, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
    /// Where the bytes of a game with this result go, when consecutive games
    /// with the same destination may have their bytes handed over in one call
    /// (`filter`: kept or rest; `convert`: the one output). `None` (the
    /// default): every game's bytes are handed over separately.
    fn destination(&self, _game: &G) -> Option<u8> {
        None
    }
    /// Everything of one chunk of the input has been handed over (a sink that
    /// batches its output hands a batch on here, so that games reach their
    /// reader as the input is read).
    fn chunk_merged(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// A tag line was seen in the current input (once an input, and only
    /// when [`Sink::watches_tag_lines`]): a run over part of a file (a
    /// partition on a cluster) tells its caller, which warns about a file in
    /// which no part saw one.
    fn tag_line(&mut self) {}

    /// Whether [`Sink::tag_line`] is wanted.
    fn watches_tag_lines(&self) -> bool {
        false
    }

    /// Whether the sink looks at bytes at all (statistics do not).
    fn wants_bytes(&self) -> bool {
        true
    }

    /// The input turned out damaged (compressed data that cannot be decoded)
    /// after the games handed over so far, and the run ends with its error.
    /// `last_complete`: the game begun last ends where the readable text
    /// does, as the scan of what came before says (the next line would start
    /// a new game); otherwise the damage may have cut it short (its text ends
    /// inside a comment, a header or a line). A sink that holds each game
    /// until the next one begins hands that game on here, or drops it. It may
    /// be told twice (by the merger, then by the run for any input error):
    /// the second call finds nothing open.
    fn input_damaged(&mut self, _last_complete: bool) -> io::Result<()> {
        Ok(())
    }
}

/// Where the bytes written last went, and how they end, so that the next
/// input's first game starts a game of its own in that output. Within an
/// input every game but the last ends where the next begins: after a line
/// end, and after a blank line when it is only a header. An input's last
/// game may lack either (`1. e4 *` without a line end; a header-only game
/// whose file ends `]\n`); written before the next input's first game, it
/// would run on into it, one game for every reader of the output. So the
/// sinks that write games (`filter`, `split`, `convert`) write what is
/// missing at `begin_input` ([`OpenLine::take`]): a `\n`, and a second one
/// after a header. Nothing else ever changes.
#[derive(Debug)]
pub(crate) struct OpenLine<K> {
    /// The output the last bytes went to.
    to: Option<K>,
    /// Line ends at the very end of what it was given (`\r\n` counts once).
    ends: usize,
    /// Whether the last of them is a `\r` (a `\n` after it joins it).
    cr: bool,
    /// The first byte, not a space or tab, of the last line with text.
    first: Option<u8>,
}

impl<K> Default for OpenLine<K> {
    fn default() -> Self {
        OpenLine {
            to: None,
            ends: 0,
            cr: false,
            first: None,
        }
    }
}

fn is_line_end(b: &u8) -> bool {
    matches!(b, b'\n' | b'\r')
}

impl<K: Copy + PartialEq> OpenLine<K> {
    /// `data` was written to `to`. Looks at the end of `data` only, as far
    /// back as its last line with text.
    pub(crate) fn wrote(&mut self, to: K, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        if self.to != Some(to) {
            // (Bytes that go to another output begin a game: a line start.)
            *self = OpenLine {
                to: Some(to),
                ends: 1,
                cr: false,
                first: None,
            };
        }
        let text_end = data
            .iter()
            .rposition(|b| !is_line_end(b))
            .map_or(0, |i| i + 1);
        let trailing = &data[text_end..];
        let mut ends = trailing.len() - trailing.windows(2).filter(|w| w == b"\r\n").count();
        if text_end == 0 {
            // Only line ends: they add to those before.
            if self.cr && data[0] == b'\n' {
                ends -= 1;
            }
            self.ends += ends;
            self.cr = data.last() == Some(&b'\r');
            return;
        }
        let body = &data[..text_end];
        let line_start = memchr::memrchr2(b'\n', b'\r', body);
        let line = &body[line_start.map_or(0, |i| i + 1)..];
        let first = line.iter().copied().find(|&b| b != b' ' && b != b'\t');
        self.first = match line_start {
            Some(_) => first,
            // The line began before `data`: at its start if the last bytes
            // ended a line, else it goes on from there.
            None if self.ends > 0 => first,
            None => self.first.or(first),
        };
        self.ends = ends;
        self.cr = data.last() == Some(&b'\r');
    }

    /// The output that needs bytes before the next input's games, and those
    /// bytes (a line end if its last line has none; a blank line after a tag
    /// line, where a new tag line would be more tags of that header); the
    /// state starts afresh.
    pub(crate) fn take(&mut self) -> Option<(K, &'static [u8])> {
        let to = self.to.take()?;
        let tag_line = self.first == Some(b'[');
        let missing: &'static [u8] = match self.ends {
            0 if tag_line => b"\n\n",
            0 => b"\n",
            // After a lone `\r`, a `\n` would only make it `\r\n`, one line end.
            1 if tag_line && self.cr => b"\r",
            1 if tag_line => b"\n",
            _ => b"",
        };
        *self = OpenLine::default();
        (!missing.is_empty()).then_some((to, missing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(pieces: &[&[u8]]) -> Vec<u8> {
        let mut open = OpenLine::default();
        for piece in pieces {
            open.wrote(0u8, piece);
        }
        open.take().map_or(Vec::new(), |(_, m)| m.to_vec())
    }

    #[test]
    fn what_an_output_lacks_before_another_input() {
        for (tail, lacks) in [
            (&b"1. e4 *"[..], &b"\n"[..]),
            (b"1. e4 *\n", b""),
            (b"1. e4 *\r\n", b""),
            (b"1. e4 *\r", b""),
            (b"[Event \"a\"]", b"\n\n"),
            (b"[Event \"a\"]\n", b"\n"),
            (b"[Event \"a\"]\r\n", b"\n"),
            (b"  [Event \"a\"]  \n", b"\n"),
            (b"[Event \"a\"]\n\n", b""),
            (b"[Event \"a\"]\r\n\r\n", b""),
            (b"[Event \"a\"]\r\r", b""),
            (b"[Event \"a\"]\r", b"\r"),
            (b"[Event \"a\"]\n1. e4 *", b"\n"),
            (b"\n\n", b""),
        ] {
            assert_eq!(
                missing(&[tail]),
                lacks,
                "{:?}",
                String::from_utf8_lossy(tail)
            );
            // The same bytes handed over in pieces, one byte at a time.
            let pieces: Vec<&[u8]> = tail.chunks(1).collect();
            assert_eq!(
                missing(&pieces),
                lacks,
                "{:?} in pieces",
                String::from_utf8_lossy(tail)
            );
        }
        assert_eq!(missing(&[]), b"");
        // Only the output written last counts.
        let mut open = OpenLine::default();
        open.wrote(1u8, b"[Event \"a\"]");
        open.wrote(2u8, b"1. e4 *\n");
        assert_eq!(open.take(), None);
        open.wrote(1u8, b"[Event \"a\"]\n");
        assert_eq!(open.take(), Some((1, &b"\n"[..])));
        assert_eq!(open.take(), None);
    }
}
