//! Chess960 start arrays and their Scharnagl numbers (0–959, 518 = standard).

use super::board::Role;

/// Knight placements among the five squares left after bishops and queen.
const KNIGHTS: [(usize, usize); 10] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 4),
    (1, 2),
    (1, 3),
    (1, 4),
    (2, 3),
    (2, 4),
    (3, 4),
];

/// How many Chess960 start positions there are: their numbers are 0 to
/// `POSITIONS - 1` (959).
pub const POSITIONS: u16 = 960;

/// The back rank (a-file first) of start position `n`, `None` when `n > 959`.
pub fn array(n: u16) -> Option<[Role; 8]> {
    if n >= POSITIONS {
        return None;
    }
    let mut slots: [Option<Role>; 8] = [None; 8];
    let n = usize::from(n);
    slots[(n % 4) * 2 + 1] = Some(Role::Bishop);
    slots[((n / 4) % 4) * 2] = Some(Role::Bishop);
    let queen = (n / 16) % 6;
    let knights = KNIGHTS[(n / 96) % 10];
    place_nth_empty(&mut slots, queen, Role::Queen);
    // Place the second knight first so that the first one's index stays valid.
    place_nth_empty(&mut slots, knights.1, Role::Knight);
    place_nth_empty(&mut slots, knights.0, Role::Knight);
    place_nth_empty(&mut slots, 0, Role::Rook);
    place_nth_empty(&mut slots, 0, Role::King);
    place_nth_empty(&mut slots, 0, Role::Rook);
    let mut out = [Role::Pawn; 8];
    for (o, s) in out.iter_mut().zip(slots) {
        *o = s?;
    }
    Some(out)
}

fn place_nth_empty(slots: &mut [Option<Role>; 8], nth: usize, role: Role) {
    if let Some(slot) = slots.iter_mut().filter(|s| s.is_none()).nth(nth) {
        *slot = Some(role);
    }
}

/// The Scharnagl number of a back rank, when it is a valid Chess960 array
/// (two bishops on opposite colours, king between the rooks).
pub fn number(rank: &[Role; 8]) -> Option<u16> {
    let mut light = None;
    let mut dark = None;
    for (file, role) in rank.iter().enumerate() {
        if *role == Role::Bishop {
            let slot = if file % 2 == 1 { &mut light } else { &mut dark };
            if slot.is_some() {
                return None;
            }
            *slot = Some(file);
        }
    }
    let (light, dark) = (light?, dark?);
    let mut rest = rank.iter().filter(|r| **r != Role::Bishop);
    let mut queen = None;
    let mut others = [Role::Pawn; 6];
    let mut k = 0;
    for (i, role) in rest.by_ref().enumerate() {
        if *role == Role::Queen {
            if queen.is_some() {
                return None;
            }
            queen = Some(i);
        } else if let Some(slot) = others.get_mut(k) {
            *slot = *role;
            k += 1;
        } else {
            return None;
        }
    }
    let queen = queen?;
    if k != 5 {
        return None;
    }
    let mut knight_idx = [0usize; 2];
    let mut nk = 0;
    let mut rkr = [Role::Pawn; 3];
    let mut nr = 0;
    for (i, role) in others[..5].iter().enumerate() {
        if *role == Role::Knight {
            *knight_idx.get_mut(nk)? = i;
            nk += 1;
        } else {
            *rkr.get_mut(nr)? = *role;
            nr += 1;
        }
    }
    if nk != 2 || rkr != [Role::Rook, Role::King, Role::Rook] {
        return None;
    }
    let kn = KNIGHTS
        .iter()
        .position(|&(a, b)| a == knight_idx[0] && b == knight_idx[1])?;
    let n = light / 2 + 4 * (dark / 2) + 16 * queen + 96 * kn;
    u16::try_from(n).ok()
}

/// The files of one role on a back rank, bit `f` for file `f` (a = 0), as
/// a board holds them: knights, bishops, rooks, queens, kings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BackRank {
    /// The knights' files.
    pub(crate) knights: u8,
    /// The bishops' files.
    pub(crate) bishops: u8,
    /// The rooks' files.
    pub(crate) rooks: u8,
    /// The queens' files.
    pub(crate) queens: u8,
    /// The kings' files.
    pub(crate) kings: u8,
}

