//! A game's tags for Python: `Game.headers`, a new dict of every tag, and
//! `Game.tags`, a read-only mapping read from the game's bytes when asked.
//! Looking up one tag in `tags` reads the header's lines up to that tag and
//! decodes only its value; everything else (length, iteration, equality)
//! builds the whole dict once and keeps it. `headers` is made from the last
//! game's dict ([`every_tag`]); even so it is about half of a `games()` loop
//! that takes it (CPython makes a dict per game and a string per changed
//! value), and many programs read a few tags.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyString};

use pgnfen::internals::LastHeader;
use pgnfen::pgn::encoding::{Encoding, decode_escaped, decode_name, escaped, unique_key};
use pgnfen::pgn::tags::same_bytes;

use crate::PyGame;

/// The tags of one game: a read-only ``Mapping[str, str]`` of every tag,
/// values PGN-unescaped and decoded as ``games(encoding=...)`` says, read
/// from the game's bytes when asked. A repeated tag keeps its first value.
/// ``copy()`` gives a dict (the same as ``game.headers``).
#[pyclass(frozen, module = "pgnfen", name = "Tags", mapping)]
pub(crate) struct Tags {
    game: Py<PyGame>,
    /// Every tag, made at the first call that needs them all.
    all: PyOnceLock<Py<PyDict>>,
}

impl Tags {
    pub(crate) fn new(game: Py<PyGame>) -> Tags {
        Tags {
            game,
            all: PyOnceLock::new(),
        }
    }

    /// The value of tag `key`, or None (also for a key that is not a str).
    fn lookup<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let Some(all) = self.all.get(py) {
            return all.bind(py).get_item(key);
        }
        let Ok(key) = key.cast::<PyString>() else {
            // As a dict answers: an unhashable key is a TypeError, any other
            // that is not a str no tag's name.
            key.hash()?;
            return Ok(None);
        };
        // A str that is no UTF-8 (a lone surrogate) names no tag: tags are
        // read as UTF-8 or Windows-1252, which never give one.
        let Ok(key) = key.to_cow() else {
            return Ok(None);
        };
        if key.contains(['#', '\\']) {
            // Maybe the key of a name that reads like an earlier one
            // (`every_tag`), which only the whole dict knows.
            return self.all(py)?.get_item(&*key);
        }
        note_tag_read();
        let game = self.game.get();
        Ok(game
            .game
            .tag_in(&key, game.encoding)
            .map(|value| PyString::new(py, &value).into_any()))
    }

    /// Every tag as a dict (made once).
    fn all<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyDict>> {
        let all = self
            .all
            .get_or_try_init(py, || every_tag(py, self.game.get()).map(Bound::unbind))?;
        Ok(all.bind(py))
    }
}

#[pymethods]
impl Tags {
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.lookup(py, key)?
            .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(key.clone().unbind()))
    }

    /// The value of tag ``key``, or ``default``.
    #[pyo3(signature = (key, default=None, /))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(self.lookup(py, key)?.or(default))
    }

    fn __contains__<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<bool> {
        Ok(self.lookup(py, key)?.is_some())
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.all(py)?.len())
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.all(py)?.as_any().try_iter()?.into_any())
    }

    /// The tag names, in the order of the header.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.all(py)?.call_method0("keys")
    }

    /// The values, in the order of the header.
    fn values<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.all(py)?.call_method0("values")
    }

    /// The (name, value) pairs, in the order of the header.
    fn items<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.all(py)?.call_method0("items")
    }

    /// A new dict of every tag (``game.headers``): the same as ``dict(tags)``,
    /// faster (one copy instead of a lookup per tag).
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match self.all.get(py) {
            Some(all) => all.bind(py).copy(),
            None => every_tag(py, self.game.get()),
        }
    }

    /// Equal to another game's tags or to a dict with the same tags.
    fn __eq__<'py>(&self, py: Python<'py>, other: &Bound<'py, PyAny>) -> PyResult<Py<PyAny>> {
        let mine = self.all(py)?;
        let equal = if let Ok(other) = other.cast::<Tags>() {
            mine.eq(other.get().all(py)?)?
        } else if other.is_instance_of::<PyDict>() {
            mine.eq(other)?
        } else {
            return Ok(py.NotImplemented());
        };
        Ok(PyBool::new(py, equal).to_owned().into_any().unbind())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Tags({})", self.all(py)?.repr()?))
    }
}

