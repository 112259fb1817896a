//! The Python face every pgnfen iterator shares (`games()`, `check()`,
//! `fen_records()`): `__iter__`, `__next__`, `close()` and `with`, which
//! closes it. Each iterator says only how it takes its next item and how it
//! stops ([`Reading`]); [`iterator_methods!`] writes the methods, since PyO3
//! allows one `#[pymethods]` block per class.

use pyo3::prelude::*;

/// What an iterator handed to Python does on `__next__` and `close()`.
pub(crate) trait Reading {
    /// What `__next__` returns.
    type Item;
    /// The next item, or None at the end.
    fn next_item(&mut self, py: Python<'_>) -> PyResult<Option<Self::Item>>;
    /// Stops reading now; later calls of `next_item` return None.
    fn stop_reading(&mut self, py: Python<'_>);
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
                $crate::iterators::Reading::next_item(&mut *this, slf.py())
            }

            /// Stop reading now (leaving the loop and dropping the iterator does the same).
            fn close(slf: &Bound<'_, Self>) -> PyResult<()> {
                let mut this = slf.try_borrow_mut().map_err(|_| $crate::errors::busy())?;
                $crate::iterators::Reading::stop_reading(&mut *this, slf.py());
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
            ) -> PyResult<bool> {
                Self::close(slf)?;
                Ok(false)
            }
        }
    };
}
pub(crate) use iterator_methods;
