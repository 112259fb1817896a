//! Finding the structural bytes of movetext outside comments:
//! `\n \r { ; ( ) - *` (line ends, comment openers, variations, and the two
//! bytes every termination marker holds).

/// Whether `b` is one of the structural bytes.
#[inline]
fn is_struct(b: u8) -> bool {
    matches!(b, b'\n' | b'\r' | b'{' | b';' | b'(' | b')' | b'-' | b'*')
}

/// The index of the first structural byte in `hay`.
#[inline]
pub(super) fn find_struct(hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        // Short rests gain nothing from the wider loads.
        if hay.len() >= 32 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available (checked just above; the check is a
            // cached flag).
            return unsafe { avx2::find(hay) };
        }
        sse2::find(hay)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        find_scalar(hay)
    }
}

/// The portable version (also the reference in tests).
#[inline]
pub(super) fn find_scalar(hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| is_struct(b))
}

/// The index of the first `\n` or `\r` in `hay`.
#[inline]
pub(super) fn find_eol(hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(r) = sse2::short2(hay, b'\n', b'\r') {
            return r;
        }
        find3_from32::<b'\n', b'\r', b'\r'>(hay)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        memchr::memchr2(b'\n', b'\r', hay)
    }
}

/// The index of the first `\n` or `\r` in `hay` (`None`: the end of `hay`),
/// and whether a `c` comes before it.
#[inline]
pub(super) fn find_eol_and(hay: &[u8], c: u8) -> (Option<usize>, bool) {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(r) = sse2::short_eol_and(hay, c) {
            return r;
        }
        // A long line (a FEN, a long name): one pass for both answers.
        if hay.len() >= 32 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is available (checked just above).
            return unsafe { avx2::eol_and(hay, c) };
        }
    }
    let eol = memchr::memchr2(b'\n', b'\r', hay);
    let has = memchr::memchr(c, &hay[..eol.unwrap_or(hay.len())]).is_some();
    (eol, has)
}

/// The index of the first `}`, `\n` or `\r` in `hay`.
#[inline]
pub(super) fn find_comment_end(hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(r) = sse2::short3(hay, b'}', b'\n', b'\r') {
            return r;
        }
        find3_from32::<b'}', b'\n', b'\r'>(hay)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        memchr::memchr3(b'}', b'\n', b'\r', hay)
    }
}

/// The bytes that end a tag name: a blank, the value's quote, or `]`.
const NAME_STOPS: [u8; 4] = [b' ', b'\t', b'"', b']'];
/// The bytes that stop the reading of a tag value: its closing quote, or a
/// backslash that escapes the byte after it.
const VALUE_STOPS: [u8; 2] = [b'"', b'\\'];

/// The index of the first `"` or `\\` in `hay[..limit]`: where a tag value
/// ends or escapes a byte. Bytes past `limit` may be read but do not count.
/// Most values (names, dates, results, ratings) end within 16 bytes, where
/// one SSE2 compare settles it; a call of `memchr2` per value cost more than
/// the compare on short values (`export` reads every value).
#[inline]
pub(super) fn value_stop(hay: &[u8], limit: usize) -> Option<usize> {
    let limit = limit.min(hay.len());
    #[cfg(target_arch = "x86_64")]
    if hay.len() >= 16 {
        let m = sse2::stops16(hay, VALUE_STOPS);
        if m != 0 {
            let k = m.trailing_zeros() as usize;
            return (k < limit).then_some(k);
        }
        if limit <= 16 {
            return None;
        }
        return memchr::memchr2(VALUE_STOPS[0], VALUE_STOPS[1], &hay[16..limit]).map(|o| o + 16);
    }
    memchr::memchr2(VALUE_STOPS[0], VALUE_STOPS[1], &hay[..limit])
}

