#![no_main]
//! Fuzz target `climb_record`: see `check_climb_record` in ../checks.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_climb_record(data));
