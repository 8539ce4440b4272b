//! The project's one seed mixer: independent-looking seeds from (seed, index) pairs, so each
//! game, opening or search of a seeded run draws from its own stream.

/// SplitMix64's finaliser over `seed` and `index`: a different, well-spread seed for every
/// (seed, index) pair.
pub fn mix_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(0x6A09_E667_F3BC_C909);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
