//! Watching a run from outside. The engine draws nothing: it reports how far a
//! run has come to a [`Watch`] of the caller's, and the command line turns that
//! into a progress bar (or a plain line every few seconds in a log).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// What a run reports as it goes, for a progress display. Every method has a
/// default, so a watch implements only what it shows.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use pgnfen::pipeline::Watch;
///
/// /// Remembers the last game count.
/// #[derive(Default)]
/// struct Games(AtomicU64);
///
/// impl Watch for Games {
///     fn games(&self, games: u64) {
///         self.0.store(games, Ordering::Relaxed);
///     }
/// }
/// # let games = Games::default();
/// # games.games(3);
/// # assert_eq!(games.0.load(Ordering::Relaxed), 3);
/// ```
pub trait Watch: Send + Sync {
    /// A run starts; `total` is the raw size of all its inputs when every one
    /// of them has a known size (files, not pipes).
    fn start(&self, total: Option<u64>) {
        let _ = total;
    }

    /// The next input starts; `raw_read` counts the raw bytes read from it so
    /// far (compressed bytes for a compressed input, so that the total holds).
    fn input(&self, raw_read: Arc<AtomicU64>) {
        let _ = raw_read;
    }

    /// `games` games of the run are done (merged, in input order).
    fn games(&self, games: u64) {
        let _ = games;
    }

    /// A note for the user, one line whose control characters are already
    /// escaped. The default writes it to standard error; a display writes it
    /// above itself.
    fn note(&self, line: &str) {
        {
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "{line}");
        }
    }

    /// The run ended: `completed` when it ran to the end, not on an error.
    fn finish(&self, completed: bool) {
        let _ = completed;
    }
}

/// The message of a note ([`Watch::note`]) without the `pgnfen: ` and
/// `warning: ` the command line shows it with: for a front end that gives
/// notes its own way (a Python warning, a CI annotation), where the kind of
/// the message says who speaks.
///
/// ```
/// use pgnfen::pipeline::note_message;
/// assert_eq!(note_message("pgnfen: warning: a.txt: no PGN tag line found"), "a.txt: no PGN tag line found");
/// assert_eq!(note_message("a note"), "a note");
/// ```
pub fn note_message(line: &str) -> &str {
    let text = line.strip_prefix("pgnfen: ").unwrap_or(line);
    text.strip_prefix("warning: ").unwrap_or(text)
}

/// The run's side of a [`Watch`]: reports to it if there is one, and writes
/// notes to standard error if not. Ends the watch once, when dropped at the
/// latest (a failed run too).
pub(crate) struct Reporter<'a> {
    watch: Option<&'a dyn Watch>,
    finished: bool,
}

impl<'a> Reporter<'a> {
    pub(crate) fn new(watch: Option<&'a dyn Watch>, total: Option<u64>) -> Reporter<'a> {
        if let Some(w) = watch {
            w.start(total);
        }
        Reporter {
            watch,
            finished: false,
        }
    }

    pub(crate) fn start_input(&self, raw_read: Arc<AtomicU64>) {
        if let Some(w) = self.watch {
            w.input(raw_read);
        }
    }

    pub(crate) fn advance(&self, games: u64) {
        if let Some(w) = self.watch {
            w.games(games);
        }
    }

    /// A note on standard error, through the watch (never through its bar).
    pub(crate) fn warn(&self, message: &str) {
        // One line whatever names it holds (see `crate::escape`).
        let line = crate::escape::controls(message);
        match self.watch {
            Some(w) => w.note(&line),
            None => {
                use std::io::Write as _;
                let _ = writeln!(std::io::stderr(), "{line}");
            }
        }
    }

    pub(crate) fn finish(&mut self) {
        self.end(true);
    }

    fn end(&mut self, completed: bool) {
        if !std::mem::replace(&mut self.finished, true)
            && let Some(w) = self.watch
        {
            w.finish(completed);
        }
    }
}

impl Drop for Reporter<'_> {
    fn drop(&mut self) {
        self.end(false);
    }
}
