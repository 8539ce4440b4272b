//! Position encoding, the policy/value network and checkpoints.
//!
//! Data flows one way: `engine` positions → [`encoding`] planes and [`policy`] indices → the
//! [`network`] → search ([`inference`]) and training ([`train`]), with weights kept in
//! [`checkpoint`] files. [`backend`] picks the Burn device, so no other crate names a backend.
//! [`evaluator`] plugs the network into the MCTS of `search` as its evaluator.

pub mod agreement;
pub mod backend;
pub mod checkpoint;
pub mod encoding;
pub mod evaluator;
pub mod files;
pub mod host;
pub mod inference;
pub mod network;
pub mod policy;
pub mod train;

pub use checkpoint::{Checkpoint, CheckpointError, Header};
pub use network::{NetConfig, Network};
