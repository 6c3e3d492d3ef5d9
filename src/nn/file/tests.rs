use super::*;
use crate::nn::{PolicyShape, Scratch};

const MANIFEST: Manifest<'static> = Manifest {
    game: "head",
    kind: PolicyKind::ActionValues,
    observation_layout: "test-observation/1",
    move_features_layout: None,
    extra: &[("seed", "7")],
};

/// 4 → 3 → 2 with distinct weights.
fn layers() -> Vec<(Vec<f32>, Vec<f32>)> {
    let w0: Vec<f32> = (0..12).map(|k| k as f32 * 0.1 - 0.5).collect();
    let w1: Vec<f32> = (0..6).map(|k| 0.3 - k as f32 * 0.2).collect();
    vec![(w0, vec![0.1, 0.0, -0.1]), (w1, vec![0.5, -0.5])]
}

fn good() -> Vec<u8> {
    write(&MANIFEST, &layers())
}

/// The file with its manifest entry `key` set to `value` (`None`: removed), hash unchanged.
fn with_entry(key: &str, value: Option<&str>) -> Vec<u8> {
    let (n, header) = SafeTensors::read_metadata(&good()).unwrap();
    let bytes = good();
    let mut json: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    let meta = json["__metadata__"].as_object_mut().unwrap();
    match value {
        Some(v) => meta.insert(key.into(), v.into()),
        None => meta.remove(key),
    };
    let _ = header;
    let head = serde_json::to_vec(&json).unwrap();
    let mut out = (head.len() as u64).to_le_bytes().to_vec();
    out.extend(head);
    out.extend(&bytes[8 + n..]);
    out
}

fn refused(bytes: &[u8], needle: &str) {
    match read(bytes) {
        Ok(_) => panic!("accepted a file that should fail with {needle:?}"),
        Err(e) => assert!(e.0.contains(needle), "{:?} lacks {needle:?}", e.0),
    }
}

#[test]
fn what_write_writes_reads_back() {
    let p = read(&good()).unwrap();
    assert_eq!(p.game(), "head");
    assert_eq!(p.kind(), PolicyKind::ActionValues);
    assert_eq!(p.layer_sizes(), vec![4, 3, 2]);
    assert_eq!(p.metadata()["seed"], "7");
    assert_eq!(p.sha256().len(), 64);
    // [0.1·(−.5..) …] by hand: layer 0 row o is w0[4o..4o+4].
    let x = [1.0, 0.0, 2.0, -1.0];
    let w0: Vec<f32> = layers()[0].0.clone();
    let h: Vec<f32> = (0..3)
        .map(|o| {
            let b = [0.1, 0.0, -0.1][o];
            (b + (0..4).map(|j| w0[o * 4 + j] * x[j]).sum::<f32>()).max(0.0)
        })
        .collect();
    let w1 = layers()[1].0.clone();
    let want: Vec<f32> = (0..2)
        .map(|o| [0.5, -0.5][o] + (0..3).map(|j| w1[o * 3 + j] * h[j]).sum::<f32>())
        .collect();
    let got = p.forward(&x, &mut Scratch::default()).to_vec();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-6, "{got:?} vs {want:?}");
    }
}

#[test]
fn damaged_files_are_refused() {
    refused(b"", "not a safetensors file");
    refused(&good()[..40], "not a safetensors file");
    let mut flipped = good();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    refused(&flipped, "SHA-256");
    refused(&with_entry("sha256", Some("00")), "SHA-256");
}

#[test]
fn every_manifest_entry_is_checked() {
    refused(&with_entry("format", Some("other")), "\"format\"");
    refused(&with_entry("format", None), "no \"format\"");
    refused(
        &with_entry("format_version", Some("2")),
        "\"format_version\"",
    );
    refused(&with_entry("game", Some("Head!")), "\"game\"");
    refused(&with_entry("kind", Some("q")), "\"kind\"");
    refused(&with_entry("activation", Some("tanh")), "\"activation\"");
    refused(
        &with_entry("observation_layout", None),
        "observation_layout",
    );
    refused(
        &with_entry("move_features_layout", Some("m/1")),
        "action-values",
    );
    refused(
        &with_entry("kind", Some("move-scores")),
        "move_features_layout",
    );
    refused(&with_entry("layers", Some("4,3")), "missing");
    refused(&with_entry("layers", Some("4,3,2,2")), "missing");
    refused(&with_entry("layers", Some("4,9,2")), "shape");
    refused(&with_entry("layers", Some("4,x,2")), "\"layers\"");
    refused(&with_entry("layers", Some("4,0,2")), "\"layers\"");
    refused(&with_entry("layers", Some("4,5000,2")), "\"layers\"");
    refused(
        &with_entry("layers", Some("1,1,1,1,1,1,1,1,1,1")),
        "\"layers\"",
    );
}

#[test]
fn non_finite_weights_are_refused() {
    let mut l = layers();
    l[1].1[0] = f32::NAN;
    refused(&write(&MANIFEST, &l), "finite");
}

#[test]
fn fit_names_what_differs() {
    let p = read(&good()).unwrap();
    let shape = PolicyShape {
        game: "head",
        kind: PolicyKind::ActionValues,
        observation_layout: "test-observation/1",
        observation_size: 4,
        move_features: None,
        outputs: 2,
    };
    assert_eq!(p.check_fits(&shape), Ok(()));
    let e = |s: PolicyShape| p.check_fits(&s).unwrap_err().0;
    assert!(e(PolicyShape {
        game: "year",
        ..shape
    })
    .contains("\"year\""));
    assert!(e(PolicyShape {
        kind: PolicyKind::MoveScores,
        ..shape
    })
    .contains("move-scores"));
    assert!(e(PolicyShape {
        observation_layout: "test-observation/2",
        ..shape
    })
    .contains("retrain"));
    assert!(e(PolicyShape {
        observation_size: 5,
        ..shape
    })
    .contains("inputs"));
    assert!(e(PolicyShape {
        outputs: 3,
        ..shape
    })
    .contains("outputs"));
}
