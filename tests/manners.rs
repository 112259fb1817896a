//! The manners of a command-line tool: completion scripts and a man page
//! generated from the same flags as `--help`, examples and exit statuses at the
//! end of every `--help`, the class and dialect names explained, the global
//! options apart from a command's own.

mod common;

use std::process::Command as Process;

use clap::CommandFactory;
use common::run;
// The flag definitions of the binary, compiled into this test.
#[path = "../src/cli.rs"]
#[allow(dead_code)]
mod cli;
use cli::Cli;

/// The commands a user sees (not the hidden ones, not clap's `help`).
fn commands() -> Vec<clap::Command> {
    Cli::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect()
}

fn stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `shell -n` (parse only) on `script`; the shell must be installed.
fn syntax_check(shell: &str, script: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("completion");
    std::fs::write(&path, script).unwrap();
    match Process::new(shell).arg("-n").arg(&path).output() {
        Ok(out) => assert!(
            out.status.success(),
            "{shell} -n: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("{shell} is needed for this test (apt-get install {shell}): {e}"),
    }
}

#[test]
fn completions_mention_every_command_and_flag() {
    let commands = commands();
    assert!(commands.len() >= 7, "{}", commands.len());
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&["completions", shell]);
        assert!(script.contains("pgnfen"), "{shell}");
        for cmd in &commands {
            assert!(
                script.contains(cmd.get_name()),
                "{shell} completion lacks `{}`",
                cmd.get_name()
            );
            for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                if let Some(long) = arg.get_long() {
                    assert!(
                        script.contains(long),
                        "{shell}: {} --{long}",
                        cmd.get_name()
                    );
                }
            }
        }
        // The class names complete as values of --class.
        assert!(
            script.contains("chess960") && script.contains("malformed"),
            "{shell}"
        );
    }
    syntax_check("bash", &stdout(&["completions", "bash"]));
}

#[test]
#[ignore = "needs zsh"]
fn zsh_completion_parses() {
    syntax_check("zsh", &stdout(&["completions", "zsh"]));
}

#[test]
#[ignore = "needs fish"]
fn fish_completion_parses() {
    syntax_check("fish", &stdout(&["completions", "fish"]));
}

#[test]
fn completions_refuse_an_unknown_shell() {
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tcsh"));
}

#[test]
fn man_page_covers_every_command_flag_and_exit_status() {
    let page = stdout(&["man"]);
    assert!(page.starts_with(".ie") || page.starts_with(".TH"), "roff");
    assert!(page.contains(".TH pgnfen 1"), "a section-1 page");
    for section in [
        "NAME",
        "SYNOPSIS",
        "OPTIONS",
        "COMMANDS",
        "EXAMPLES",
        "\"EXIT STATUS\"",
    ] {
        assert!(page.contains(&format!(".SH {section}\n")), "{section}");
    }
    for cmd in commands() {
        let name = cmd.get_name().to_uppercase();
        let start = page
            .find(&format!(".SH \"PGNFEN {name}\""))
            .or_else(|| page.find(&format!(".SH PGNFEN {name}")))
            .unwrap_or_else(|| panic!("no section for {name}"));
        let section = &page[start..];
        let section = &section[..section[4..].find(".SH ").map_or(section.len(), |e| e + 4)];
        for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                // roff escapes '-' as '\-'.
                let escaped = format!("\\-\\-{}", long.replace('-', "\\-"));
                assert!(section.contains(&escaped), "{name}: --{long}");
            }
        }
        assert!(section.contains(".SS EXAMPLES"), "{name} has examples");
    }
    // The global options once, in the top-level options, not in each command.
    assert_eq!(
        page.matches("\\-\\-threads").count(),
        2,
        "synopsis + options"
    );
    for status in ["0", "1", "2"] {
        assert!(
            page.contains(&format!(".TP\n\\fB{status}\\fR")),
            "exit status {status}"
        );
    }
}

#[test]
#[ignore = "needs groff"]
fn man_page_has_no_groff_warnings() {
    let page = stdout(&["man"]);
    let out = Process::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(page.as_bytes())?;
            child.wait_with_output()
        })
        .expect("groff is needed for this test (apt-get install groff)");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "groff warns: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The example lines of a `--help` text.
