//! Helpers shared by the scanner tests (included with `#[path]`; as a test
//! crate of its own it holds no tests).
#![allow(dead_code)]

use pgnfen::pgn::scan::{CutFit, Event, Scanner};

/// Scans `data` in pieces whose sizes come from `sizes`.
pub fn scan_pieces(data: &[u8], mut sizes: impl FnMut() -> usize) -> Vec<Event> {
    let mut s = Scanner::new();
    let mut ev = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let n = sizes().clamp(1, rest.len());
        s.feed(&rest[..n], &mut ev);
        rest = &rest[n..];
    }
    s.finish(&mut ev);
    ev
}

pub fn scan_whole(data: &[u8]) -> Vec<Event> {
    scan_pieces(data, || usize::MAX)
}

pub fn games(ev: &[Event]) -> usize {
    ev.iter()
        .filter(|e| matches!(e, Event::GameStart { .. }))
        .count()
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// The lines of `data` as (start, end without terminator).
pub fn lines(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'\n' => {
                out.push((start, i));
                i += 1;
                start = i;
            }
            b'\r' => {
                out.push((start, i));
                i += 1;
                if i < data.len() && data[i] == b'\n' {
                    i += 1;
                }
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < data.len() {
        out.push((start, data.len()));
    }
    out
}

fn is_blank(l: &[u8]) -> bool {
    l.iter().all(|&b| b == b' ' || b == b'\t')
}

fn is_tag(l: &[u8]) -> bool {
    l.iter().find(|&&b| b != b' ' && b != b'\t') == Some(&b'[')
}

/// Where the pipeline cuts: a line starting with `[`, preceded by a blank line
/// whose previous line is not a tag line.
pub fn cut_points(data: &[u8]) -> Vec<usize> {
    let ls = lines(data);
    let mut cuts = Vec::new();
    for i in 1..ls.len() {
        let (s, _) = ls[i];
        if data.get(s) != Some(&b'[') {
            continue;
        }
        let (bs, be) = ls[i - 1];
        if !is_blank(&data[bs..be]) {
            continue;
        }
        if i >= 2 {
            let (ps, pe) = ls[i - 2];
            if is_tag(&data[ps..pe]) {
                continue;
            }
        }
        cuts.push(s);
    }
    cuts
}

#[derive(Default, Debug, Clone, Copy)]
pub struct CutStats {
    pub cuts: usize,
    pub new_game: usize,
    pub same_game: usize,
    pub rescan: usize,
}

impl CutStats {
    pub fn add(&mut self, o: &CutStats) {
        self.cuts += o.cuts;
        self.new_game += o.new_game;
        self.same_game += o.same_game;
        self.rescan += o.rescan;
    }
}

fn shift(e: &Event, by: u64) -> Event {
    match e {
        Event::GameStart { offset, line } => Event::GameStart {
            offset: *offset,
            line: line + by,
        },
        Event::Tag(t) => {
            let mut t = t.clone();
            t.line += by;
            Event::Tag(t)
        }
        Event::HeaderEnd => Event::HeaderEnd,
        Event::Movetext { offset, line } => Event::Movetext {
            offset: *offset,
            line: line + by,
        },
        Event::Extra { .. } | Event::Pair { .. } => e.clone(),
    }
}

/// The speculative pipeline over `cuts` (sorted line starts): at each cut the
/// true scanner's `fits_cut` decides; for NewGame/SameGame a scanner made with
/// `at_cut` scans the piece up to the next cut and must report the same events
/// (SameGame: its first GameStart replaced by the pending start, or dropped)
/// and end in the same state (lines rebased) as the true scanner. Panics on a
/// difference.
pub fn check_cuts(data: &[u8], cuts: &[usize]) -> CutStats {
    let full = scan_whole(data);
    let mut st = CutStats {
        cuts: cuts.len(),
        ..Default::default()
    };
    let mut t = Scanner::new();
    let mut all = Vec::new();
    let first = cuts.first().copied().unwrap_or(data.len());
    t.feed(&data[..first], &mut all);
    if cuts.is_empty() {
        t.finish(&mut all);
    }
    for (i, &c) in cuts.iter().enumerate() {
        let next = cuts.get(i + 1).copied().unwrap_or(data.len());
        let last = i + 1 == cuts.len();
        let fit = t.fits_cut();
        let pending = t.pending_game_start();
        let before = t.lines_seen();
        let mut seg = Vec::new();
        t.feed(&data[c..next], &mut seg);
        if last {
            t.finish(&mut seg);
        }
        match fit {
            CutFit::Rescan => st.rescan += 1,
            CutFit::NewGame | CutFit::SameGame => {
                let mut sp = Scanner::at_cut(c as u64);
                let mut sev = Vec::new();
                sp.feed(&data[c..next], &mut sev);
                if last {
                    sp.finish(&mut sev);
                }
                assert_eq!(
                    sev.first(),
                    Some(&Event::GameStart {
                        offset: c as u64,
                        line: 1
                    }),
                    "cut at {c}"
                );
                let mut adj: Vec<Event> = Vec::new();
                if fit == CutFit::NewGame {
                    st.new_game += 1;
                    adj.push(shift(&sev[0], before));
                } else {
                    st.same_game += 1;
                    if let Some((offset, line)) = pending {
                        adj.push(Event::GameStart { offset, line });
                    }
                }
                adj.extend(sev[1..].iter().map(|e| shift(e, before)));
                assert_eq!(adj, seg, "events after cut at {c} ({fit:?})");
                if !last {
                    sp.rebase_lines(before);
                    assert_eq!(sp, t, "state after cut at {c} ({fit:?})");
                }
            }
        }
        all.extend(seg);
    }
    assert_eq!(all, full, "events of the chained scan");
    st
}
