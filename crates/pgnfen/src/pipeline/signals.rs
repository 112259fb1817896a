//! Clean interruption. The temporary output files that exist right now are
//! known here, so that a program's signal handling (the command line's: SIGINT,
//! SIGTERM and SIGHUP end it with 128 + the signal's number, 130, 143, 129) can
//! remove them before it ends: an existing output is never touched and nothing
//! is left behind. The pipeline's spill files need nothing: they are anonymous (unlinked
//! at creation) and vanish with the process. A mapped input truncated by another
//! program (SIGBUS) ends the same way, with exit status 2 and a message naming it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A temporary file or a folder made for outputs, with the cancellation flag
/// of the run that made it, once known ([`owned_by`]).
struct Made {
    path: PathBuf,
    run: Option<Arc<AtomicBool>>,
}

impl Made {
    fn cancelled(&self) -> bool {
        self.run.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// Temporary files that exist under a name right now.
static LIVE: Mutex<Vec<Made>> = Mutex::new(Vec::new());

/// Folders a run made for its outputs (`split`'s template), in the order made:
/// removed again, when empty, if the run is interrupted.
static FOLDERS: Mutex<Vec<Made>> = Mutex::new(Vec::new());

/// Removes every temporary output file that exists now and ends the process
/// with `code`. Nothing is renamed into place or created after it starts. For
/// a program's own signal thread: the command line calls it on SIGINT,
/// SIGTERM and SIGHUP with 128 + the signal's number.
pub fn exit_removing_temporaries(code: i32) -> ! {
    end_removing_temporaries(|| std::process::exit(code))
}

/// Removes every temporary output file that exists now, then calls `end`,
/// which must end the process (a host that was asked to end by a signal,
/// such as Python, ends by that signal: `end` restores its default action and
/// raises it again). Nothing is renamed into place or created after it starts.
pub fn end_removing_temporaries(end: impl FnOnce() -> std::convert::Infallible) -> ! {
    // Held until the end: no temporary file is renamed or created after this.
    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
    remove(&live, &folders);
    match end() {}
}

/// Removes the temporary files `live` and then the folders, last made first.
fn remove(live: &[Made], folders: &[Made]) {
    for made in live {
        let _ = std::fs::remove_file(&made.path);
    }
    for made in folders.iter().rev() {
        // Fails, as it should, on a folder that holds anything.
        let _ = std::fs::remove_dir(&made.path);
    }
}

/// Removes every temporary output file that exists now, and the empty
/// folders runs made for their outputs, for a host that goes on a moment
/// after its runs were cancelled (Python ending with calls still running on
/// other threads). A run that still renames one of them into place later
/// fails: the file is gone.
pub fn remove_temporaries() {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let mut folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
    remove(&live, &folders);
    for made in live.drain(..) {
        slot_retire(&made.path);
    }
    for made in folders.drain(..) {
        slot_take(&FOLDER_SLOTS, &made.path);
    }
}

/// Removes the temporary output files of the runs that were cancelled
/// ([`Options::cancel`](super::Options::cancel) set), and the empty folders
/// they made for their outputs, leaving those of other runs alone. For a host
/// that stops waiting for a cancelled run (Python, after Ctrl-C, when the
/// run's read of a file system hangs and cannot be taken back): the run's
/// outputs are then gone as if it had stopped, and if it ever goes on, its
/// rename of a removed file into place fails, so nothing is replaced.
pub fn remove_cancelled_temporaries() {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let mut folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
    let (gone, kept): (Vec<Made>, Vec<Made>) = live.drain(..).partition(Made::cancelled);
    *live = kept;
    let (made_by_them, kept): (Vec<Made>, Vec<Made>) = folders.drain(..).partition(Made::cancelled);
    *folders = kept;
    remove(&gone, &made_by_them);
    for made in &gone {
        slot_retire(&made.path);
    }
    for made in &made_by_them {
        slot_take(&FOLDER_SLOTS, &made.path);
    }
}

/// A run made the folder `dir` for its outputs (see [`exit_removing_temporaries`]);
/// `run` is its cancellation flag, if it has one.
pub(crate) fn register_folder(dir: &Path, run: Option<&Arc<AtomicBool>>) {
    FOLDERS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Made {
            path: dir.to_path_buf(),
            run: run.cloned(),
        });
    slot_put(&FOLDER_SLOTS, dir);
}

/// The run is done with the folder `dir` (removed or kept).
pub(crate) fn retire_folder(dir: &Path) {
    FOLDERS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|d| d.path != dir);
    slot_take(&FOLDER_SLOTS, dir);
}

