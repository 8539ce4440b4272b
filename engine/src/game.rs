//! A game: positions with history, repetition (RULES.md §9), results and the ply cap.
//!
//! [`Position`] knows nothing of the past; a [`Game`] keeps the hashes of every position so far
//! and applies the repetition rule chosen in [`Rules::repetition`], which removes moves from
//! the legal list (JCSA: the perpetual checker / chaser / first passer must deviate; or any
//! repetition forbidden) or ends the game (draw, or HaChu's loss for the repeater).

use crate::movegen::{generate, generate_piece};
use crate::moves::{Move, MoveList};
use crate::position::{MoveEffect, Position};
use crate::powers::MoveTable;
use crate::rules::{DoubleRoyalLoss, Repetition};
use crate::square::Color;
use std::sync::Arc;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win { winner: Color, reason: WinReason },
    Draw(DrawReason),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinReason {
    /// The loser's last royal was captured or burned (§9).
    RoyalCaptured,
    /// The loser had no legal move (§9).
    NoLegalMoves,
    /// The loser had moves, but the repetition rule forbade every one of them (§9).
    NoLegalMovesByRepetition,
    /// HaChu's repetition option: the repeating side loses (or wins when in check).
    Repetition,
    Resignation,
    /// Decided by an adjudicator outside the rules (arena material margin, for example).
    Adjudication,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    Repetition,
    PlyCap,
    NoCapture,
    /// Both sides lost their last royal in one move, under `double_royal_loss = draw`.
    BothRoyalsLost,
    Agreement,
}

impl Outcome {
    /// Score from Black's point of view: 1, ½ or 0.
    pub fn black_score(self) -> f32 {
        match self {
            Outcome::Win { winner: Color::Black, .. } => 1.0,
            Outcome::Win { .. } => 0.0,
            Outcome::Draw(_) => 0.5,
        }
    }
    pub fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win { winner, .. } => Some(winner),
            Outcome::Draw(_) => None,
        }
    }
    /// Result text as in game records: `1-0` (Black won), `0-1`, `1/2-1/2`.
    pub fn result_text(self) -> &'static str {
        match self.winner() {
            Some(Color::Black) => "1-0",
            Some(Color::White) => "0-1",
            None => "1/2-1/2",
        }
    }
    /// A human-readable description.
    pub fn describe(self) -> String {
        match self {
            Outcome::Win { winner, reason } => {
                let why = match reason {
                    WinReason::RoyalCaptured => "the last royal was taken",
                    WinReason::NoLegalMoves => "the opponent has no legal move",
                    WinReason::NoLegalMovesByRepetition => {
                        "the opponent has no legal move: the repetition rule forbids all of its moves"
                    }
                    WinReason::Repetition => "repetition",
                    WinReason::Resignation => "resignation",
                    WinReason::Adjudication => "adjudication",
                };
                format!("{} wins: {why}", winner.name())
            }
            Outcome::Draw(r) => format!(
                "draw: {}",
                match r {
                    DrawReason::Repetition => "fourfold repetition",
                    DrawReason::PlyCap => "ply cap reached",
                    DrawReason::NoCapture => "no capture for too long",
                    DrawReason::BothRoyalsLost => "both last royals lost in one move",
                    DrawReason::Agreement => "agreement",
                }
            ),
        }
    }
}

/// Why a move cannot be played (or its text read and played) in a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the game is over ({0})")]
    GameOver(String),
    #[error("{0} is not a legal move here")]
    NotLegal(Move),
    #[error("{0} repeats the position and the repetition rule forbids it for this side")]
    Repetition(Move),
    /// The move's text could not be read, or names no legal move.
    #[error(transparent)]
    Text(#[from] crate::notation::MoveError),
}

/// One played move.
#[derive(Clone, Copy, Debug)]
pub struct Ply {
    pub mv: Move,
    pub effect: MoveEffect,
    /// The position before the move.
    pub before: Position,
}

/// What the repetition rule says about a candidate move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RepVerdict {
    Allowed,
    Illegal,
    Ends(Outcome),
}

