//! The engine's job and sink of `convert`: the edits of each game's FEN tags,
//! found on the worker threads, applied to its bytes in input order.

use super::*;
use crate::check::job::raw_span;
use smallvec::SmallVec;
use std::sync::Arc;

/// A change to the input: `remove` bytes at `offset` replaced by `insert`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Absolute offset in the input where the change starts.
    pub offset: u64,
    /// Bytes of the input dropped there.
    pub remove: usize,
    /// Bytes written in their place.
    pub insert: Inserted,
    /// Whether the writer ends `insert` with the line end of the bytes
    /// written before it: a line inserted before one that has no line end
    /// of its own to copy (the input's last line), which then ends as the
    /// lines of the file do.
    pub end_line: bool,
}

/// The bytes of an [`Edit`] on the merger: a FEN as written (nearly always
/// under 96 bytes) or an inserted tag pair lies in the edit itself.
pub type Inserted = SmallVec<[u8; 96]>;

/// A FEN tag left as it was, and why.
#[derive(Clone, Debug)]
pub struct Unchanged {
    /// Relative line (add the game's line delta).
    pub line: u64,
    /// 1-based column of the fault, in characters.
    pub column: usize,
    /// Why the FEN was left unchanged.
    pub code: Code,
    /// What is wrong, in a sentence.
    pub message: String,
    /// How many FEN tags the report stands for: one, or every tag past
    /// those a header keeps (one report for all of them).
    pub tags: u64,
}

/// What convert does to one game.
///
/// A game's edits lie in a block that the games of its chunk share: a worker
/// stages them as it goes, and [`Job::seal`] makes the block when the chunk is
/// done. Before, each rewritten FEN took two heap blocks (the edit list, its
/// bytes) on a worker that the merger freed, and the merger and the workers
/// waited on the allocator's locks; edits kept in the result itself made
/// every result three times as large, which cost the games without a FEN
/// more than it saved (docs/performance-log.md, "Waits between the threads").
#[derive(Clone, Debug, Default)]
pub struct GameEdits {
    /// Its edits: indices into the block's (or, until sealed, the stage's).
    edits: [u32; 2],
    /// The bytes its edits insert, for [`Job::weight`] before the seal.
    inserted: u32,
    /// The block of its chunk's edits, once sealed (none without edits).
    block: Option<Arc<EditBlock>>,
    /// The FEN tags left as they were.
    pub unchanged: Vec<Unchanged>,
    /// The FEN tags written in the dialect.
    pub converted: u32,
}

impl GameEdits {
    /// The changes to make, by offset.
    pub fn edits(&self) -> impl Iterator<Item = Edit> + '_ {
        let [from, to] = self.edits.map(|i| i as usize);
        let block = self.block.as_deref().filter(|_| from < to);
        debug_assert!(from == to || block.is_some(), "edits read before the seal");
        block.into_iter().flat_map(move |block| {
            block.edits[from..to].iter().map(|e| Edit {
                offset: e.offset,
                remove: e.remove,
                insert: Inserted::from_slice(
                    &block.bytes[e.bytes[0] as usize..e.bytes[1] as usize],
                ),
                end_line: e.end_line,
            })
        })
    }
}

/// What [`ConvertJob::game`] finds. Its edits go straight into this
/// thread's stage as they are found (a rewritten FEN is copied once, from
/// the memo into the stage, rather than into an [`Edit`] first); a game
/// without edits does not touch the stage.
#[derive(Default)]
struct Found {
    /// The index in the stage of the game's first edit, once it has one.
    from: Option<u32>,
    /// The bytes its edits insert.
    inserted: u32,
    unchanged: Vec<Unchanged>,
    converted: u32,
}

impl Found {
    /// Stages `insert` in place of `remove` bytes at `offset`.
    fn edit(&mut self, offset: u64, remove: usize, insert: &[u8], end_line: bool) {
        self.inserted += insert.len() as u32;
        STAGE.with_borrow_mut(|stage| {
            self.from.get_or_insert(stage.edits.len() as u32);
            let start = stage.bytes.len() as u32;
            stage.bytes.extend_from_slice(insert);
            stage.edits.push(StagedEdit {
                offset,
                remove,
                bytes: [start, stage.bytes.len() as u32],
                end_line,
            });
        });
    }

