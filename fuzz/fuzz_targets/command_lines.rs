#![no_main]
//! `pagesight::fuzzing::command_lines`: see its docs for what is checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| pagesight::fuzzing::command_lines(data));
