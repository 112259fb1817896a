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
            "pgnfen: {} games, {} FEN tags written as {}, {} left unchanged",
            summary.games,
            summary.converted,
            args.to.as_str(),
            summary.unchanged
        );
    }
    Ok(Outcome::Clean)
}