    /// Stages an insertion made as an [`Edit`] (`--repair`'s tag pairs).
    fn stage(&mut self, edit: &Edit) {
        self.edit(edit.offset, edit.remove, &edit.insert, edit.end_line);
    }

    /// The game's result, its edits sorted by offset (`--repair`'s
    /// insertions are found out of order; the sort is stable).
    fn into_staged(self) -> GameEdits {
        let edits = self.from.map_or([0, 0], |from| {
            STAGE.with_borrow_mut(|stage| {
                stage.edits[from as usize..].sort_by_key(|e| e.offset);
                [from, stage.edits.len() as u32]
            })
        });
        GameEdits {
            edits,
            inserted: self.inserted,
            block: None,
            unchanged: self.unchanged,
            converted: self.converted,
        }
    }
}

/// The edits of the games of one chunk (or piece), shared by their results.
#[derive(Debug, Default)]
struct EditBlock {
    edits: Vec<StagedEdit>,
    /// The bytes every edit inserts, end to end.
    bytes: Vec<u8>,
}

/// An [`Edit`] in an [`EditBlock`]: its bytes are `bytes[0]..bytes[1]` of the block's.
#[derive(Clone, Copy, Debug)]
struct StagedEdit {
    offset: u64,
    remove: usize,
    bytes: [u32; 2],
    end_line: bool,
}

thread_local! {
    /// The edits of the games this thread made since its last seal.
    static STAGE: RefCell<EditBlock> = RefCell::new(EditBlock::default());
}

impl EditBlock {
    /// The staged edits as a block to share; the stage starts again with
    /// room for as much.
    fn take_stage() -> EditBlock {
        STAGE.with_borrow_mut(|stage| {
            let fresh = EditBlock {
                edits: Vec::with_capacity(stage.edits.len()),
                bytes: Vec::with_capacity(stage.bytes.len()),
            };
            std::mem::replace(stage, fresh)
        })
    }
}

/// Rewrites each readable FEN tag of a game.
#[derive(Debug)]
pub struct ConvertJob {
    /// The dialect every FEN is written in.
    pub dialect: Dialect,
    /// The en passant policy (default: the dialect's own).
    pub ep: Option<EpPolicy>,
    /// Also insert missing SetUp and Variant tags and complete missing clocks.
    pub repair: bool,
}

impl Job for ConvertJob {
    type Game = GameEdits;

    fn game(&self, header: &Header<'_>) -> GameEdits {
        if header.is_empty() {
            return GameEdits::default();
        }
        let mut out = Found::default();
        let family = header
            .tags()
            .find(|t| t.name == TagName::Variant)
            .map_or(VariantFamily::StandardLike, |t| {
                VariantFamily::of(&decode_value(t.raw))
            });
        let has_setup = header.tags().any(|t| t.name == TagName::SetUp);
        if self.repair
            && let Some(insertion) = variant_insertion(header)
        {
            out.stage(&insertion);
        }
        let mut first_fen = true;
        for tag in header.tags().filter(|t| t.name == TagName::Fen) {
            if self.repair && !has_setup && first_fen {
                out.stage(&insertion_before(&tag, b"[SetUp \"1\"]", tag.line_end));
            }
            first_fen = false;
            // Other variants' FENs are not ours to read (class `other`): left alone, not reported.
            if family == VariantFamily::Other {
                continue;
            }
            let column = |at: usize| tag.column(tag.value_column + at);
            if !tag.complete {
                out.unchanged.push(Unchanged {
                    line: tag.line,
                    column: column(0),
                    code: Code::FenSyntax,
                    message: crate::pipeline::game::too_long(tag.name),
                    tags: 1,
                });
                continue;
            }
            let value = decode_value(tag.raw);
            self.rewrite(&value, family.hint(), |rewrite| match rewrite {
                Rewrite::Written(text) => {
                    out.converted += 1;
                    if text[..] != *tag.raw {
                        out.edit(tag.value_offset, tag.raw.len(), text, false);
                    }
                }
                Rewrite::Unchanged { code, at, message } => out.unchanged.push(Unchanged {
                    line: tag.line,
                    // Spans lie in the decoded value: mapped back to the raw
                    // bytes through the escapes, as `check` places them.
                    column: column(raw_span(tag.raw, *at..*at).map_or(0, |raw| raw.start)),
                    code: *code,
                    message: message.to_string(),
                    tags: 1,
                }),
            });
        }
        if let Some((n, line)) = header.dropped_fens()
            && family != VariantFamily::Other
        {
            // Past the tags a header keeps (bounded memory): reported, never
            // silent (but as the kept ones, not at all in another variant).
            out.unchanged.push(Unchanged {
                line,
                column: 1,
                code: Code::FenSyntax,
                message: format!(
                    "{n} more FEN tag(s) in this game not read: a header keeps at most {} SetUp/FEN/Variant tags and {} KiB of their text",
                    crate::pipeline::game::MAX_TAGS,
                    crate::pipeline::game::HEADER_BUDGET >> 10
                ),
                tags: n,
            });
        }
        out.into_staged()
    }

