//! Position encoding, the policy/value network and checkpoints.
//!
//! Data flows one way: `engine` positions → [`encoding`] planes and [`policy`] indices → the
//! [`network`] → search ([`inference`]) and training ([`train`]), with weights kept in
//! [`checkpoint`] files. [`backend`] picks the Burn device, so no other crate names a backend.
//! [`search`] plugs the network into the engine's MCTS as its evaluator.

pub mod backend;
pub mod checkpoint;
pub mod checksum;
pub mod encoding;
pub mod inference;
pub mod network;
pub mod policy;
pub mod search;
pub mod train;

pub use checkpoint::{Checkpoint, CheckpointError, Header};
pub use inference::Evaluator;
pub use network::{NetConfig, Network};
