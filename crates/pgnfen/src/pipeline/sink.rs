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
    /// Whether the sink looks at bytes at all (statistics do not).
    fn wants_bytes(&self) -> bool {
        true
    }
}

/// Which output the bytes written last went to, when they did not end a
/// line: the last game of an input that has no final line end. When another
/// input follows, the sinks that write games (`filter`, `split`, `convert`)
/// write a line end there first ([`OpenLine::take`] at `begin_input`), so
/// that the next game written to that output does not run on into it (the
/// first input's `1. e4 *` and the second's `[Event ...` on one line, one
/// game for every reader of the output). Within an input every game but the
/// last ends with a line end, so nothing else ever changes.
#[derive(Debug, Default)]
pub(crate) struct OpenLine<K>(Option<K>);

impl<K: Copy> OpenLine<K> {
    /// `data` was written to `to`.
    pub(crate) fn wrote(&mut self, to: K, data: &[u8]) {
        if let Some(&last) = data.last() {
            self.0 = (!matches!(last, b'\n' | b'\r')).then_some(to);
        }
    }

    /// The output that needs a line end before the next input's games, if any.
    pub(crate) fn take(&mut self) -> Option<K> {
        self.0.take()
    }
}
