//! Matches between engines and what is learnt from them: the arena (Elo, SPRT, game records).
//! Self-play and training will live here too.

pub mod arena;
pub mod go;
pub mod stats;

use engine::player::{engine_player, EngineSpec, Player, SpecError};
use engine::Rules;

/// Build any engine from its spec. The one place where kinds built outside the rules crate
/// (MCTS with a network) are added, so `arena`, `go` and the rest accept every spec alike.
pub fn make_player(spec: &EngineSpec, rules: &Rules) -> Result<Box<dyn Player>, SpecError> {
    engine_player(spec, rules)
}
