//! Numbers in the messages people read: thousands separators and singular or
//! plural nouns, so a summary says "1 game read" and "1,234,567 games read".
//! Machine formats (JSON, CSV, SARIF) keep plain digits.

/// `n` with a comma between each group of three digits: `1234567` → `1,234,567`.
/// A comma, not the locale's separator: the output must not depend on the
/// environment (tests and logs compare it), and it is what English readers expect.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` with thousands separators and the noun in the number `n` asks for:
/// `count(1, "game", "games")` → `1 game`, `count(2000, ..)` → `2,000 games`.
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    format!(
        "{} {}",
        thousands(n),
        if n == 1 { singular } else { plural }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(71_342), "71,342");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn singular_only_for_one() {
        assert_eq!(count(0, "game", "games"), "0 games");
        assert_eq!(count(1, "game", "games"), "1 game");
        assert_eq!(count(2, "game", "games"), "2 games");
        assert_eq!(count(1001, "game", "games"), "1,001 games");
    }
}
