//! `pgnfen index` (hidden): one JSON line per game with its byte span, first
//! line and class. The corpus checks use it to prove that `filter` outputs are
//! exactly the input's games, in order.

use std::io::{self, Write};

use crate::cli::{Global, IndexArgs};
use crate::commands::{Error, Outcome, check_inputs_exist, inputs, options};
use pgnfen::Archive;
use pgnfen::pipeline::RunError;

pub fn run(global: &Global, args: &IndexArgs) -> Result<Outcome, Error> {
    let inputs = inputs(&args.inputs);
    check_inputs_exist(&inputs)?;
    let mut out = io::BufWriter::new(io::stdout().lock());
    let write_err = |e| Error::writing("<stdout>", e);
    for game in Archive::from_inputs(inputs)
        .with_options(options(global))
        .without_raw()
        .games()
    {
        let game = game.map_err(|e| match e {
            RunError::Input(e) => Error::Io {
                file: e.file,
                error: e.error,
            },
            other => other.into(),
        })?;
        let line = serde_json::json!({
            "file": &*game.file,
            "game": game.game,
            "offset": game.offset,
            "length": game.length,
            "line": game.line,
            "class": game.class.as_str(),
            "chess960_position": game.chess960_position,
        });
        serde_json::to_writer(&mut out, &line).map_err(|e| write_err(e.into()))?;
        writeln!(out).map_err(write_err)?;
    }
    out.flush().map_err(write_err)?;
    Ok(Outcome::Clean)
}
