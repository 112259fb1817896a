fn main() {
    let bytes = std::fs::read("/work/shared/corpus/generated/positions.fen").unwrap();
    let recs: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut n = 0;
    for _ in 0..20 {
        for r in &recs {
            if pgnfen::fen::analyse(r, pgnfen::fen::VariantHint::StandardLike).is_valid() {
                n += 1;
            }
        }
    }
    println!("{n}");
}
