//! How a process that takes many snapshots should treat freed memory.
//!
//! Why: one snapshot of a long page allocates and frees tens of megabytes (the replies, the
//! typed capture, the model, the analysis). glibc's default hands blocks that large back to the
//! kernel as soon as they are freed, so the next snapshot faults the same pages in again and
//! the kernel zeroes each one: on python's `stdtypes` page, 8 tabs snapshotted at once over one
//! connection, that zeroing was a fifth of the engine's CPU time, and the tabs reached 84–88% of
//! the throughput Chromium alone allows against 93–95% with the memory kept (`tabs` bench).

/// Asks the C allocator to keep what a snapshot frees for the next one rather than return it to
/// the kernel, up to a bound: blocks up to 256 MiB come from the reusable heap, and free memory
/// at its top is given back only beyond 256 MiB. Call it once, early, in a process that takes
/// many snapshots (the `pagesight` command line does); the price is that the process keeps its
/// peak heap. It changes a process-wide setting, so a library embedding pagesight leaves that
/// choice to its host. Does nothing where the allocator is not glibc's.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        const BOUND: libc::c_int = 256 << 20;
        // SAFETY: mallopt only changes the allocator's policy for later calls; it is safe to
        // call at any time.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, BOUND);
            libc::mallopt(libc::M_TRIM_THRESHOLD, BOUND);
        }
    }
}
