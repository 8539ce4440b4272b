//! Tenjiku Shogi rules core: squares, pieces, positions, move generation, notation.
//!
//! Everything follows `RULES.md` (the project's specification); each disputed point is a flag
//! of [`Rules`]. This crate holds the rules and their text forms only: no search, no clocks,
//! no randomness, no neural-network library.

pub mod fen;
pub mod game;
pub mod hodges;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod piece;
pub mod position;
pub mod powers;
pub mod record;
pub mod rules;
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
