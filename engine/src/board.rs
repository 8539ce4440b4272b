//! The padded mailbox under [`crate::Position`], for code that reads it in inner loops (the
//! alpha-beta engine's evaluation and threat detection, MCTS terminal checks, the encoder):
//! square cells and direction offsets, piece codes, and each piece type's compiled powers.
//! Everything else should go through the types at the crate root.

pub use crate::piece::{GUARD, NUM_CODES};
pub use crate::powers::{AreaKind, Compiled};
pub use crate::square::{dir, NUM_SQUARES, PAD_CELLS, PAD_W};
