//! `pgnfen convert`: rewrites FEN tag values in another dialect; every other
//! byte is copied unchanged.

use std::io::{self, Write};

use std::cell::RefCell;
use std::rc::Rc;

use crate::class::Class;
use crate::classify::{self, VariantFamily};
use crate::cli::{ConvertArgs, Global};
use crate::commands::{Error, Outcome, check_inputs_exist, inputs, options};
use crate::fen::{Dialect, EpPolicy, VariantHint};
use crate::memo::Memo;
use crate::pgn::scan::TagName;
use crate::pgn::tags::decode_value;
use crate::pipeline::output::Output;
use crate::pipeline::{self, GameInfo, Header, HeaderTag, Input, Job, Sink};
use crate::problem::Code;

/// A change to the input: `remove` bytes at `offset` replaced by `insert`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub offset: u64,
    pub remove: usize,
    pub insert: Vec<u8>,
}

/// A FEN tag left as it was, and why.
#[derive(Clone, Debug)]
pub struct Unchanged {
    /// Relative line (add the game's line delta).
    pub line: u64,
    pub column: usize,
    pub code: Code,
    pub message: String,
}

/// What convert does to one game.
#[derive(Clone, Debug, Default)]
pub struct GameEdits {
    pub edits: Vec<Edit>,
    pub unchanged: Vec<Unchanged>,
    pub converted: u32,
}

/// Rewrites each readable FEN tag of a game.
pub struct ConvertJob {
    pub dialect: Dialect,
    pub ep: Option<EpPolicy>,
    pub repair: bool,
}

impl Job for ConvertJob {
    type Game = GameEdits;

    fn game(&self, header: &Header<'_>) -> GameEdits {
        let mut out = GameEdits::default();
        if header.is_empty() {
            return out;
        }
        let family = header
            .tags()
            .find(|t| t.name == TagName::Variant)
            .map_or(VariantFamily::StandardLike, |t| {
                VariantFamily::of(&decode_value(t.raw))
            });
        let has_setup = header.tags().any(|t| t.name == TagName::SetUp);
        if self.repair {
            out.edits.extend(variant_insertion(header));
        }
        let mut first_fen = true;
        for tag in header.tags().filter(|t| t.name == TagName::Fen) {
            if self.repair && !has_setup && first_fen {
                out.edits.push(insertion_before(&tag, b"[SetUp \"1\"]"));
            }
            first_fen = false;
            // Other variants' FENs are not ours to read (SPEC §3): left alone, not reported.
            if family == VariantFamily::Other {
                continue;
            }
            let column = |at: usize| tag.column(tag.value_column + at);
            if !tag.complete {
                out.unchanged.push(Unchanged {
                    line: tag.line,
                    column: column(0),
                    code: Code::FenSyntax,
                    message: "the FEN value is too long to read".into(),
                });
                continue;
            }
            let value = decode_value(tag.raw);
            let escaped = value.len() != tag.raw.len();
            match self.rewrite(&value, family.hint()) {
                Rewrite::Written(text) => {
                    out.converted += 1;
                    if text.as_bytes() != tag.raw {
                        out.edits.push(Edit {
                            offset: tag.value_offset,
                            remove: tag.raw.len(),
                            insert: text.as_bytes().to_vec(),
                        });
                    }
                }
                Rewrite::Unchanged { code, at, message } => out.unchanged.push(Unchanged {
                    line: tag.line,
                    // Spans lie in the decoded value: past an escape, point at the value.
                    column: column(if escaped { 0 } else { at }),
                    code,
                    message: message.to_string(),
                }),
            }
        }
        if let Some((n, line)) = header.dropped_fens() {
            // Past the tags a header keeps (bounded memory): reported, never silent.
            out.unchanged.push(Unchanged {
                line,
                column: 1,
                code: Code::FenSyntax,
                message: format!(
                    "{n} more FEN tag(s) in this game not read: a header keeps at most {} SetUp/FEN/Variant tags",
                    crate::pipeline::game::MAX_TAGS
                ),
            });
        }
        out.edits.sort_by_key(|e| e.offset);
        out
    }
}

/// What becomes of one FEN value.
#[derive(Clone, Debug)]
enum Rewrite {
    Written(Rc<str>),
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
}

