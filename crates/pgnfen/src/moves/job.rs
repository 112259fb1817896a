//! The engine's wrapper of a job with `--moves`: the job's own result and
//! the replay of each game's mainline, on the worker threads.

use super::*;

/// A job run with `--moves`: the job's own result for each game, and the
/// replay of its mainline.
#[derive(Debug)]
pub struct WithMoves<J> {
    /// The job whose results are kept.
    pub inner: J,
    /// How much of each mainline is played.
    pub mode: MovesMode,
}

/// A game's result under [`WithMoves`].
#[derive(Debug)]
pub struct Moved<G> {
    /// The inner job's result.
    pub inner: G,
    /// What the replay found.
    pub replay: Replay,
}

impl<J: Job> Job for WithMoves<J> {
    type Game = Moved<J::Game>;

    fn game(&self, header: &Header<'_>) -> Self::Game {
        let inner = self.inner.game(header);
        if header.has_no_start_tags() {
            // Most games: the standard start, no classification needed.
            return Moved {
                inner,
                replay: Replay::Pending(Start::STANDARD),
            };
        }
        let verdict = header.verdict();
        let replay = match start_of(header, &verdict) {
            Some(start) => Replay::Pending(start),
            None => Replay::NotChecked,
        };
        Moved { inner, replay }
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.inner.extra_tags()
    }

    fn all_pairs(&self) -> bool {
        self.inner.all_pairs()
    }

    fn reads_moves(&self) -> bool {
        true
    }

    fn moves(&self, game: &mut Self::Game, text: &MoveText<'_>) {
        if let Replay::Pending(start) = &game.replay {
            game.replay = replay(start, text, self.mode);
        }
    }

    fn seal<'g>(&self, results: impl Iterator<Item = &'g mut Self::Game>) {
        self.inner.seal(results.map(|moved| &mut moved.inner));
    }

    fn frames_ahead(&self) -> usize {
        self.inner.frames_ahead()
    }

    fn chunks_in_flight(&self, workers: usize) -> usize {
        self.inner.chunks_in_flight(workers)
    }

    /// The inner job's weight and an illegal move's report: without it, the
    /// budget of a chunk's results never saw `check`'s findings under
    /// `--moves`, and a file of games that are all problems held hundreds of
    /// MiB (more with every worker).
    fn weight(&self, game: &Self::Game) -> usize {
        self.inner.weight(&game.inner)
            + match &game.replay {
                Replay::Illegal(m) => {
                    std::mem::size_of::<crate::moves::IllegalMove>()
                        + m.token.len()
                        + m.line_text.len()
                        + m.position.len()
                }
                _ => 0,
            }
    }
}