/// The length of the tag name at the start of `hay`: the index of the first
/// blank, `"` or `]`, but at most `limit` (the line end). Bytes past `limit`
/// may be read but do not count.
#[inline]
pub(super) fn name_len(hay: &[u8], limit: usize) -> usize {
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    {
        // Tag names are short: one 16-byte block almost always holds the end.
        while i + 16 <= hay.len() && i < limit {
            let m = sse2::stops16(&hay[i..], NAME_STOPS);
            if m != 0 {
                return (i + m.trailing_zeros() as usize).min(limit);
            }
            i += 16;
        }
    }
    let limit = limit.min(hay.len());
    while i < limit && !NAME_STOPS.contains(&hay[i]) {
        i += 1;
    }
    i.min(limit)
}

/// Asks the CPU to load the cache line holding `buf[at]` (if `buf` reaches
/// that far) before the searches get there.
#[inline(always)]
pub(super) fn prefetch(buf: &[u8], at: usize) {
    if let Some(b) = buf.get(at) {
        crate::prefetch::prefetch_line(b);
    }
}

/// The first `A`, `B` or `C` in `hay` when its first 32 bytes hold none
/// (the caller looked there already).
#[cfg(target_arch = "x86_64")]
#[inline]
fn find3_from32<const A: u8, const B: u8, const C: u8>(hay: &[u8]) -> Option<usize> {
    let rest = &hay[32..];
    // The searches here are a few hundred bytes at most (a comment, a line):
    // an inlined loop costs less per call than memchr's dispatch.
    if rest.len() >= 32 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is available (checked just above).
        return unsafe { avx2::find3::<A, B, C>(rest) }.map(|o| o + 32);
    }
    memchr::memchr3(A, B, C, rest).map(|o| o + 32)
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// Looks at the first 32 bytes only: `Some(answer)` when that settles it
    /// (found, or the haystack is no longer), `None` to go on from byte 32.
    #[inline(always)]
    pub(super) fn short3(hay: &[u8], a: u8, b: u8, c: u8) -> Option<Option<usize>> {
        let n = hay.len();
        if n < 32 {
            return Some(hay.iter().position(|&x| x == a || x == b || x == c));
        }
        // SAFETY: SSE2 is always available on x86_64; the loads read bytes
        // 0..32 of `hay`, which has at least 32.
        unsafe {
            let p = hay.as_ptr();
            let va = _mm_set1_epi8(a as i8);
            let vb = _mm_set1_epi8(b as i8);
            let vc = _mm_set1_epi8(c as i8);
            let m = |v: __m128i| -> u32 {
                let x = _mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb));
                _mm_movemask_epi8(_mm_or_si128(x, _mm_cmpeq_epi8(v, vc))) as u32
            };
            let lo = m(_mm_loadu_si128(p as *const __m128i));
            let hi = m(_mm_loadu_si128(p.add(16) as *const __m128i));
            let mask = lo | (hi << 16);
            if mask != 0 {
                return Some(Some(mask.trailing_zeros() as usize));
            }
        }
        None
    }

    /// [`super::find_eol_and`] when the first 32 bytes settle it.
    #[inline(always)]
    pub(super) fn short_eol_and(hay: &[u8], c: u8) -> Option<(Option<usize>, bool)> {
        if hay.len() < 32 {
            return None;
        }
        // SAFETY: SSE2 is always available on x86_64; the loads read bytes
        // 0..32 of `hay`, which has at least 32.
        unsafe {
            let p = hay.as_ptr();
            let nl = _mm_set1_epi8(b'\n' as i8);
            let cr = _mm_set1_epi8(b'\r' as i8);
            let vc = _mm_set1_epi8(c as i8);
            let lo = _mm_loadu_si128(p as *const __m128i);
            let hi = _mm_loadu_si128(p.add(16) as *const __m128i);
            let e = |v: __m128i| -> u32 {
                _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr))) as u32
            };
            let f = |v: __m128i| -> u32 { _mm_movemask_epi8(_mm_cmpeq_epi8(v, vc)) as u32 };
            let eol = e(lo) | (e(hi) << 16);
            if eol == 0 {
                return None;
            }
            let k = eol.trailing_zeros();
            let before = (f(lo) | (f(hi) << 16)) & ((1u32 << k) - 1);
            Some((Some(k as usize), before != 0))
        }
    }

    /// Bit `k` is set when `hay[k]` is one of `bytes`, for the first 16 bytes
    /// of `hay`, which must hold at least 16 ([`super::NAME_STOPS`],
    /// [`super::VALUE_STOPS`]: one compare per byte, OR-ed).
    #[inline(always)]
    pub(super) fn stops16<const N: usize>(hay: &[u8], bytes: [u8; N]) -> u32 {
        assert!(hay.len() >= 16);
        // SAFETY: SSE2 is always available on x86_64; the load reads bytes
        // 0..16 of `hay`, which has at least 16 (asserted).
        unsafe {
            let v = _mm_loadu_si128(hay.as_ptr() as *const __m128i);
            let any = bytes.iter().fold(_mm_setzero_si128(), |any, &b| {
                _mm_or_si128(any, _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8)))
            });
            _mm_movemask_epi8(any) as u32
        }
    }

    #[inline(always)]
    pub(super) fn short2(hay: &[u8], a: u8, b: u8) -> Option<Option<usize>> {
        short3(hay, a, b, b)
    }

    /// SSE2 is part of the x86_64 baseline, so no runtime detection is needed.
    #[inline]
    pub(super) fn find(hay: &[u8]) -> Option<usize> {
        let n = hay.len();
        let p = hay.as_ptr();
        let mut i = 0;
        // SAFETY: SSE2 is always available on x86_64; every load reads 16 bytes
        // at `p + i` with `i + 16 <= n`, inside `hay`.
        unsafe {
            let nl = _mm_set1_epi8(b'\n' as i8);
            let cr = _mm_set1_epi8(b'\r' as i8);
            let br = _mm_set1_epi8(b'{' as i8);
            let sc = _mm_set1_epi8(b';' as i8);
            let op = _mm_set1_epi8(b'(' as i8);
            let cp = _mm_set1_epi8(b')' as i8);
            let da = _mm_set1_epi8(b'-' as i8);
            let st = _mm_set1_epi8(b'*' as i8);
            let mask = |v: __m128i| -> i32 {
                let a = _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr));
                let b = _mm_or_si128(_mm_cmpeq_epi8(v, br), _mm_cmpeq_epi8(v, sc));
                let c = _mm_or_si128(_mm_cmpeq_epi8(v, op), _mm_cmpeq_epi8(v, cp));
                let d = _mm_or_si128(_mm_cmpeq_epi8(v, da), _mm_cmpeq_epi8(v, st));
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)))
            };
            while i + 16 <= n {
                let m = mask(_mm_loadu_si128(p.add(i) as *const __m128i));
                if m != 0 {
                    return Some(i + m.trailing_zeros() as usize);
                }
                i += 16;
            }
            if n >= 16 {
                // The last 16 bytes, overlapping what was already checked.
                let m = mask(_mm_loadu_si128(p.add(n - 16) as *const __m128i)) as u32;
                let skip = i - (n - 16);
                let m = m >> skip;
                return if m != 0 {
                    Some(i + m.trailing_zeros() as usize)
                } else {
                    None
                };
            }
        }
        super::find_scalar(&hay[i..]).map(|o| i + o)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// [`super::sse2::find`] 32 bytes at a time.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find(hay: &[u8]) -> Option<usize> {
        let n = hay.len();
        let p = hay.as_ptr();
        let mut i = 0;
        // SAFETY: AVX2 is available (the caller's contract); every load reads
        // 32 bytes at `p + i` with `i + 32 <= n`, inside `hay`.
        unsafe {
            // Two table look-ups (by the low and by the high nibble) instead
            // of eight compares: each structural byte's two entries share a
            // bit, no other byte's do.
            //   bit 0: `\n` 0x0A, `\r` 0x0D      (high nibble 0)
            //   bit 1: `{` 0x7B                  (high nibble 7)
            //   bit 2: `;` 0x3B                  (high nibble 3)
            //   bit 3: `( ) * -` 0x28 0x29 0x2A 0x2D (high nibble 2)
            let lo_tab = _mm256_broadcastsi128_si256(_mm_setr_epi8(
                0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 9, 6, 0, 9, 0, 0,
            ));
            let hi_tab = _mm256_broadcastsi128_si256(_mm_setr_epi8(
                1, 0, 8, 4, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0,
            ));
            let nib = _mm256_set1_epi8(0x0F);
            let zero = _mm256_setzero_si256();
            let mask = |v: __m256i| -> u32 {
                let lo = _mm256_shuffle_epi8(lo_tab, _mm256_and_si256(v, nib));
                let hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nib);
                let hi = _mm256_shuffle_epi8(hi_tab, hi);
                let none = _mm256_cmpeq_epi8(_mm256_and_si256(lo, hi), zero);
                !(_mm256_movemask_epi8(none) as u32)
            };
            while i + 32 <= n {
                let m = mask(_mm256_loadu_si256(p.add(i) as *const __m256i));
                if m != 0 {
                    return Some(i + m.trailing_zeros() as usize);
                }
                i += 32;
            }
            if i < n && n >= 32 {
                // The last 32 bytes, overlapping what was already checked.
                let m = mask(_mm256_loadu_si256(p.add(n - 32) as *const __m256i));
                let m = m >> (i - (n - 32));
                return if m != 0 {
                    Some(i + m.trailing_zeros() as usize)
                } else {
                    None
                };
            }
        }
        super::find_scalar(&hay[i..]).map(|o| i + o)
    }

    /// The index of the first `A`, `B` or `C` in `hay`, which holds at least
    /// 32 bytes.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn find3<const A: u8, const B: u8, const C: u8>(hay: &[u8]) -> Option<usize> {
        let n = hay.len();
        assert!(n >= 32);
        let p = hay.as_ptr();
        let mut i = 0;
        // SAFETY: AVX2 is available (the caller's contract); every load reads
        // 32 bytes at `p + i` with `i + 32 <= n`, inside `hay`.
        unsafe {
            let set = |b: u8| _mm256_set1_epi8(b as i8);
            let (a, b, c) = (set(A), set(B), set(C));
            let mask = |v: __m256i| -> u32 {
                let eq = |x| _mm256_cmpeq_epi8(v, x);
                _mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(eq(a), eq(b)), eq(c))) as u32
            };
            while i + 32 <= n {
                let m = mask(_mm256_loadu_si256(p.add(i) as *const __m256i));
                if m != 0 {
                    return Some(i + m.trailing_zeros() as usize);
                }
                i += 32;
            }
            if i < n {
                // The last 32 bytes, overlapping what was already checked.
                let m = mask(_mm256_loadu_si256(p.add(n - 32) as *const __m256i));
                let m = m >> (i - (n - 32));
                if m != 0 {
                    return Some(i + m.trailing_zeros() as usize);
                }
            }
        }
        None
    }

    /// [`super::find_eol_and`] for a `hay` of at least 32 bytes, in one pass.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn eol_and(hay: &[u8], c: u8) -> (Option<usize>, bool) {
        let n = hay.len();
        assert!(n >= 32);
        let p = hay.as_ptr();
        let mut i = 0;
        let mut has = false;
        // SAFETY: AVX2 is available (the caller's contract); every load reads
        // 32 bytes at `p + i` with `i + 32 <= n`, inside `hay`.
        unsafe {
            let set = |b: u8| _mm256_set1_epi8(b as i8);
            let (nl, cr, vc) = (set(b'\n'), set(b'\r'), set(c));
            // (line ends, `c`) in the 32 bytes at `p + at`, from bit `skip` on.
            let masks = |at: usize, skip: usize| -> (u32, u32) {
                let v = _mm256_loadu_si256(p.add(at) as *const __m256i);
                let eq = |x| _mm256_cmpeq_epi8(v, x);
                let e = _mm256_movemask_epi8(_mm256_or_si256(eq(nl), eq(cr))) as u32;
                let f = _mm256_movemask_epi8(eq(vc)) as u32;
                (e >> skip, f >> skip)
            };
            while i < n {
                let (e, f) = if i + 32 <= n {
                    masks(i, 0)
                } else {
                    // The last 32 bytes, overlapping what was already checked.
                    masks(n - 32, i - (n - 32))
                };
                if e != 0 {
                    let k = e.trailing_zeros();
                    has |= f & ((1u32 << k) - 1) != 0;
                    return (Some(i + k as usize), has);
                }
                has |= f != 0;
                i += 32;
            }
        }
        (None, has)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte value, at every position of a block.
    #[test]
    fn simd_finds_exactly_the_structural_bytes() {
        for b in 0..=255u8 {
            for at in [0, 5, 31, 32, 40, 63] {
                let mut v = vec![b'a'; 64];
                v[at] = b;
                assert_eq!(find_struct(&v), find_scalar(&v), "byte {b:#x} at {at}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: AVX2 is available.
                    assert_eq!(unsafe { avx2::find(&v) }, find_scalar(&v), "byte {b:#x}");
                }
            }
        }
    }

    #[test]
    fn simd_agrees_with_scalar() {
        let alphabet = b"ab1-0*;{}()\n\r [%\t\"]\\";
        let mut x: u32 = 12345;
        for len in (0..80).chain([100, 200]) {
            for _ in 0..200 {
                let v: Vec<u8> = (0..len)
                    .map(|_| {
                        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                        let r = (x >> 16) as usize;
                        if r.is_multiple_of(5) {
                            alphabet[r % alphabet.len()]
                        } else {
                            b'a' + (r % 26) as u8
                        }
                    })
                    .collect();
                assert_eq!(find_struct(&v), find_scalar(&v), "{v:?}");
                #[cfg(target_arch = "x86_64")]
                {
                    assert_eq!(sse2::find(&v), find_scalar(&v), "{v:?}");
                    if std::arch::is_x86_feature_detected!("avx2") {
                        // SAFETY: AVX2 is available.
                        assert_eq!(unsafe { avx2::find(&v) }, find_scalar(&v), "{v:?}");
                        if v.len() >= 32 {
                            let eol = v.iter().position(|&b| b == b'\n' || b == b'\r');
                            let has = v[..eol.unwrap_or(v.len())].contains(&b'[');
                            // SAFETY: AVX2 is available.
                            assert_eq!(unsafe { avx2::eol_and(&v, b'[') }, (eol, has));
                            let ce = v
                                .iter()
                                .position(|&b| b == b'}' || b == b'\n' || b == b'\r');
                            // SAFETY: AVX2 is available.
                            let got = unsafe { avx2::find3::<b'}', b'\n', b'\r'>(&v) };
                            assert_eq!(got, ce, "{v:?}");
                        }
                    }
                }
                let eol = v.iter().position(|&b| b == b'\n' || b == b'\r');
                assert_eq!(find_eol(&v), eol);
                for c in [b'[', b'a'] {
                    let has = v[..eol.unwrap_or(v.len())].contains(&c);
                    assert_eq!(find_eol_and(&v, c), (eol, has), "{v:?}");
                }
                for limit in [0, 3, 17, len] {
                    let want = v
                        .iter()
                        .position(|&b| matches!(b, b' ' | b'\t' | b'"' | b']'))
                        .unwrap_or(len)
                        .min(limit);
                    assert_eq!(name_len(&v, limit), want, "{v:?} {limit}");
                }
                for limit in [0, 3, 16, 17, len] {
                    let want = v[..limit.min(len)]
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\');
                    assert_eq!(value_stop(&v, limit), want, "{v:?} {limit}");
                }
                let ce = v
                    .iter()
                    .position(|&b| b == b'}' || b == b'\n' || b == b'\r');
                assert_eq!(find_comment_end(&v), ce);
            }
        }
    }

    /// Differential tests of every SIMD path against the scalar reference, on
    /// haystacks placed so that their ends fall on every offset of a 16- and
    /// 32-byte block and right against an unmapped page: a load that reads one
    /// byte past the haystack (or before it) faults instead of passing unseen.
    mod differential {
        use super::*;
        use proptest::prelude::*;

        /// Three pages: the middle one readable, the outer two `PROT_NONE`.
        struct Guarded {
            base: *mut u8,
            page: usize,
        }

        impl Guarded {
            fn new() -> Guarded {
                // SAFETY: plain POSIX calls on a fresh private anonymous
                // mapping that this struct owns and unmaps on drop.
                unsafe {
                    let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
                    let base = libc::mmap(
                        std::ptr::null_mut(),
                        3 * page,
                        libc::PROT_NONE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                        -1,
                        0,
                    );
                    assert_ne!(base, libc::MAP_FAILED);
                    let mid = (base as *mut u8).add(page);
                    let rc = libc::mprotect(
                        mid as *mut libc::c_void,
                        page,
                        libc::PROT_READ | libc::PROT_WRITE,
                    );
                    assert_eq!(rc, 0);
                    Guarded {
                        base: base as *mut u8,
                        page,
                    }
                }
            }

            /// `data` copied to the very end of the readable page (or to its
            /// very start), as a slice that ends (starts) at the guard.
            fn place(&mut self, data: &[u8], at_end: bool) -> &[u8] {
                assert!(data.len() <= self.page);
                // SAFETY: the range lies inside the readable middle page.
                unsafe {
                    let mid = self.base.add(self.page);
                    let start = if at_end {
                        mid.add(self.page - data.len())
                    } else {
                        mid
                    };
                    std::ptr::copy_nonoverlapping(data.as_ptr(), start, data.len());
                    std::slice::from_raw_parts(start, data.len())
                }
            }
        }

        impl Drop for Guarded {
            fn drop(&mut self) {
                // SAFETY: unmaps the mapping made in `new`.
                unsafe {
                    libc::munmap(self.base as *mut libc::c_void, 3 * self.page);
                }
            }
        }

        fn eol(v: &[u8]) -> Option<usize> {
            v.iter().position(|&b| b == b'\n' || b == b'\r')
        }

        /// Every search of this module on `v` against the scalar definitions.
        fn agree(v: &[u8]) {
            assert_eq!(find_struct(v), find_scalar(v), "find_struct {v:?}");
            let e = eol(v);
            assert_eq!(find_eol(v), e, "find_eol {v:?}");
            for c in [b'[', b'"', b'a', b'\n'] {
                let has = v[..e.unwrap_or(v.len())].contains(&c);
                assert_eq!(find_eol_and(v, c), (e, has), "find_eol_and {c} {v:?}");
            }
            let ce = v
                .iter()
                .position(|&b| b == b'}' || b == b'\n' || b == b'\r');
            assert_eq!(find_comment_end(v), ce, "find_comment_end {v:?}");
            for limit in [0, 1, 15, 16, 17, 31, 32, 33, v.len(), v.len() + 5] {
                let want = v
                    .iter()
                    .position(|&b| matches!(b, b' ' | b'\t' | b'"' | b']'))
                    .unwrap_or(v.len())
                    .min(limit)
                    .min(v.len());
                assert_eq!(name_len(v, limit), want, "name_len {limit} {v:?}");
            }
            for limit in [0, 1, 15, 16, 17, 31, 32, 33, v.len(), v.len() + 5] {
                let want = v[..limit.min(v.len())]
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\');
                assert_eq!(value_stop(v, limit), want, "value_stop {limit} {v:?}");
            }
            #[cfg(target_arch = "x86_64")]
            {
                assert_eq!(sse2::find(v), find_scalar(v), "sse2::find {v:?}");
                let three = v.iter().position(|&b| matches!(b, b'}' | b'\n' | b'\r'));
                if let Some(r) = sse2::short3(v, b'}', b'\n', b'\r') {
                    assert_eq!(r, three, "short3 {v:?}");
                }
                if let Some(r) = sse2::short2(v, b'\n', b'\r') {
                    assert_eq!(r, e, "short2 {v:?}");
                }
                if let Some(r) = sse2::short_eol_and(v, b'[') {
                    let has = v[..e.unwrap_or(v.len())].contains(&b'[');
                    assert_eq!(r, (e, has), "short_eol_and {v:?}");
                }
                if v.len() >= 16 {
                    let m = sse2::stops16(v, NAME_STOPS);
                    for (k, &b) in v[..16].iter().enumerate() {
                        let stop = matches!(b, b' ' | b'\t' | b'"' | b']');
                        assert_eq!(m >> k & 1 == 1, stop, "name stops {k} {v:?}");
                    }
                    let m = sse2::stops16(v, VALUE_STOPS);
                    for (k, &b) in v[..16].iter().enumerate() {
                        let stop = b == b'"' || b == b'\\';
                        assert_eq!(m >> k & 1 == 1, stop, "value stops {k} {v:?}");
                    }
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: AVX2 is available (checked just above).
                    unsafe {
                        assert_eq!(avx2::find(v), find_scalar(v), "avx2::find {v:?}");
                        if v.len() >= 32 {
                            let has = v[..e.unwrap_or(v.len())].contains(&b'[');
                            assert_eq!(avx2::eol_and(v, b'['), (e, has), "eol_and {v:?}");
                            // find3 is only asked when the first 32 bytes hold none.
                            if three.is_none_or(|i| i >= 32) {
                                let got = avx2::find3::<b'}', b'\n', b'\r'>(v);
                                assert_eq!(got, three, "avx2::find3 {v:?}");
                            }
                        }
                    }
                }
            }
        }

        /// Bytes mostly plain, with every searched byte and its neighbours in
        /// value (a wrong compare constant or sign would show).
        fn byte() -> impl Strategy<Value = u8> {
            prop_oneof![
                6 => b'a'..=b'z',
                3 => prop::sample::select(b"\n\r{};()-*}[]\" \t%\\".to_vec()),
                1 => any::<u8>(),
            ]
        }

        /// Lengths around every multiple of 16 up to 160, and longer ones.
        fn length() -> impl Strategy<Value = usize> {
            prop_oneof![
                4 => (0usize..=10).prop_flat_map(|k| (k * 16).saturating_sub(2)..=k * 16 + 2),
                1 => 0usize..600,
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

            #[test]
            fn simd_paths_agree_with_scalar_at_block_and_page_edges(
                v in length().prop_flat_map(|n| prop::collection::vec(byte(), n)),
                shift in 0usize..64,
                needle_at in any::<prop::sample::Index>(),
                needle in prop::sample::select(b"\n\r{}-*;()[\" ]\\".to_vec()),
            ) {
                let mut guarded = Guarded::new();
                // The haystack ending at the guard, and starting at it.
                agree(guarded.place(&v, true));
                agree(guarded.place(&v, false));
                // Inside a buffer at every alignment, with one searched byte
                // planted (the long plain runs must find it in any block).
                let mut planted = v.clone();
                if !planted.is_empty() {
                    let i = needle_at.index(planted.len());
                    planted[i] = needle;
                }
                let mut buf = vec![b'x'; shift];
                buf.extend_from_slice(&planted);
                agree(&buf[shift..]);
                agree(guarded.place(&planted, true));
            }
        }

        /// The searched byte at each position of haystacks of every length up
        /// to 130 that end at the guard page: every block boundary, every tail.
        #[test]
        fn every_position_of_every_short_length_at_the_page_end() {
            let mut guarded = Guarded::new();
            for len in 0..130 {
                for at in 0..len {
                    for needle in [b'\n', b'\r', b'}', b'[', b'-', b' ', b']'] {
                        let mut v = vec![b'a'; len];
                        v[at] = needle;
                        agree(guarded.place(&v, true));
                    }
                }
                agree(guarded.place(&vec![b'a'; len], true));
            }
        }
    }
}