    /// The edits staged since the last seal become one block that their
    /// games share.
    fn seal<'g>(&self, results: impl Iterator<Item = &'g mut GameEdits>) {
        let mut block = None;
        for game in results.filter(|g| g.edits[0] < g.edits[1]) {
            let block = block.get_or_insert_with(|| Arc::new(EditBlock::take_stage()));
            game.block = Some(Arc::clone(block));
        }
    }

    /// The edits' and notes' heap: a file of tiny games each with a FEN to
    /// rewrite holds several times its size in edits.
    fn weight(&self, game: &GameEdits) -> usize {
        let block = crate::check::HEAP_BLOCK;
        (game.edits[1] - game.edits[0]) as usize * std::mem::size_of::<StagedEdit>()
            + game.inserted as usize
            + game.unchanged.capacity() * std::mem::size_of::<Unchanged>()
            + game
                .unchanged
                .iter()
                .map(|u| u.message.capacity() + block)
                .sum::<usize>()
            + 2 * block
    }
}

/// What becomes of one FEN value.
#[derive(Clone, Debug)]
enum Rewrite {
    /// The FEN in the dialect, in the edit's own type: no heap block per FEN
    /// (a string, then its copy as a shared `Rc<str>`, were two allocations
    /// and two frees per FEN on the workers; docs/performance-log.md).
    Written(Inserted),
    /// Left as it was: the problem's code, where (in the value) and why.
    Unchanged {
        code: Code,
        at: usize,
        message: Rc<str>,
    },
}

/// Entries of the per-thread memo of rewrites.
const REWRITE_MEMO_SLOTS: usize = 16384;

thread_local! {
    static REWRITES: RefCell<Memo<Rewrite>> = const { RefCell::new(Memo::new()) };
    /// The text of the FEN being written, kept from one FEN to the next.
    static TEXT: RefCell<String> = const { RefCell::new(String::new()) };
}

impl ConvertJob {
    /// Reads `value` and writes it in the dialect, through this thread's memo
    /// (start positions repeat: every Chess960 array, an opening book's
    /// lines), and hands the outcome to `use_it` where it lies.
    fn rewrite<R>(&self, value: &[u8], hint: VariantHint, use_it: impl FnOnce(&Rewrite) -> R) -> R {
        let salt =
            hint as u64 | (self.dialect as u64) << 8 | self.ep.map_or(0, |e| 1 + e as u64) << 16;
        REWRITES.with_borrow_mut(|memo| {
            memo.with_or_compute(
                REWRITE_MEMO_SLOTS,
                value,
                salt,
                || classify::with_analysis(value, hint, |analysis| self.written(value, analysis)),
                use_it,
            )
        })
    }

