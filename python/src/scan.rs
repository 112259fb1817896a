//! `pgnfen.scan`: the rows of `pgnfen export` as an Arrow stream.
//!
//! The native object implements the Arrow PyCapsule interface
//! (`__arrow_c_stream__`): pyarrow, polars and DuckDB take the stream over
//! without a copy and without going through Python per batch. The record
//! batches are built by the library's export on threads of their own (the
//! pipeline's workers and one export thread), with at most two batches waiting,
//! so memory stays bounded whatever the size of the input.

use std::ffi::CString;
use std::sync::atomic::Ordering;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema, to_ffi};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, RecordBatchReader, StructArray};
use arrow_schema::{ArrowError, SchemaRef};

use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

use pgnfen::export::{self, Batches, ExportOptions, TagColumns};
use pgnfen::pipeline::Input;
use pgnfen::select::Selector;

use crate::iterators::Owner;
use crate::{cancellable, command_error, inputs, interrupt};

/// The rows of an export not yet handed over: a stream for one consumer.
#[pyclass(module = "pgnfen", name = "ArrowStream")]
pub struct ArrowStream {
    schema: SchemaRef,
    batches: Option<Batches>,
    /// Stops the export's run (Ctrl-C in [`ArrowStream::next_batch`]).
    /// The call of `scan()`: its flag stops the run, its notes are given as
    /// batches are taken (none for a Dask partition's stream).
    call: Option<interrupt::Call>,
    /// The selection of `scan()`'s run and its inputs: once the stream has
    /// ended, a tag its expressions named that no game held is warned about.
    selected: Option<(Selector, Vec<Input>)>,
    /// The process whose threads make the batches.
    owner: Owner,
}

/// The batches as an Arrow `RecordBatchReader`; an input error ends the stream
/// with that error (the consumer raises it, pyarrow as `OSError`-like
/// `ArrowException` with the CLI's message).
struct Reader {
    schema: SchemaRef,
    batches: Option<Batches>,
    /// The process whose threads make the batches: a consumer that took the
    /// stream before `os.fork()` may read or release it in the child.
    owner: Owner,
}

impl Iterator for Reader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.owner.is_here() {
            return Some(Err(ArrowError::ExternalError(
                Owner::refusal("pgnfen stream").into(),
            )));
        }
        self.batches.as_mut()?.next().map(|batch| {
            batch.map_err(|e| ArrowError::ExternalError(Box::new(pgnfen::Error::from(e))))
        })
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        if !self.owner.is_here() {
            // The parent's threads: neither stopped nor joined from here.
            std::mem::forget(self.batches.take());
        }
    }
}

impl RecordBatchReader for Reader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl ArrowStream {
    /// A stream of these batches.
    pub fn new(batches: Batches) -> ArrowStream {
        ArrowStream {
            schema: batches.schema(),
            batches: Some(batches),
            call: None,
            selected: None,
            owner: Owner::here(),
        }
    }

    /// Runs Python's signal handlers; when one raises (Ctrl-C), stops the
    /// export's run and returns the exception.
    fn check_signals(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Err(e) = py.check_signals() {
            if let Some(call) = &self.call {
                call.cancel.store(true, Ordering::Relaxed);
            }
            // Dropping the batches stops and joins the export's run.
            let batches = self.batches.take();
            crate::interrupt::stop_within(py, move || drop(batches));
            return Err(e);
        }
        self.give_notes(py)
    }

    /// Gives the run's notes so far as warnings.
    fn give_notes(&self, py: Python<'_>) -> PyResult<()> {
        match &self.call {
            Some(call) => call.notes.give(py),
            None => Ok(()),
        }
    }
}

impl Drop for ArrowStream {
    fn drop(&mut self) {
        if !self.owner.is_here() {
            // The parent's threads: neither stopped nor joined from here.
            std::mem::forget(self.batches.take());
            return;
        }
        // Dropping the batches waits for the export's run to stop: without
        // the GIL, as a reader may wait on a Python thread (one feeding a
        // pipe), and for a while only (a read that hangs).
        if let Some(batches) = self.batches.take() {
            if let Some(call) = &self.call {
                call.cancel.store(true, Ordering::Relaxed);
            }
            Python::attach(|py| crate::interrupt::stop_within(py, move || drop(batches)));
        }
    }
}

