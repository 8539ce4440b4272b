//! The board state: a padded mailbox of piece codes, occupancy bitsets, royal counts, side to
//! move and an incrementally updated Zobrist hash. `Copy`, so search can copy-make.
//!
//! [`Position::play`] executes a move with every consequence of RULES.md §6 (captures,
//! promotion, passive and active burns) and reports them in a [`MoveEffect`].

use crate::moves::Move;
use crate::piece::{Piece, EMPTY, GUARD};
use crate::powers::MoveTable;
use crate::rules::FdVsFd;
use crate::square::{dir, Color, Square, NUM_SQUARES, PAD_CELLS};
use crate::zobrist::keys;

#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: [u8; PAD_CELLS],
    /// Occupancy by side over dense indices (4 × 64 bits).
    pub(crate) occ: [[u64; 4]; 2],
    royals: [u8; 2],
    side: Color,
    hash: u64,
}

/// What a move did besides moving: every removed piece, captures first, then burns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveEffect {
    removed: [(u16, u8); 12],
    n_removed: u8,
    n_captured: u8,
    /// The moving piece was burned at the end of its move (§6.2).
    pub mover_burned: bool,
    /// The move promoted the piece.
    pub promoted: bool,
    /// The mover's cell code before the move (0 for the null pass), for [`Position::unplay`].
    mover_code: u8,
}

impl MoveEffect {
    fn push(&mut self, sq: usize, code: u8) {
        self.removed[self.n_removed as usize] = (sq as u16, code);
        self.n_removed += 1;
    }
    /// Pieces captured by the mover's legs (not burns), in order.
    pub fn captured(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.removed[..self.n_captured as usize]
            .iter()
            .map(|&(s, c)| (Square::from_pad(s as usize), Piece::from_code(c).unwrap()))
    }
    /// Pieces burned (including the mover if it burned, listed last).
    pub fn burned(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.removed[self.n_captured as usize..self.n_removed as usize]
            .iter()
            .map(|&(s, c)| (Square::from_pad(s as usize), Piece::from_code(c).unwrap()))
    }
    pub fn is_capture(&self) -> bool {
        self.n_captured > 0
    }
    /// Anything removed at all (captures or burns).
    pub fn removed_any(&self) -> bool {
        self.n_removed > 0
    }
}

