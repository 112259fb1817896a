//! `pgnfen split`: every game to the file of its class, then a summary of the
//! files written.

use std::io::{self, Write};

use pgnfen::split;

use crate::cli::{Global, SplitArgs};
use crate::commands::{Error, Outcome, inputs, options};
use crate::format::thousands;

pub fn run(global: &Global, args: &SplitArgs) -> Result<Outcome, Error> {
    allow_open_files();
    let options = split::Options {
        template: args.output.clone(),
        classes: args.class.clone(),
        selector: args.select.selector(),
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
    crate::commands::warn_unseen_tags(global, &args.select.tag, &inputs);
    Ok(Outcome::Clean)
}

/// Raises the soft limit of open files to 256 when it is lower and the hard
/// limit allows it: `split` may write an output for each of the 42 pairs of
/// class and speed at once, beside its inputs and the run's own files, and a
/// shell's `ulimit -Sn 40` would otherwise end such a run ("Too many open
/// files") that the hard limit allows.
fn allow_open_files() {
    #[cfg(unix)]
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    unsafe {
        const OPEN_FILES: libc::rlim_t = 256;
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0
            && limit.rlim_cur < OPEN_FILES
            && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = OPEN_FILES.min(limit.rlim_max);
            // Failing leaves the limit, and so the run, as they were.
            let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}
