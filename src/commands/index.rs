//! `pgnfen index` (hidden): one JSON line per game with its byte span, first
//! line and class. The corpus checks use it to prove that `filter` outputs are
//! exactly the input's games, in order.

use std::io::{self, Write};

use crate::cli::{Global, IndexArgs};
use crate::commands::{Error, Outcome, check_inputs_exist, inputs, options};
use pgnfen::pipeline::{self, GameInfo, Input, Sink};
use pgnfen::stats::{GameFacts, StatsJob};

struct Index<W: Write> {
    out: W,
    file: String,
    /// The game being read: its facts, where it starts, its length so far.
    current: Option<(GameInfo, GameFacts, u64)>,
}

impl<W: Write> Index<W> {
    fn flush_game(&mut self) -> io::Result<()> {
        if let Some((info, facts, len)) = self.current.take() {
            let line = serde_json::json!({
                "file": self.file,
                "game": info.index,
                "offset": info.offset,
                "length": len,
                "line": info.line,
                "class": facts.class.as_str(),
                "chess960_position": facts.chess960_position,
            });
            serde_json::to_writer(&mut self.out, &line)?;
            writeln!(self.out)?;
        }
        Ok(())
    }
}

impl<W: Write> Sink<GameFacts> for Index<W> {
    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        self.flush_game()?;
        self.file = input.display_name();
        Ok(())
    }

    fn begin_game(&mut self, info: &GameInfo, game: GameFacts) -> io::Result<()> {
        self.flush_game()?;
        self.current = Some((*info, game, 0));
        Ok(())
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        if let Some((_, _, len)) = &mut self.current {
            *len += data.len() as u64;
        }
        Ok(())
    }
}

pub fn run(global: &Global, args: &IndexArgs) -> Result<Outcome, Error> {
    let inputs = inputs(&args.inputs);
    check_inputs_exist(&inputs)?;
    let mut index = Index {
        out: io::BufWriter::new(io::stdout().lock()),
        file: String::new(),
        current: None,
    };
    pipeline::run(&inputs, &StatsJob, &mut index, &options(global))?;
    index
        .flush_game()
        .and_then(|()| index.out.flush())
        .map_err(|e| Error::writing("<stdout>", e))?;
    Ok(Outcome::Clean)
}
