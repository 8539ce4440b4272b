//! The network crate's tests that need Burn, in one test binary: each binary links all of Burn
//! (minutes with thin LTO on 2 cores), so they share one.
//!
//! - `backends`: other backends and precisions against flex f32 (`nn::agreement`);
//! - `capture_head`: the capture head leaves a seed's network alone, learns, round-trips;
//! - `checkpoint`: save/load round trips, the other CPU backend, damaged and mismatched files;
//! - `global_pool`: global-pooling biases start as a no-op and widen what a square sees;
//! - `material_mix`: the search's value blends the WDL and material heads as documented;
//! - `overfit`: a tiny network memorises a handful of positions (heads and losses wired right).

mod backends;
mod capture_head;
mod checkpoint;
mod files;
mod global_pool;
mod material_mix;
mod overfit;