/// Every tag of the game as a dict, a repeated tag keeping its first value
/// (`Game.headers`).
///
/// Consecutive games of an archive mostly have the same tag names in the same
/// order, and most of their values are those of the game before (Event, Site,
/// Date, often the Result: 82 % of the values of the real files of the test
/// corpus). So the dict of the last game read is kept as a template: for a
/// game with the same names, only the values that differ are decoded and put
/// into it, and the game gets a copy of it (one copy of its key table:
/// nothing hashed, no growing). A game with other names builds its dict tag
/// by tag, and becomes the template. Both give the same dict.
///
/// The game's pairs are read by a [`LastHeader`], which keeps the last
/// game's header: the lines that begin both headers alike (three quarters of
/// the corpus's pairs) are neither read again nor compared with the
/// template's pairs. Unlike a lookup in `tags`, it does not ask the pipeline
/// for its index of each header's pairs ([`note_tag_read`]): reading the
/// rest of the header on this thread costs less than the index on the sink's
/// thread.
pub(crate) fn every_tag<'py>(py: Python<'py>, game: &PyGame) -> PyResult<Bound<'py, PyDict>> {
    CACHE.with(|cache| match cache.try_borrow_mut() {
        Ok(mut cache) => every_tag_with(py, game, cache.get_or_insert_with(Cache::default)),
        // Taken: a call made within this one, on this thread (nothing below
        // runs Python code today; a collection started by an allocation
        // could). That call makes its dict without the cache.
        Err(_) => every_tag_with(py, game, &mut Cache::default()),
    })
}

fn every_tag_with<'py>(
    py: Python<'py>,
    game: &PyGame,
    cache: &mut Cache,
) -> PyResult<Bound<'py, PyDict>> {
    let encoding = game.encoding;
    let shared = cache.last.read(&game.game);
    // Taken out while in use: a game that does not fill it (or an error on
    // the way) leaves none, and the dict is then built anew.
    if let Some(mut template) = cache.template.take()
        && template.encoding == encoding
        && let Some(d) = template.fill(py, &cache.last, shared)?
    {
        cache.template = Some(template);
        return Ok(d);
    }
    let pairs: Vec<(&[u8], &[u8])> = cache.last.pairs().collect();
    let d = PyDict::new(py);
    let mut names = Vec::with_capacity(pairs.len());
    for (name, raw) in &pairs {
        let name = tag_name(py, &mut cache.names, &decode_name(name, encoding));
        d.set_item(&name, &*decode_escaped(raw, encoding))?;
        names.push(name);
    }
    if d.len() < pairs.len() {
        // Rare: a repeated tag (`set_item` kept its last value, and the rule
        // everywhere in pgnfen is the first), or two names that read alike
        // once decoded (`é` in Windows-1252 and in UTF-8), which are two
        // tags and keep both, under the keys `export` gives them in
        // `other_tags`: the escaped form, then `#2`, `#3`, ...
        d.clear();
        let mut seen: HashSet<&[u8]> = HashSet::with_capacity(pairs.len());
        for (name, (raw_name, raw)) in names.iter().zip(&pairs) {
            if !seen.insert(raw_name) {
                continue;
            }
            let value = decode_escaped(raw, encoding);
            if !d.contains(name)? {
                d.set_item(name, &*value)?;
                continue;
            }
            let key = unique_key(escaped(raw_name), |k| d.contains(k).unwrap_or(true));
            d.set_item(key, &*value)?;
        }
        return Ok(d);
    }
    if pairs.iter().map(|(n, v)| n.len() + v.len()).sum::<usize>() > TEMPLATE_BYTES {
        // Not kept: the template's dict holds its game's values.
        return Ok(d);
    }
    cache.template = Some(Template {
        encoding,
        names: names.into_iter().map(Bound::unbind).collect(),
        dict: d.copy()?.unbind(),
    });
    Ok(d)
}

