//! Trained policies: small dense networks read from policy files and evaluated on the engine's
//! observation and move-feature rows, with no ML library at run time.
//!
//! - [`file`]: the policy file format (safetensors + a manifest in its metadata), checked in
//!   full when read;
//! - [`mlp`]: the network (dense layers, ReLU between them) and its forward pass;
//! - [`kernel`]: the one inner loop, compiled for AVX2 when the CPU has it, and [`aligned`]:
//!   the weights' storage it reads fastest;
//! - [`policy`]: a checked policy, what it plays ([`PolicyKind`]) and whether it fits a game
//!   ([`PolicyShape`]);
//! - [`shipped`]: the policies that ship inside the engine, one per game;
//! - [`cache`]: policy files by path, so a bot named by its file reads it once.
//!
//! This module knows no game: the games say what a policy must look like to play them
//! ([`crate::contract::Learned`]) and the `neural` bot ([`crate::bots`]) plays it.

pub mod aligned;
pub mod cache;
pub mod file;
pub mod kernel;
pub mod mlp;
pub mod policy;
pub mod shipped;

pub use mlp::{Mlp, Scratch};
pub use policy::{Policy, PolicyError, PolicyKind, PolicyShape};
