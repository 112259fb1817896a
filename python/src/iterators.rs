//! The Python face every pgnfen iterator shares (`games()`, `check()`,
//! `fen_records()`): `__iter__`, `__next__`, `close()` and `with`, which
//! closes it. Each iterator says only how it takes its next item and how it
//! stops ([`Reading`]); [`iterator_methods!`] writes the methods, since PyO3
//! allows one `#[pymethods]` block per class.
//!
//! An iterator belongs to the process that opened it ([`Owner`]): its
//! reading threads exist there only, so the copy a child of `os.fork()`
//! inherits raises on `__next__` and lets go of those threads on `close()`
//! and when dropped, without waiting for them.

use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::prelude::*;

/// How many forks lie between the first process that loaded the module and
/// this one (each child of a fork adds one to its copy).
static FORKS: AtomicU64 = AtomicU64::new(0);

/// In the child of a fork: one more (an atomic add: async-signal-safe).
extern "C" fn count_fork() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// The process an iterator or stream was opened in. Compared by the count of
/// forks rather than by `getpid()`, which is a system call, on every item.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Owner(u64);

impl Owner {
    /// This process.
    pub(crate) fn here() -> Owner {
        static AT_FORK: Once = Once::new();
        AT_FORK.call_once(|| {
            // SAFETY: registers a child handler that makes one atomic add.
            unsafe { libc::pthread_atfork(None, None, Some(count_fork)) };
        });
        Owner(FORKS.load(Ordering::Relaxed))
    }

    /// Whether this is still that process (false in the child of a fork).
    pub(crate) fn is_here(self) -> bool {
        FORKS.load(Ordering::Relaxed) == self.0
    }

    /// `UsageError` in the child of a fork ([`Owner::refusal`]).
    pub(crate) fn check(self, what: &str) -> PyResult<()> {
        if self.is_here() {
            return Ok(());
        }
        Err(crate::errors::usage(Owner::refusal(what)))
    }

    /// Why a `what` ("iterator", "pgnfen stream") opened before a fork cannot
    /// be read in the child.
    pub(crate) fn refusal(what: &str) -> String {
        format!(
            "this {what} was opened before os.fork() and belongs to the parent process, \
             whose reading threads the child does not have; open a new one in the child"
        )
    }
}

/// What an iterator handed to Python does on `__next__` and `close()`.
pub(crate) trait Reading {
    /// What `__next__` returns.
    type Item;
    /// The next item, or None at the end.
    fn next_item(&mut self, py: Python<'_>) -> PyResult<Option<Self::Item>>;
    /// Stops reading now; later calls of `next_item` return None.
    fn stop_reading(&mut self, py: Python<'_>);
    /// The process it was opened in.
    fn owner(&self) -> Owner;
    /// In the child of a fork: lets go of the reading threads without
    /// waiting for or touching them (they are the parent's); later calls of
    /// `next_item` return None.
    fn let_go(&mut self);
}

/// The Python methods of an iterator that implements [`Reading`].
macro_rules! iterator_methods {
    ($iterator:ident) => {
        #[pyo3::pymethods]
        impl $iterator {
            fn __iter__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, Self> {
                slf.clone()
            }

            // The methods borrow the iterator themselves, so that a second
            // thread is told plainly that it is in use (`errors::busy`).
            fn __next__(
                slf: &Bound<'_, Self>,
            ) -> PyResult<Option<<$iterator as $crate::iterators::Reading>::Item>> {
                let mut this = slf.try_borrow_mut().map_err(|_| $crate::errors::busy())?;
                $crate::iterators::Reading::owner(&*this).check("iterator")?;
                $crate::iterators::Reading::next_item(&mut *this, slf.py())
            }

            /// Stop reading now (leaving the loop and dropping the iterator does the same).
            fn close(slf: &Bound<'_, Self>) -> PyResult<()> {
                let mut this = slf.try_borrow_mut().map_err(|_| $crate::errors::busy())?;
                if $crate::iterators::Reading::owner(&*this).is_here() {
                    $crate::iterators::Reading::stop_reading(&mut *this, slf.py());
                } else {
                    $crate::iterators::Reading::let_go(&mut *this);
                }
                Ok(())
            }

            fn __enter__<'py>(slf: &Bound<'py, Self>) -> Bound<'py, Self> {
                slf.clone()
            }

            #[pyo3(signature = (_exc_type, _exc_value, _traceback, /))]
            fn __exit__(
                slf: &Bound<'_, Self>,
                _exc_type: Option<&Bound<'_, PyAny>>,
                _exc_value: Option<&Bound<'_, PyAny>>,
                _traceback: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<()> {
                // None: an exception raised in the block goes on (and the
                // stubs say so, so that a type checker knows the block does
                // not swallow it).
                Self::close(slf)
            }
        }
    };
}
pub(crate) use iterator_methods;