/// What [`every_tag`] keeps between games.
#[derive(Default)]
struct Cache {
    names: Names,
    /// The headers of the last two games read, as written.
    last: LastHeader,
    /// The dict of the game before the one `last` read last (its
    /// [`LastHeader::before`]), when none of its names came twice.
    template: Option<Template>,
}

/// The tags of a game, kept to make the dict of the next.
struct Template {
    encoding: Encoding,
    /// Its names as the keys of `dict`, in header order.
    names: Vec<Py<PyString>>,
    /// Its dict (never handed out: copies of it are).
    dict: Py<PyDict>,
}

impl Template {
    /// The dict of the game `last` read last, made from the template's (the
    /// game before's) when the game has as many pairs with the same names in
    /// the same order: its values that differ are decoded and put into the
    /// template's dict, which so becomes this game's, and a copy of it is the
    /// game's dict. The first `shared` pairs are the game before's byte for
    /// byte and are not looked at. `None` at the first name that differs
    /// (the template's dict then holds some of this game's values: the
    /// caller drops it).
    fn fill<'py>(
        &mut self,
        py: Python<'py>,
        last: &LastHeader,
        shared: usize,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        if last.pairs().len() != self.names.len() || last.before().len() != self.names.len() {
            return Ok(None);
        }
        let template = self.dict.bind(py);
        for (i, key) in self.names.iter().enumerate().skip(shared) {
            let (Some((name, raw)), Some((name_before, raw_before))) = last.pair(i) else {
                return Ok(None);
            };
            if !same_bytes(name, name_before) {
                return Ok(None);
            }
            if !same_bytes(raw, raw_before) {
                // Into the template, which is then copied: one insertion per
                // changed value rather than one in the copy and one here.
                let value = PyString::new(py, &decode_escaped(raw, self.encoding));
                template.set_item(key.bind(py), &value)?;
            }
        }
        Ok(Some(template.copy()?))
    }
}

thread_local! {
    /// Each thread's own, so that no lock is taken per game (a shared
    /// `Mutex` before; with [`same_bytes`] and [`note_tag_read`], 0.955 of a
    /// `headers` loop's time in paired runs). A thread's names and template
    /// are dropped when it ends.
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

/// The most bytes of names and values a template keeps (a lichess header
/// holds about 400).
const TEMPLATE_BYTES: usize = 64 << 10;

/// How many times a program looked up one tag in `tags`: a stream of games
/// (`GameIterator`) that sees it change has its pipeline find each game's
/// tags from then on, so that each lookup finds its tag without reading the
/// header's lines before it, and a loop that looks up none does not pay for
/// that. `headers` (and what `tags` answers from the whole dict) does not
/// count: it reads the pairs itself, only from the first line that differs
/// from the last game's header ([`every_tag`]).
pub(crate) static TAG_READS: AtomicU64 = AtomicU64::new(0);

/// Counts a read of tags in [`TAG_READS`]. A load and a store rather than an
/// atomic add (a locked instruction per game): two threads at once may count
/// one read, but the count still changes, which is all its readers look at.
fn note_tag_read() {
    TAG_READS.store(
        TAG_READS.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Relaxed,
    );
}

/// Tag names seen so far, as Python strings: a few dozen names make up
/// nearly every header, and a string used again keeps its hash, so building
/// dicts costs much less. Bounded: past [`TAG_NAMES`] names (hostile input)
/// new names are made each time.
type Names = HashMap<Box<str>, Py<PyString>, foldhash::fast::FixedState>;
const TAG_NAMES: usize = 1024;

fn tag_name<'py>(py: Python<'py>, names: &mut Names, name: &str) -> Bound<'py, PyString> {
    if let Some(s) = names.get(name) {
        return s.bind(py).clone();
    }
    let s = PyString::new(py, name);
    if names.len() < TAG_NAMES {
        names.insert(name.into(), s.clone().unbind());
    }
    s
}
