//! The `fen --format json` object of SPEC §4 for one bare FEN record.

use serde::Serialize;

use super::{Analysis, Dialect};

/// One problem as `fen --format json` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReportProblem {
    pub code: &'static str,
    pub severity: &'static str,
    pub message: String,
    pub column: usize,
}

/// One bare record: exactly SPEC §4's keys, in its order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub input: String,
    pub valid: bool,
    pub class: &'static str,
    pub board: Option<&'static str>,
    pub chess960_position: Option<u16>,
    pub fen: Option<String>,
    pub xfen: Option<String>,
    pub shredder: Option<String>,
    pub problems: Vec<ReportProblem>,
}

/// The report of `input`, analysed as `analysis`.
pub fn report(input: &str, analysis: &Analysis) -> Report {
    let write = |d: Dialect| {
        analysis
            .position
            .as_ref()
            .and_then(|p| p.write(d, None).ok())
    };
    Report {
        input: input.to_owned(),
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
                column: p.column(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::{VariantHint, analyse};

    #[test]
    fn keys_in_spec_order() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let r = report(fen, &analyse(fen.as_bytes(), VariantHint::StandardLike));
        let json = serde_json::to_string(&r).expect("serializes");
        assert_eq!(
            json,
            r#"{"input":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -","valid":true,"class":"standard","board":"8x8","chess960_position":518,"fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","xfen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1","shredder":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1","problems":[{"code":"missing-clocks","severity":"warning","message":"the halfmove clock and fullmove number are missing; read as '0 1'","column":53}]}"#
        );
    }

    #[test]
    fn invalid_record_has_no_strings() {
        let fen = "8/8/8/8/8/8/8/8 w - - 0 1";
        let r = report(fen, &analyse(fen.as_bytes(), VariantHint::StandardLike));
        assert!(!r.valid);
        assert_eq!(r.class, "malformed");
        assert_eq!(r.board, Some("8x8"));
        assert!(r.fen.is_none() && r.xfen.is_none() && r.shredder.is_none());
    }
}
