//! Parsing the command line, and clap's report of a usage error made safe to
//! print: what it quotes from the arguments could otherwise start a line of
//! its own on standard error, which a CI runner reads for commands.

use std::process::ExitCode;

use clap::FromArgMatches;

use crate::cli::{self, Cli};

/// The parsed command line, or the exit status after clap's report (2 for a
/// usage error, 0 for `--help` and `--version`, which it has printed).
pub fn parse() -> Result<Cli, ExitCode> {
    // Parsed with the definition that hides the global options where they do
    // not apply (`cli::command`), so that `--help` shows what `man` would.
    let parsed = cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    parsed.map_err(|e| {
        if e.use_stderr() && tainted_arguments().next().is_some() {
            say_raw!("{}", escaped_usage_error(&e));
        } else if let Err(io) = e.print() {
            // `--help` or `--version` to a full disk fails like any other
            // output (a closed pipe is no failure: the reader had enough).
            if !e.use_stderr() && io.kind() != std::io::ErrorKind::BrokenPipe {
                say!("pgnfen: <stdout>: {io}");
                return ExitCode::from(2);
            }
        }
        ExitCode::from(if e.use_stderr() { 2 } else { 0 })
    })
}

/// The arguments that hold a control character (a newline in a file name), a
/// bidirectional control, or the GitHub runner's older form of command, `##[`.
fn tainted_arguments() -> impl Iterator<Item = String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| a.chars().any(pgnfen::escape::is_escaped) || a.contains("##["))
}

/// clap's report of a usage error, with the text it quotes from the
/// arguments escaped: a newline in a name or value must not start a line of
/// its own, which a GitHub workflow reading standard error could take for a
/// command (`::error::...`), and no `##[` may stand in it. Only when an
/// argument holds a control character or `##[`; otherwise clap prints its
/// report as it is.
fn escaped_usage_error(e: &clap::Error) -> String {
    let mut text = e.render().to_string();
    for argument in tainted_arguments() {
        // clap quotes an argument whole, its value after `=`, or one of the
        // values of a list.
        let value = argument.split_once('=').map(|(_, v)| v.to_string());
        let mut pieces: Vec<String> = std::iter::once(argument.clone()).chain(value).collect();
        let items: Vec<String> = pieces
            .iter()
            .flat_map(|p| p.split(',').map(str::to_string).collect::<Vec<_>>())
            .collect();
        pieces.extend(items);
        // A cluster of short flags (`-x`) is reported flag by flag: `'-C'`
        // for each character C it does not know.
        if argument.starts_with('-') && !argument.starts_with("--") {
            pieces.extend(
                argument
                    .chars()
                    .filter(|c| pgnfen::escape::is_escaped(*c))
                    .map(|c| format!("-{c}")),
            );
        }
        pieces.sort_by_key(|p| std::cmp::Reverse(p.len()));
        for piece in pieces
            .iter()
            .filter(|p| p.chars().any(pgnfen::escape::is_escaped))
        {
            text = text.replace(piece.as_str(), &pgnfen::escape::controls(piece));
        }
    }
    // clap's own words never hold `##[`: any in the report was quoted.
    let text = pgnfen::escape::legacy_command_free(&text).into_owned();
    // Whatever was quoted in a way not foreseen: no line may begin with `::`.
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.starts_with("::") {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}
