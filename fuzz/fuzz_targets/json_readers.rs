#![no_main]
//! `pagesight::fuzzing::json_readers`: see its docs for what is checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| pagesight::fuzzing::json_readers(data));