    /// What becomes of `value`, whose analysis is `analysis`.
    fn written(&self, value: &[u8], analysis: &crate::fen::Analysis) -> Rewrite {
        // Into this thread's buffer, then into the edit's own bytes: no heap
        // block per FEN.
        let written = TEXT.with_borrow_mut(|text| {
            text.clear();
            let written = analysis.write_into(value, self.dialect, self.ep, text)?;
            Some(written.map(|()| Inserted::from_slice(text.as_bytes())))
        });
        match written {
            Some(Ok(text)) => Rewrite::Written(text),
            Some(Err(problem)) => Rewrite::Unchanged {
                code: problem.code,
                at: problem.span.start,
                message: match problem.help {
                    Some(help) => format!("{}; help: {help}", problem.message).into(),
                    None => problem.message.into(),
                },
            },
            // No position: the record's first error.
            None => {
                let problem = analysis.problems.iter().find(|p| p.is_error());
                Rewrite::Unchanged {
                    code: problem.map_or(Code::FenSyntax, |p| p.code),
                    at: problem.map_or(0, |p| p.span.start),
                    message: problem
                        .map_or("the FEN cannot be read", |p| p.message.as_str())
                        .into(),
                }
            }
        }
    }
}

/// `--repair`'s `[Variant "Chess960"]` for a game of class `chess960` without a
/// Variant tag (a Chess960 start array or Chess960 castling, recognised from the
/// position alone): directly before the FEN tag, or before the SetUp tag when that
/// is the tag pair just before the FEN tag in the text (only blanks and one line
/// end between them), so the three start-position tags stay together. A line
/// of its own ends as the FEN tag's line does. Pushed before any SetUp
/// insertion at the same offset, so the edits (applied in a stable order) give
/// Variant, SetUp, FEN.
fn variant_insertion(header: &Header<'_>) -> Option<Edit> {
    if header.tags().any(|t| t.name == TagName::Variant)
        || classify::classify(&header.inputs()).class != Class::Chess960
    {
        return None;
    }
    // `tags()` holds only the start-position tags: the one before the FEN
    // tag here may have other tags between them in the header.
    let mut before: Option<HeaderTag<'_>> = None;
    for tag in header.tags() {
        if tag.name == TagName::Fen {
            let anchor = match before {
                Some(setup) if setup.name == TagName::SetUp && pair_just_before(&setup, &tag) => {
                    setup
                }
                _ => tag,
            };
            return Some(insertion_before(
                &anchor,
                b"[Variant \"Chess960\"]",
                tag.line_end,
            ));
        }
        before = Some(tag);
    }
    None
}

/// Whether the tag pair of `first` ends just before that of `second` begins:
/// on the same line with only blanks between them, or ending its line (but
/// for blanks) with `second` opening the next one. Lines seen through a
/// window (longer than 4 KiB) are not looked into: not adjacent.
pub(super) fn pair_just_before(first: &HeaderTag<'_>, second: &HeaderTag<'_>) -> bool {
    let blank = |b: &[u8]| b.iter().all(|&c| c == b' ' || c == b'\t');
    if first.column_base != 0 || second.column_base != 0 || !first.complete {
        return false;
    }
    // The closing quote is right after the raw value, then blanks and `]`.
    let Some(rest) = first.line_text.get(first.value_column + first.raw.len()..) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(b"\"") else {
        return false;
    };
    let Some(close) = rest.iter().position(|&c| c != b' ' && c != b'\t') else {
        return false;
    };
    if rest[close] != b']' {
        return false;
    }
    let after = &rest[close + 1..];
    let before_value = &second.line_text[..second.value_column.min(second.line_text.len())];
    let Some(bracket) = before_value.iter().rposition(|&b| b == b'[') else {
        return false;
    };
    if first.line == second.line {
        // Same line: `after` runs on to the second pair's `[`.
        let between = after.len().checked_sub(second.line_text.len() - bracket);
        between.is_some_and(|n| blank(&after[..n]))
    } else {
        first.line + 1 == second.line && blank(after) && blank(&before_value[..bracket])
    }
}

