//! A software prefetch: the one place that asks the processor for a cache
//! line ahead of its use (the scanner's input a page ahead, the FEN memo's
//! slots and entries).

/// Asks for the cache line at `at`: a hint, nothing is read that the
/// program sees, and an address that is not mapped is ignored by the
/// processor (a prefetch does not fault). A no-op off x86_64.
// Always inlined: the scanner asks at every line end.
#[inline(always)]
pub(crate) fn prefetch_line(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of the x86_64 baseline; a prefetch does not fault
    // and reads nothing the program sees.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(at.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