impl ConvertJob {
    /// Reads `value` and writes it in the dialect, through this thread's memo
    /// (start positions repeat: every Chess960 array, an opening book's lines).
    fn rewrite(&self, value: &[u8], hint: VariantHint) -> Rewrite {
        let salt =
            hint as u64 | (self.dialect as u64) << 8 | self.ep.map_or(0, |e| 1 + e as u64) << 16;
        REWRITES.with_borrow_mut(|memo| {
            memo.get_or_compute(REWRITE_MEMO_SLOTS, value, salt, || {
                let analysis = classify::analyse_cached(value, hint);
                let Some(position) = &analysis.position else {
                    let problem = analysis.problems.iter().find(|p| p.is_error());
                    return Rewrite::Unchanged {
                        code: problem.map_or(Code::FenSyntax, |p| p.code),
                        at: problem.map_or(0, |p| p.span.start),
                        message: problem
                            .map_or("the FEN cannot be read", |p| p.message.as_str())
                            .into(),
                    };
                };
                match position.write(self.dialect, self.ep) {
                    Ok(text) => Rewrite::Written(text.into()),
                    Err(problem) => Rewrite::Unchanged {
                        code: problem.code,
                        at: problem.span.start,
                        message: match problem.help {
                            Some(help) => format!("{}; help: {help}", problem.message).into(),
                            None => problem.message.into(),
                        },
                    },
                }
            })
        })
    }
}

/// `--repair`'s `[Variant "Chess960"]` for a game of class `chess960` without a
/// Variant tag (a Chess960 start array or Chess960 castling, recognised from the
/// position alone): directly before the FEN tag, or before the SetUp tag when that
/// is the tag just before the FEN tag, so the three start-position tags stay
/// together. Pushed before any SetUp insertion at the same offset, so the edits
/// (applied in a stable order) give Variant, SetUp, FEN.
fn variant_insertion(header: &Header<'_>) -> Option<Edit> {
    if header.tags().any(|t| t.name == TagName::Variant)
        || classify::classify(&header.inputs()).class != Class::Chess960
    {
        return None;
    }
    let mut before: Option<HeaderTag<'_>> = None;
    for tag in header.tags() {
        if tag.name == TagName::Fen {
            let anchor = match before {
                Some(setup) if setup.name == TagName::SetUp => setup,
                _ => tag,
            };
            return Some(insertion_before(&anchor, b"[Variant \"Chess960\"]"));
        }
        before = Some(tag);
    }
    None
}

/// `text` (a whole tag pair) directly before `tag`: on a line of its own when the
/// tag opens its line (with that line's line end), else just before the tag
/// pair on the same line (`[Event "x"] [SetUp "1"] [FEN "..."]`).
fn insertion_before(tag: &HeaderTag<'_>, text: &[u8]) -> Edit {
    let line_start = tag.value_offset - tag.value_column as u64;
    let before_value = &tag.line_text[..tag.value_column.min(tag.line_text.len())];
    let bracket = before_value.iter().rposition(|&b| b == b'[').unwrap_or(0);
    let opens_line = before_value[..bracket]
        .iter()
        .all(|&b| b == b' ' || b == b'\t');
    if opens_line {
        let mut insert = text.to_vec();
        insert.extend_from_slice(if tag.line_end.is_empty() {
            b"\n"
        } else {
            tag.line_end
        });
        Edit {
            offset: line_start,
            remove: 0,
            insert,
        }
    } else {
        Edit {
            offset: line_start + bracket as u64,
            remove: 0,
            insert: [text, b" "].concat(),
        }
    }
}

/// Writes the games with their edits applied.
pub struct EditingSink<W> {
    out: W,
    file: String,
    quiet: bool,
    edits: std::collections::VecDeque<Edit>,
    /// Bytes of the input still to drop (an edit's removed part running on).
    skip: usize,
    pub converted: u64,
    pub unchanged: u64,
}

