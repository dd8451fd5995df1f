#![no_main]
//! `pagesight::fuzzing::pipe_stream`: see its docs for what is checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| pagesight::fuzzing::pipe_stream(data));
