//! Zobrist keys: one per (piece code, square) and one for the side to move.
//! Generated once from a fixed seed, so hashes are the same in every run and build.

use crate::piece::NUM_CODES;
use crate::square::NUM_SQUARES;
use std::sync::OnceLock;

pub struct Keys {
    pub piece: Vec<[u64; NUM_SQUARES]>,
    pub white_to_move: u64,
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut s = 0x7E17_1C0D_E5EE_D000u64;
        let mut piece = vec![[0u64; NUM_SQUARES]; NUM_CODES];
        for row in piece.iter_mut().skip(1) {
            for k in row.iter_mut() {
                *k = splitmix(&mut s);
            }
        }
        Keys { piece, white_to_move: splitmix(&mut s) }
    })
}
