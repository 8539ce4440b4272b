//! Policy index of every move: a fixed position in the network's policy vector for each move
//! that can be legal, following move identity of RULES.md §7.2 / §16.3 (origin, the squares
//! captured by the mover's intermediate legs in order, destination, promotion; `@@@@` is one
//! move; a board-changing pass `g3g3` is one move per passing piece).
//!
//! # Layout (policy version = [`crate::encoding::ENCODING_VERSION`])
//!
//! Everything is seen from the side to move, exactly like the input planes: for White the
//! board is turned 180° (`Square::rotate`), so a square's frame index is `rank * 16 + file` of
//! the rotated square (`255 - index` for White) and every displacement is negated. The same
//! physical pattern therefore has the same index for both colours, and a position and its
//! colour-mirrored twin ([`engine::Position::mirrored`]) get identical index sets.
//!
//! The policy vector has [`POLICY_SIZE`] = 256 × 673 + 1 = 172,289 entries, from-square
//! major:
//!
//! ```text
//! index = from * NUM_MOVE_PLANES + plane   (from = frame index of the origin, 0..256)
//! index = 172,288                          the global board-neutral pass `@@@@` (NULL_PASS_INDEX)
//! ```
//!
//! i.e. the first 172,288 entries are a `[16, 16, NUM_MOVE_PLANES]` tensor flattened
//! row-major (rank, file, plane) — what `crate::network`'s move projection produces — and one
//! extra scalar follows for `@@@@`.
//!
//! Move planes (displacements `(df, dr)` in the side-to-move frame, `dr > 0` = forward):
//!
//! | planes | count | meaning |
//! |---|---|---|
//! | 0..120 | 120 | one-leg move along line `d` (0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW; N = forward, E = +file in the frame) at distance `k` = 1..15: plane `d*15 + k-1` — steps, slides, range jumps, 2-square jumps, skip-first slides, one-leg lion/area moves |
//! | 120..144 | 24 | one-leg move to one of the 24 off-line squares within 3 king steps (8 knight-shaped + 16 at distance 3), ordered by `dr` then `df` ascending (see [`ONE_LEG_DELTAS`]) |
//! | 144..208 | 64 | two-leg move with an adjacent first capture: first step direction `d1` (origin → captured square), second step direction `d2` (captured square → destination): plane `144 + d1*8 + d2`. Lion hit-and-run and double capture, Soaring Eagle / Horned Falcon / Free Eagle two-leg moves; igui is `d2 = (d1+4)%8` |
//! | 208..352 | 144 | planes 0..144 with promotion |
//! | 352..416 | 64 | planes 144..208 with promotion |
//! | 416 | 1 | board-changing pass of the piece on `from` (`g3g3`: a Fire Demon pass that burns, or a pass next to an enemy Fire Demon) |
//! | 417..545 | 128 | house rules (§13) lion-like area move with one capture on an adjacent square and a destination 2 king steps beyond it: `417 + d1*16 + r`, `r` = ring-2 index of (destination − captured square) in [`RING2_DELTAS`] |
//! | 545..673 | 128 | house rules lion-like area move with one capture 2 king steps away and the destination adjacent to it: `545 + r*8 + d2`, `r` = ring-2 index of (captured square − origin) |
//!
//! Coverage: every legal move of the standard and HaChu presets, and of every rules flag of
//! RULES.md §15 except one case, has an index. **Not covered** (→ `None` / [`NO_INDEX`]): the
//! house rules' lion-like area moves that capture *two* pieces before their destination
//! (three legs, `h8g9,g9h9,h9h8`). Indexing them would need 448 more planes (8 × 7 × 8) that
//! are dead under the standard rules; [`mask_and_softmax`] gives them probability 0. Planes
//! 417..673 and the promoting copies of the 16 distance-3 off-line planes are never used under
//! the standard rules (no promotable piece has an area move) but are kept so that the layout
//! is one fixed table for every preset.
//!
//! The map is injective on all moves: different moves have different (origin, legs,
//! destination, promotion) and therefore different indices; [`index_to_move`] inverts it.

use engine::{Color, Move, Square};

