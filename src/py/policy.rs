//! `NeuralPolicy`: a policy file as Python sees it — its manifest, and the network's forward
//! pass on rows the caller gives (what the trainer's agreement test compares against).

use std::path::PathBuf;
use std::sync::Arc;

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use super::args::type_name;
use super::errors::{cut_message, ArgumentError, PolicyError};
use super::games;
use crate::nn::{cache, file, shipped, Policy, Scratch};

/// Rows one `evaluate` call takes (a million rows of the widest policy is 5 GB of input).
const MAX_ROWS: usize = 1 << 20;

/// A trained policy read from a policy file (format 1) and checked.
#[pyclass(name = "NeuralPolicy", module = "panda_core._core", frozen)]
pub struct PyNeuralPolicy {
    policy: Arc<Policy>,
    bytes: Arc<[u8]>,
}

fn refused(e: crate::nn::PolicyError) -> PyErr {
    PolicyError::new_err(cut_message(&e.0))
}

/// A policy that fits the game it names: a file can be well-formed yet name a game whose
/// kind, layouts or widths it does not have (the bots would refuse it for every game).
fn own_game(policy: Arc<Policy>) -> PyResult<Arc<Policy>> {
    let Some(shape) = games::policy_shape(policy.game()) else {
        return Err(PolicyError::new_err(format!(
            "the policy's \"game\" is {:?}; the games are {}",
            crate::error::clip(policy.game(), 40),
            listed(&games::policy_games())
        )));
    };
    policy.check_fits(&shape).map_err(refused)?;
    Ok(policy)
}

#[pymethods]
impl PyNeuralPolicy {
    /// The policy in the file at `path`.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        // One read: the bytes kept for pickling are those of the policy checked.
        let (bytes, policy) = cache::read_file(&path.to_string_lossy()).map_err(refused)?;
        Ok(Self {
            policy: own_game(Arc::new(policy))?,
            bytes: bytes.into(),
        })
    }

    /// The policy in a policy file's bytes.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let policy = own_game(Arc::new(file::read(data).map_err(refused)?))?;
        Ok(Self {
            policy,
            bytes: data.into(),
        })
    }

    /// The policy shipped for `game` (what the built-in `neural` bot plays).
    #[staticmethod]
    fn shipped(game: &str) -> PyResult<Self> {
        let files = games::shipped_policies();
        let policy = shipped::policy(game, &files).map_err(refused)?;
        let bytes = shipped::bytes(game, &files).unwrap_or_default();
        Ok(Self {
            policy,
            bytes: bytes.into(),
        })
    }

    #[getter]
    fn game(&self) -> &str {
        self.policy.game()
    }

    #[getter]
    fn kind(&self) -> &'static str {
        self.policy.kind().name()
    }

    /// Layer widths, the input first.
    #[getter]
    fn layers(&self) -> Vec<usize> {
        self.policy.layer_sizes()
    }

    #[getter]
    fn sha256(&self) -> &str {
        self.policy.sha256()
    }

    /// Every manifest entry (the file's safetensors metadata).
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.policy.metadata() {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// The file's bytes (what `from_bytes` reads back).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.bytes)
    }

    /// The network's outputs for each row of `inputs` (float32, `[rows, layers[0]]`):
    /// `[rows, layers[-1]]` float32. For a move-scores policy a row is the observation followed
    /// by one move's features.
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        inputs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let Ok(array) = inputs.extract::<PyReadonlyArray2<'py, f32>>() else {
            return Err(PyTypeError::new_err(format!(
                "inputs must be a 2-D float32 numpy array of rows of {} inputs, not {}",
                self.policy.mlp().inputs(),
                describe(inputs)
            )));
        };
        let width = self.policy.mlp().inputs();
        let [rows, cols] = [array.shape()[0], array.shape()[1]];
        if cols != width {
            return Err(ArgumentError::new_err(format!(
                "inputs have {cols} columns; this policy's rows have {width} (its layers are \
                 {:?})",
                self.policy.layer_sizes()
            )));
        }
        if rows > MAX_ROWS {
            return Err(ArgumentError::new_err(format!(
                "{rows} rows in one call; at most {MAX_ROWS}"
            )));
        }
        let x = array.as_array().to_owned();
        let policy = Arc::clone(&self.policy);
        let out = py.detach(move || {
            let outputs = policy.mlp().outputs();
            let mut out = Array2::<f32>::zeros((rows, outputs));
            let mut scratch = Scratch::default();
            let mut row = vec![0.0f32; width];
            for (r, mut target) in x.rows().into_iter().zip(out.rows_mut()) {
                row.iter_mut().zip(r.iter()).for_each(|(d, s)| *d = *s);
                let y = policy.forward(&row, &mut scratch);
                target.iter_mut().zip(y).for_each(|(d, s)| *d = *s);
            }
            out
        });
        Ok(out.into_pyarray(py))
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let py = slf.py();
        let from_bytes = py.get_type::<Self>().getattr("from_bytes")?;
        Ok((from_bytes, (slf.get().to_bytes(py),)))
    }

    fn __repr__(&self) -> String {
        let layers: Vec<String> = self
            .policy
            .layer_sizes()
            .iter()
            .map(|n| n.to_string())
            .collect();
        format!(
            "NeuralPolicy(game={:?}, kind={:?}, layers={}, sha256={:?})",
            self.policy.game(),
            self.policy.kind().name(),
            layers.join("→"),
            &self.policy.sha256()[..12]
        )
    }
}

/// `"a", "b" and "c"`.
fn listed(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// What a wrong `inputs` was, for the TypeError.
fn describe(obj: &Bound<'_, PyAny>) -> String {
    match obj.cast::<numpy::PyUntypedArray>() {
        Ok(a) => format!("a {}-D array of {}", a.ndim(), a.dtype()),
        Err(_) => type_name(obj),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNeuralPolicy>()?;
    m.add(
        "POLICY_FORMAT_VERSION",
        file::FORMAT_VERSION.parse::<u32>().unwrap_or(1),
    )?;
    Ok(())
}
