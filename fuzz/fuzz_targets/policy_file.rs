#![no_main]
//! Fuzz target `policy_file`: see `check_policy_file` in ../checks.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::check_policy_file(data));
