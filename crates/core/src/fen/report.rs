//! The `fen --format json` object for one bare FEN or EPD record.

use serde::Serialize;

use super::{Analysis, Dialect, EpPolicy, Record};

/// One problem as `fen --format json` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReportProblem {
    /// The problem code (`fen-syntax`, ...).
    pub code: &'static str,
    /// `error` or `warning`.
    pub severity: &'static str,
    /// What is wrong, in a sentence.
    pub message: String,
    /// 1-based column in the record, in characters.
    pub column: usize,
}

/// One bare record: exactly the keys of `fen --format json` (docs/commands.md, `fen`), in that order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The record as given; `None` for a line too long to be a record, which
    /// is never held whole (its one problem is a `fen-syntax` error).
    pub input: Option<String>,
    /// Whether it is a legal position.
    pub valid: bool,
    /// Its class name.
    pub class: &'static str,
    /// `8x8` or `10x8`; `None` when it could not be read.
    pub board: Option<&'static str>,
    /// The Chess960 start position, for a Chess960 start array.
    pub chess960_position: Option<u16>,
    /// The record in classic FEN; `None` when it cannot be written there.
    pub fen: Option<String>,
    /// The record in X-FEN.
    pub xfen: Option<String>,
    /// The record in Shredder-FEN.
    pub shredder: Option<String>,
    /// Its problems.
    pub problems: Vec<ReportProblem>,
    /// An EPD record's operations as written; `None` (null) for a FEN.
    pub operations: Option<String>,
}

/// The report of the bare FEN `input`, analysed as `analysis`. Each dialect
/// is written with its own en passant policy, or with `ep` for all three
/// (`fen --ep`).
pub fn report(input: &str, analysis: &Analysis, ep: Option<EpPolicy>) -> Report {
    let write = |d: Dialect| {
        let mut fen = String::with_capacity(input.len() + 8);
        analysis
            .write_into(input.as_bytes(), d, ep, &mut fen)?
            .ok()
            .map(|()| fen)
    };
    build(input.as_bytes(), analysis, write, None)
}

/// The report of one line of a book, FEN or EPD: an EPD's strings are EPD
/// records (four fields and its operations). `ep` as for [`report`].
///
/// # Panics
///
/// As [`Record::write`]: when `line` is not the line `record` was read from
/// and too short to hold its operations.
pub fn report_record(line: &[u8], record: &Record, ep: Option<EpPolicy>) -> Report {
    let write = |d: Dialect| {
        record
            .write(line, d, ep)
            .and_then(Result::ok)
            .map(|v| String::from_utf8_lossy(&v).into_owned())
    };
    let operations = record
        .operations
        .clone()
        .map(|ops| String::from_utf8_lossy(&line[ops]).into_owned());
    build(line, &record.analysis, write, operations)
}

fn build(
    input: &[u8],
    analysis: &Analysis,
    write: impl Fn(Dialect) -> Option<String>,
    operations: Option<String>,
) -> Report {
    Report {
        input: Some(String::from_utf8_lossy(input).into_owned()),
        valid: analysis.is_valid(),
        class: analysis.class.as_str(),
        board: analysis.board.map(|b| b.as_str()),
        chess960_position: analysis.chess960_position,
        fen: write(Dialect::Fen),
        xfen: write(Dialect::Xfen),
        shredder: write(Dialect::Shredder),
        problems: analysis
            .problems
            .iter()
            .map(|p| ReportProblem {
                code: p.code.as_str(),
                severity: p.severity().as_str(),
                message: p.message.clone(),
                column: p.column_in(input),
            })
            .collect(),
        operations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::{VariantHint, analyse};

    #[test]
    fn keys_in_spec_order() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let r = report(
            fen,
            &analyse(fen.as_bytes(), VariantHint::StandardLike),
            None,
        );
        let json = serde_json::to_string(&r).expect("serializes");
        assert_eq!(
            json,
            r#"{"input":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -","valid":true,"class":"standard","board":"8x8","chess960_position":518,"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","xfen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","shredder":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1","problems":[{"code":"missing-clocks","severity":"warning","message":"the halfmove clock and fullmove number are missing; read as '0 1'","column":53}],"operations":null}"#
        );
    }

    #[test]
    fn invalid_record_has_no_strings() {
        let fen = "8/8/8/8/8/8/8/8 w - - 0 1";
        let r = report(
            fen,
            &analyse(fen.as_bytes(), VariantHint::StandardLike),
            None,
        );
        assert!(!r.valid);
        assert_eq!(r.class, "malformed");
        assert_eq!(r.board, Some("8x8"));
        assert!(r.fen.is_none() && r.xfen.is_none() && r.shredder.is_none());
    }

    #[test]
    fn epd_strings_are_epd_records() {
        let line =
            b"rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gkq - bm Nd3; id \"x\";";
        let r = report_record(
            line,
            &crate::fen::analyse_record(line, VariantHint::StandardLike),
            None,
        );
        assert!(r.valid && r.problems.is_empty());
        assert_eq!(r.class, "chess960");
        assert_eq!(r.operations.as_deref(), Some("bm Nd3; id \"x\";"));
        assert_eq!(
            r.fen, None,
            "an inner rook cannot be written in classic FEN"
        );
        assert_eq!(r.xfen.as_deref(), Some(std::str::from_utf8(line).unwrap()));
        assert_eq!(
            r.shredder.as_deref(),
            Some("rn2k1r1/ppp1pp1p/3p2p1/5bn1/P7/2N2B2/1PPPPP2/2BNK1RR w Gga - bm Nd3; id \"x\";")
        );
    }
}