/// A game in progress (or finished).
#[derive(Clone)]
pub struct Game {
    table: Arc<MoveTable>,
    start: Position,
    pos: Position,
    plies: Vec<Ply>,
    /// `hashes[i]` is the hash of the position after `i` plies.
    hashes: Vec<u64>,
    /// Plies since the last capture or burn (for `no_capture_draw_plies`).
    quiet: Vec<u32>,
    outcome: Option<Outcome>,
}

impl Game {
    pub fn new(table: Arc<MoveTable>, start: Position) -> Game {
        let mut g = Game {
            table,
            start,
            pos: start,
            plies: Vec::new(),
            hashes: vec![start.hash()],
            quiet: vec![0],
            outcome: None,
        };
        g.outcome = g.terminal_without_history();
        g
    }
    pub fn table(&self) -> &MoveTable {
        &self.table
    }
    pub fn table_arc(&self) -> Arc<MoveTable> {
        self.table.clone()
    }
    pub fn position(&self) -> &Position {
        &self.pos
    }
    pub fn start_position(&self) -> &Position {
        &self.start
    }
    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.plies.iter().map(|p| p.mv)
    }
    pub fn ply_count(&self) -> usize {
        self.plies.len()
    }
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }
    pub fn side_to_move(&self) -> Color {
        self.pos.side_to_move()
    }
    /// Earlier occurrences of the current position (same side to move), this one excluded.
    pub fn repetitions(&self) -> usize {
        let h = self.pos.hash();
        self.hashes[..self.hashes.len() - 1].iter().filter(|&&x| x == h).count()
    }

    fn terminal_without_history(&self) -> Option<Outcome> {
        let us = self.pos.side_to_move();
        match (self.pos.royal_count(us), self.pos.royal_count(us.other())) {
            (0, 0) => Some(Outcome::Draw(DrawReason::BothRoyalsLost)),
            (0, _) => Some(Outcome::Win { winner: us.other(), reason: WinReason::RoyalCaptured }),
            (_, 0) => Some(Outcome::Win { winner: us, reason: WinReason::RoyalCaptured }),
            _ => {
                if !self.legal_moves().is_empty() {
                    None
                } else if self.candidate_moves().is_empty() {
                    Some(Outcome::Win { winner: us.other(), reason: WinReason::NoLegalMoves })
                } else {
                    Some(Outcome::Win { winner: us.other(), reason: WinReason::NoLegalMovesByRepetition })
                }
            }
        }
    }

    /// Every move of the position by move generation, those the repetition rule forbids now
    /// included (empty once the game is over). Read a player's move text against these, then
    /// [`Game::play`] it: a forbidden move is refused for its real reason, the repetition rule.
    pub fn candidate_moves(&self) -> Vec<Move> {
        let mut list = MoveList::new();
        if self.outcome.is_none() {
            generate(&self.pos, &self.table, &mut list);
        }
        list.as_slice().to_vec()
    }

    /// The legal moves now: move generation minus what the repetition rule forbids.
    /// Empty once the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list.as_slice().to_vec()
    }

    /// As [`Game::legal_moves`], into a reusable list.
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        if self.outcome.is_some() {
            return;
        }
        generate(&self.pos, &self.table, list);
        let rep = self.table.rules.repetition;
        // Cheap test first: only moves whose resulting position occurred before can be affected.
        let mut keep = 0;
        for i in 0..list.len() {
            let m = list.as_slice()[i];
            let ok = match self.repeats(m) {
                None => true,
                Some(h) => self.repetition_verdict(m, h, rep) != RepVerdict::Illegal,
            };
            if ok {
                list.as_mut_slice()[keep] = m;
                keep += 1;
            }
        }
        list.truncate(keep);
    }

    /// If `m` recreates an earlier position, its hash.
    fn repeats(&self, m: Move) -> Option<u64> {
        let mut child = self.pos;
        child.play(&self.table, m);
        let h = child.hash();
        self.hashes.contains(&h).then_some(h)
    }

    fn repetition_verdict(&self, m: Move, h: u64, rep: Repetition) -> RepVerdict {
        let us = self.pos.side_to_move();
        match rep {
            Repetition::Forbidden => RepVerdict::Illegal,
            Repetition::LossForRepeater => {
                let winner = if self.in_check(us) { us } else { us.other() };
                RepVerdict::Ends(Outcome::Win { winner, reason: WinReason::Repetition })
            }
            Repetition::Jcsa => {
                let occ: Vec<usize> = (0..self.hashes.len()).filter(|&i| self.hashes[i] == h).collect();
                if occ.len() < 3 {
                    return RepVerdict::Allowed;
                }
                // The cycle: the moves since the occurrence three before the new one.
                let first = occ[occ.len() - 3];
                match self.jcsa_deviator(first, m) {
                    Some(c) if c == us => RepVerdict::Illegal,
                    Some(_) => RepVerdict::Allowed,
                    None => RepVerdict::Ends(Outcome::Draw(DrawReason::Repetition)),
                }
            }
        }
    }

    /// Which side must deviate from the cycle that starts after ply `first` and ends with the
    /// candidate `m` (§9): the perpetual checker, else the perpetual attacker, else for a
    /// cycle of `@@@@` only the side that began the run of passes; `None` = draw.
    fn jcsa_deviator(&self, first: usize, m: Move) -> Option<Color> {
        let t = &*self.table;
        // (mover, move, position after)
        let mut cycle: Vec<(Color, Move, Position)> = Vec::new();
        for i in first..self.plies.len() {
            let after = if i + 1 < self.plies.len() { self.plies[i + 1].before } else { self.pos };
            cycle.push((self.plies[i].before.side_to_move(), self.plies[i].mv, after));
        }
        let mut child = self.pos;
        child.play(t, m);
        cycle.push((self.pos.side_to_move(), m, child));

        let all_by = |c: Color, f: &dyn Fn(Move, &Position, Color) -> bool| {
            let mine: Vec<_> = cycle.iter().filter(|x| x.0 == c).collect();
            !mine.is_empty() && mine.iter().all(|x| f(x.1, &x.2, c))
        };
        let check = |_: Move, after: &Position, c: Color| gives_check(t, after, c);
        let attack = |mv: Move, after: &Position, c: Color| attacks(t, mv, after, c);
        for test in [&check as &dyn Fn(Move, &Position, Color) -> bool, &attack] {
            let b = all_by(Color::Black, test);
            let w = all_by(Color::White, test);
            if b != w {
                return Some(if b { Color::Black } else { Color::White });
            }
        }
        if cycle.iter().all(|x| x.1.is_null_pass()) {
            // The side that began the current run of passes.
            let mut start = self.plies.len();
            while start > 0 && self.plies[start - 1].mv.is_null_pass() {
                start -= 1;
            }
            let c = if start < self.plies.len() {
                self.plies[start].before.side_to_move()
            } else {
                self.pos.side_to_move()
            };
            return Some(c);
        }
        None
    }

    /// Whether `c` is in check: its opponent could take `c`'s last royal next move.
    pub fn in_check(&self, c: Color) -> bool {
        gives_check(&self.table, &self.pos, c.other())
    }

    /// Play a legal move; the error says why `m` cannot be played now.
    pub fn play(&mut self, m: Move) -> Result<MoveEffect, PlayError> {
        if let Some(o) = self.outcome {
            return Err(PlayError::GameOver(o.describe()));
        }
        let mut list = MoveList::new();
        generate(&self.pos, &self.table, &mut list);
        if !list.contains(m) {
            return Err(PlayError::NotLegal(m));
        }
        let verdict = match self.repeats(m) {
            None => RepVerdict::Allowed,
            Some(h) => self.repetition_verdict(m, h, self.table.rules.repetition),
        };
        if verdict == RepVerdict::Illegal {
            return Err(PlayError::Repetition(m));
        }
        Ok(self.play_unchecked(m, verdict))
    }

    fn play_unchecked(&mut self, m: Move, verdict: RepVerdict) -> MoveEffect {
        let before = self.pos;
        let us = before.side_to_move();
        let eff = self.pos.play(&self.table, m);
        self.plies.push(Ply { mv: m, effect: eff, before });
        self.hashes.push(self.pos.hash());
        let quiet = if eff.removed_any() { 0 } else { self.quiet.last().unwrap() + 1 };
        self.quiet.push(quiet);
        let rules = &self.table.rules;
        let them = us.other();
        self.outcome = match (self.pos.royal_count(us), self.pos.royal_count(them)) {
            (0, 0) => Some(match rules.double_royal_loss {
                DoubleRoyalLoss::MoverWins => Outcome::Win { winner: us, reason: WinReason::RoyalCaptured },
                DoubleRoyalLoss::MoverLoses => Outcome::Win { winner: them, reason: WinReason::RoyalCaptured },
                DoubleRoyalLoss::Draw => Outcome::Draw(DrawReason::BothRoyalsLost),
            }),
            (_, 0) => Some(Outcome::Win { winner: us, reason: WinReason::RoyalCaptured }),
            (0, _) => Some(Outcome::Win { winner: them, reason: WinReason::RoyalCaptured }),
            _ => None,
        };
        if self.outcome.is_none() {
            if let RepVerdict::Ends(o) = verdict {
                self.outcome = Some(o);
            }
        }
        if self.outcome.is_none() && rules.ply_cap > 0 && self.plies.len() as u32 >= rules.ply_cap {
            self.outcome = Some(Outcome::Draw(DrawReason::PlyCap));
        }
        if self.outcome.is_none() && rules.no_capture_draw_plies > 0 && quiet >= rules.no_capture_draw_plies {
            self.outcome = Some(Outcome::Draw(DrawReason::NoCapture));
        }
        if self.outcome.is_none() && self.legal_moves().is_empty() {
            self.outcome = Some(Outcome::Win { winner: us, reason: WinReason::NoLegalMoves });
        }
        eff
    }

    /// Take back the last move. Returns it, or `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let p = self.plies.pop()?;
        self.hashes.pop();
        self.quiet.pop();
        self.pos = p.before;
        self.outcome = None;
        if self.legal_moves().is_empty() {
            self.outcome = self.terminal_without_history();
        }
        Some(p.mv)
    }

    /// End the game by resignation of `c`.
    pub fn resign(&mut self, c: Color) {
        self.outcome = Some(Outcome::Win { winner: c.other(), reason: WinReason::Resignation });
    }
    /// End the game with an outcome decided outside the rules (adjudication, agreement).
    pub fn set_outcome(&mut self, o: Outcome) {
        self.outcome = Some(o);
    }
}

