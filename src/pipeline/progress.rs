//! The progress bar on standard error: bytes read of the total (compressed bytes
//! for compressed files), games, throughput, time left.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar, or nothing when disabled.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Raw bytes of the inputs finished before the current one.
    done_before: AtomicU64,
    current: Mutex<Option<Arc<AtomicU64>>>,
}

impl Progress {
    pub fn new(enabled: bool, total: Option<u64>) -> Progress {
        let bar = enabled.then(|| {
            let bar = match total {
                Some(t) => {
                    ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr_with_hz(4))
                }
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(4)),
            };
            let template = if total.is_some() {
                "{bar:30} {bytes}/{total_bytes} {msg} {binary_bytes_per_sec} ETA {eta}"
            } else {
                "{spinner} {bytes} {msg} {binary_bytes_per_sec} {elapsed}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(250));
            bar
        });
        Progress {
            bar,
            done_before: AtomicU64::new(0),
            current: Mutex::new(None),
        }
    }

    /// A new input starts; `raw_read` counts its raw bytes.
    pub fn start_input(&self, raw_read: Arc<AtomicU64>) {
        if let Ok(mut cur) = self.current.lock() {
            if let Some(prev) = cur.take() {
                self.done_before
                    .fetch_add(prev.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            *cur = Some(raw_read);
        }
    }

    pub fn advance(&self, games: u64) {
        let Some(bar) = &self.bar else { return };
        let current = self
            .current
            .lock()
            .ok()
            .and_then(|c| c.as_ref().map(|a| a.load(Ordering::Relaxed)))
            .unwrap_or(0);
        bar.set_position(self.done_before.load(Ordering::Relaxed) + current);
        bar.set_message(format!("{games} games"));
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
