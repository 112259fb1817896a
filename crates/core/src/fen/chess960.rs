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

/// The back rank (a-file first) of start position `n`, `None` when `n > 959`.
pub fn array(n: u16) -> Option<[Role; 8]> {
    if n > 959 {
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

#[cfg(test)]
mod tests {
    use super::*;

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
