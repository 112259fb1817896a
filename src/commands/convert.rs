//! `pgnfen convert`: rewrites FEN tag values in another dialect; every other
//! byte is copied unchanged.

use pgnfen::convert;

use crate::cli::{ConvertArgs, Global};
use crate::commands::{Error, Outcome, inputs, options};

pub fn run(global: &Global, args: &ConvertArgs) -> Result<Outcome, Error> {
    let options = convert::Options {
        to: args.to,
        ep: args.ep,
        repair: args.repair,
        output: args.output.clone(),
        run: options(global),
    };
    let summary = convert::run(&inputs(&args.inputs), &options)?;
    if !global.quiet {
        eprintln!(
            "pgnfen: {}, {} written as {}, {} left unchanged",
            crate::format::count(summary.games, "game", "games"),
            crate::format::count(summary.converted, "FEN tag", "FEN tags"),
            args.to.as_str(),
            crate::format::thousands(summary.unchanged)
        );
    }
    Ok(Outcome::Clean)
}