/// A move *gives check* if afterwards some piece of the mover could capture (or burn) the
/// opponent's last royal on its next move (§9). Check exists only against a single royal.
pub fn gives_check(t: &MoveTable, after: &Position, mover: Color) -> bool {
    let them = mover.other();
    if after.royal_count(them) != 1 || after.royal_count(mover) == 0 {
        return false;
    }
    let mut p = *after;
    p.set_side_to_move(mover);
    let mut list = MoveList::new();
    generate(&p, t, &mut list);
    list.iter().any(|&m| {
        let mut q = p;
        q.play(t, m);
        q.royal_count(them) == 0
    })
}

/// A move *attacks* if afterwards the moved piece could capture (or burn) some enemy piece on
/// its next move (§9); `@@@@` never attacks.
pub fn attacks(t: &MoveTable, m: Move, after: &Position, mover: Color) -> bool {
    if m.is_null_pass() {
        return false;
    }
    let sq = m.to().unwrap();
    match after.piece_at(sq) {
        Some(p) if p.color() == mover => {}
        _ => return false, // the mover was burned
    }
    let mut list = MoveList::new();
    generate_piece(after, t, sq, &mut list);
    let mut p = *after;
    p.set_side_to_move(mover);
    list.iter().any(|&mv| {
        let mut q = p;
        let eff = q.play(t, mv);
        eff.captured().count() > 0 || eff.burned().any(|(_, pc)| pc.color() != mover)
    })
}
