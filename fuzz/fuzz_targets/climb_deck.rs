#![no_main]
//! Fuzz target `climb_deck`: see `check_climb_deck` in ../checks.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_climb_deck(data));
