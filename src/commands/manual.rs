//! `pgnfen completions SHELL` and `pgnfen man`: a completion script and the
//! manual page, both generated from the clap definitions that `--help` shows, so
//! they cannot drift apart from the flags.

use std::io::{self, Write};

use clap::{Command, CommandFactory};
use clap_complete::Shell;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::cli::Cli;
use crate::commands::{Error, Outcome};

/// Writes the completion script for `shell` to `out`.
pub fn completions(shell: Shell, out: &mut dyn Write) -> io::Result<()> {
    // The definition that offers no global option after `man`, `completions`
    // and `explain`, which read no input.
    let mut cmd = crate::cli::completion_command();
    // clap_complete panics when its writer fails (a full disk): the script is
    // made in memory, and a failure to write it out is an error like any other.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "pgnfen", &mut script);
    out.write_all(&script)
}

/// Writes the man page pgnfen(1) to `out`: the page of the top-level command
/// (synopsis, global options), the list of commands, then a section for each
/// command with its synopsis, options and examples, then the exit statuses.
/// One page, as ripgrep's: the commands have no pages of their own.
pub fn man_page(out: &mut dyn Write) -> io::Result<()> {
    let cmd = Cli::command();
    let man = Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    // Taken from the unbuilt definition: there the global options are not yet
    // copied into every command (they are listed once, above), and clap's own
    // `help` command does not exist yet.
    let subs: Vec<&Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    let mut roff = Roff::new();
    roff.control("SH", ["COMMANDS"]);
    for sub in &subs {
        roff.control("TP", []);
        roff.text([bold(format!("pgnfen {}", sub.get_name()))]);
        roff.text([roman(about(sub))]);
    }
    roff.to_writer(out)?;
    examples(&cmd, "SH").to_writer(out)?;
    for sub in subs {
        let name = format!("pgnfen {}", sub.get_name());
        let mut roff = Roff::new();
        roff.control("SH", [name.to_uppercase().as_str()]);
        roff.text([roman(about(sub))]);
        roff.to_writer(out)?;
        let page = Man::new(sub.clone().bin_name(&name));
        for render in [Man::render_synopsis_section, Man::render_options_section] {
            let mut buf = Vec::new();
            render(&page, &mut buf)?;
            out.write_all(&subsection(&buf))?;
        }
        examples(sub, "SS").to_writer(out)?;
    }
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (status, meaning) in [
        ("0", "success (for check: no error found)"),
        (
            "1",
            "check found an error-severity problem (or a warning, with --deny-warnings); fen read an invalid record",
        ),
        (
            "2",
            "a usage or I/O error, with a one-line message naming the file",
        ),
    ] {
        roff.control("TP", []);
        roff.text([bold(status)]);
        roff.text([roman(meaning)]);
    }
    roff.to_writer(out)?;
    man.render_version_section(out)
}

fn about(cmd: &Command) -> String {
    cmd.get_long_about()
        .or_else(|| cmd.get_about())
        .map(|a| a.to_string())
        .unwrap_or_default()
}

/// The example lines that end a command's `--help` (after "Examples:", up to
/// the blank line before the exit statuses), unfilled so that each stays one line.
/// `heading` is the roff request of the section's title: `SH` for the page's
/// own examples, `SS` for a command's.
fn examples(cmd: &Command, heading: &str) -> Roff {
    let mut roff = Roff::new();
    let Some(help) = cmd.get_after_help().map(|h| h.to_string()) else {
        return roff;
    };
    let lines: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Examples:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    if !lines.is_empty() {
        roff.control(heading, ["EXAMPLES"]);
        roff.control("nf", []);
        for line in lines {
            roff.text([roman(line.trim())]);
        }
        roff.control("fi", []);
    }
    roff
}

/// A command's sections as subsections of its own section: `.SH X` → `.SS X`.
fn subsection(roff: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(roff);
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.strip_prefix(".SH ") {
            Some(rest) => {
                out.push_str(".SS ");
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
    }
    out.into_bytes()
}

pub fn run_completions(shell: Shell) -> Result<Outcome, Error> {
    write_stdout(|out| completions(shell, out))
}

pub fn run_man() -> Result<Outcome, Error> {
    write_stdout(man_page)
}

fn write_stdout(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<Outcome, Error> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    f(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| Error::writing("<stdout>", e))?;
    Ok(Outcome::Clean)
}
