//! Legal move generation (RULES.md §4–§8; legal = pseudo-legal except repetition, §7.1).
//!
//! One pass over the side's pieces; each piece's compiled record ([`crate::powers::Compiled`])
//! says which of the primitives below apply. Moves go into a fixed-capacity [`MoveList`];
//! nothing is allocated. Where two powers of one piece reach the same square (an area move and
//! a slide, a Lion step and a Bishop slide) the duplicate is dropped (§7.2) using a 7×7 window
//! bitmask around the origin.

use crate::moves::{Move, MoveList};
use crate::piece::{EMPTY, GUARD};
use crate::position::Position;
use crate::powers::{AreaKind, Compiled, MoveTable};
use crate::rules::{HeavenlyTetrarch, JumpCapture, LastRankRule};
use crate::square::{dir, Color, Square, PAD_W};

/// The 24 squares of the Lion's 5×5 area (steps and distance-2 jumps), as padded offsets.
const LION_OFFSETS: [i32; 24] = {
    let mut o = [0i32; 24];
    let mut n = 0;
    let mut dr = -2;
    while dr <= 2 {
        let mut df = -2;
        while df <= 2 {
            if dr != 0 || df != 0 {
                o[n] = dr * PAD_W + df;
                n += 1;
            }
            df += 1;
        }
        dr += 1;
    }
    o
};

/// Bit of the 7×7 window around the origin for a padded offset, or 64 if outside.
const WINDOW: [u8; 127] = {
    let mut t = [64u8; 127];
    let mut dr = -3;
    while dr <= 3 {
        let mut df = -3;
        while df <= 3 {
            t[(dr * PAD_W + df + 63) as usize] = ((dr + 3) * 7 + df + 3) as u8;
            df += 1;
        }
        dr += 1;
    }
    t
};

#[inline]
fn window_bit(from: usize, to: usize) -> u64 {
    let d = to as i32 - from as i32 + 63;
    if (0..127).contains(&d) {
        let b = WINDOW[d as usize];
        if b < 64 {
            return 1u64 << b;
        }
    }
    0
}

/// Placeholder record before the first piece is looked at.
static IDLE: Compiled = Compiled::IDLE;

/// Generate every legal move of the side to move into `list` (cleared first). A finished
/// position (a side without royals) has none.
pub fn generate(pos: &Position, t: &MoveTable, list: &mut MoveList) {
    generate_for(pos, t, pos.side_to_move(), list);
}

/// Generate the moves side `us` would have if it were to move (cleared first; nothing in a
/// finished position). For the side to move this is [`generate`]; for the other side it is
/// what it threatens, which the network's attack planes are built from.
pub fn generate_for(pos: &Position, t: &MoveTable, us: Color, list: &mut MoveList) {
    list.clear();
    if pos.is_finished() {
        return;
    }
    let mut g = Gen::new(pos, t, us, list);
    let occ = pos.occ[us.index()];
    for (w, word) in occ.iter().enumerate() {
        let mut bits = *word;
        while bits != 0 {
            let i = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            g.piece(Square::from_index(i).pad());
        }
    }
    if g.null_pass {
        g.list.push(Move::NULL_PASS);
    }
}

/// Moves of the piece on `sq` as if its side were to move (no `@@@@`; returns whether the
/// piece could make a board-neutral pass). Used by the `moves SQUARE` command and attack tests.
pub fn generate_piece(pos: &Position, t: &MoveTable, sq: Square, list: &mut MoveList) -> bool {
    list.clear();
    let Some(p) = pos.piece_at(sq) else { return false };
    let mut g = Gen::new(pos, t, p.color(), list);
    g.piece(sq.pad());
    g.null_pass
}

/// Convenience: all legal moves as a `Vec` (allocates; not for hot paths).
pub fn legal_moves(pos: &Position, t: &MoveTable) -> Vec<Move> {
    let mut l = MoveList::new();
    generate(pos, t, &mut l);
    l.as_slice().to_vec()
}

