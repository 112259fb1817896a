//! The engine's job and sink of `filter`: each game's destination, decided on
//! the worker threads; its bytes written to the kept output or the rest in
//! input order.

use super::*;

/// The pipeline job of `filter`: decides each game's destination.
#[derive(Debug)]
pub struct FilterJob<'a>(pub &'a Selection);

impl Job for FilterJob<'_> {
    /// Whether the game is kept.
    type Game = bool;

    fn game(&self, header: &Header<'_>) -> bool {
        self.0.judge(header).1
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.0.selector.names()
    }
}

/// The sink of `filter`: each game to the kept output or to the rest (shared
/// with the Python package's `filter`).
#[derive(Debug)]
pub struct Split {
    /// Where kept games go.
    pub kept: Output,
    /// Where every other game goes, if anywhere.
    pub rest: Option<Output>,
    to_kept: bool,
    /// Games kept so far.
    pub kept_games: u64,
    /// Where the last bytes went (kept: `true`) and how they end.
    open_line: OpenLine<bool>,
}

impl Split {
    /// A split into `kept` and, optionally, `rest`.
    pub fn new(kept: Output, rest: Option<Output>) -> Split {
        Split {
            kept,
            rest,
            to_kept: false,
            kept_games: 0,
            open_line: OpenLine::default(),
        }
    }

    /// Writes what the output of the last game (the last of an input) lacks
    /// for a game to begin after it ([`OpenLine`]), before another input's
    /// games.
    pub(crate) fn end_open_line(&mut self) -> io::Result<()> {
        match self.open_line.take() {
            Some((true, missing)) => self.kept.write_all(missing),
            Some((false, missing)) => match &mut self.rest {
                Some(rest) => rest.write_all(missing),
                None => Ok(()),
            },
            None => Ok(()),
        }
    }
}

impl Sink<bool> for Split {
    fn begin_input(&mut self, _input: &Input) -> io::Result<()> {
        self.end_open_line()
    }

    fn begin_game(&mut self, _info: &GameInfo, keep: bool) -> io::Result<()> {
        self.to_kept = keep;
        self.kept_games += u64::from(keep);
        Ok(())
    }

    fn destination(&self, keep: &bool) -> Option<u8> {
        Some(u8::from(*keep))
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        self.write(data)
    }
}

/// With `--moves`: a game with an illegal move goes to the rest.
impl Sink<Moved<bool>> for Split {
    fn begin_input(&mut self, _input: &Input) -> io::Result<()> {
        self.end_open_line()
    }

    fn begin_game(&mut self, info: &GameInfo, game: Moved<bool>) -> io::Result<()> {
        Sink::<bool>::begin_game(self, info, keeps_moved(&game))
    }

    fn destination(&self, game: &Moved<bool>) -> Option<u8> {
        Some(u8::from(keeps_moved(game)))
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        self.write(data)
    }
}

fn keeps_moved(game: &Moved<bool>) -> bool {
    game.inner && game.replay.illegal().is_none()
}

impl Split {
    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        if self.to_kept {
            self.open_line.wrote(true, data);
            self.kept.write_all(data)
        } else if let Some(rest) = &mut self.rest {
            self.open_line.wrote(false, data);
            rest.write_all(data)
        } else {
            Ok(())
        }
    }
}
