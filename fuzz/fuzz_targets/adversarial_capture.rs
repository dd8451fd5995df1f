#![no_main]
//! `pagesight::fuzzing::adversarial_capture` on a real capture: see its docs for what is checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pagesight::fuzzing::adversarial_capture(pagesight::fuzzing::seed_capture(), data)
});
