//! `pgnfen filter`: copies each game byte for byte to the kept output or to the rest.

use std::io::{self, Write};

use crate::class::Class;
use crate::cli::{FilterArgs, Global};
use crate::commands::format::thousands;
use crate::commands::{Error, Outcome, check_inputs_exist, inputs, options};
use crate::pipeline::output::Output;
use crate::pipeline::{self, GameInfo, Header, Job, Sink};
use crate::select::Selector;

/// Which games to keep.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Classes to keep; every class when empty.
    pub classes: Vec<Class>,
    /// When not empty, Chess960 games are kept only from these start positions.
    pub chess960_positions: Vec<u16>,
    /// The `--tag` expressions, all of which must hold.
    pub tags: Selector,
}

impl Selection {
    /// Whether a game of `class` (and Chess960 start position) is kept, as far
    /// as the class and position go.
    pub fn keeps(&self, class: Class, position: Option<u16>) -> bool {
        if !self.classes.is_empty() && !self.classes.contains(&class) {
            return false;
        }
        if !self.chess960_positions.is_empty() {
            // Only Chess960 games have a position: with a position list, the
            // games of other classes are kept only when their class was asked
            // for by name.
            if class == Class::Chess960 {
                return position.is_some_and(|n| self.chess960_positions.contains(&n));
            }
            return self.classes.contains(&class);
        }
        true
    }

    /// The class of the game and whether it is kept (class, position and tags).
    pub fn judge(&self, header: &Header<'_>) -> (Class, bool) {
        let (class, position) = if header.is_empty() {
            (Class::Standard, None)
        } else {
            let verdict = header.verdict();
            (verdict.class, verdict.chess960_position)
        };
        let keep = self.keeps(class, position) && self.tags.matches(|i| header.extra(i));
        (class, keep)
    }

    /// The usage errors of a selection: nothing asked for, or a position list
    /// that the class list makes pointless.
    pub fn validate(&self, command: &str) -> Result<(), Error> {
        if self.classes.is_empty() && self.chess960_positions.is_empty() && self.tags.is_empty() {
            return Err(Error::Usage(format!(
                "{command}: say which games to keep with --class, --chess960-position or --tag"
            )));
        }
        self.tags.validate()?;
        if !self.chess960_positions.is_empty()
            && !self.classes.is_empty()
            && !self.classes.contains(&Class::Chess960)
        {
            return Err(Error::Usage(format!(
                "{command}: --chess960-position selects Chess960 games, but --class does not include chess960"
            )));
        }
        Ok(())
    }
}

/// Decides each game's destination.
pub struct FilterJob<'a>(pub &'a Selection);

impl Job for FilterJob<'_> {
    /// Whether the game is kept.
    type Game = bool;

    fn game(&self, header: &Header<'_>) -> bool {
        self.0.judge(header).1
    }

    fn extra_tags(&self) -> &[Vec<u8>] {
        self.0.tags.names()
    }
}

/// The sink of `filter`: each game to the kept output or to the rest (shared
/// with the Python package's `filter`).
pub struct Split {
    /// Where kept games go.
    pub kept: Output,
    /// Where every other game goes, if anywhere.
    pub rest: Option<Output>,
    to_kept: bool,
    /// Games kept so far.
    pub kept_games: u64,
}

impl Split {
    /// A split into `kept` and, optionally, `rest`.
    pub fn new(kept: Output, rest: Option<Output>) -> Split {
        Split {
            kept,
            rest,
            to_kept: false,
            kept_games: 0,
        }
    }
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
    let selection = Selection {
        classes: args.class.clone(),
        chess960_positions: args.chess960_position.clone(),
        tags: Selector::new(&args.tag),
    };
    selection.validate("filter")?;
    check_inputs_exist(&inputs)?;
    crate::commands::check_distinct_outputs(
        &[args.output.as_deref().unwrap_or("-".as_ref())]
            .into_iter()
            .chain(args.rest.as_deref())
            .collect::<Vec<_>>(),
    )?;
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
    let mut split = Split::new(kept, rest);
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
        eprintln!(
            "pgnfen: kept {} of {} {}",
            thousands(kept_games),
            thousands(games),
            if games == 1 { "game" } else { "games" }
        );
    }
    Ok(Outcome::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_lists_keep_other_named_classes() {
        let s = Selection {
            classes: vec![Class::Chess960, Class::Standard],
            chess960_positions: vec![518],
            ..Selection::default()
        };
        assert!(s.keeps(Class::Standard, None));
        assert!(s.keeps(Class::Chess960, Some(518)));
        assert!(!s.keeps(Class::Chess960, Some(0)));
        assert!(!s.keeps(Class::Setup, None));
        let s = Selection {
            chess960_positions: vec![518],
            ..Selection::default()
        };
        assert!(!s.keeps(Class::Standard, None));
        assert!(s.keeps(Class::Chess960, Some(518)));
    }
}