impl Position {
    /// An empty board, Black to move.
    pub fn empty() -> Position {
        let mut board = [GUARD; PAD_CELLS];
        for s in Square::all() {
            board[s.pad()] = EMPTY;
        }
        Position { board, occ: [[0; 4]; 2], royals: [0; 2], side: Color::Black, hash: 0 }
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    pub fn set_side_to_move(&mut self, c: Color) {
        if c != self.side {
            self.side = c;
            self.hash ^= keys().white_to_move;
        }
    }
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// Number of royals (King, Prince) of a side.
    #[inline]
    pub fn royal_count(&self, c: Color) -> u32 {
        self.royals[c.index()] as u32
    }
    /// A finished position: one side has no royal left (§16.3).
    pub fn is_finished(&self) -> bool {
        self.royals[0] == 0 || self.royals[1] == 0
    }
    #[inline]
    pub fn piece_at(&self, s: Square) -> Option<Piece> {
        Piece::from_code(self.board[s.pad()])
    }
    /// The piece code in a padded-mailbox cell (0 = empty, `piece::GUARD` = off the board),
    /// for the inner loops of searchers.
    #[inline]
    pub fn cell(&self, pad: usize) -> u8 {
        self.board[pad]
    }
    /// Squares of a side's pieces, in dense-index order.
    pub fn squares_of(&self, c: Color) -> impl Iterator<Item = Square> + '_ {
        let occ = self.occ[c.index()];
        (0..4).flat_map(move |w| {
            let mut bits = occ[w];
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(Square::from_index(w * 64 + b))
            })
        })
    }
    /// Number of pieces of a side.
    pub fn piece_count(&self, c: Color) -> u32 {
        self.occ[c.index()].iter().map(|w| w.count_ones()).sum()
    }

    /// Put a piece on a square (replacing whatever was there).
    pub fn put(&mut self, s: Square, p: Piece) {
        self.remove(s);
        self.add_pad(s.pad(), p.code());
    }
    /// Remove whatever stands on a square.
    pub fn remove(&mut self, s: Square) -> Option<Piece> {
        let code = self.board[s.pad()];
        if code == EMPTY {
            return None;
        }
        self.remove_pad(s.pad());
        Piece::from_code(code)
    }

    #[inline]
    fn add_pad(&mut self, pad: usize, code: u8) {
        debug_assert_eq!(self.board[pad], EMPTY);
        let p = Piece::from_code(code).unwrap();
        let s = Square::from_pad(pad);
        let i = s.index();
        self.board[pad] = code;
        self.occ[p.color().index()][i >> 6] |= 1 << (i & 63);
        self.hash ^= keys().piece[code as usize][i];
        if p.kind().is_royal() {
            self.royals[p.color().index()] += 1;
        }
    }
    #[inline]
    fn remove_pad(&mut self, pad: usize) -> u8 {
        let code = self.board[pad];
        debug_assert!(code != EMPTY && code != GUARD);
        let p = Piece::from_code(code).unwrap();
        let i = Square::from_pad(pad).index();
        self.board[pad] = EMPTY;
        self.occ[p.color().index()][i >> 6] &= !(1 << (i & 63));
        self.hash ^= keys().piece[code as usize][i];
        if p.kind().is_royal() {
            self.royals[p.color().index()] -= 1;
        }
        code
    }

    /// The hash computed from scratch (equals [`Position::hash`] when everything is right).
    pub fn compute_hash(&self) -> u64 {
        let k = keys();
        let mut h = if self.side == Color::White { k.white_to_move } else { 0 };
        for s in Square::all() {
            let c = self.board[s.pad()];
            if c != EMPTY {
                h ^= k.piece[c as usize][s.index()];
            }
        }
        h
    }

    /// Whether an enemy (of `c`) Fire Demon stands next to `pad`.
    #[inline]
    fn enemy_fire_demon_adjacent(&self, t: &MoveTable, pad: usize, c: Color) -> bool {
        dir::OFFSET.iter().any(|&o| {
            let code = self.board[(pad as i32 + o) as usize];
            let pc = t.get(code);
            pc.is_piece && pc.is_fire_demon && pc.white != (c == Color::White)
        })
    }

    /// Play a move (assumed generated for this position) with all its consequences (§6).
    pub fn play(&mut self, t: &MoveTable, m: Move) -> MoveEffect {
        let mut eff = MoveEffect::default();
        let us = self.side;
        self.side = us.other();
        self.hash ^= keys().white_to_move;
        if m.is_null_pass() {
            return eff;
        }
        let from = m.from_pad();
        let to = m.to_pad();
        let mut code = self.board[from];
        eff.mover_code = code;
        let was_fire_demon = t.get(code).is_fire_demon;
        // 1. Execute: captures of the legs in order, then the final square, then promotion.
        for v in m.via_pad() {
            if v != 0 && self.board[v as usize] != EMPTY {
                let c = self.remove_pad(v as usize);
                eff.push(v as usize, c);
            }
        }
        if to != from {
            if self.board[to] != EMPTY {
                let c = self.remove_pad(to);
                eff.push(to, c);
            }
            self.remove_pad(from);
            if m.promotes() {
                code = t.get(code).promote_to;
                eff.promoted = true;
            }
            self.add_pad(to, code);
        } else if m.promotes() {
            self.remove_pad(from);
            code = t.get(code).promote_to;
            eff.promoted = true;
            self.add_pad(to, code);
        }
        eff.n_captured = eff.n_removed;
        // 2. Passive burn of the mover by a surviving enemy Fire Demon.
        let mover = *t.get(code);
        if self.enemy_fire_demon_adjacent(t, to, us) {
            if mover.is_fire_demon {
                match t.rules.fd_vs_fd {
                    FdVsFd::MoverBurned => {}
                    FdVsFd::MoverBurnsOthers => {
                        if was_fire_demon || t.rules.wb_promotion_burns {
                            self.burn_around(t, to, us, false, &mut eff);
                        }
                    }
                    FdVsFd::BothDestroyed => {
                        // A Water Buffalo promoting here is burned first, as a Water Buffalo.
                        if was_fire_demon {
                            self.burn_around(t, to, us, true, &mut eff);
                        }
                    }
                }
            }
            let c = self.remove_pad(to);
            eff.push(to, c);
            eff.mover_burned = true;
            return eff;
        }
        // 3./4. Active burn, after every Fire Demon move, and on promotion to Fire Demon.
        if mover.burns && (was_fire_demon || t.rules.wb_promotion_burns) {
            self.burn_around(t, to, us, false, &mut eff);
        }
        eff
    }

    /// Take back a move played with [`Position::play`], given the effect it returned.
    pub fn unplay(&mut self, m: Move, eff: &MoveEffect) {
        self.side = self.side.other();
        self.hash ^= keys().white_to_move;
        if m.is_null_pass() {
            return;
        }
        let mut n = eff.n_removed as usize;
        if eff.mover_burned {
            n -= 1; // the mover's own burn is the last record; it is not on the board
        } else {
            self.remove_pad(m.to_pad());
        }
        for &(sq, code) in eff.removed[..n].iter().rev() {
            self.add_pad(sq as usize, code);
        }
        self.add_pad(m.from_pad(), eff.mover_code);
    }

    /// Burn the enemies (of `us`) around `pad`: only the Fire Demons if `only_fire_demons`,
    /// otherwise every enemy that is not a Fire Demon.
    fn burn_around(&mut self, t: &MoveTable, pad: usize, us: Color, only_fire_demons: bool, eff: &mut MoveEffect) {
        for &o in dir::OFFSET.iter() {
            let s = (pad as i32 + o) as usize;
            let code = self.board[s];
            let pc = t.get(code);
            if pc.is_piece && pc.white != (us == Color::White) && pc.is_fire_demon == only_fire_demons {
                let c = self.remove_pad(s);
                eff.push(s, c);
            }
        }
    }

    /// The position with colours swapped and the board turned 180° (for symmetry tests and
    /// side-to-move-relative encodings).
    pub fn mirrored(&self) -> Position {
        let mut p = Position::empty();
        for s in Square::all() {
            if let Some(pc) = self.piece_at(s) {
                p.put(s.rotate(), pc.with_color(pc.color().other()));
            }
        }
        p.set_side_to_move(self.side.other());
        p
    }

    /// Kinds of every piece of a side (for material listings).
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(move |s| self.piece_at(s).map(|p| (s, p)))
    }

    pub fn dense_occ(&self, c: Color) -> [u64; 4] {
        self.occ[c.index()]
    }
}

const _: () = assert!(NUM_SQUARES == 256);
