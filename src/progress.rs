//! Progress on standard error: bytes read of the total, games, throughput, time
//! left. Bytes are raw bytes (compressed bytes for a compressed input), counted
//! the same way for every input, so the time left holds when a `.zst` and a
//! plain file are read together. On a terminal it is a bar; otherwise (a log
//! file, `2>file`) one plain line every few seconds and one at the end. The
//! engine reports to it through [`pgnfen::pipeline::Watch`].

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use pgnfen::pipeline::Watch;

use crate::format::thousands;

/// Seconds between two plain progress lines.
const PLAIN_EVERY: Duration = Duration::from_secs(2);

/// What the plain writer needs to know, shared with its thread.
struct Counters {
    /// Raw bytes of the inputs finished before the current one.
    done_before: AtomicU64,
    current: Mutex<Option<Arc<AtomicU64>>>,
    games: AtomicU64,
    total: Option<u64>,
    started: Instant,
}

impl Counters {
    fn position(&self) -> u64 {
        let current = self
            .current
            .lock()
            .ok()
            .and_then(|c| c.as_ref().map(|a| a.load(Ordering::Relaxed)))
            .unwrap_or(0);
        self.done_before.load(Ordering::Relaxed) + current
    }

    /// One plain line: `pgnfen: 512.0 MiB of 1.0 GiB (50%), 1,234 games, 95.2 MiB/s, 6 s left`.
    fn line(&self) -> String {
        let done = self.position();
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = done as f64 / secs;
        let mut line = format!("pgnfen: {}", indicatif::BinaryBytes(done));
        if let Some(total) = self.total.filter(|&t| t > 0) {
            let pct = (done as f64 * 100.0 / total as f64).min(100.0);
            line += &format!(" of {} ({pct:.0}%)", indicatif::BinaryBytes(total));
        }
        line += &format!(
            ", {} games, {}/s",
            thousands(self.games.load(Ordering::Relaxed)),
            indicatif::BinaryBytes(rate as u64)
        );
        if let Some(total) = self.total
            && rate > 0.0
            && total > done
        {
            line += &format!(", {:.0} s left", (total - done) as f64 / rate);
        }
        line
    }
}

enum Display {
    Bar(ProgressBar),
    Plain {
        stop: Arc<(Mutex<bool>, Condvar)>,
        thread: Option<std::thread::JoinHandle<()>>,
    },
}

/// One run's display and what it counts.
struct Shown {
    display: Display,
    counters: Arc<Counters>,
}

/// The progress display of the command line: a [`Watch`] that shows each run
/// from its start to its finish.
#[derive(Default)]
pub struct Progress {
    shown: Mutex<Option<Shown>>,
}

impl Progress {
    fn with<T>(&self, f: impl FnOnce(&mut Shown) -> T) -> Option<T> {
        let mut shown = self.shown.lock().unwrap_or_else(|e| e.into_inner());
        shown.as_mut().map(f)
    }
}

impl Watch for Progress {
    fn start(&self, total: Option<u64>) {
        let counters = Arc::new(Counters {
            done_before: AtomicU64::new(0),
            current: Mutex::new(None),
            games: AtomicU64::new(0),
            total,
            started: Instant::now(),
        });
        let display = if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr_with_hz(4));
            let template = if total.is_some() {
                "{bar:30} {bytes}/{total_bytes} {msg} {binary_bytes_per_sec} ETA {eta}"
            } else {
                "{spinner} {bytes} {msg} {binary_bytes_per_sec} {elapsed}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(250));
            Display::Bar(bar)
        } else {
            let stop = Arc::new((Mutex::new(false), Condvar::new()));
            let (c, s) = (counters.clone(), stop.clone());
            // A thread, not the merger, writes the lines: a slow pipe may hand
            // over no chunk for a long time, and the line must still come.
            let thread = std::thread::Builder::new()
                .name("pgnfen-progress".into())
                .spawn(move || {
                    let (lock, cvar) = &*s;
                    let mut stopped = lock.lock().unwrap_or_else(|e| e.into_inner());
                    loop {
                        let (guard, timeout) = cvar
                            .wait_timeout(stopped, PLAIN_EVERY)
                            .unwrap_or_else(|e| e.into_inner());
                        stopped = guard;
                        if *stopped {
                            return;
                        }
                        if timeout.timed_out() {
                            let _ = writeln!(std::io::stderr(), "{}", c.line());
                        }
                    }
                })
                .ok();
            Display::Plain { stop, thread }
        };
        let mut shown = self.shown.lock().unwrap_or_else(|e| e.into_inner());
        *shown = Some(Shown { display, counters });
    }

    fn input(&self, raw_read: Arc<AtomicU64>) {
        self.with(|shown| {
            if let Ok(mut cur) = shown.counters.current.lock() {
                if let Some(prev) = cur.take() {
                    shown
                        .counters
                        .done_before
                        .fetch_add(prev.load(Ordering::Relaxed), Ordering::Relaxed);
                }
                *cur = Some(raw_read);
            }
        });
    }

    fn games(&self, games: u64) {
        self.with(|shown| {
            shown.counters.games.store(games, Ordering::Relaxed);
            if let Display::Bar(bar) = &shown.display {
                bar.set_position(shown.counters.position());
                bar.set_message(format!("{} games", thousands(games)));
            }
        });
    }

    /// A warning on standard error, printed above the bar (never through it).
    fn note(&self, line: &str) {
        let shown = self.shown.lock().unwrap_or_else(|e| e.into_inner());
        match shown.as_ref().map(|s| &s.display) {
            Some(Display::Bar(bar)) => bar.suspend(|| say!("{line}")),
            _ => say!("{line}"),
        }
    }

    /// A run that failed still stops the line writer, without a last line.
    fn finish(&self, completed: bool) {
        let taken = self.shown.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(Shown { display, counters }) = taken else {
            return;
        };
        match display {
            Display::Bar(bar) => bar.finish_and_clear(),
            Display::Plain { stop, thread } => {
                *stop.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
                stop.1.notify_all();
                if let Some(t) = thread {
                    let _ = t.join();
                }
                if completed {
                    say!("{}", counters.line());
                }
            }
        }
    }
}