struct Gen<'a> {
    pos: &'a Position,
    t: &'a MoveTable,
    /// Colour bit of the side to move (0 Black, 1 White).
    us: u8,
    list: &'a mut MoveList,
    null_pass: bool,
    /// Destinations already produced for the current piece (7×7 window bits).
    seen: u64,
    cur: &'a Compiled,
    dedup: bool,
    freezing: bool,
}

impl<'a> Gen<'a> {
    fn new(pos: &'a Position, t: &'a MoveTable, us: Color, list: &'a mut MoveList) -> Gen<'a> {
        Gen {
            pos,
            t,
            us: us as u8,
            list,
            null_pass: false,
            seen: 0,
            cur: &IDLE,
            dedup: false,
            freezing: t.rules.heavenly_tetrarch == HeavenlyTetrarch::ChariotSoldierFreezing,
        }
    }

    #[inline]
    fn cell(&self, pad: usize) -> u8 {
        self.pos.board[pad]
    }
    /// An enemy piece code (not empty, not guard).
    #[inline]
    fn is_enemy(&self, code: u8) -> bool {
        let r = code.wrapping_sub(1);
        r < 144 && (r & 1) != self.us
    }
    /// Empty or enemy: a square a move may end on.
    #[inline]
    fn can_land(&self, code: u8) -> bool {
        code == EMPTY || self.is_enemy(code)
    }

    #[inline]
    fn in_zone(&self, pad: usize) -> bool {
        let rank = pad as i32 / PAD_W - 2;
        if self.us == 0 {
            rank >= 11
        } else {
            rank <= 4
        }
    }
    #[inline]
    fn ranks_to_last(&self, pad: usize) -> i32 {
        let rank = pad as i32 / PAD_W - 2;
        if self.us == 0 {
            15 - rank
        } else {
            rank
        }
    }

    /// Push a move and, where §8 allows or forces it, its promoting twin.
    #[inline]
    fn emit(&mut self, from: usize, via0: usize, via1: usize, to: usize, capture: bool) {
        let c = &self.cur;
        if c.promote_to == 0 {
            self.list.push(Move::raw(from, via0, via1, to, false));
            return;
        }
        let from_in = self.in_zone(from);
        let mut eligible = (!from_in && self.in_zone(to)) || (capture && from_in);
        let last = (self.ranks_to_last(to) as u8) < c.last_rank_depth;
        let rule = self.t.rules.last_rank_rule;
        if last && rule == LastRankRule::SecondChance {
            eligible = true;
        }
        if !eligible {
            self.list.push(Move::raw(from, via0, via1, to, false));
            return;
        }
        let forced = last && rule != LastRankRule::None;
        self.list.push(Move::raw(from, via0, via1, to, true));
        if !forced && (self.t.rules.offer_useless_deferral || !c.upward_compatible) {
            self.list.push(Move::raw(from, via0, via1, to, false));
        }
    }

    /// A one-leg move to `to` (empty or enemy), de-duplicated when the piece needs it.
    #[inline]
    fn simple(&mut self, from: usize, to: usize, capture: bool) {
        if self.dedup {
            let b = window_bit(from, to);
            if self.seen & b != 0 {
                return;
            }
            self.seen |= b;
        }
        self.emit(from, 0, 0, to, capture);
    }

    fn frozen(&self, from: usize) -> bool {
        dir::OFFSET.iter().any(|&o| {
            let code = self.cell((from as i32 + o) as usize);
            self.is_enemy(code) && self.t.get(code).freezes
        })
    }

    fn piece(&mut self, from: usize) {
        let code = self.cell(from);
        self.cur = self.t.get(code);
        if self.freezing && self.frozen(from) {
            return;
        }
        self.seen = 0;
        self.dedup = self.cur.dedup;
        let c = self.cur;
        let mut rides = c.ride_dirs;
        while rides != 0 {
            let d = rides.trailing_zeros() as usize;
            rides &= rides - 1;
            self.ride(from, d, c.ride_max[d]);
        }
        if c.jump2 != 0 {
            let mut m = c.jump2;
            while m != 0 {
                let d = m.trailing_zeros() as usize;
                m &= m - 1;
                let s = (from as i32 + 2 * dir::OFFSET[d]) as usize;
                let code = self.cell(s);
                if self.can_land(code) {
                    self.simple(from, s, code != EMPTY);
                }
            }
        }
        if c.knight {
            let fwd = if self.us == 0 { 2 * PAD_W } else { -2 * PAD_W };
            for side in [-1, 1] {
                let s = (from as i32 + fwd + side) as usize;
                let code = self.cell(s);
                if self.can_land(code) {
                    self.simple(from, s, code != EMPTY);
                }
            }
        }
        if c.igui != 0 {
            let mut m = c.igui;
            while m != 0 {
                let d = m.trailing_zeros() as usize;
                m &= m - 1;
                let a = (from as i32 + dir::OFFSET[d]) as usize;
                if self.is_enemy(self.cell(a)) {
                    self.emit(from, a, 0, from, true);
                }
            }
        }
        if c.lion {
            self.lion(from);
        }
        if c.linear_lion != 0 {
            self.linear_lion(from, c.linear_lion);
        }
        if c.bent_lion_first != 0 {
            self.bent_lion(from, c.bent_lion_first, c.bent_lion_second);
        }
        if c.ferz_twice {
            self.ferz_twice(from);
        }
        match c.area {
            AreaKind::None => {}
            AreaKind::Stop => self.area(from, c.area_k),
            AreaKind::LionLike => self.lion_area(from, c.area_k),
        }
        if c.pass_dirs != 0 {
            self.pass(from, c.pass_dirs);
        }
    }

    /// Step / limited range / slide / skip-first ride along one direction, then the
    /// range-jumping captures beyond the first obstacle (§4, §5.5, §5.6).
    #[inline]
    fn ride(&mut self, from: usize, d: usize, max: u8) {
        let c = self.cur;
        let off = dir::OFFSET[d];
        let mut s = from as i32 + off;
        let mut n = 1u8;
        if c.ride_skip & (1 << d) != 0 {
            s += off;
            n = 2;
        }
        while n <= max {
            let code = self.cell(s as usize);
            if code == EMPTY {
                self.simple(from, s as usize, false);
            } else {
                if code == GUARD {
                    return;
                }
                if self.is_enemy(code) && self.direct_capture_ok(code) {
                    self.simple(from, s as usize, true);
                }
                if c.range_jump & (1 << d) != 0 {
                    self.range_jump(from, s as usize, off);
                }
                return;
            }
            s += off;
            n += 1;
        }
    }

    /// Option D (§12.1) forbids a general any capture of an equal or higher rank, by any of its
    /// moves (slide or area). Only ranked generals: a Free Eagle with a range jump has rank 0.
    #[inline]
    fn direct_capture_ok(&self, code: u8) -> bool {
        let c = &self.cur;
        !(c.range_jump != 0
            && c.rank != 0
            && self.t.rules.jump_capture_targets == JumpCapture::LowerOnlyEvenDirect
            && self.t.get(code).rank >= c.jump_power)
    }

    fn jump_target_ok(&self, code: u8) -> bool {
        let target = self.t.get(code);
        let c = &self.cur;
        match self.t.rules.jump_capture_targets {
            JumpCapture::Any => true,
            JumpCapture::NoRoyals => !target.royal,
            JumpCapture::LowerOnly | JumpCapture::LowerOnlyEvenDirect => target.rank < c.jump_power,
            JumpCapture::NotHigherNoRoyals => target.rank <= c.jump_power && !target.royal,
        }
    }

    /// Beyond the first piece on a general's line: capture enemies further on, jumping every
    /// piece in between as long as each may be jumped (§5.6).
    fn range_jump(&mut self, from: usize, first: usize, off: i32) {
        let mut s = first as i32;
        loop {
            let obstacle = self.t.get(self.cell(s as usize));
            if !self.t.can_jump_over(self.cur, obstacle) {
                return;
            }
            s += off;
            loop {
                let code = self.cell(s as usize);
                if code == GUARD {
                    return;
                }
                if code == EMPTY {
                    if self.t.rules.jump_on_noncapture {
                        self.simple(from, s as usize, false);
                    }
                    s += off;
                    continue;
                }
                if self.is_enemy(code) && self.jump_target_ok(code) {
                    self.simple(from, s as usize, true);
                }
                break;
            }
        }
    }

    /// Full lion power (§5.1): the 24 squares of the 5×5 area, then capture-and-continue.
    fn lion(&mut self, from: usize) {
        for &o in LION_OFFSETS.iter() {
            let s = (from as i32 + o) as usize;
            let code = self.cell(s);
            if self.can_land(code) {
                self.simple(from, s, code != EMPTY);
            }
        }
        for &o1 in dir::OFFSET.iter() {
            let a = (from as i32 + o1) as usize;
            if !self.is_enemy(self.cell(a)) {
                continue;
            }
            for &o2 in dir::OFFSET.iter() {
                let b = (a as i32 + o2) as usize;
                if b == from {
                    self.emit(from, a, 0, from, true);
                } else if self.can_land(self.cell(b)) {
                    self.emit(from, a, 0, b, true);
                }
            }
        }
    }

    /// Lion power along single lines (§5.2).
    fn linear_lion(&mut self, from: usize, dirs: u8) {
        let mut m = dirs;
        while m != 0 {
            let d = m.trailing_zeros() as usize;
            m &= m - 1;
            let off = dir::OFFSET[d];
            let a = (from as i32 + off) as usize;
            let b = (a as i32 + off) as usize;
            let ca = self.cell(a);
            if ca == GUARD {
                continue;
            }
            let cb = self.cell(b);
            if ca == EMPTY {
                self.simple(from, a, false);
            } else if self.is_enemy(ca) {
                self.simple(from, a, true);
                self.emit(from, a, 0, from, true);
                if self.can_land(cb) {
                    self.emit(from, a, 0, b, true);
                }
            }
            if self.can_land(cb) {
                self.simple(from, b, cb != EMPTY);
            }
        }
    }

    /// Free Eagle: capture on an adjacent square in `first`, then one step in `second` (§5.4).
    fn bent_lion(&mut self, from: usize, first: u8, second: u8) {
        let mut m = first;
        while m != 0 {
            let d = m.trailing_zeros() as usize;
            m &= m - 1;
            let a = (from as i32 + dir::OFFSET[d]) as usize;
            if !self.is_enemy(self.cell(a)) {
                continue;
            }
            let mut m2 = second;
            while m2 != 0 {
                let d2 = m2.trailing_zeros() as usize;
                m2 &= m2 - 1;
                let b = (a as i32 + dir::OFFSET[d2]) as usize;
                if b == from {
                    self.emit(from, a, 0, from, true);
                } else if self.can_land(self.cell(b)) {
                    self.emit(from, a, 0, b, true);
                }
            }
        }
    }

    /// Two Ferz steps, the first onto an empty square (literal Edo Free Eagle).
    fn ferz_twice(&mut self, from: usize) {
        for d in [1usize, 3, 5, 7] {
            let a = (from as i32 + dir::OFFSET[d]) as usize;
            if self.cell(a) != EMPTY {
                continue;
            }
            for d2 in [1usize, 3, 5, 7] {
                let b = (a as i32 + dir::OFFSET[d2]) as usize;
                let code = self.cell(b);
                if b != from && self.can_land(code) {
                    self.simple(from, b, code != EMPTY);
                }
            }
        }
    }

    /// Area move of up to `k` king steps through empty squares, ending at the first capture
    /// (§4). Paths through the vacated origin add nothing but the pass, handled by `pass`.
    fn area(&mut self, from: usize, k: u8) {
        let saved = self.dedup;
        self.dedup = true;
        let mut frontier = [0usize; 49];
        let mut nf = 1;
        frontier[0] = from;
        let mut expanded: u64 = window_bit(from, from);
        for _ in 0..k {
            let mut next = [0usize; 49];
            let mut nn = 0;
            for &p in &frontier[..nf] {
                for &o in dir::OFFSET.iter() {
                    let s = (p as i32 + o) as usize;
                    let code = self.cell(s);
                    if code == EMPTY {
                        self.simple(from, s, false);
                        let b = window_bit(from, s);
                        if expanded & b == 0 {
                            expanded |= b;
                            next[nn] = s;
                            nn += 1;
                        }
                    } else if self.is_enemy(code) && self.direct_capture_ok(code) {
                        self.simple(from, s, true);
                    }
                }
            }
            frontier = next;
            nf = nn;
        }
        self.dedup = saved;
    }

    /// Lion-like area move of the house rules (§13): friendly pieces are jumped, an enemy on
    /// the way is captured or jumped; one move per (origin, captures in order, destination).
    fn lion_area(&mut self, from: usize, k: u8) {
        let start = self.list.len();
        let mut caps = [0usize; 3];
        self.lion_area_rec(from, from, k, &mut caps, 0, start);
    }

    fn lion_area_rec(&mut self, from: usize, at: usize, left: u8, caps: &mut [usize; 3], nc: usize, start: usize) {
        for &o in dir::OFFSET.iter() {
            let s = (at as i32 + o) as usize;
            let mut code = self.cell(s);
            if code == GUARD {
                continue;
            }
            if s == from || caps[..nc].contains(&s) {
                code = EMPTY;
            }
            if code == EMPTY {
                if !(s == from && nc == 0) {
                    self.lion_area_emit(from, &caps[..nc], s, false, start);
                }
            } else if self.is_enemy(code) && self.direct_capture_ok(code) {
                self.lion_area_emit(from, &caps[..nc], s, true, start);
            }
            if left > 1 {
                if self.is_enemy(code) && self.direct_capture_ok(code) && nc < 2 {
                    caps[nc] = s;
                    self.lion_area_rec(from, s, left - 1, caps, nc + 1, start);
                }
                // Jump the piece (friend or enemy) or walk through the empty square.
                self.lion_area_rec(from, s, left - 1, caps, nc, start);
            }
        }
    }

    fn lion_area_emit(&mut self, from: usize, caps: &[usize], to: usize, capture: bool, start: usize) {
        let mut v = [0usize; 2];
        let mut n = 0;
        for &c in caps {
            v[n] = c;
            n += 1;
        }
        // A last leg that only re-enters its own capture square is the plain capture there.
        if n > 0 && v[n - 1] == to {
            n -= 1;
            v[n] = 0;
        }
        let capture = capture || n > 0;
        if n == 0 {
            // One-leg results also come from the slides: share their de-duplication.
            let b = window_bit(from, to);
            if self.seen & b != 0 {
                return;
            }
            self.seen |= b;
            self.emit(from, 0, 0, to, capture);
            return;
        }
        let m = Move::raw(from, v[0], v[1], to, false);
        if self.list.as_slice()[start..].iter().any(|x| x.with_promotion(false) == m) {
            return;
        }
        self.emit(from, v[0], v[1], to, capture);
    }

    /// Pass (§7.3): needs an empty neighbour in a lion/area direction. Board-neutral passes
    /// merge into one `@@@@`; a pass that burns or gets burned is the piece's own `g3g3`.
    fn pass(&mut self, from: usize, dirs: u8) {
        let mut m = dirs;
        let mut ok = false;
        while m != 0 {
            let d = m.trailing_zeros() as usize;
            m &= m - 1;
            if self.cell((from as i32 + dir::OFFSET[d]) as usize) == EMPTY {
                ok = true;
                break;
            }
        }
        if !ok {
            return;
        }
        let burns = self.cur.burns;
        let changes = dir::OFFSET.iter().any(|&o| {
            let code = self.cell((from as i32 + o) as usize);
            self.is_enemy(code) && (burns || self.t.get(code).is_fire_demon)
        });
        if changes {
            self.list.push(Move::raw(from, 0, 0, from, false));
        } else {
            self.null_pass = true;
        }
    }
}