impl<W: Write> EditingSink<W> {
    pub fn new(out: W, quiet: bool) -> Self {
        EditingSink {
            out,
            file: String::new(),
            quiet,
            edits: Default::default(),
            skip: 0,
            converted: 0,
            unchanged: 0,
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink<GameEdits> for EditingSink<W> {
    fn begin_input(&mut self, input: &Input) -> io::Result<()> {
        self.file = input.display_name();
        Ok(())
    }

    fn begin_game(&mut self, info: &GameInfo, game: GameEdits) -> io::Result<()> {
        self.converted += u64::from(game.converted);
        self.unchanged += game.unchanged.len() as u64;
        if !self.quiet {
            for u in &game.unchanged {
                eprintln!(
                    "{}:{}:{}: {}[{}]: FEN left unchanged: {}",
                    self.file,
                    u.line + info.line_delta,
                    u.column,
                    u.code.severity(),
                    u.code,
                    u.message
                );
            }
        }
        self.edits.extend(game.edits);
        Ok(())
    }

    fn destination(&self, _game: &GameEdits) -> Option<u8> {
        Some(0)
    }

    fn orphan_bytes(&mut self, _offset: u64, data: &[u8]) -> io::Result<()> {
        self.out.write_all(data)
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
                    self.out.write_all(&data[..k])?;
                    self.out.write_all(&edit.insert)?;
                    self.skip = edit.remove;
                    data = &data[k..];
                    at += k as u64;
                    self.edits.pop_front();
                }
                _ => return self.out.write_all(data),
            }
        }
    }
}

pub fn run(global: &Global, args: &ConvertArgs) -> Result<Outcome, Error> {
    let inputs = inputs(&args.inputs);
    check_inputs_exist(&inputs)?;
    let name = args
        .output
        .as_ref()
        .map_or("<stdout>".to_string(), |p| p.display().to_string());
    let out = Output::create(args.output.as_deref()).map_err(|e| Error::writing(&name, e))?;
    let job = ConvertJob {
        dialect: args.to,
        ep: args.ep,
        repair: args.repair,
    };
    let mut sink = EditingSink::new(out, global.quiet);
    let games = pipeline::run(&inputs, &job, &mut sink, &options(global))?;
    let (converted, unchanged) = (sink.converted, sink.unchanged);
    sink.into_inner()
        .commit()
        .map_err(|e| Error::writing(&name, e))?;
    if !global.quiet {
        eprintln!(
            "pgnfen: {games} games, {converted} FEN tags written as {}, {unchanged} left unchanged",
            args.to.as_str()
        );
    }
    Ok(Outcome::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(input: &[u8], edits: Vec<Edit>, pieces: usize) -> Vec<u8> {
        let mut sink = EditingSink::new(Vec::new(), true);
        sink.edits.extend(edits);
        for (i, piece) in input.chunks(pieces).enumerate() {
            sink.bytes((i * pieces) as u64, piece).unwrap();
        }
        sink.into_inner()
    }

    fn fen_tag(line: &'static [u8], line_start: u64) -> HeaderTag<'static> {
        let value_column = line.windows(5).position(|w| w == b"FEN \"").unwrap() + 5;
        HeaderTag {
            name: TagName::Fen,
            raw: b"",
            line: 1,
            line_text: line,
            value_column,
            column_base: 0,
            value_offset: line_start + value_column as u64,
            complete: true,
            line_end: b"\r\n",
        }
    }

    #[test]
    fn setup_goes_directly_before_the_fen_tag() {
        let e = insertion_before(&fen_tag(b"  [FEN \"x\"]", 100), b"[SetUp \"1\"]");
        assert_eq!(
            (e.offset, e.insert.as_slice()),
            (100, &b"[SetUp \"1\"]\r\n"[..])
        );
        let e = insertion_before(
            &fen_tag(b"[Event \"y\"] [FEN \"x\"]", 100),
            b"[SetUp \"1\"]",
        );
        assert_eq!(
            (e.offset, e.insert.as_slice()),
            (112, &b"[SetUp \"1\"] "[..])
        );
    }

    #[test]
    fn edits_apply_across_pieces() {
        let input = b"[FEN \"abc\"]\n1. e4 *\n";
        let edits = vec![
            Edit {
                offset: 0,
                remove: 0,
                insert: b"[SetUp \"1\"]\n".to_vec(),
            },
            Edit {
                offset: 6,
                remove: 3,
                insert: b"XYZW".to_vec(),
            },
        ];
        for pieces in [1, 2, 3, 7, 100] {
            assert_eq!(
                apply(input, edits.clone(), pieces),
                b"[SetUp \"1\"]\n[FEN \"XYZW\"]\n1. e4 *\n"
            );
        }
    }
}