impl BackRank {
    /// [`number`] read off the masks with bit operations: the same answer
    /// (tested on every array and on arbitrary ranks), without turning the
    /// boards into an array of roles first. The rank holds only these five
    /// roles; a square none of them covers is no array.
    pub(crate) fn number(self) -> Option<u16> {
        let BackRank {
            knights,
            bishops,
            rooks,
            queens,
            kings,
        } = self;
        let all = [knights, bishops, rooks, queens, kings];
        let count = |m: u8| m.count_ones();
        // Every square filled exactly once, with two bishops (one on each
        // colour), two knights, two rooks, a queen and a king.
        if all.iter().fold(0, |a, &m| a | m) != 0xFF
            || all.iter().map(|&m| count(m)).sum::<u32>() != 8
            || count(bishops & 0xAA) != 1
            || count(bishops & 0x55) != 1
            || count(knights) != 2
            || count(rooks) != 2
            || count(queens) != 1
        {
            return None;
        }
        // The king between the rooks.
        let king = kings.trailing_zeros();
        if !(rooks.trailing_zeros() < king && king < 7 - rooks.leading_zeros()) {
            return None;
        }
        // Light squares are the odd files (b1, d1, …), dark the even ones.
        let light = (bishops & 0xAA).trailing_zeros() / 2;
        let dark = (bishops & 0x55).trailing_zeros() / 2;
        // The queen's place among the six squares left by the bishops, the
        // knights' among the five left by the queen too.
        let below = |m: u8| (1u8 << m.trailing_zeros()) - 1;
        let queen = count(!bishops & below(queens));
        let five = !bishops & !queens;
        let first = count(five & below(knights)) as usize;
        let second = count(five & below(knights & (knights - 1))) as usize;
        let kn = KNIGHTS.iter().position(|&k| k == (first, second))? as u32;
        u16::try_from(light + 4 * dark + 16 * queen + 96 * kn).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn masks(rank: &[Role; 8]) -> BackRank {
        let of = |role: Role| {
            rank.iter()
                .enumerate()
                .filter(|(_, r)| **r == role)
                .fold(0u8, |m, (f, _)| m | 1 << f)
        };
        BackRank {
            knights: of(Role::Knight),
            bishops: of(Role::Bishop),
            rooks: of(Role::Rook),
            queens: of(Role::Queen),
            kings: of(Role::King),
        }
    }

    #[test]
    fn masks_give_every_number() {
        for n in 0..960 {
            let arr = array(n).expect("valid number");
            assert_eq!(masks(&arr).number(), Some(n));
        }
    }

    proptest! {
        /// On any back rank (other roles, pawns and archbishops included,
        /// which the masks leave out) the masks give what the array gives.
        #[test]
        fn masks_agree_with_the_array(
            rank in proptest::collection::vec(
                proptest::sample::select(vec![
                    Role::Pawn, Role::Knight, Role::Bishop, Role::Rook,
                    Role::Queen, Role::King, Role::Archbishop,
                ]),
                8,
            ),
        ) {
            let rank: [Role; 8] = rank.try_into().expect("8 squares");
            prop_assert_eq!(masks(&rank).number(), number(&rank));
        }

        /// Near-arrays: a real array with two squares swapped or one
        /// square changed, where the rules (colours, king between the
        /// rooks, counts) decide.
        #[test]
        fn masks_agree_near_arrays(
            n in 0u16..960,
            a in 0usize..8,
            b in 0usize..8,
            role in proptest::sample::select(vec![
                Role::Knight, Role::Bishop, Role::Rook, Role::Queen, Role::King,
            ]),
            swap in any::<bool>(),
        ) {
            let mut rank = array(n).expect("valid number");
            if swap {
                rank.swap(a, b);
            } else {
                rank[a] = role;
            }
            prop_assert_eq!(masks(&rank).number(), number(&rank));
        }
    }

    #[test]
    fn standard_array_is_518() {
        use Role::*;
        let standard = [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook];
        assert_eq!(array(518), Some(standard));
        assert_eq!(number(&standard), Some(518));
    }

    #[test]
    fn every_number_round_trips() {
        for n in 0..960 {
            let arr = array(n).expect("valid number");
            assert_eq!(number(&arr), Some(n));
        }
        assert_eq!(array(960), None);
    }

    #[test]
    fn known_numbers() {
        use Role::*;
        // 0 = BBQNNRKR
        assert_eq!(
            array(0),
            Some([Bishop, Bishop, Queen, Knight, Knight, Rook, King, Rook])
        );
        // Same-coloured bishops and a king outside the rooks are no array.
        assert_eq!(
            number(&[Bishop, Knight, Bishop, Queen, King, Rook, Knight, Rook]),
            None
        );
        assert_eq!(
            number(&[King, Rook, Bishop, Queen, Bishop, Rook, Knight, Knight]),
            None
        );
    }
}