/// `text` (a whole tag pair) directly before `tag`: on a line of its own when the
/// tag opens its line (ended by `line_end`, the FEN tag's; when that line has
/// none, the input's last, by the line end written before it: see
/// [`Edit::end_line`]), else just before the tag pair on the
/// same line (`[Event "x"] [SetUp "1"] [FEN "..."]`).
pub(super) fn insertion_before(tag: &HeaderTag<'_>, text: &[u8], line_end: &[u8]) -> Edit {
    let line_start = tag.value_offset - tag.value_column as u64;
    let before_value = &tag.line_text[..tag.value_column.min(tag.line_text.len())];
    let bracket = before_value.iter().rposition(|&b| b == b'[').unwrap_or(0);
    let opens_line = before_value[..bracket]
        .iter()
        .all(|&b| b == b' ' || b == b'\t');
    if opens_line {
        let mut insert = Inserted::from_slice(text);
        insert.extend_from_slice(line_end);
        Edit {
            offset: line_start,
            remove: 0,
            insert,
            end_line: line_end.is_empty(),
        }
    } else {
        Edit {
            offset: line_start + bracket as u64,
            remove: 0,
            insert: [text, b" "].concat().into(),
            end_line: false,
        }
    }
}

/// Report lines for standard error, written a chunk's worth at a time: one
/// write per line (standard error is unbuffered) made a `convert` that
/// reports 8,000 FENs 8 % slower. Written when the chunk is merged, when a
/// buffer's worth waits, and when dropped (at the end of the run, also a
/// failed one).
struct Reports(String);

impl Reports {
    fn add(&mut self, line: &str) {
        self.0.push_str(line);
        self.0.push('\n');
        if self.0.len() >= 64 << 10 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if !self.0.is_empty() {
            // Standard error gone (a closed pipe): nothing to report to.
            let _ = io::stderr().lock().write_all(self.0.as_bytes());
            self.0.clear();
        }
    }
}

impl Drop for Reports {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Writes the games with their edits applied.
pub struct EditingSink<W> {
    out: W,
    file: String,
    quiet: bool,
    /// Where the reports go instead of standard error ([`EditingSink::notes_to`]).
    watch: Option<std::sync::Arc<dyn crate::pipeline::Watch>>,
    /// Reports for standard error not yet written.
    reports: Reports,
    pub(super) edits: std::collections::VecDeque<Edit>,
    /// Bytes of the input still to drop (an edit's removed part running on).
    skip: usize,
    /// FEN tags written so far.
    pub converted: u64,
    /// FEN tags left unchanged so far.
    pub unchanged: u64,
    /// How the bytes written last end.
    open_line: OpenLine<()>,
    /// The last two bytes written (for [`Edit::end_line`]).
    tail: [u8; 2],
}

impl<W> std::fmt::Debug for EditingSink<W> {
    /// Its file and counts, not its buffers.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditingSink")
            .field("file", &self.file)
            .field("converted", &self.converted)
            .field("unchanged", &self.unchanged)
            .finish_non_exhaustive()
    }
}

impl<W: Write> EditingSink<W> {
    /// Writes to `out`; with `quiet` false, each FEN left unchanged is reported on standard error.
    pub fn new(out: W, quiet: bool) -> Self {
        EditingSink {
            out,
            file: String::new(),
            quiet,
            watch: None,
            reports: Reports(String::new()),
            edits: Default::default(),
            skip: 0,
            converted: 0,
            unchanged: 0,
            open_line: OpenLine::default(),
            tail: [0; 2],
        }
    }

    fn put(&mut self, data: &[u8]) -> io::Result<()> {
        self.open_line.wrote((), data);
        self.put_unmarked(data)
    }

    /// Writes `data` without telling `open_line` (the line ends it asked for).
    fn put_unmarked(&mut self, data: &[u8]) -> io::Result<()> {
        match data {
            [] => {}
            [b] => self.tail = [self.tail[1], *b],
            [.., a, b] => self.tail = [*a, *b],
        }
        self.out.write_all(data)
    }

