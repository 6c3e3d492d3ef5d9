//! The network of a policy: dense layers with ReLU between them (none after the last).

use super::aligned::AlignedFloats;
use super::kernel::{accumulate, accumulate_relu};

/// One dense layer, `y = W x + b`, with `W` kept transposed: `rows[j]` is input `j`'s column,
/// the layout [`accumulate`] reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    inputs: usize,
    outputs: usize,
    rows: AlignedFloats,
    bias: Vec<f32>,
}

impl Dense {
    /// A layer from its weights as files and trainers store them, `[outputs][inputs]`
    /// row-major, and its bias (`outputs` long).
    pub fn from_out_in(inputs: usize, outputs: usize, weight: &[f32], bias: Vec<f32>) -> Self {
        assert_eq!(
            weight.len(),
            inputs * outputs,
            "weight of {outputs}×{inputs}"
        );
        assert_eq!(bias.len(), outputs, "bias of {outputs}");
        let mut rows = AlignedFloats::zeroed(inputs * outputs);
        let t = rows.as_mut_slice();
        for (o, w_o) in weight.chunks_exact(inputs).enumerate() {
            for (j, &w) in w_o.iter().enumerate() {
                t[j * outputs + o] = w;
            }
        }
        Self {
            inputs,
            outputs,
            rows,
            bias,
        }
    }

    pub fn inputs(&self) -> usize {
        self.inputs
    }

    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// `out = b + W x` (`out` is `outputs` long).
    #[inline]
    fn forward(&self, x: &[f32], out: &mut [f32]) {
        out.copy_from_slice(&self.bias);
        accumulate(out, x, self.rows.as_slice());
    }

    /// `out = b + W relu(x)`: a hidden layer fed by the one before it.
    #[inline]
    fn forward_relu(&self, x: &[f32], out: &mut [f32]) {
        out.copy_from_slice(&self.bias);
        accumulate_relu(out, x, self.rows.as_slice());
    }

    /// `out += W[:, from..from + x.len()] x`: the part of the product that inputs `from..`
    /// contribute (the first layer of a move-scoring policy, split between the observation,
    /// computed once per decision, and each move's features).
    #[inline]
    fn add_part(&self, from: usize, x: &[f32], out: &mut [f32]) {
        let w = self.outputs;
        accumulate(
            out,
            x,
            &self.rows.as_slice()[from * w..(from + x.len()) * w],
        );
    }
}

/// Dense layers, each feeding the next through ReLU.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    layers: Vec<Dense>,
}

/// Reusable buffers for forward passes (a bot keeps one, so a decision allocates nothing).
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
    /// The first layer's pre-activation from the part of the input shared by several rows.
    shared: Vec<f32>,
    /// Input rows the caller fills (observation, move features).
    pub observation: Vec<f32>,
    pub features: Vec<f32>,
}

impl Scratch {
    /// The observation buffer, taken out (so the network may borrow the scratch while it is
    /// read) and zeroed to `len`; give it back with [`Scratch::give_observation`].
    pub fn take_observation(&mut self, len: usize) -> Vec<f32> {
        let mut obs = std::mem::take(&mut self.observation);
        obs.clear();
        obs.resize(len, 0.0);
        obs
    }

    pub fn give_observation(&mut self, obs: Vec<f32>) {
        self.observation = obs;
    }
}

impl Mlp {
    /// The layers in order; each must take the previous one's outputs (checked by the file
    /// reader, asserted here).
    pub fn new(layers: Vec<Dense>) -> Self {
        assert!(!layers.is_empty(), "a network has a layer");
        for pair in layers.windows(2) {
            assert_eq!(pair[0].outputs, pair[1].inputs, "layers chain");
        }
        Self { layers }
    }

    pub fn layers(&self) -> &[Dense] {
        &self.layers
    }

    pub fn inputs(&self) -> usize {
        self.layers[0].inputs
    }

    pub fn outputs(&self) -> usize {
        self.layers[self.layers.len() - 1].outputs
    }

    /// The network's outputs for `x` (`inputs()` long), in `scratch`.
    pub fn forward<'s>(&self, x: &[f32], scratch: &'s mut Scratch) -> &'s [f32] {
        assert_eq!(x.len(), self.inputs(), "input width");
        let first = &self.layers[0];
        scratch.a.resize(first.outputs, 0.0);
        first.forward(x, &mut scratch.a);
        self.finish(scratch)
    }

    /// Start rows that share their first `prefix.len()` inputs: the first layer's bias plus
    /// what the prefix contributes, kept for [`Mlp::forward_suffix`].
    pub fn start_prefix(&self, prefix: &[f32], scratch: &mut Scratch) {
        let first = &self.layers[0];
        assert!(prefix.len() <= first.inputs, "prefix width");
        scratch.shared.clear();
        scratch.shared.extend_from_slice(&first.bias);
        first.add_part(0, prefix, &mut scratch.shared);
    }

    /// The outputs for the row `prefix ++ suffix`, the prefix given to [`Mlp::start_prefix`].
    /// The same sums in the same order as [`Mlp::forward`] of the whole row: the same bits.
    pub fn forward_suffix<'s>(&self, suffix: &[f32], scratch: &'s mut Scratch) -> &'s [f32] {
        let first = &self.layers[0];
        let from = first.inputs - suffix.len();
        scratch.a.clear();
        scratch.a.extend_from_slice(&scratch.shared);
        first.add_part(from, suffix, &mut scratch.a);
        self.finish(scratch)
    }

    /// The layers after the first, from its pre-activation in `scratch.a`.
    fn finish<'s>(&self, scratch: &'s mut Scratch) -> &'s [f32] {
        let Scratch { a, b, .. } = scratch;
        for layer in &self.layers[1..] {
            b.resize(layer.outputs, 0.0);
            layer.forward_relu(a, b);
            std::mem::swap(a, b);
        }
        &scratch.a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3 → 2 → 2 by hand.
    fn tiny() -> Mlp {
        Mlp::new(vec![
            Dense::from_out_in(3, 2, &[1.0, 0.0, -1.0, 0.5, 0.5, 0.5], vec![0.0, -1.0]),
            Dense::from_out_in(2, 2, &[1.0, 1.0, 2.0, -1.0], vec![0.25, 0.0]),
        ])
    }

    #[test]
    fn forward_by_hand() {
        let net = tiny();
        let mut s = Scratch::default();
        // Layer 1: [1 - 3, 0.5·(1 + 2 + 3) - 1] = [-2, 2] -> ReLU [0, 2].
        // Layer 2: [0 + 2 + 0.25, 0 - 2] = [2.25, -2] (no ReLU after the last layer).
        assert_eq!(net.forward(&[1.0, 2.0, 3.0], &mut s), &[2.25, -2.0]);
        assert_eq!(net.inputs(), 3);
        assert_eq!(net.outputs(), 2);
    }

    #[test]
    fn a_split_row_gives_the_same_bits() {
        let net = tiny();
        let mut s = Scratch::default();
        let whole = net.forward(&[0.3, -0.7, 1.9], &mut s).to_vec();
        net.start_prefix(&[0.3], &mut s);
        assert_eq!(net.forward_suffix(&[-0.7, 1.9], &mut s), whole.as_slice());
        net.start_prefix(&[0.3, -0.7], &mut s);
        assert_eq!(net.forward_suffix(&[1.9], &mut s), whole.as_slice());
    }
}