/// Move planes per from-square.
pub const NUM_MOVE_PLANES: usize = 673;
/// Index of the global board-neutral pass `@@@@` (the last entry).
pub const NULL_PASS_INDEX: usize = 256 * NUM_MOVE_PLANES;
/// Total policy outputs: from-square × move plane, plus the global `@@@@` entry.
pub const POLICY_SIZE: usize = 256 * NUM_MOVE_PLANES + 1;
/// Marker in [`legal_indices`] output for a legal move outside the index (house-rule three-leg
/// area moves only).
pub const NO_INDEX: usize = usize::MAX;

/// First plane of the one-leg group (lines, then off-line squares).
pub const PLANE_ONE_LEG: usize = 0;
/// First off-line one-leg plane.
pub const PLANE_OFF_LINE: usize = 120;
/// First two-leg (adjacent capture) plane.
pub const PLANE_TWO_LEG: usize = 144;
/// Offset of the promoting copy of planes `0..208`.
pub const PLANE_PROMOTE: usize = 208;
/// The `g3g3` plane.
pub const PLANE_PIECE_PASS: usize = 416;
/// House area moves: adjacent capture, destination 2 beyond.
pub const PLANE_AREA_NEAR: usize = 417;
/// House area moves: capture 2 away, destination adjacent to it.
pub const PLANE_AREA_FAR: usize = 545;

const _: () = assert!(PLANE_AREA_FAR + 128 == NUM_MOVE_PLANES);
const _: () = assert!(PLANE_PROMOTE + 208 == PLANE_PIECE_PASS);