fn examples(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Examples:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
        .collect()
}

/// The pgnfen invocations of a shell example line: split at pipes, without
/// redirections, words unquoted (the examples quote only whole words).
fn invocations(example: &str) -> Vec<Vec<String>> {
    example
        .split('|')
        .map(str::trim)
        .filter(|part| part.starts_with("pgnfen"))
        .map(|part| {
            let mut words = Vec::new();
            let mut it = part.split_whitespace();
            while let Some(w) = it.next() {
                if w == ">" || w == "<" {
                    it.next();
                } else {
                    words.push(w.trim_matches('\'').to_string());
                }
            }
            words
        })
        .collect()
}

#[test]
fn every_help_ends_with_examples_that_parse_and_the_exit_statuses() {
    let mut helps = vec![(String::from("pgnfen"), stdout(&["--help"]))];
    for cmd in commands() {
        let name = cmd.get_name().to_string();
        helps.push((name.clone(), stdout(&[&name, "--help"])));
        // The short help too.
        let short = stdout(&[&name, "-h"]);
        let short = examples(&short);
        assert!(
            !short.is_empty() && short.iter().all(|e| e.contains("pgnfen ")),
            "{name} -h"
        );
    }
    for (name, help) in helps {
        let examples = examples(&help);
        assert!(
            (2..=3).contains(&examples.len()),
            "{name}: {} examples",
            examples.len()
        );
        for example in &examples {
            let calls = invocations(example);
            assert!(!calls.is_empty(), "{name}: {example}");
            for call in calls {
                if let Err(e) = Cli::try_parse_from_args(&call) {
                    panic!("{name}: example `{example}` does not parse: {e}");
                }
            }
        }
        let last = help.trim_end().lines().last().unwrap();
        // Each command's own statuses: 1 only where it can happen.
        assert!(
            last.starts_with("Exit status: 0 ") && last.contains("2 "),
            "{name}: {last}"
        );
        assert_eq!(
            last.contains("; 1 when"),
            matches!(name.as_str(), "pgnfen" | "check" | "fen"),
            "{name}: {last}"
        );
    }
}

trait ParseArgs {
    fn try_parse_from_args(args: &[String]) -> Result<Cli, clap::Error>;
}

impl ParseArgs for Cli {
    fn try_parse_from_args(args: &[String]) -> Result<Cli, clap::Error> {
        <Cli as clap::Parser>::try_parse_from(args)
    }
}

#[test]
fn class_and_dialect_names_are_explained() {
    let filter = stdout(&["filter", "--help"]);
    for class in ["standard", "setup", "chess960", "crc", "other", "malformed"] {
        let line = filter
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("- {class}:")))
            .unwrap_or_else(|| panic!("{class} is not explained"));
        assert!(line.len() > class.len() + 20, "{line}");
    }
    let convert = stdout(&["convert", "--help"]);
    for name in ["fen", "xfen", "shredder", "as-is", "pseudo-legal", "legal"] {
        assert!(
            convert
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("- {name}:"))),
            "{name} is not explained"
        );
    }
    let check = stdout(&["check", "--help"]);
    for format in ["text", "json", "csv", "github", "sarif"] {
        assert!(
            check
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("- {format}:"))),
            "check --format {format} is not explained"
        );
    }
}

#[test]
fn global_options_are_listed_apart() {
    for cmd in commands() {
        let name = cmd.get_name();
        // These read no input: no global option applies (tests/first_week.rs).
        if matches!(name, "man" | "completions" | "explain") {
            continue;
        }
        let help = stdout(&[name, "--help"]);
        let global = help.find("\nGlobal options:\n").expect(name);
        let own = help.find("\nOptions:\n").expect(name);
        assert!(own < global, "{name}");
        let threads = help.find("--threads").expect(name);
        assert!(threads > global, "{name}: --threads is a global option");
        // The command's own flags stay in its own section.
        for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                let at = help.find(&format!("--{long}")).expect(long);
                assert!(at < global, "{name}: --{long}");
            }
        }
    }
}
