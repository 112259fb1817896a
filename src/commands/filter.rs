//! `pgnfen filter`: copies each game byte for byte to the kept output or to the rest.

use pgnfen::filter::{self, Selection};

use crate::cli::{FilterArgs, Global};
use crate::commands::{Error, Outcome, inputs, options_streaming, refuse_streams_among_inputs};
use crate::format::thousands;

pub fn run(global: &Global, args: &FilterArgs) -> Result<Outcome, Error> {
    let options = filter::Options {
        selection: Selection {
            classes: args.class.clone(),
            chess960_positions: args.chess960_position.clone(),
            selector: args.select.selector(),
        },
        output: args.output.clone(),
        rest: args.rest.clone(),
        moves: args.moves,
        run: options_streaming(global, args.output.as_deref()),
    };
    // The kept games (standard output without -o) and the rest, if asked.
    let rest = args.rest.as_deref().map(Some);
    let outputs: Vec<Option<&std::path::Path>> = std::iter::once(args.output.as_deref())
        .chain(rest)
        .collect();
    refuse_streams_among_inputs(&args.inputs, &outputs)?;
    let inputs = inputs(&args.inputs);
    let filter::Summary { games, kept } = filter::run(&inputs, &options)?;
    if !global.quiet {
        say!(
            "pgnfen: kept {} of {} {}",
            thousands(kept),
            thousands(games),
            if games == 1 { "game" } else { "games" }
        );
    }
    crate::commands::warn_unseen_tags(global, &args.select.tag, &inputs);
    Ok(Outcome::Clean)
}
