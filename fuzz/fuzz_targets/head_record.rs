#![no_main]
//! Fuzz target `head_record`: see `check_head_record` in ../checks.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_head_record(data));
