#![no_main]
//! Fuzz target `climb_snapshot`: see `check_climb_snapshot` in ../checks.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_climb_snapshot(data));
