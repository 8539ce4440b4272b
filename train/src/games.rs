//! What every kind of game a run plays shares: a finished game and its number, the ply cap,
//! playing a searched move, and the alpha-beta player's part (its spec checked as a teacher or
//! an opponent, its resignation, its score as a stored value). `selfplay` and `bootstrap` both
//! stand on this module.

use crate::replay::GameFile;
use engine::{DrawReason, Game, Outcome, WinReason};
use search::alphabeta::AlphaBeta;
use search::values::MaterialLead;
use search::EngineSpec;

/// An alpha-beta player (the teacher, or self-play's opponent) resigns when its score stays below minus this many centipawns...
pub const RESIGN_CP: i32 = 2000;
/// ...for this many of its consecutive moves.
pub const RESIGN_MOVES: u32 = 3;
/// Scale of the stored root value: `tanh(score / VALUE_SCALE_CP)`.
pub const VALUE_SCALE_CP: f32 = 600.0;

/// Parse and check the spec of a teacher (or of self-play's `opponent_engine`): an `alphabeta`
/// engine with a depth or node limit and no time limit (a timed one would make the run
/// unrepeatable).
pub fn check_engine(spec: &str) -> Result<EngineSpec, EngineCheckError> {
    let s = EngineSpec::parse(spec)?;
    if s.kind != "alphabeta" {
        return Err(EngineCheckError::NotAlphabeta { kind: s.kind });
    }
    AlphaBeta::from_spec(&s)?;
    if s.get("time").is_some() {
        return Err(EngineCheckError::Timed);
    }
    if s.get("depth").is_none() && s.get("nodes").is_none() {
        return Err(EngineCheckError::NoLimit);
    }
    Ok(s)
}

/// A teacher or opponent spec that a run cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineCheckError {
    #[error(transparent)]
    Spec(#[from] search::SpecError),
    #[error("must be an alphabeta engine, not '{kind}'")]
    NotAlphabeta { kind: String },
    #[error("needs depth= or nodes=, not time= (a timed engine makes the run unrepeatable)")]
    Timed,
    #[error("needs a depth= or nodes= limit")]
    NoLimit,
}

/// A finished game and its number (the number seeds it; the tests check the numbering).
pub struct Finished {
    #[cfg_attr(not(test), allow(dead_code))]
    pub index: u64,
    pub file: GameFile,
}

/// Count a move of an alpha-beta player (the teacher, or self-play's opponent) scored `score`
/// towards its resignation: returns whether it now resigns ([`RESIGN_CP`] for
/// [`RESIGN_MOVES`] consecutive moves; `low` is its count).
pub fn resigns(low: &mut u32, score: i32) -> bool {
    *low = if score < -RESIGN_CP { *low + 1 } else { 0 };
    *low >= RESIGN_MOVES
}

/// The stored root value of an alpha-beta score: `tanh(score / VALUE_SCALE_CP)`.
pub fn score_value(score: i32) -> f32 {
    (score as f32 / VALUE_SCALE_CP).tanh()
}

/// End the game as a draw at `max_plies` (when set; 0 = the rules' cap only).
pub fn cap_plies(game: &mut Game, max_plies: u32) {
    if !game.is_over() && max_plies > 0 && game.ply_count() as u32 >= max_plies {
        game.set_outcome(Outcome::Draw(DrawReason::PlyCap));
    }
}

/// Count the position after a ply towards material adjudication (`lead`, when it is on): the
/// side that has been ahead for long enough wins the game (unless it is already over).
pub fn adjudicate(game: &mut Game, lead: &mut Option<MaterialLead>) {
    if let (Some(lead), false) = (lead.as_mut(), game.is_over()) {
        if let Some(winner) = lead.update(game.position()) {
            game.set_outcome(Outcome::Win { winner, reason: WinReason::Adjudication });
        }
    }
}

/// Play `mv`, a move a search offered (`what` and `index` name the game in the warning).
/// Searches only offer legal moves; should this ever fail, the game ends as a draw rather than
/// the run.
pub fn play_or_draw(game: &mut Game, mv: engine::Move, what: &str, index: u64) {
    if let Err(e) = game.play(mv) {
        eprintln!("warning: {what} {index}: {e}; ended as a draw");
        game.set_outcome(Outcome::Draw(DrawReason::Agreement));
    }
}
