//! Tenjiku Shogi rules core: squares, pieces, positions, move generation, notation.
//!
//! Everything follows `RULES.md` (the project's specification); each disputed point is a flag
//! of [`Rules`]. This crate never depends on a neural-network library.

pub mod bench;
pub mod cecp;
pub mod display;
pub mod fen;
pub mod game;
pub mod hodges;
pub mod mcts;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod piece;
pub mod player;
pub mod position;
pub mod powers;
pub mod record;
pub mod rules;
pub mod session;
pub mod square;
mod zobrist;

pub use fen::{FenError, START_FEN};
pub use moves::{Move, MoveList};
pub use notation::MoveError;
pub use piece::{Kind, Piece};
pub use position::{MoveEffect, Position};
pub use powers::MoveTable;
pub use rules::Rules;
pub use square::{Color, Square};

// Alpha-beta baseline engine.
pub mod alphabeta;
pub mod eval;
pub mod tt;
