//! Path arguments: `str`, `bytes` and `os.PathLike`, as Python's own file
//! functions take them. A `bytes` path is used as its bytes (a file name need
//! not be UTF-8 on Unix); a `str` holding surrogate escapes (how Python shows
//! such a name) gets its original bytes back.
//!
//! The library names its inputs with text made safe to show
//! (`Input::display_name`): a name that is not UTF-8 becomes its lossy text
//! (U+FFFD for each byte that is not), control characters are escaped, a
//! leading `:` gets `./` in front. The first two cannot be opened again. So
//! the names of such paths given to a call are remembered, and [`file_name`]
//! gives the objects that name an input (`Game.file`, the `file` of
//! `check()`'s and `fen_records()`' dicts, `InputError.filename`) the str
//! Python makes of the original (`os.fsdecode`, surrogate escapes), which
//! opens the file again.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// The paths given whose shown name is not their text, as (shown name,
/// original), the latest last; at most [`REMEMBERED`] of them.
static SHOWN_OTHERWISE: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());

/// Whether any name was remembered: until then (the usual case) an input's
/// name is given as it is, without taking the lock.
static ANY_REMEMBERED: AtomicBool = AtomicBool::new(false);

/// Whether a name given so far is shown otherwise than as its text (see
/// [`file_name`]).
pub fn any_shown_otherwise() -> bool {
    ANY_REMEMBERED.load(Ordering::Acquire)
}

/// How many such names are remembered: the inputs of the calls running at
/// once, many times over.
const REMEMBERED: usize = 256;

/// Remembers `path` when the library shows its name otherwise than as its
/// text (see the module's comment).
pub fn remember(path: &Path) {
    let lossy = pgnfen::pipeline::Input::File(path.to_path_buf()).display_name();
    if path.to_str() == Some(lossy.as_str()) {
        return;
    }
    ANY_REMEMBERED.store(true, Ordering::Release);
    let mut names = SHOWN_OTHERWISE.lock().unwrap_or_else(|e| e.into_inner());
    // Two originals with the same lossy text: the one given last wins.
    names.retain(|(text, _)| *text != lossy);
    if names.len() == REMEMBERED {
        names.remove(0);
    }
    names.push((lossy, path.to_path_buf()));
}

/// The Python object for an input's name as the library gives it: the str of
/// the original path when the name was shown otherwise (a zip member's name,
/// `ARCHIVE:MEMBER`, keeps its member), else the name itself.
pub fn file_name<'py>(py: Python<'py>, name: &str) -> Bound<'py, PyAny> {
    if ANY_REMEMBERED.load(Ordering::Acquire) {
        let names = SHOWN_OTHERWISE.lock().unwrap_or_else(|e| e.into_inner());
        for (lossy, original) in names.iter().rev() {
            let Some(rest) = name.strip_prefix(lossy.as_str()) else {
                continue;
            };
            if rest.is_empty() || rest.starts_with(':') {
                let mut whole = OsString::from(original.as_os_str());
                whole.push(rest);
                let Ok(object) = whole.as_os_str().into_pyobject(py);
                return object.into_any();
            }
        }
    }
    PyString::new(py, name).into_any()
}

/// One path argument, through `os.fspath` (so a wrong type raises the
/// `TypeError` Python's `open` would).
pub fn path(value: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let os = value.py().import("os")?;
    let fspath = os.call_method1("fspath", (value,))?;
    // A str is encoded as `open` does it, with the file system encoding and
    // its surrogate escapes (giving back the bytes of a non-UTF-8 name). A
    // str that no file name can be (a lone surrogate such as "\ud800") fails
    // there with a UnicodeEncodeError, which becomes a UsageError; pyo3's own
    // conversion of such a str would panic.
    let encoded = match fspath.cast::<PyBytes>() {
        Ok(bytes) => bytes.clone(),
        Err(_) => match os.call_method1("fsencode", (&fspath,)) {
            Ok(bytes) => bytes.cast_into::<PyBytes>()?,
            Err(e) => {
                return Err(crate::errors::usage(format!(
                    "{}: not a possible file name: {}",
                    fspath.repr()?,
                    e.value(value.py())
                )));
            }
        },
    };
    if encoded.as_bytes().contains(&0) {
        return Err(crate::errors::usage(format!(
            "{}: not a possible file name: it holds a NUL byte",
            fspath.repr()?
        )));
    }
    let path = PathBuf::from(OsStr::from_bytes(encoded.as_bytes()));
    remember(&path);
    Ok(path)
}

/// A list of path arguments.
pub fn paths(values: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    values.try_iter()?.map(|p| path(&p?)).collect()
}

/// A path argument that may be None.
pub fn optional(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PathBuf>> {
    match value {
        Some(v) if !v.is_none() => path(v).map(Some),
        _ => Ok(None),
    }
}