/// A capsule of an Arrow C data interface structure under its standard name.
fn capsule<'py, T: Send + 'static>(
    py: Python<'py>,
    value: T,
    name: &str,
) -> PyResult<Bound<'py, PyCapsule>> {
    let name = CString::new(name).expect("no NUL in the name");
    // The consumer moves the structure out (leaving its release callback
    // null); the capsule's copy then releases nothing when dropped.
    PyCapsule::new(py, value, Some(name))
}

/// One record batch, handed over through the Arrow PyCapsule interface
/// (``pyarrow.record_batch(batch)`` takes it without a copy).
#[pyclass(module = "pgnfen", name = "ArrowBatch")]
pub struct ArrowBatch {
    batch: Option<RecordBatch>,
}

#[pymethods]
impl ArrowBatch {
    /// The batch as a struct array (the Arrow PyCapsule interface); once.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        // Best effort, as the interface has it: the batch comes in the
        // export's own schema whatever is asked; the consumer casts it.
        let _ = requested_schema;
        let batch = self
            .batch
            .take()
            .ok_or_else(|| crate::errors::usage("this batch was already handed over"))?;
        let data = StructArray::from(batch).into_data();
        let (array, schema) = to_ffi(&data).map_err(|e| crate::errors::internal(e.to_string()))?;
        Ok((
            capsule::<FFI_ArrowSchema>(py, schema, "arrow_schema")?,
            capsule::<FFI_ArrowArray>(py, array, "arrow_array")?,
        ))
    }
}

#[pymethods]
impl ArrowStream {
    /// Hands the stream over (the Arrow PyCapsule interface). A stream can be
    /// consumed once; a ``requested_schema`` is not applied (best effort, as
    /// the interface allows): the stream keeps the export's schema.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // Best effort, as the interface has it: the stream comes in the
        // export's own schema whatever is asked (`pa.table(stream,
        // schema=...)` asks for one and casts).
        let _ = requested_schema;
        self.owner.check("stream")?;
        let batches = self.batches.take().ok_or_else(|| {
            crate::errors::usage(
                "this pgnfen stream was already consumed; call pgnfen.scan() again",
            )
        })?;
        let reader = Reader {
            schema: self.schema.clone(),
            batches: Some(batches),
            owner: self.owner,
        };
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        let name = CString::new("arrow_array_stream").expect("no NUL in the name");
        // The consumer moves the stream out (leaving its release callback
        // null); dropping the capsule's copy then releases nothing, and an
        // unconsumed stream is released, which stops the export.
        PyCapsule::new(py, stream, Some(name))
    }

    /// The schema (the Arrow PyCapsule interface).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| crate::errors::internal(e.to_string()))?;
        capsule(py, schema, "arrow_schema")
    }

    /// The next batch (an ``ArrowBatch``), or None at the end. Waits with the
    /// GIL released, looking for Ctrl-C every few tens of milliseconds: a
    /// signal handler's exception stops the export and is raised here.
    fn next_batch(slf: &Bound<'_, Self>) -> PyResult<Option<ArrowBatch>> {
        // Borrowed here, so that a second thread is told plainly that the
        // stream is in use (`errors::busy`).
        let mut this = slf.try_borrow_mut().map_err(|_| crate::errors::busy())?;
        this.owner.check("stream")?;
        this.next_batch_now(slf.py())
    }

    /// The column names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }
}

