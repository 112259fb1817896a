//! `pgnfen filter`: copies each game byte for byte to the kept output or to the rest.

use std::io::{self, Write};

use crate::class::Class;
use crate::cli::{FilterArgs, Global};
use crate::commands::{Error, Outcome, check_inputs_exist, inputs, options};
use crate::pipeline::output::Output;
use crate::pipeline::{self, GameInfo, Header, Job, Sink};

/// Which games to keep.
#[derive(Clone, Debug)]
pub struct Selection {
    pub classes: Vec<Class>,
    /// When not empty, Chess960 games are kept only from these start positions.
    pub chess960_positions: Vec<u16>,
}

impl Selection {
    pub fn keeps(&self, class: Class, position: Option<u16>) -> bool {
        if !self.classes.contains(&class) {
            return false;
        }
        if class == Class::Chess960 && !self.chess960_positions.is_empty() {
            return position.is_some_and(|n| self.chess960_positions.contains(&n));
        }
        true
    }
}

/// Decides each game's destination.
pub struct FilterJob<'a>(pub &'a Selection);

impl Job for FilterJob<'_> {
    /// Whether the game is kept.
    type Game = bool;

    fn game(&self, header: &Header<'_>) -> bool {
        if header.is_empty() {
            return self.0.keeps(Class::Standard, None);
        }
        let verdict = header.verdict();
        self.0.keeps(verdict.class, verdict.chess960_position)
    }
}

struct Split {
    kept: Output,
    rest: Option<Output>,
    to_kept: bool,
    kept_games: u64,
}

impl Sink<bool> for Split {
    fn begin_game(&mut self, _info: &GameInfo, keep: bool) -> io::Result<()> {
        self.to_kept = keep;
        self.kept_games += u64::from(keep);
        Ok(())
    }

    fn destination(&self, keep: &bool) -> Option<u8> {
        Some(u8::from(*keep))
    }

    fn bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        if self.to_kept {
            self.kept.write_all(data)
        } else if let Some(rest) = &mut self.rest {
            rest.write_all(data)
        } else {
            Ok(())
        }
    }
}

pub fn run(global: &Global, args: &FilterArgs) -> Result<Outcome, Error> {
    let inputs = inputs(&args.inputs);
    check_inputs_exist(&inputs)?;
    let selection = Selection {
        classes: args.class.clone(),
        chess960_positions: args.chess960_position.clone(),
    };
    let name = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .map_or("<stdout>".to_string(), |p| p.display().to_string())
    };
    let kept = Output::create(args.output.as_deref())
        .map_err(|e| Error::writing(&name(&args.output), e))?;
    let rest = match &args.rest {
        Some(path) => {
            Some(Output::create(Some(path)).map_err(|e| Error::writing(&name(&args.rest), e))?)
        }
        None => None,
    };
    let mut split = Split {
        kept,
        rest,
        to_kept: false,
        kept_games: 0,
    };
    let games = pipeline::run(
        &inputs,
        &FilterJob(&selection),
        &mut split,
        &options(global),
    )?;
    let Split {
        kept,
        rest,
        kept_games,
        ..
    } = split;
    kept.commit()
        .map_err(|e| Error::writing(&name(&args.output), e))?;
    if let Some(rest) = rest {
        rest.commit()
            .map_err(|e| Error::writing(&name(&args.rest), e))?;
    }
    if !global.quiet {
        eprintln!("pgnfen: kept {kept_games} of {games} games");
    }
    Ok(Outcome::Clean)
}
