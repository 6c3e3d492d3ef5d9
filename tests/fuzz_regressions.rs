//! Replays every saved fuzz input under plain `cargo test`: each file in
//! `fuzz/regressions/<target>/` (inputs that once crashed, hung or broke an invariant) and in
//! `fuzz/corpus/<target>/` (the small seed corpus) runs through the same check as the fuzz target
//! of that name. The checks live in one file, `fuzz/checks.rs`, shared with the fuzz crate.

#[path = "../fuzz/checks.rs"]
#[allow(dead_code)]
mod fuzz_checks;

use std::path::Path;

/// Run every file of `dir/<target>/` through its target's check; the number of files run.
fn replay(dir: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join(dir);
    let mut ran = 0;
    for (target, check) in fuzz_checks::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files.iter().filter(|f| f.is_file()) {
            let data = std::fs::read(file).unwrap();
            let name = file.display().to_string();
            if std::panic::catch_unwind(|| check(&data)).is_err() {
                panic!("fuzz input {name} fails the {target} check (see the panic above)");
            }
            ran += 1;
        }
    }
    ran
}

#[test]
fn saved_regressions_pass() {
    // At least the hand_number overflow of head_record; none found means the files were lost.
    assert!(
        replay("regressions") >= 1,
        "fuzz/regressions/ lost its inputs"
    );
}

#[test]
fn seed_corpus_passes() {
    assert!(replay("corpus") >= 6, "the seed corpus is missing");
}