impl ArrowStream {
    /// [`ArrowStream::next_batch`], borrowed.
    fn next_batch_now(&mut self, py: Python<'_>) -> PyResult<Option<ArrowBatch>> {
        // Before each batch too: a consumer written in C (`read_all()`,
        // `list(...)`) gives Python no other moment to run its handlers.
        self.check_signals(py)?;
        loop {
            let Some(batches) = self.batches.as_mut() else {
                return Ok(None);
            };
            match crate::interrupt::detach(py, || batches.next_timeout(interrupt::POLL)) {
                Some(Some(Ok(batch))) => return Ok(Some(ArrowBatch { batch: Some(batch) })),
                Some(Some(Err(e))) => {
                    self.batches = None;
                    return Err(command_error(pgnfen::Error::from(e)));
                }
                Some(None) => {
                    self.batches = None;
                    if let (Some(call), Some((selector, inputs))) =
                        (&self.call, self.selected.take())
                    {
                        let notes = &call.notes;
                        crate::interrupt::detach(py, || {
                            notes.unseen_tags(&selector, &inputs, "where=");
                        });
                    }
                    self.give_notes(py)?;
                    return Ok(None);
                }
                None => {}
            }
            self.check_signals(py)?;
        }
    }
}

/// The tag columns a `tags` argument names: None (the default columns),
/// "all", or a list of names (a str is one name list separated by commas).
pub(crate) fn tag_columns(tags: Option<&Bound<'_, PyAny>>) -> PyResult<TagColumns> {
    let Some(tags) = tags.filter(|t| !t.is_none()) else {
        return Ok(TagColumns::Default);
    };
    if let Ok(s) = tags.extract::<String>() {
        return Ok(TagColumns::parse(&s));
    }
    // Another type is a TypeError, as for every argument of the wrong type.
    let names: Vec<String> = tags.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(
            "tags must be None, \"all\" or a list of tag names (str)",
        )
    })?;
    Ok(TagColumns::Named(names))
}

/// The native half of ``pgnfen.scan``: starts the export and returns its
/// stream (``pgnfen.scan`` wraps it in a ``pyarrow.RecordBatchReader``).
/// Without pyarrow: any reader of the Arrow PyCapsule interface takes the
/// stream (``__arrow_c_stream__``) or its batches one at a time.
///
/// >>> stream = pgnfen.scan_stream("samples/mixed.pgn", tags=["White", "Black"])
/// >>> stream.column_names[-3:]
/// ['White', 'Black', 'other_tags']
/// >>> stream.next_batch() is not None
/// True
#[pyfunction]
#[pyo3(signature = (*paths, tags=None, threads=None, encoding=None, r#where=None, speeds=None))]
// Written out: PyO3 renders the default of a raw identifier as `...`.
#[pyo3(
    text_signature = "(*paths, tags=None, threads=None, encoding=None, where=None, speeds=None)"
)]
pub fn scan_stream(
    py: Python<'_>,
    paths: &Bound<'_, PyTuple>,
    tags: Option<&Bound<'_, PyAny>>,
    threads: Option<crate::Threads>,
    encoding: Option<&str>,
    r#where: Option<&Bound<'_, PyAny>>,
    speeds: Option<crate::StrList>,
) -> PyResult<ArrowStream> {
    let encoding = crate::encoding_arg(encoding)?;
    let inputs = inputs(paths, "scan")?;
    let selector = crate::export_selector(r#where, speeds)?;
    let (pipeline, call) = cancellable(threads)?;
    let export_options = ExportOptions {
        tags: tag_columns(tags)?,
        selector,
        encoding,
        ..ExportOptions::default()
    };
    if let TagColumns::Named(names) = &export_options.tags {
        export::Columns::named(names).map_err(|e| crate::columns_error(&e))?;
    }
    pgnfen::pipeline::check_inputs_exist(&inputs).map_err(command_error)?;
    // `tags="all"` reads the inputs once for the names: without the GIL.
    // The run owns what it reads (a call may leave a run whose read hangs)
    // and hands it back.
    let (columns, inputs, export_options, pipeline) = interrupt::run(py, &call, move || {
        let columns = export::columns(&inputs, &export_options, &pipeline);
        (columns, inputs, export_options, pipeline)
    })?;
    let columns = columns.map_err(|e| command_error(e.into()))?;
    let batches = export::batches(&inputs, columns, &export_options, &pipeline);
    Ok(ArrowStream {
        schema: batches.schema(),
        batches: Some(batches),
        call: Some(call),
        selected: Some((export_options.selector, inputs)),
        owner: Owner::here(),
    })
}
