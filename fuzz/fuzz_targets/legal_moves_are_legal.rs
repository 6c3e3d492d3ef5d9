#![no_main]
//! Fuzz target `legal_moves_are_legal`: see `check_legal_moves_are_legal` in ../checks.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_legal_moves_are_legal(data));
