#![no_main]
//! `pagesight_mcp::fuzzing::tool_arguments`: see its docs for what is checked.

libfuzzer_sys::fuzz_target!(|data: &[u8]| pagesight_mcp::fuzzing::tool_arguments(data));