/// Turns SIGBUS, which a mapped input truncated by another program raises
/// (see [`Options::mmap`](super::Options::mmap)), into the end of a failed
/// run: temporary outputs removed, a message naming the file, exit status 2.
/// Call once, early in `main`, in a program that runs a few pipelines and
/// ends (the command line): from then on each mapped input and each output
/// file keeps a few bytes for the handler that are never freed.
pub fn install_bus_handler() -> std::io::Result<()> {
    install_sigbus()?;
    BUS_HANDLER.store(true, Ordering::Release);
    Ok(())
}

/// A temporary file now exists at `path`.
pub(crate) fn register(path: &Path) {
    LIVE.lock().unwrap_or_else(|e| e.into_inner()).push(Made {
        path: path.to_path_buf(),
        run: None,
    });
    slot_register(path);
}

/// The temporary file at `path` belongs to the run that `run` cancels (see
/// [`remove_cancelled_temporaries`]).
pub(crate) fn owned_by(path: &Path, run: &Arc<AtomicBool>) {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(made) = live.iter_mut().find(|m| m.path == path) {
        made.run = Some(run.clone());
    }
}

/// Runs `step` (the rename into place, or the removal) and forgets `path`, as
/// one step that a signal cannot cut in two.
pub(crate) fn retire<T>(path: &Path, step: impl FnOnce() -> T) -> T {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let result = step();
    live.retain(|m| m.path != path);
    slot_retire(path);
    result
}

/// [`retire`] for several temporary files at once: `step` renames them all
/// into place, and a signal that comes meanwhile waits for the last rename
/// (it then finds no temporary file to remove: every output is new).
pub(crate) fn retire_all<T>(paths: &[PathBuf], step: impl FnOnce() -> T) -> T {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    let result = step();
    live.retain(|m| !paths.contains(&m.path));
    for path in paths {
        slot_retire(path);
    }
    result
}

// ---- Mapped inputs truncated under the run (SIGBUS) ----
//
// Plain files are memory-mapped (no copy out of the page cache: reading them
// costs about an eighth more time). If another program truncates a mapped
// file, touching a lost page raises SIGBUS on the thread that touched it. The
// handler below turns that into the same end as any failed run: every
// temporary output removed, a message naming the file, exit status 2. It may
// only use async-signal-safe calls, so what it needs is kept in lock-free
// slots of C strings that are never freed (a few bytes per output file and
// mapped input), kept only once the handler is installed.

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

const SLOTS: usize = 64;
static TEMP_SLOTS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
/// The folders of [`register_folder`], for the handler to remove when empty.
static FOLDER_SLOTS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
/// The message for the mapped input being read (`pgnfen: NAME: ...\n`).
static MAPPED_MESSAGE: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());
/// [`install_bus_handler`] was called. Without the handler nobody reads the
/// slots, so nothing is leaked for them: a process that runs pipelines
/// without end (Python, a Dask worker) would otherwise grow by a message per
/// run. (The `pipeline` fuzz target's leak report showed it.)
static BUS_HANDLER: AtomicBool = AtomicBool::new(false);

fn handler_installed() -> bool {
    BUS_HANDLER.load(Ordering::Acquire)
}

fn leak(s: String) -> *mut libc::c_char {
    CString::new(s.replace('\0', "?"))
        .map(CString::into_raw)
        .unwrap_or(std::ptr::null_mut())
}

fn slot_register(path: &Path) {
    slot_put(&TEMP_SLOTS, path);
}

fn slot_retire(path: &Path) {
    slot_take(&TEMP_SLOTS, path);
}

fn slot_put(slots: &[AtomicPtr<libc::c_char>; SLOTS], path: &Path) {
    if !handler_installed() {
        return;
    }
    let raw = leak(path.display().to_string());
    if raw.is_null() {
        return;
    }
    for slot in slots {
        if slot
            .compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok()
        {
            return;
        }
    }
}

fn slot_take(slots: &[AtomicPtr<libc::c_char>; SLOTS], path: &Path) {
    if !handler_installed() {
        return;
    }
    let Ok(wanted) = CString::new(path.display().to_string()) else {
        return;
    };
    for slot in slots {
        let p = slot.load(Ordering::Acquire);
        // SAFETY: non-null slots hold C strings leaked by `slot_register`, never freed.
        if !p.is_null() && unsafe { std::ffi::CStr::from_ptr(p) } == wanted.as_c_str() {
            slot.store(std::ptr::null_mut(), Ordering::Release);
            return;
        }
    }
}

