//! Choosing moves: the [`Player`] trait and its limits, engine specs, the alpha-beta baseline,
//! MCTS over an [`mcts::Evaluator`] trait, and the project's piece-value tables.
//!
//! Stands on the rules (`engine`) and knows nothing of networks, files or protocols: the `nn`
//! crate plugs a network in as an MCTS evaluator, and the `play` crate builds engines from
//! their specs (its registry) and drives them.

pub mod alphabeta;
pub mod mcts;
mod player;
mod report;
mod seed;
mod spec;
pub mod values;

pub use player::{Clock, Limits, Player, RandomPlayer, Thinking};
pub use seed::mix_seed;
pub use spec::{parse_duration, EngineSpec, SpecError, MAX_MOVE_TIME};
