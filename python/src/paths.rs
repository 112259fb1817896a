//! Path arguments: `str`, `bytes` and `os.PathLike`, as Python's own file
//! functions take them. A `bytes` path is used as its bytes (a file name need
//! not be UTF-8 on Unix); a `str` holding surrogate escapes (how Python shows
//! such a name) gets its original bytes back.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// One path argument, through `os.fspath` (so a wrong type raises the
/// `TypeError` Python's `open` would).
pub fn path(value: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let fspath = value.py().import("os")?.call_method1("fspath", (value,))?;
    if let Ok(bytes) = fspath.cast::<PyBytes>() {
        return Ok(PathBuf::from(OsStr::from_bytes(bytes.as_bytes())));
    }
    // A str: pyo3 encodes it with the file system encoding and its
    // surrogate escapes, giving back the bytes of a non-UTF-8 name.
    fspath.extract()
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
