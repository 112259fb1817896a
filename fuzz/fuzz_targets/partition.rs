//! `cargo fuzz run partition`: partitions combine to the one-machine run.
//! Any PGN-ish text, cut into partitions of any size (plain byte ranges, or
//! ranges of zstd frames of any size), resolved in order as `pgnfen.dask`
//! resolves them (a wrong guess of a partition's first game redone, a tail
//! that owns no game emptied), gives the games of one run over the whole
//! file: the same numbers, offsets, lines and classes in the same order, and
//! the bytes the partitions own, concatenated, are the file.
//!
//! Input: the first byte picks the partition size (1 to 256 bytes, or
//! 4 KiB), the second whether the file is stored as zstd frames and their
//! size (16 to 2,048 bytes of text each); the rest is the text.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pgnfen::internals;
use pgnfen::pipeline;

/// One file for every run, in a folder of this process.
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("pgnfen-fuzz-partition-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let [size, framing, text @ ..] = data else {
        return;
    };
    let size = match size {
        0 => 4096,
        n => u64::from(*n),
    };
    let path = scratch().join("input");
    let stored = if framing & 1 == 1 {
        let frame = 16 * (1 + usize::from(framing >> 1));
        text.chunks(frame)
            .flat_map(|c| zstd::bulk::compress(c, 1).expect("zstd compresses"))
            .collect()
    } else {
        text.to_vec()
    };
    std::fs::write(&path, &stored).expect("the scratch file is written");
    let mut options = pipeline::Options::new(2);
    // No notes on standard error: they bury the fuzzer's log.
    options.notes = false;
    // Text that reads as another format (a tar header, a nested compressed
    // stream) is refused on one machine: not what this target is about.
    let Ok(expected) = internals::one_machine_log(&path, &options) else {
        return;
    };
    assert!(
        expected.bytes == text,
        "the one-machine run keeps every byte"
    );
    let (got, _) = internals::partitioned_log(&path, size, &options)
        .expect("partitions of a file one machine reads resolve");
    assert_eq!(got.games, expected.games, "partitions of {size} bytes");
    assert!(got.bytes == text, "the partitions' bytes at size {size}");
});
