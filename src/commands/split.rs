//! `pgnfen split`: every game to the file of its class, then a summary of the
//! files written.

use std::io::{self, Write};

use pgnfen::split;

use crate::cli::{Global, SplitArgs};
use crate::commands::{Error, Outcome, inputs, options};
use crate::format::thousands;

pub fn run(global: &Global, args: &SplitArgs) -> Result<Outcome, Error> {
    let options = split::Options {
        template: args.output.clone(),
        classes: args.class.clone(),
        tags: args.tag.clone(),
        speeds: args.speed.clone(),
        run: options(global),
    };
    let inputs = inputs(&args.inputs);
    let summary = split::run(&inputs, &options)?;
    if !global.quiet {
        let games = summary.games;
        let names: Vec<(String, u64)> = summary
            .files
            .iter()
            .map(|(path, n)| (path.display().to_string(), *n))
            .collect();
        let mut err = io::stderr().lock();
        let _ = writeln!(
            err,
            "pgnfen: split {} {} into {} {}",
            thousands(games),
            if games == 1 { "game" } else { "games" },
            names.len(),
            if names.len() == 1 { "file" } else { "files" }
        );
        let width = names.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        for (name, n) in &names {
            let _ = writeln!(err, "  {name:<width$}  {:>12}", thousands(*n));
        }
        if summary.skipped > 0 {
            let _ = writeln!(
                err,
                "  {:<width$}  {:>12}",
                "(not written)",
                thousands(summary.skipped)
            );
        }
    }
    crate::commands::warn_unseen_tags(global, &args.tag, &inputs);
    Ok(Outcome::Clean)
}