    /// The line end of the bytes written last (`\n` when they end none: the
    /// inserted line then stands first in the output).
    fn line_end_written(&self) -> &'static [u8] {
        match self.tail {
            [b'\r', b'\n'] => b"\r\n",
            [_, b'\r'] => b"\r",
            _ => b"\n",
        }
    }

    /// Sends each report to `watch` ([`Watch::note`]) instead of standard
    /// error: the run's progress display, or a caller that keeps its notes.
    ///
    /// [`Watch::note`]: crate::pipeline::Watch::note
    pub fn notes_to(mut self, watch: Option<std::sync::Arc<dyn crate::pipeline::Watch>>) -> Self {
        self.watch = watch;
        self
    }

    /// The writer, once the run is over.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink<GameEdits> for EditingSink<W> {
    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        self.file = input.display_name();
        match self.open_line.take() {
            Some(((), missing)) => self.put_unmarked(missing),
            None => Ok(()),
        }
    }

    fn begin_game(&mut self, info: &GameInfo, game: GameEdits) -> io::Result<()> {
        self.converted += u64::from(game.converted);
        self.unchanged += game.unchanged.iter().map(|u| u.tags).sum::<u64>();
        if !self.quiet {
            for u in &game.unchanged {
                let line = format!(
                    "{}:{}:{}: {}[{}]: FEN left unchanged: {}",
                    self.file,
                    u.line + info.line_delta,
                    u.column,
                    u.code.severity(),
                    u.code,
                    crate::escape::controls(&u.message)
                );
                match &self.watch {
                    Some(watch) => watch.note(&line),
                    None => self.reports.add(&line),
                }
            }
        }
        self.edits.extend(game.edits());
        Ok(())
    }

    fn destination(&self, _game: &GameEdits) -> Option<u8> {
        Some(0)
    }

    fn chunk_merged(&mut self) -> io::Result<()> {
        self.reports.flush();
        Ok(())
    }

    fn orphan_bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        self.put(data)
    }

    fn bytes(&mut self, offset: u64, mut data: &[u8]) -> io::Result<()> {
        let mut at = offset;
        loop {
            if self.skip > 0 {
                let n = self.skip.min(data.len());
                self.skip -= n;
                data = &data[n..];
                at += n as u64;
                if data.is_empty() {
                    return Ok(());
                }
            }
            let end = at + data.len() as u64;
            match self.edits.front() {
                Some(edit) if edit.offset < end => {
                    let k = edit.offset.saturating_sub(at) as usize;
                    let edit = self.edits.pop_front().expect("the edit just seen");
                    self.put(&data[..k])?;
                    // (Before the insertion is written: its own line end.)
                    let line_end = self.line_end_written();
                    self.put(&edit.insert)?;
                    if edit.end_line {
                        self.put(line_end)?;
                    }
                    self.skip = edit.remove;
                    data = &data[k..];
                    at += k as u64;
                }
                _ => return self.put(data),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(offset: u64, remove: usize, insert: &[u8]) -> Edit {
        Edit {
            offset,
            remove,
            insert: Inserted::from_slice(insert),
            end_line: false,
        }
    }

    fn staged(edits: Vec<Edit>) -> GameEdits {
        let mut found = Found::default();
        for e in &edits {
            found.stage(e);
        }
        found.into_staged()
    }

    const JOB: ConvertJob = ConvertJob {
        dialect: Dialect::Shredder,
        ep: None,
        repair: false,
    };

    #[test]
    fn staged_edits_read_back_after_the_seal() {
        let long = vec![b'x'; 300];
        for round in 0..3 {
            let one = vec![edit(10 + round, 3, b"abc")];
            // Given out of order, as `--repair`'s insertions can be.
            let two = vec![edit(90, 0, &long), edit(50, 7, b"")];
            let mut games = [staged(one.clone()), staged(vec![]), staged(two.clone())];
            assert!(JOB.weight(&games[2]) >= JOB.weight(&games[0]) + 300);
            JOB.seal(games.iter_mut());
            assert_eq!(games[0].edits().collect::<Vec<_>>(), one);
            assert_eq!(games[1].edits().count(), 0);
            assert!(games[1].block.is_none());
            let mut sorted = two;
            sorted.sort_by_key(|e| e.offset);
            assert_eq!(games[2].edits().collect::<Vec<_>>(), sorted);
            let (a, b) = (games[0].block.as_ref(), games[2].block.as_ref());
            assert!(Arc::ptr_eq(a.unwrap(), b.unwrap()), "one block a seal");
            // The stage starts again: a block holds only its seal's edits.
            assert_eq!(a.unwrap().edits.len(), 3);
        }
    }
}
