#![no_main]
//! Fuzz target `climb_notation`: see `check_climb_notation` in ../checks.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_climb_notation(data));
