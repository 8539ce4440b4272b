//! Tenjiku Shogi rules core: squares, pieces, positions, move generation, notation.
//!
//! Everything follows `RULES.md` (the project's specification); each disputed point is a flag
//! of [`Rules`]. This crate holds the rules and their text forms only: no search, no clocks,
//! no randomness, no neural-network library.
//!
//! The core types are re-exported here; the text forms are modules of their own
//! ([`notation`] for CECP coordinates, [`hodges`] for people's notation, [`record`] for game
//! records), as are the rule flags ([`rules`]), [`perft`], and the padded-mailbox internals
//! that fast searchers and the encoder read ([`board`]).

pub mod board;
pub mod hodges;
pub mod input;
pub mod notation;
pub mod perft;
pub mod record;
pub mod rules;

mod fen;
mod game;
mod movegen;
mod moves;
mod piece;
mod position;
mod powers;
mod square;
mod zobrist;

pub use fen::{parse_fen, to_fen, FenError, START_FEN};
pub use game::{attacks, gives_check, DrawReason, Game, Outcome, PlayError, Ply, WinReason};
pub use movegen::{generate, generate_for, generate_piece, legal_moves};
pub use moves::{Move, MoveList};
pub use notation::MoveError;
pub use piece::{Kind, Piece, NUM_KINDS, NUM_START_KINDS};
pub use position::{MoveEffect, Position};
pub use powers::MoveTable;
pub use rules::{Rules, RulesError};
pub use square::{Color, Square};
