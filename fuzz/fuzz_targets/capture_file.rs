#![no_main]
//! `pagesight::fuzzing::capture_file`: see its docs for what is checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| pagesight::fuzzing::capture_file(data));