/// `(df, dr)` of each direction `0..8` (N, NE, E, SE, S, SW, W, NW), as `engine::board::dir`.
pub const DIR_DELTAS: [(i32, i32); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

/// Displacement `(df, dr)` of each of the 144 one-leg planes.
pub const ONE_LEG_DELTAS: [(i32, i32); 144] = {
    let mut t = [(0i32, 0i32); 144];
    let mut d = 0;
    while d < 8 {
        let mut k = 1;
        while k <= 15 {
            t[d * 15 + k - 1] = (DIR_DELTAS[d].0 * k as i32, DIR_DELTAS[d].1 * k as i32);
            k += 1;
        }
        d += 1;
    }
    let mut n = 120;
    let mut dr = -3;
    while dr <= 3 {
        let mut df = -3;
        while df <= 3 {
            if df != 0 && dr != 0 && df != dr && df != -dr {
                t[n] = (df, dr);
                n += 1;
            }
            df += 1;
        }
        dr += 1;
    }
    assert!(n == 144);
    t
};

/// The 16 squares at king distance exactly 2, `(df, dr)` ordered by `dr` then `df`.
pub const RING2_DELTAS: [(i32, i32); 16] = {
    let mut t = [(0i32, 0i32); 16];
    let mut n = 0;
    let mut dr = -2;
    while dr <= 2 {
        let mut df = -2;
        while df <= 2 {
            if df == 2 || df == -2 || dr == 2 || dr == -2 {
                t[n] = (df, dr);
                n += 1;
            }
            df += 1;
        }
        dr += 1;
    }
    assert!(n == 16);
    t
};

const NONE: u8 = u8::MAX;
const NONE16: u16 = u16::MAX;

/// One-leg plane by `(dr + 15) * 31 + (df + 15)`.
static ONE_LEG_PLANE: [u16; 961] = {
    let mut t = [NONE16; 961];
    let mut p = 0;
    while p < 144 {
        let (df, dr) = ONE_LEG_DELTAS[p];
        t[((dr + 15) * 31 + df + 15) as usize] = p as u16;
        p += 1;
    }
    t
};

/// Direction by `(dr + 1) * 3 + (df + 1)` (NONE for the centre).
const DIR_OF: [u8; 9] = {
    let mut t = [NONE; 9];
    let mut d = 0;
    while d < 8 {
        t[((DIR_DELTAS[d].1 + 1) * 3 + DIR_DELTAS[d].0 + 1) as usize] = d as u8;
        d += 1;
    }
    t
};

/// Ring-2 index by `(dr + 2) * 5 + (df + 2)` (NONE inside the ring).
const RING2_OF: [u8; 25] = {
    let mut t = [NONE; 25];
    let mut r = 0;
    while r < 16 {
        t[((RING2_DELTAS[r].1 + 2) * 5 + RING2_DELTAS[r].0 + 2) as usize] = r as u8;
        r += 1;
    }
    t
};

#[inline]
fn cheb(df: i32, dr: i32) -> i32 {
    df.abs().max(dr.abs())
}

/// Frame index of a square for `side` (`rank * 16 + file` after turning the board for White).
#[inline]
pub fn frame_square(s: Square, side: Color) -> usize {
    match side {
        Color::Black => s.index(),
        Color::White => 255 - s.index(),
    }
}

/// The absolute square of a frame index.
#[inline]
pub fn square_of_frame(i: usize, side: Color) -> Square {
    match side {
        Color::Black => Square::from_index(i),
        Color::White => Square::from_index(255 - i),
    }
}

/// The move plane of a move (`None` for `@@@@`, which has its own global entry, and for
/// moves outside the index).
#[inline]
pub fn move_plane(m: Move, side: Color) -> Option<usize> {
    let from = m.from()?;
    let to = m.to()?;
    let s = if side == Color::White { -1 } else { 1 };
    let (ff, fr) = (from.file(), from.rank());
    let promo = m.promotes();
    match m.via_count() {
        0 => {
            let df = (to.file() - ff) * s;
            let dr = (to.rank() - fr) * s;
            if df == 0 && dr == 0 {
                return (!promo).then_some(PLANE_PIECE_PASS);
            }
            let p = ONE_LEG_PLANE[((dr + 15) * 31 + df + 15) as usize];
            if p == NONE16 {
                return None;
            }
            Some(p as usize + if promo { PLANE_PROMOTE } else { 0 })
        }
        1 => {
            let v = m.via().next()?;
            let (vf, vr) = (v.file(), v.rank());
            let (adf, adr) = ((vf - ff) * s, (vr - fr) * s);
            let (bdf, bdr) = ((to.file() - vf) * s, (to.rank() - vr) * s);
            match (cheb(adf, adr), cheb(bdf, bdr)) {
                (1, 1) => {
                    let d1 = DIR_OF[((adr + 1) * 3 + adf + 1) as usize] as usize;
                    let d2 = DIR_OF[((bdr + 1) * 3 + bdf + 1) as usize] as usize;
                    Some(PLANE_TWO_LEG + d1 * 8 + d2 + if promo { PLANE_PROMOTE } else { 0 })
                }
                (1, 2) if !promo => {
                    let d1 = DIR_OF[((adr + 1) * 3 + adf + 1) as usize] as usize;
                    let r = RING2_OF[((bdr + 2) * 5 + bdf + 2) as usize] as usize;
                    Some(PLANE_AREA_NEAR + d1 * 16 + r)
                }
                (2, 1) if !promo => {
                    let r = RING2_OF[((adr + 2) * 5 + adf + 2) as usize] as usize;
                    let d2 = DIR_OF[((bdr + 1) * 3 + bdf + 1) as usize] as usize;
                    Some(PLANE_AREA_FAR + r * 8 + d2)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Policy index of a move of `side` (the side to move). `None` only for moves outside the
/// index: the house rules' three-leg area moves (and impossible shapes).
#[inline]
pub fn move_index(m: Move, side: Color) -> Option<usize> {
    if m.is_null_pass() {
        return Some(NULL_PASS_INDEX);
    }
    let plane = move_plane(m, side)?;
    Some(frame_square(m.from()?, side) * NUM_MOVE_PLANES + plane)
}

/// The move an index stands for, for `side` to move (`None` if it leaves the board or the
/// index is out of range). Exact inverse of [`move_index`]: a move is fully determined by its
/// origin, legs, destination and promotion flag, so no position is needed.
pub fn index_to_move(index: usize, side: Color) -> Option<Move> {
    if index == NULL_PASS_INDEX {
        return Some(Move::NULL_PASS);
    }
    if index > NULL_PASS_INDEX {
        return None;
    }
    let (fi, plane) = (index / NUM_MOVE_PLANES, index % NUM_MOVE_PLANES);
    let from = square_of_frame(fi, side);
    let s = if side == Color::White { -1 } else { 1 };
    let (ff, fr) = (from.file(), from.rank());
    let at = |df: i32, dr: i32| Square::new(ff + df * s, fr + dr * s);
    if plane == PLANE_PIECE_PASS {
        return Some(Move::new(from, from, false));
    }
    if plane >= PLANE_AREA_FAR {
        let k = plane - PLANE_AREA_FAR;
        let (vdf, vdr) = RING2_DELTAS[k / 8];
        let (bdf, bdr) = DIR_DELTAS[k % 8];
        let via = at(vdf, vdr)?;
        let to = at(vdf + bdf, vdr + bdr)?;
        return Some(Move::with_via(from, &[via], to, false));
    }
    if plane >= PLANE_AREA_NEAR {
        let k = plane - PLANE_AREA_NEAR;
        let (vdf, vdr) = DIR_DELTAS[k / 16];
        let (bdf, bdr) = RING2_DELTAS[k % 16];
        let via = at(vdf, vdr)?;
        let to = at(vdf + bdf, vdr + bdr)?;
        return Some(Move::with_via(from, &[via], to, false));
    }
    let (p, promo) = if plane >= PLANE_PROMOTE { (plane - PLANE_PROMOTE, true) } else { (plane, false) };
    if p < PLANE_TWO_LEG {
        let (df, dr) = ONE_LEG_DELTAS[p];
        Some(Move::new(from, at(df, dr)?, promo))
    } else {
        let k = p - PLANE_TWO_LEG;
        let (vdf, vdr) = DIR_DELTAS[k / 8];
        let (bdf, bdr) = DIR_DELTAS[k % 8];
        let via = at(vdf, vdr)?;
        let to = at(vdf + bdf, vdr + bdr)?;
        Some(Move::with_via(from, &[via], to, promo))
    }
}

/// The legal move with this index, if there is one (`moves` = the position's legal moves).
pub fn legal_move_for_index(index: usize, moves: &[Move], side: Color) -> Option<Move> {
    let m = index_to_move(index, side)?;
    moves.contains(&m).then_some(m)
}

/// Policy indices of `moves` (the legal moves of a position with `side` to move), in order,
/// into `out` (cleared first; reuse it to avoid allocation). A move outside the index gets
/// [`NO_INDEX`]. Returns the number of such moves (0 except under the house rules).
#[inline]
pub fn legal_indices(moves: &[Move], side: Color, out: &mut Vec<usize>) -> usize {
    out.clear();
    let mut missing = 0;
    for &m in moves {
        match move_index(m, side) {
            Some(i) => out.push(i),
            None => {
                missing += 1;
                out.push(NO_INDEX);
            }
        }
    }
    missing
}

/// Softmax of `logits` (length [`POLICY_SIZE`]) restricted to the legal moves: `out[i]` is the
/// probability of the move with index `legal[i]` (`out.len() == legal.len()`). Numerically
/// stable (the largest legal logit is subtracted first). Moves with [`NO_INDEX`] get 0; if
/// every move is unindexed the distribution is uniform. Non-finite logits count as −∞.
pub fn mask_and_softmax(logits: &[f32], legal: &[usize], out: &mut [f32]) {
    assert_eq!(out.len(), legal.len(), "one output per legal move");
    let mut max = f32::NEG_INFINITY;
    for &i in legal {
        if i != NO_INDEX {
            let l = logits[i];
            if l.is_finite() && l > max {
                max = l;
            }
        }
    }
    if max == f32::NEG_INFINITY {
        // No usable logit: uniform over the indexed moves, or over all moves.
        let n = legal.iter().filter(|&&i| i != NO_INDEX).count();
        for (o, &i) in out.iter_mut().zip(legal) {
            *o = if n == 0 {
                1.0 / legal.len() as f32
            } else if i != NO_INDEX {
                1.0 / n as f32
            } else {
                0.0
            };
        }
        return;
    }
    let mut sum = 0.0f32;
    for (o, &i) in out.iter_mut().zip(legal) {
        let e = if i != NO_INDEX && logits[i].is_finite() { (logits[i] - max).exp() } else { 0.0 };
        *o = e;
        sum += e;
    }
    let inv = 1.0 / sum; // sum >= 1: the maximum contributes exp(0)
    for o in out.iter_mut() {
        *o *= inv;
    }
}