/// The mapped input now being read is `name` (`None`: no mapped input).
pub(crate) fn reading_mapped(name: Option<&str>) {
    if !handler_installed() {
        return;
    }
    let message = name.map_or(std::ptr::null_mut(), |name| {
        leak(format!(
            "pgnfen: {name}: {}\n",
            super::source::changed_message("truncated by another program")
        ))
    });
    MAPPED_MESSAGE.store(message, Ordering::Release);
}

extern "C" fn on_sigbus(_: libc::c_int) {
    // SAFETY: only async-signal-safe calls (unlink, rmdir, write, _exit) on C
    // strings that are never freed.
    unsafe {
        for slot in &TEMP_SLOTS {
            let p = slot.load(Ordering::Acquire);
            if !p.is_null() {
                libc::unlink(p);
            }
        }
        // The folders made for the outputs, when empty (`rmdir` fails on the
        // others): innermost first is not known here, so passes are made
        // until one removes nothing.
        for _ in 0..SLOTS {
            let mut removed = false;
            for slot in FOLDER_SLOTS.iter().rev() {
                let p = slot.load(Ordering::Acquire);
                if !p.is_null() && libc::rmdir(p) == 0 {
                    slot.store(std::ptr::null_mut(), Ordering::Release);
                    removed = true;
                }
            }
            if !removed {
                break;
            }
        }
        let message = MAPPED_MESSAGE.load(Ordering::Acquire);
        if message.is_null() {
            let m = b"pgnfen: bus error (a memory-mapped file shrank?)\n";
            libc::write(2, m.as_ptr().cast(), m.len());
        } else {
            libc::write(2, message.cast(), libc::strlen(message));
        }
        libc::_exit(2);
    }
}

fn install_sigbus() -> std::io::Result<()> {
    // SAFETY: installs a handler that never returns and uses only
    // async-signal-safe calls.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The library's tests never install the handler (only the command line
    /// does): runs then keep nothing for it, so a process that runs pipelines
    /// without end does not grow.
    #[test]
    fn without_the_handler_nothing_is_kept_for_it() {
        assert!(!handler_installed());
        for _ in 0..3 {
            reading_mapped(Some("a.pgn"));
            assert!(MAPPED_MESSAGE.load(Ordering::Acquire).is_null());
            slot_register(Path::new("out.pgn.tmp"));
            assert!(
                TEMP_SLOTS
                    .iter()
                    .all(|s| s.load(Ordering::Acquire).is_null())
            );
            slot_retire(Path::new("out.pgn.tmp"));
        }
        reading_mapped(None);
    }

    /// Only the outputs of cancelled runs go; another run's stay, as do the
    /// folders that are not empty.
    #[test]
    fn the_temporaries_of_cancelled_runs_are_removed_and_no_others() {
        let dir = tempfile::tempdir().unwrap();
        let (stopped, going) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicBool::new(false)),
        );
        let made = |name: &str, run: &Arc<AtomicBool>| {
            let path = dir.path().join(name);
            register(&path);
            std::fs::write(&path, "x").unwrap();
            owned_by(&path, run);
            path
        };
        let (mine, theirs, unowned) = (
            made("a.tmp", &stopped),
            made("b.tmp", &going),
            dir.path().join("c.tmp"),
        );
        register(&unowned);
        std::fs::write(&unowned, "x").unwrap();
        let (empty, full) = (dir.path().join("empty"), dir.path().join("full"));
        for folder in [&empty, &full] {
            std::fs::create_dir(folder).unwrap();
            register_folder(folder, Some(&stopped));
        }
        std::fs::write(full.join("kept"), "x").unwrap();
        remove_cancelled_temporaries();
        assert!(mine.exists() && theirs.exists() && unowned.exists() && empty.exists());
        stopped.store(true, Ordering::Relaxed);
        remove_cancelled_temporaries();
        assert!(!mine.exists() && !empty.exists());
        assert!(theirs.exists() && unowned.exists() && full.exists());
        let live = LIVE.lock().unwrap();
        assert!(!live.iter().any(|m| m.path == mine));
        assert!(live.iter().any(|m| m.path == theirs) && live.iter().any(|m| m.path == unowned));
        drop(live);
        for path in [&theirs, &unowned] {
            retire(path, || ());
        }
        retire_folder(&full);
    }
}
