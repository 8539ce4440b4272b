//! Self-play games on disk and the replay buffer that training samples from.
//!
//! # Game files (`RUN/games/game-NNNNNNNNN-pPPPP.bin`)
//!
//! One finished game per file, written atomically (a temporary file in the same directory,
//! synced, then renamed), named by its game number and ply count (so the totals of a run come
//! from the directory listing alone). All integers little-endian; `str8`/`str16` are a `u8`/`u16`
//! byte length followed by UTF-8.
//!
//! | field | content |
//! |---|---|
//! | 8 | magic `TNJKGAME` |
//! | u32 | format version ([`FORMAT_VERSION`]) |
//! | str16 | rules tag (`standard`, `house`, `hachu` or a rules file path) |
//! | str16 | start position (FEN) |
//! | u64, u64 | the game's seed; the training step of the network that played it |
//! | u8, u8 | result (0 Black won, 1 White won, 2 draw); termination ([`termination_code`]) |
//! | u8 | flags: 1 = resignation off (a playout game); 2 / 4 = Black / White would have resigned there (first time the resignation rule fired); 8 = that resignation would have been wrong (the side did not lose); 16 = a teacher game (`--bootstrap`, `bootstrap.rs`), not self-play |
//! | u32 | plies `N` |
//! | N × ply | str8 move (CECP text); u8 flags (bit 0: policy target; bits 1–7: its policy surprise, [`surprise_code`], 0 = not recorded); f32 root value for the side to move; if a policy target: u16 count `K`, then K × (u32 policy index, u16 probability × 65535) |
//! | u64 | XXH64 (seed 0) of every byte before it |
//!
//! Reading checks the magic, version, checksum and every move's legality; a file that fails any
//! check is skipped with a warning (never a panic). Positions are rebuilt by replaying the moves,
//! so the history features (repetitions, ply) come free.
//!
//! # Training targets (per position, from the side to move's point of view)
//! policy: the search target (policy-target plies only); value: the game result as W/D/L;
//! moves-left: plies from this position to the end; material: the plain-material balance
//! ([`search::values::material_balance`], in centipawns; the learner divides by `material_scale`)
//! at the end of the game, or `material_horizon` plies ahead when that is set; captures (for a
//! network with a capture head): each occupied square, whether the piece standing there (either
//! side's) is taken within the next `capture_horizon` plies ([`GameFile::samples_with`]).

use engine::{notation, Color, MoveTable, Position};
use engine::{DrawReason, Game, Outcome, PlayError, WinReason};
use engine::{FenError, MoveError};
use nn::encoding::{encode, HistoryFeatures, INPUT_SIZE};
use nn::policy::POLICY_SIZE;
use nn::train::TrainBatch;
use rand::Rng;
use search::values::material_balance;
use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use xxhash_rust::xxh64::xxh64;

/// First bytes of every game file.
pub const MAGIC: &[u8; 8] = b"TNJKGAME";
/// Version of the game file layout.
pub const FORMAT_VERSION: u32 = 1;

/// One played ply as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyRecord {
    /// The move, CECP text.
    pub mv: String,
    /// Root value of the search for the side to move.
    pub value: f32,
    /// Sparse policy target `(policy index, probability × 65535)`; empty when this ply is not a
    /// policy target (a cheap search).
    pub policy: Vec<(u32, u16)>,
    /// Whether this ply is a policy target.
    pub is_policy_target: bool,
    /// Policy surprise of a policy-target ply: the KL divergence (nats) of its policy target
    /// from the network's prior at the root ([`policy_surprise`]); `None` when not recorded
    /// (older files, value-only plies, teacher and opponent moves). Stored to 1/45 of a
    /// square-root nat ([`surprise_code`]).
    pub surprise: Option<f32>,
}

/// Largest policy surprise a game file records (nats); larger ones are stored as this.
pub const MAX_SURPRISE: f32 = (126.0 / 45.0) * (126.0 / 45.0);

/// The 7-bit code of a policy surprise in a ply's flag byte (bits 1–7): 0 = not recorded, else
/// `1 + round(45 · √surprise)`, so small surprises keep their resolution (0.0005 nats near 0,
/// 0.06 near 2) and the largest code, 127, stands for [`MAX_SURPRISE`] (7.84 nats). Readers
/// before the code existed look at bit 0 alone, so files with it stay readable by them.
pub fn surprise_code(surprise: Option<f32>) -> u8 {
    match surprise {
        Some(k) if k.is_finite() => 1 + (k.clamp(0.0, MAX_SURPRISE).sqrt() * 45.0).round() as u8,
        Some(k) if k == f32::INFINITY => 127,
        _ => 0,
    }
}

/// A surprise as a game file keeps it (its code's value), so a game reads back equal to what
/// was played.
pub fn stored_surprise(surprise: Option<f32>) -> Option<f32> {
    surprise_from_code(surprise_code(surprise))
}

/// The policy surprise a code stands for ([`surprise_code`]).
pub fn surprise_from_code(code: u8) -> Option<f32> {
    (code > 0).then(|| {
        let r = (code.min(127) - 1) as f32 / 45.0;
        r * r
    })
}

/// KataGo's policy surprise of a search: the KL divergence `Σ t · ln(t / p)` (nats) of the
/// policy target `t` from the network's prior `p`, both read as distributions over the same
/// moves (each normalised; a prior below 1e-6 counts as 1e-6, so a target on a move the prior
/// all but ruled out is a large, finite surprise). `None` without a target.
pub fn policy_surprise(pairs: impl Iterator<Item = (f32, f32)> + Clone) -> Option<f32> {
    let clean = |x: f32| if x.is_finite() { x.max(0.0) } else { 0.0 };
    let (tt, tp) = pairs.clone().fold((0.0f64, 0.0f64), |(a, b), (t, p)| (a + clean(t) as f64, b + clean(p) as f64));
    if tt <= 0.0 || tp <= 0.0 {
        return None;
    }
    let kl: f64 = pairs
        .filter(|&(t, _)| clean(t) > 0.0)
        .map(|(t, p)| {
            let t = clean(t) as f64 / tt;
            let p = (clean(p) as f64 / tp).max(1e-6);
            t * (t / p).ln()
        })
        .sum();
    Some(kl.max(0.0) as f32)
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameFile {
    pub rules: String,
    pub start_fen: String,
    pub seed: u64,
    pub net_step: u64,
    pub outcome: Outcome,
    /// Resignation was off for this game (played out to measure false resignations).
    pub resign_off: bool,
    /// The side that would have resigned (only recorded when resignation was off).
    pub would_resign: Option<Color>,
    /// Played by the bootstrap teacher (alpha-beta), not by self-play.
    pub teacher: bool,
    /// In an opponent game (`opponent_fraction`), the colour the opponent engine played.
    pub opponent: Option<Color>,
    pub plies: Vec<PlyRecord>,
}

/// Termination codes of the file format.
pub fn termination_code(o: Outcome) -> u8 {
    match o {
        Outcome::Win { reason, .. } => match reason {
            WinReason::RoyalCaptured => 0,
            WinReason::NoLegalMoves => 1,
            WinReason::Repetition => 2,
            WinReason::Resignation => 3,
            WinReason::Adjudication => 4,
            WinReason::NoLegalMovesByRepetition => 5,
        },
        Outcome::Draw(r) => match r {
            DrawReason::Repetition => 10,
            DrawReason::PlyCap => 11,
            DrawReason::NoCapture => 12,
            DrawReason::BothRoyalsLost => 13,
            DrawReason::Agreement => 14,
        },
    }
}

fn outcome_from(result: u8, code: u8) -> Option<Outcome> {
    let winner = match result {
        0 => Some(Color::Black),
        1 => Some(Color::White),
        2 => None,
        _ => return None,
    };
    Some(match (winner, code) {
        (Some(winner), c) => Outcome::Win {
            winner,
            reason: match c {
                0 => WinReason::RoyalCaptured,
                1 => WinReason::NoLegalMoves,
                2 => WinReason::Repetition,
                3 => WinReason::Resignation,
                4 => WinReason::Adjudication,
                5 => WinReason::NoLegalMovesByRepetition,
                _ => return None,
            },
        },
        (None, c) => Outcome::Draw(match c {
            10 => DrawReason::Repetition,
            11 => DrawReason::PlyCap,
            12 => DrawReason::NoCapture,
            13 => DrawReason::BothRoyalsLost,
            14 => DrawReason::Agreement,
            _ => return None,
        }),
    })
}

impl GameFile {
    /// Whether the recorded would-be resignation was wrong (the side did not lose).
    pub fn false_resign(&self) -> Option<bool> {
        self.would_resign.map(|c| self.outcome.winner() != Some(c.other()))
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(64 + self.plies.len() * 16);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        put_str16(&mut b, &self.rules);
        put_str16(&mut b, &self.start_fen);
        b.extend_from_slice(&self.seed.to_le_bytes());
        b.extend_from_slice(&self.net_step.to_le_bytes());
        b.push(match self.outcome.winner() {
            Some(Color::Black) => 0,
            Some(Color::White) => 1,
            None => 2,
        });
        b.push(termination_code(self.outcome));
        let mut flags = self.resign_off as u8;
        match self.would_resign {
            Some(Color::Black) => flags |= 2,
            Some(Color::White) => flags |= 4,
            None => {}
        }
        if self.false_resign() == Some(true) {
            flags |= 8;
        }
        if self.teacher {
            flags |= 16;
        }
        match self.opponent {
            Some(Color::Black) => flags |= 32,
            Some(Color::White) => flags |= 64,
            None => {}
        }
        b.push(flags);
        b.extend_from_slice(&(self.plies.len() as u32).to_le_bytes());
        for p in &self.plies {
            let mv = p.mv.as_bytes();
            b.push(mv.len() as u8);
            b.extend_from_slice(mv);
            let code = if p.is_policy_target { surprise_code(p.surprise) } else { 0 };
            b.push(p.is_policy_target as u8 | code << 1);
            b.extend_from_slice(&p.value.to_le_bytes());
            if p.is_policy_target {
                let n = p.policy.len().min(u16::MAX as usize);
                b.extend_from_slice(&(n as u16).to_le_bytes());
                for &(i, q) in &p.policy[..n] {
                    b.extend_from_slice(&i.to_le_bytes());
                    b.extend_from_slice(&q.to_le_bytes());
                }
            }
        }
        let sum = xxh64(&b, 0);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Parse a file's bytes (format checks only; [`GameFile::samples`] checks the moves).
    pub fn from_bytes(bytes: &[u8]) -> Result<GameFile, GameFileError> {
        if bytes.len() < MAGIC.len() + 4 + 8 || &bytes[..8] != MAGIC {
            return Err(GameFileError::NotAGameFile);
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let sum = u64::from_le_bytes(tail.try_into().expect("8 bytes"));
        let mut r = Reader { b: body, at: 8 };
        let version = r.u32()?;
        if version != FORMAT_VERSION {
            return Err(GameFileError::Version { found: version });
        }
        if xxh64(body, 0) != sum {
            return Err(GameFileError::Checksum);
        }
        let rules = r.str16()?;
        let start_fen = r.str16()?;
        let seed = r.u64()?;
        let net_step = r.u64()?;
        let (result, code, flags) = (r.u8()?, r.u8()?, r.u8()?);
        let outcome = outcome_from(result, code).ok_or(GameFileError::BadResult { result, code })?;
        let n = r.u32()? as usize;
        let mut plies = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            let len = r.u8()? as usize;
            let mv = String::from_utf8(r.take(len)?.to_vec()).map_err(|_| GameFileError::NotUtf8)?;
            let ply_flags = r.u8()?;
            let is_policy_target = ply_flags & 1 == 1;
            let surprise = if is_policy_target { surprise_from_code(ply_flags >> 1) } else { None };
            let value = f32::from_le_bytes(r.take(4)?.try_into().expect("4 bytes"));
            let mut policy = Vec::new();
            if is_policy_target {
                let k = r.u16()? as usize;
                policy.reserve(k);
                for _ in 0..k {
                    policy.push((r.u32()?, r.u16()?));
                }
            }
            plies.push(PlyRecord { mv, value, policy, is_policy_target, surprise });
        }
        if r.at != body.len() {
            return Err(GameFileError::TrailingBytes);
        }
        let would_resign = match flags & 6 {
            0 => None,
            2 => Some(Color::Black),
            4 => Some(Color::White),
            _ => return Err(GameFileError::BadFlags(flags)),
        };
        let opponent = match flags & 96 {
            0 => None,
            32 => Some(Color::Black),
            64 => Some(Color::White),
            _ => return Err(GameFileError::BadFlags(flags)),
        };
        if flags & 128 != 0 {
            return Err(GameFileError::BadFlags(flags));
        }
        Ok(GameFile {
            rules,
            start_fen,
            seed,
            net_step,
            outcome,
            resign_off: flags & 1 != 0,
            would_resign,
            teacher: flags & 16 != 0,
            opponent,
            plies,
        })
    }

    /// Replay the game and turn every ply into a training sample (checking every move); the
    /// material target is the final balance.
    pub fn samples(&self, table: &Arc<MoveTable>) -> Result<Vec<Sample>, GameFileError> {
        self.samples_with(table, Horizons::default())
    }

    /// [`GameFile::samples`] with the material target taken `horizons.material` plies after each
    /// position (the game's end when nearer; 0: always the end), and the capture target over the
    /// next `horizons.capture` plies. A short material horizon is a dense, tactical target: what
    /// the next few plies win or lose, where the final balance of a long game depends on
    /// everything played after.
    pub fn samples_with(&self, table: &Arc<MoveTable>, horizons: Horizons) -> Result<Vec<Sample>, GameFileError> {
        let horizon = horizons.material;
        let start = Position::from_fen(&self.start_fen).map_err(GameFileError::StartFen)?;
        let mut game = Game::new(table.clone(), start);
        let mut out = Vec::with_capacity(self.plies.len());
        // Black's material balance before each ply, then at the end.
        let mut balance = Vec::with_capacity(self.plies.len() + 1);
        // Only runs that train a capture head pay for following the pieces.
        let mut pieces = (horizons.capture > 0).then(|| PieceTracker::new(game.position()));
        for (i, p) in self.plies.iter().enumerate() {
            let legal = game.legal_moves();
            let m = notation::parse_cecp_in(game.position(), &legal, &p.mv).map_err(|error| GameFileError::Move {
                ply: i + 1,
                text: p.mv.clone(),
                error,
            })?;
            if let Some(&(index, _)) = p.policy.iter().find(|&&(index, _)| index as usize >= POLICY_SIZE) {
                return Err(GameFileError::PolicyIndex { ply: i + 1, index });
            }
            out.push(Sample {
                pos: *game.position(),
                repetitions: game.repetitions() as u32,
                ply: game.ply_count() as u32,
                policy: p.policy.clone().into_boxed_slice(),
                result: 1,
                moves_left: 0,
                material: 0,
                q: if p.value.is_finite() { p.value.clamp(-1.0, 1.0) } else { 0.0 },
                taken: [0; 4],
                surprise: if p.policy.is_empty() { None } else { p.surprise },
            });
            balance.push(material_balance(game.position()));
            let mover = game.position().side_to_move();
            game.play(m).map_err(|error| GameFileError::Play { ply: i + 1, error })?;
            if let Some(t) = &mut pieces {
                t.ply(mover, game.position());
            }
        }
        if let Some(t) = &pieces {
            for (i, s) in out.iter_mut().enumerate() {
                s.taken = t.taken_within(i, horizons.capture as usize);
            }
        }
        let end = game.plies().len() as u32;
        balance.push(material_balance(game.position()));
        let last = balance.len() - 1;
        for (i, s) in out.iter_mut().enumerate() {
            let us = s.pos.side_to_move();
            s.result = match self.outcome.winner() {
                Some(w) if w == us => 0,
                Some(_) => 2,
                None => 1,
            };
            s.moves_left = end - s.ply;
            let at = if horizon == 0 { last } else { (i + horizon as usize).min(last) };
            s.material = if us == Color::Black { balance[at] } else { -balance[at] };
        }
        Ok(out)
    }

    /// Write to `dir/game-NNNNNNNNN-pPPPP.bin` atomically; returns the path.
    pub fn write(&self, dir: &Path, index: u64) -> std::io::Result<PathBuf> {
        let name = game_file_name(index, self.plies.len());
        let path = dir.join(&name);
        let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
        let result = (|| {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(&self.to_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result.map(|_| path)
    }
}

/// File name of game `index` with `plies` plies.
pub fn game_file_name(index: u64, plies: usize) -> String {
    format!("game-{index:09}-p{plies:04}.bin")
}

/// `(index, plies)` from a game file name, `None` for any other file.
pub fn parse_game_file_name(name: &str) -> Option<(u64, u64)> {
    let rest = name.strip_prefix("game-")?.strip_suffix(".bin")?;
    let (i, p) = rest.split_once("-p")?;
    Some((i.parse().ok()?, p.parse().ok()?))
}

/// A game file that cannot be used: damaged, of another format, or with content the rules or
/// the network reject. The run skips such a file with a warning naming it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameFileError {
    #[error("not a game file (bad magic or too short)")]
    NotAGameFile,
    #[error("game file format version {found}, this build reads {FORMAT_VERSION}")]
    Version { found: u32 },
    #[error("checksum mismatch (damaged or truncated)")]
    Checksum,
    #[error("truncated")]
    Truncated,
    #[error("text is not UTF-8")]
    NotUtf8,
    #[error("bad result {result}/{code}")]
    BadResult { result: u8, code: u8 },
    #[error("trailing bytes")]
    TrailingBytes,
    #[error("bad flags {0}")]
    BadFlags(u8),
    #[error("start FEN: {0}")]
    StartFen(FenError),
    #[error("ply {ply}: move '{text}': {error}")]
    Move { ply: usize, text: String, error: MoveError },
    #[error("ply {ply}: {error}")]
    Play { ply: usize, error: PlayError },
    #[error("ply {ply}: policy index {index} is out of range (expected below {POLICY_SIZE})")]
    PolicyIndex { ply: usize, index: u32 },
    #[error("played under rules '{found}', not '{expected}'")]
    Rules { found: String, expected: String },
}

fn put_str16(b: &mut Vec<u8>, s: &str) {
    let s = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
    b.extend_from_slice(&(s.len() as u16).to_le_bytes());
    b.extend_from_slice(s);
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], GameFileError> {
        let s = self.b.get(self.at..self.at.saturating_add(n)).ok_or(GameFileError::Truncated)?;
        self.at += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, GameFileError> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, GameFileError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2 bytes")))
    }
    fn u32(&mut self) -> Result<u32, GameFileError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Result<u64, GameFileError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn str16(&mut self) -> Result<String, GameFileError> {
        let n = self.u16()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| GameFileError::NotUtf8)
    }
}

/// How far ahead the targets that look ahead read the game (plies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Horizons {
    /// The material target: the balance this many plies on (0: the game's end).
    pub material: u32,
    /// The capture target: pieces taken within this many plies (0: no capture targets).
    pub capture: u32,
}

/// Follows each piece of a replayed game from square to square (a moving piece keeps its
/// identity, promoted or not) and records the ply at which each is taken, so that every
/// position's capture target can be read once the game is over. Works from the board alone:
/// after a ply, the mover's one vacated square and one newly occupied square are the move (none
/// for a move that ends where it started, such as a Lion's capture without moving), and every
/// square the other side held and no longer holds lost its piece (captured, jumped or burnt).
struct PieceTracker {
    /// The identity of the piece on each square (0: empty), now.
    ids: [u32; 256],
    /// Each side's occupied squares (Black, White), now.
    occupied: [[u64; 4]; 2],
    /// The identities on each square before each ply.
    before: Vec<[u32; 256]>,
    /// For identity `k`, the ply at which it was taken (`usize::MAX`: never).
    taken_at: Vec<usize>,
}

fn occupancy(pos: &Position, c: Color) -> [u64; 4] {
    let mut bits = [0u64; 4];
    for s in pos.squares_of(c) {
        bits[s.index() / 64] |= 1 << (s.index() % 64);
    }
    bits
}

/// The squares in `a` and not in `b`.
fn and_not(a: [u64; 4], b: [u64; 4]) -> Vec<usize> {
    (0..256).filter(|&i| (a[i / 64] & !b[i / 64]) >> (i % 64) & 1 != 0).collect()
}

impl PieceTracker {
    fn new(start: &Position) -> PieceTracker {
        let occupied = [occupancy(start, Color::Black), occupancy(start, Color::White)];
        let mut t = PieceTracker { ids: [0; 256], occupied, before: Vec::new(), taken_at: vec![usize::MAX] };
        for c in [Color::Black, Color::White] {
            for s in start.squares_of(c) {
                t.ids[s.index()] = t.fresh();
            }
        }
        t
    }

    fn fresh(&mut self) -> u32 {
        self.taken_at.push(usize::MAX);
        (self.taken_at.len() - 1) as u32
    }

    /// `mover` has played a ply, which led to `after`.
    fn ply(&mut self, mover: Color, after: &Position) {
        let ply = self.before.len();
        self.before.push(self.ids);
        let now = [occupancy(after, Color::Black), occupancy(after, Color::White)];
        let (m, o) = (mover.index(), mover.other().index());
        // The other side's pieces that are gone were taken (captured, jumped over or burnt).
        for sq in and_not(self.occupied[o], now[o]) {
            self.taken_at[self.ids[sq] as usize] = ply;
            self.ids[sq] = 0;
        }
        let (vacated, arrived) = (and_not(self.occupied[m], now[m]), and_not(now[m], self.occupied[m]));
        if let ([from], [to]) = (&vacated[..], &arrived[..]) {
            self.ids[*to] = self.ids[*from];
            self.ids[*from] = 0;
        } else {
            // No move of the rules vacates or fills more than one of the mover's squares; if
            // one ever does, its vanished pieces count as taken and the new ones are new.
            for sq in vacated {
                self.taken_at[self.ids[sq] as usize] = ply;
                self.ids[sq] = 0;
            }
            for sq in arrived {
                self.ids[sq] = self.fresh();
            }
        }
        self.occupied = now;
    }

    /// The squares whose piece at position `at` is taken within `horizon` plies of it.
    fn taken_within(&self, at: usize, horizon: usize) -> [u64; 4] {
        let mut bits = [0u64; 4];
        for (i, &id) in self.before[at].iter().enumerate() {
            if id != 0 && self.taken_at[id as usize] < at + horizon {
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        bits
    }
}

/// One training position with its targets, kept decoded in memory: ~0.5 KB, plus 8 bytes per
/// policy entry (a full search's target covers every legal move: ~1–2 KB more).
#[derive(Clone, Debug)]
pub struct Sample {
    pub pos: Position,
    pub repetitions: u32,
    pub ply: u32,
    /// Sparse policy target (index, probability × 65535); empty = not a policy target.
    pub policy: Box<[(u32, u16)]>,
    /// Game result for the side to move: 0 win, 1 draw, 2 loss.
    pub result: u8,
    /// Plies from this position to the end of the game.
    pub moves_left: u32,
    /// Plain-material balance for the side to move, centipawns: at the end of the game, or
    /// `material_horizon` plies ahead ([`GameFile::samples_with`]).
    pub material: i32,
    /// Root value of the search that chose this position's move, for the side to move
    /// (`PlyRecord::value`: −1 loss .. +1 win; an alpha-beta player's score as `tanh(cp / 600)`).
    pub q: f32,
    /// The squares (dense index, bit `i % 64` of word `i / 64`) whose piece is taken within the
    /// capture horizon; all zero without capture targets.
    pub taken: [u64; 4],
    /// The policy surprise of a policy target (`PlyRecord::surprise`), when recorded.
    pub surprise: Option<f32>,
}

/// Under policy-surprise weighting a position is drawn at most this many times as often as its
/// surprise's mean share would have it (a few freak searches do not take over the batches).
pub const MAX_SURPRISE_RATIO: f32 = 8.0;

/// Draws a sample may take before the weighted draw gives up and keeps its last one (only
/// reached when nearly every position weighs nothing, a `policy_surprise_weight` of 1 with
/// surprises of 0).
const MAX_WEIGHTED_DRAWS: usize = 256;

/// The newest `window` positions of the run, sampled for training: uniformly, or with
/// policy-surprise weighting ([`Targets::surprise_weight`]).
pub struct ReplayBuffer {
    samples: VecDeque<Sample>,
    window: usize,
    /// Sum and count of the recorded policy surprises in the window (their mean scales the
    /// weights).
    surprise_sum: f64,
    surprise_count: u64,
}

impl ReplayBuffer {
    pub fn new(window: usize) -> ReplayBuffer {
        ReplayBuffer {
            samples: VecDeque::with_capacity(window.min(1 << 20)),
            window,
            surprise_sum: 0.0,
            surprise_count: 0,
        }
    }
    fn count_in(&mut self, s: &Sample) {
        if let Some(k) = s.surprise {
            self.surprise_sum += k as f64;
            self.surprise_count += 1;
        }
    }
    fn count_out(&mut self, s: &Sample) {
        if let Some(k) = s.surprise {
            self.surprise_count -= 1;
            self.surprise_sum = if self.surprise_count == 0 { 0.0 } else { (self.surprise_sum - k as f64).max(0.0) };
        }
    }
    /// Mean policy surprise of the window's positions that record one (`None`: none do).
    pub fn mean_surprise(&self) -> Option<f32> {
        (self.surprise_count > 0).then(|| (self.surprise_sum / self.surprise_count as f64) as f32)
    }
    pub fn len(&self) -> usize {
        self.samples.len()
    }
    /// Add a game's positions (the oldest positions beyond the window are dropped).
    pub fn push_game(&mut self, samples: Vec<Sample>) {
        for s in samples {
            if self.samples.len() == self.window {
                if let Some(old) = self.samples.pop_front() {
                    self.count_out(&old);
                }
            }
            self.count_in(&s);
            self.samples.push_back(s);
        }
    }
    /// Put older games' positions in front (loading a run's files newest first).
    pub fn push_older(&mut self, samples: Vec<Sample>) {
        for s in samples.into_iter().rev() {
            if self.samples.len() == self.window {
                return;
            }
            self.count_in(&s);
            self.samples.push_front(s);
        }
    }
    pub fn is_full(&self) -> bool {
        self.samples.len() >= self.window
    }

    /// Fill `batch` with `size` positions drawn with replacement: uniformly, or, with
    /// `targets.surprise_weight` above 0, each in proportion to its [`sample_weight`] (by
    /// rejection, so the weights need no index over the window). The value target is
    /// `(1 − q_weight) · result + q_weight · [(1 + q) / 2, 0, (1 − q) / 2]` (the game result
    /// one-hot as W/D/L, mixed with the search's root value); the material target is divided by
    /// `scale`.
    pub fn sample_batch<R: Rng>(
        &self,
        rng: &mut R,
        size: usize,
        table: &MoveTable,
        targets: Targets,
        batch: &mut Batch,
    ) {
        assert!(!self.samples.is_empty(), "sampling from an empty buffer");
        batch.clear();
        batch.inputs.resize(size * INPUT_SIZE, 0.0);
        let weighting = self.mean_surprise().filter(|&m| targets.surprise_weight > 0.0 && m > 0.0);
        for i in 0..size {
            let s = match weighting {
                None => &self.samples[rng.gen_range(0..self.samples.len())],
                Some(mean) => self.weighted_draw(rng, targets.surprise_weight, mean),
            };
            push_sample(s, i, table, targets, batch);
        }
        batch.size = size;
    }

    /// One position drawn in proportion to its [`sample_weight`]: a uniform draw kept with
    /// probability weight / largest weight, else drawn again.
    fn weighted_draw<R: Rng>(&self, rng: &mut R, share: f32, mean: f32) -> &Sample {
        let most = max_sample_weight(share);
        let mut s = &self.samples[0];
        for _ in 0..MAX_WEIGHTED_DRAWS {
            s = &self.samples[rng.gen_range(0..self.samples.len())];
            if rng.gen::<f32>() * most < sample_weight(s, share, mean) {
                break;
            }
        }
        s
    }

    /// Fill `batch` with the positions `start..start + count` in order (held-out evaluation:
    /// every position once); targets as [`ReplayBuffer::sample_batch`].
    pub fn batch_in_order(&self, start: usize, count: usize, table: &MoveTable, targets: Targets, batch: &mut Batch) {
        assert!(start + count <= self.samples.len(), "positions past the buffer's end");
        batch.clear();
        batch.inputs.resize(count * INPUT_SIZE, 0.0);
        for i in 0..count {
            push_sample(&self.samples[start + i], i, table, targets, batch);
        }
        batch.size = count;
    }
}

/// Encode `s` as row `i` of `batch` (whose inputs are already sized) and append its targets.
fn push_sample(s: &Sample, i: usize, table: &MoveTable, targets: Targets, batch: &mut Batch) {
    let hist = HistoryFeatures { repetitions: s.repetitions, ply: s.ply };
    encode(&s.pos, table, &hist, &mut batch.inputs[i * INPUT_SIZE..(i + 1) * INPUT_SIZE]);
    let total: u32 = s.policy.iter().map(|&(_, q)| q as u32).sum();
    if total > 0 {
        batch.policy_positions += 1;
        for &(idx, q) in s.policy.iter() {
            batch.policy_indices.push(idx);
            batch.policy_probs.push(q as f32 / total as f32);
        }
    }
    batch.policy_offsets.push(batch.policy_indices.len());
    batch.wdl.push(value_target(s.result, s.q, targets.q_weight));
    batch.moves_left.push(s.moves_left as f32);
    batch.material.push(s.material as f32 / targets.material_scale);
    if targets.captures {
        // In the encoding's frame: the side to move's view (White's board turned round).
        let white = s.pos.side_to_move() == Color::White;
        let at = batch.captures.len();
        batch.captures.resize(at + 256, 0.0);
        batch.capture_mask.resize(at + 256, 0.0);
        for c in [Color::Black, Color::White] {
            for sq in s.pos.squares_of(c) {
                let i = sq.index();
                let f = at + if white { 255 - i } else { i };
                batch.capture_mask[f] = 1.0;
                batch.captures[f] = (s.taken[i / 64] >> (i % 64) & 1) as f32;
            }
        }
    }
}

/// How a sample's stored results become training targets.
#[derive(Clone, Copy, Debug)]
pub struct Targets {
    /// Centipawns per unit of the material target.
    pub material_scale: f32,
    /// Share of the root value in the value target (0: the game result alone).
    pub q_weight: f32,
    /// Fill the capture targets (for a network with a capture head).
    pub captures: bool,
    /// Policy-surprise weighting (KataGo): the share of a policy target's sampling weight that
    /// follows its surprise ([`sample_weight`]); 0 = every position drawn uniformly.
    pub surprise_weight: f32,
}

/// A position's sampling weight under policy-surprise weighting with share `share` (0..1) when
/// the window's mean surprise is `mean`: `(1 − share) + share · min(surprise / mean, 8)` for a
/// policy target with a recorded surprise, so such positions weigh about 1 on average and the
/// searches that overturned the prior are drawn more often than those that agreed with it;
/// 1 for every other position (value-only plies, older files).
pub fn sample_weight(s: &Sample, share: f32, mean: f32) -> f32 {
    match s.surprise {
        Some(k) if share > 0.0 && mean > 0.0 => (1.0 - share) + share * (k / mean).clamp(0.0, MAX_SURPRISE_RATIO),
        _ => 1.0,
    }
}

/// The largest [`sample_weight`] with share `share`.
fn max_sample_weight(share: f32) -> f32 {
    ((1.0 - share) + share * MAX_SURPRISE_RATIO).max(1.0)
}

/// The W/D/L value target of a position: its game result (0 win, 1 draw, 2 loss) one-hot, mixed
/// with weight `q_weight` with the root value `q` (−1 .. 1) read as a win/loss probability.
pub fn value_target(result: u8, q: f32, q_weight: f32) -> [f32; 3] {
    let mut wdl = [0.0; 3];
    wdl[result as usize] = 1.0 - q_weight;
    let q = q.clamp(-1.0, 1.0);
    wdl[0] += q_weight * (1.0 + q) / 2.0;
    wdl[2] += q_weight * (1.0 - q) / 2.0;
    wdl
}

/// Buffers of one training batch (reused from step to step).
#[derive(Default)]
pub struct Batch {
    pub size: usize,
    pub inputs: Vec<f32>,
    pub policy_indices: Vec<u32>,
    pub policy_probs: Vec<f32>,
    pub policy_offsets: Vec<usize>,
    pub wdl: Vec<[f32; 3]>,
    pub moves_left: Vec<f32>,
    pub material: Vec<f32>,
    /// Capture targets and their mask, 256 per position in the encoding's frame (empty when
    /// not asked for).
    pub captures: Vec<f32>,
    pub capture_mask: Vec<f32>,
    /// Positions of the batch that have a policy target.
    pub policy_positions: usize,
}

impl Batch {
    fn clear(&mut self) {
        self.size = 0;
        self.policy_indices.clear();
        self.policy_probs.clear();
        self.policy_offsets.clear();
        self.policy_offsets.push(0);
        self.wdl.clear();
        self.moves_left.clear();
        self.material.clear();
        self.captures.clear();
        self.capture_mask.clear();
        self.policy_positions = 0;
    }
    pub fn as_train_batch(&self) -> TrainBatch<'_> {
        TrainBatch {
            size: self.size,
            inputs: &self.inputs[..self.size * INPUT_SIZE],
            policy_indices: &self.policy_indices,
            policy_probs: &self.policy_probs,
            policy_offsets: &self.policy_offsets,
            wdl: &self.wdl,
            moves_left: &self.moves_left,
            material: &self.material,
            captures: &self.captures,
            capture_mask: &self.capture_mask,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Rules;

    /// A game of `plies` plies (fewer if it ends) in which each side plays a move that wins the
    /// most material at once (so captures happen), ties chosen by `pick`; with the positions
    /// before each ply and after the last, and the moves.
    fn greedy_game(table: &Arc<MoveTable>, plies: usize, pick: usize) -> (GameFile, Vec<Position>, Vec<engine::Move>) {
        let mut game = Game::new(table.clone(), Position::start());
        let (mut records, mut positions, mut moves) = (Vec::new(), vec![*game.position()], Vec::new());
        for k in 0..plies {
            if game.is_over() {
                break;
            }
            let pos = *game.position();
            let legal = game.legal_moves();
            let gain = |m: &engine::Move| {
                let mut p = pos;
                p.play(table, *m);
                let b = material_balance(&p);
                if pos.side_to_move() == Color::Black {
                    b
                } else {
                    -b
                }
            };
            let best = legal.iter().map(gain).max().unwrap();
            let ties: Vec<_> = legal.iter().filter(|m| gain(m) == best).collect();
            let m = *ties[(k * 7 + pick) % ties.len()];
            records.push(PlyRecord {
                mv: notation::to_cecp(m),
                value: 0.0,
                policy: vec![],
                is_policy_target: false,
                surprise: None,
            });
            game.play(m).unwrap();
            positions.push(*game.position());
            moves.push(m);
        }
        let g = GameFile {
            rules: "standard".into(),
            start_fen: Position::start().to_fen(),
            seed: 1,
            net_step: 0,
            outcome: Outcome::Draw(DrawReason::PlyCap),
            resign_off: false,
            would_resign: None,
            teacher: false,
            opponent: None,
            plies: records,
        };
        (g, positions, moves)
    }

    /// The material target with a horizon is the balance that many plies later (the end when
    /// nearer), from the side to move's point of view; horizon 0 is the final balance.
    #[test]
    fn material_target_reads_the_balance_horizon_plies_ahead() {
        let table = Arc::new(MoveTable::new(&Rules::standard()));
        let (g, positions, _) = greedy_game(&table, 40, 0);
        let balances: Vec<i32> = positions.iter().map(material_balance).collect();
        assert!(balances.windows(2).filter(|w| w[0] != w[1]).count() >= 3, "the game has captures: {balances:?}");
        let n = balances.len() - 1;
        assert!(n >= 10, "{n} plies");
        for horizon in [0u32, 1, 4, 39, 40, 1000] {
            let s = g.samples_with(&table, Horizons { material: horizon, capture: 0 }).unwrap();
            for (i, x) in s.iter().enumerate() {
                let at = if horizon == 0 { n } else { (i + horizon as usize).min(n) };
                let b = if x.pos.side_to_move() == Color::Black { balances[at] } else { -balances[at] };
                assert_eq!(x.material, b, "horizon {horizon}, ply {i}");
                assert_eq!(x.taken, [0; 4], "no capture targets asked for");
            }
        }
        let plain: Vec<i32> = g.samples(&table).unwrap().iter().map(|x| x.material).collect();
        let zero: Vec<i32> = g.samples_with(&table, Horizons::default()).unwrap().iter().map(|x| x.material).collect();
        assert_eq!(plain, zero);
    }

    /// The capture target marks, for each position, the squares whose piece is taken within the
    /// horizon, following each piece as it moves: checked against the moves' own from and to
    /// squares (not the board differences the tracker reads), on games full of captures.
    #[test]
    fn capture_target_marks_the_pieces_taken_within_the_horizon() {
        let table = Arc::new(MoveTable::new(&Rules::standard()));
        let mut marked = 0;
        for pick in 0..3 {
            let (g, positions, moves) = greedy_game(&table, 120, pick);
            let n = moves.len();
            assert!(n >= 40, "{n} plies");
            // Whether the piece on `sq` at position `i` is gone within `h` plies.
            let oracle = |i: usize, sq: engine::Square, h: usize| {
                let owner = positions[i].piece_at(sq).unwrap().color();
                let mut at = sq;
                for j in i..(i + h).min(n) {
                    let m = moves[j];
                    if positions[j].side_to_move() == owner {
                        if m.from() == Some(at) {
                            at = m.to().unwrap();
                        }
                    } else if positions[j + 1].piece_at(at).is_none_or(|p| p.color() != owner) {
                        return true;
                    }
                }
                false
            };
            for h in [1usize, 2, 6, 1000] {
                let s = g.samples_with(&table, Horizons { material: 0, capture: h as u32 }).unwrap();
                assert_eq!(s.len(), n);
                for (i, x) in s.iter().enumerate() {
                    for c in [Color::Black, Color::White] {
                        for sq in positions[i].squares_of(c) {
                            let bit = x.taken[sq.index() / 64] >> (sq.index() % 64) & 1 == 1;
                            assert_eq!(
                                bit,
                                oracle(i, sq, h),
                                "game {pick}, horizon {h}, ply {i}, square {}",
                                sq.index()
                            );
                            // A side never loses a piece on its own move.
                            if h == 1 && c == x.pos.side_to_move() {
                                assert!(!bit);
                            }
                            marked += bit as usize;
                        }
                    }
                    // Empty squares are never marked.
                    let occupied: u32 = [Color::Black, Color::White].iter().map(|&c| positions[i].piece_count(c)).sum();
                    let count: u32 = x.taken.iter().map(|w| w.count_ones()).sum();
                    assert!(count <= occupied);
                }
            }
        }
        assert!(marked > 500, "the games take pieces: {marked} marks");
    }

    /// Capture targets reach a batch in the encoding's frame (White's view turned round), with
    /// the occupied squares as the mask; without them asked for, the batch has none.
    #[test]
    fn capture_targets_reach_the_batch_in_the_side_to_move_s_frame() {
        let table = Arc::new(MoveTable::new(&Rules::standard()));
        let (g, _, _) = greedy_game(&table, 60, 1);
        let samples = g.samples_with(&table, Horizons { material: 0, capture: 4 }).unwrap();
        let mut rng = rand::rngs::mock::StepRng::new(0, 0);
        let mut batch = Batch::default();
        for (i, s) in samples.iter().enumerate() {
            let mut buffer = ReplayBuffer::new(1);
            buffer.push_game(vec![s.clone()]);
            let off = Targets { material_scale: 1000.0, q_weight: 0.0, captures: false, surprise_weight: 0.0 };
            buffer.sample_batch(&mut rng, 1, &table, off, &mut batch);
            assert!(batch.captures.is_empty() && batch.capture_mask.is_empty());
            let on = Targets { captures: true, ..off };
            buffer.sample_batch(&mut rng, 2, &table, on, &mut batch);
            assert_eq!(batch.captures.len(), 512);
            let white = s.pos.side_to_move() == Color::White;
            for row in 0..2 {
                for f in 0..256 {
                    let sq = if white { 255 - f } else { f };
                    let piece = s.pos.piece_at(engine::Square::from_index(sq));
                    assert_eq!(batch.capture_mask[row * 256 + f], piece.is_some() as u8 as f32, "ply {i}");
                    let bit = s.taken[sq / 64] >> (sq % 64) & 1;
                    assert_eq!(batch.captures[row * 256 + f], bit as f32, "ply {i}");
                }
            }
        }
    }

    #[test]
    fn game_file_round_trip_and_damage_is_an_error() {
        let table = Arc::new(MoveTable::new(&Rules::standard()));
        let mut game = Game::new(table.clone(), Position::start());
        let mut plies = Vec::new();
        for k in 0..6 {
            let legal = game.legal_moves();
            let m = legal[k * 7 % legal.len()];
            let side = game.side_to_move();
            let idx = nn::policy::move_index(m, side).unwrap() as u32;
            plies.push(PlyRecord {
                mv: notation::to_cecp(m),
                value: 0.25 - k as f32 * 0.1,
                policy: if k % 2 == 0 { vec![(idx, 40000), (0, 25535)] } else { vec![] },
                is_policy_target: k % 2 == 0,
                // A value a code stands for reads back exactly; ply 0's target has none.
                surprise: (k % 2 == 0 && k > 0).then(|| surprise_from_code(10 + 20 * k as u8).unwrap()),
            });
            game.play(m).unwrap();
        }
        let g = GameFile {
            rules: "standard".into(),
            start_fen: Position::start().to_fen(),
            seed: 7,
            net_step: 3,
            outcome: Outcome::Win { winner: Color::White, reason: WinReason::Resignation },
            resign_off: false,
            would_resign: None,
            teacher: false,
            opponent: Some(Color::White),
            plies,
        };
        let bytes = g.to_bytes();
        assert_eq!(GameFile::from_bytes(&bytes).unwrap(), g);
        let s = g.samples(&table).unwrap();
        assert_eq!(s.len(), 6);
        assert_eq!((s[0].result, s[1].result, s[0].moves_left, s[5].moves_left), (2, 0, 6, 1));
        assert_eq!(s[2].ply, 2);
        // Truncation and a flipped byte are errors, not panics.
        assert!(GameFile::from_bytes(&bytes[..bytes.len() - 3]).is_err());
        let mut bad = bytes.clone();
        bad[40] ^= 1;
        assert_eq!(GameFile::from_bytes(&bad).unwrap_err(), GameFileError::Checksum);
        assert!(GameFile::from_bytes(b"junk").is_err());
        assert_eq!(parse_game_file_name(&game_file_name(12, 345)), Some((12, 345)));
        // A valid checksum over content the network cannot use (a policy index beyond the
        // policy) is an error the run skips with a warning, not a panic in the learner; so is a
        // resignation code of a later version.
        let mut hostile = g.clone();
        hostile.plies[2].policy.push((u32::MAX, 1));
        let e = GameFile::from_bytes(&hostile.to_bytes()).unwrap().samples(&table).unwrap_err();
        assert_eq!(e, GameFileError::PolicyIndex { ply: 3, index: u32::MAX });
        assert!(e.to_string().contains("policy index 4294967295 is out of range"), "{e}");
        let mut moved = g.clone();
        moved.plies[1].mv = "a1a16".into();
        assert!(GameFile::from_bytes(&moved.to_bytes()).unwrap().samples(&table).is_err());
        // The stored root values are the samples' q.
        assert_eq!(s.iter().map(|x| x.q).collect::<Vec<_>>(), g.plies.iter().map(|p| p.value).collect::<Vec<_>>());
        // Every outcome round-trips through its code, the repetition-stalemate one included.
        let o = Outcome::Win { winner: Color::Black, reason: WinReason::NoLegalMovesByRepetition };
        assert_eq!(outcome_from(0, termination_code(o)), Some(o));
    }

    /// z/q mixing: weight 0 is the result alone, weight 1 the root value alone, in between a
    /// mixture; every target is a distribution.
    #[test]
    fn value_target_mixes_result_and_root_value() {
        assert_eq!(value_target(0, -1.0, 0.0), [1.0, 0.0, 0.0]);
        assert_eq!(value_target(1, 0.5, 0.0), [0.0, 1.0, 0.0]);
        assert_eq!(value_target(2, 0.5, 1.0), [0.75, 0.0, 0.25]);
        let t = value_target(1, -0.6, 0.5);
        assert!((t[0] - 0.1).abs() < 1e-6 && (t[1] - 0.5).abs() < 1e-6 && (t[2] - 0.4).abs() < 1e-6, "{t:?}");
        for (r, q, w) in [(0u8, 0.3f32, 0.25f32), (2, 2.0, 0.7), (1, -5.0, 1.0)] {
            let t = value_target(r, q, w);
            assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-6 && t.iter().all(|&x| x >= 0.0), "{t:?}");
        }
    }

    /// The policy surprise is KL(target ‖ prior) over the root's moves: 0 where the search
    /// agrees with the prior, ln 4 for a one-hot target on a move the prior gave a quarter; each
    /// side normalised, a zero prior under a target large but finite, no target no surprise.
    #[test]
    fn policy_surprise_is_the_targets_divergence_from_the_prior() {
        let k = |pairs: &[(f32, f32)]| policy_surprise(pairs.iter().copied());
        assert_eq!(k(&[(0.5, 0.5), (0.5, 0.5)]), Some(0.0));
        assert!((k(&[(1.0, 0.25), (0.0, 0.75)]).unwrap() - 4f32.ln()).abs() < 1e-6);
        // Unnormalised inputs are read as distributions.
        assert!((k(&[(2.0, 1.0), (0.0, 3.0)]).unwrap() - 4f32.ln()).abs() < 1e-6);
        let ruled_out = k(&[(1.0, 0.0), (0.0, 1.0)]).unwrap();
        assert!(ruled_out.is_finite() && (ruled_out - 1e6f32.ln()).abs() < 1e-3, "{ruled_out}");
        assert_eq!(k(&[(0.0, 0.5), (0.0, 0.5)]), None);
        assert_eq!(k(&[]), None);
        // Non-finite entries count as 0: the target's mass sits on a move the prior gave none.
        assert!((k(&[(f32::NAN, 0.5), (1.0, f32::INFINITY)]).unwrap() - 1e6f32.ln()).abs() < 1e-3);
        assert_eq!(k(&[(1.0, f32::NAN)]), None, "no prior mass at all");
    }

    /// The 7-bit surprise code: 0 for none (or NaN), monotone, exact on the values it stands
    /// for, clamped at the top, and within half a step of the surprise elsewhere.
    #[test]
    fn surprise_codes_round_trip() {
        assert_eq!(surprise_code(None), 0);
        assert_eq!(surprise_code(Some(f32::NAN)), 0);
        assert_eq!(surprise_from_code(0), None);
        assert_eq!(surprise_code(Some(0.0)), 1);
        assert_eq!(surprise_from_code(1), Some(0.0));
        assert_eq!(surprise_code(Some(100.0)), 127);
        assert_eq!(surprise_code(Some(f32::INFINITY)), 127);
        assert_eq!(surprise_from_code(127), Some(MAX_SURPRISE));
        let mut last = 0;
        for c in 1..=127u8 {
            let k = surprise_from_code(c).unwrap();
            assert_eq!(surprise_code(Some(k)), c);
            assert!(c > last);
            last = c;
        }
        for k in [0.001f32, 0.05, 0.3, 1.0, 2.5, 7.0] {
            let back = surprise_from_code(surprise_code(Some(k))).unwrap();
            assert!((back.sqrt() - k.sqrt()).abs() <= 0.5 / 45.0 + 1e-6, "{k} -> {back}");
        }
    }

    /// Policy-surprise weighting draws the surprising positions more often, in proportion to
    /// their weights; with a share of 0, or no recorded surprise, the draws are the uniform ones
    /// exactly (runs without it sample as before); the window's mean surprise follows evictions.
    #[test]
    fn surprise_weighting_draws_surprising_positions_more_often() {
        use rand::SeedableRng;
        use rand_chacha::ChaCha8Rng;
        let table = Arc::new(MoveTable::new(&Rules::standard()));
        let pos = Position::start();
        let sample = |material: i32, surprise: Option<f32>| Sample {
            pos,
            repetitions: 0,
            ply: 0,
            policy: vec![(0, 65535)].into_boxed_slice(),
            result: 1,
            moves_left: 10,
            material,
            q: 0.0,
            taken: [0; 4],
            surprise,
        };
        // Four positions: surprises 0.1, 0.1 and 1.0 (mean 0.4), and one without a record.
        let mut buffer = ReplayBuffer::new(4);
        buffer.push_game(vec![sample(0, Some(0.1)), sample(1000, Some(0.1)), sample(2000, Some(1.0))]);
        buffer.push_game(vec![sample(3000, None)]);
        assert!((buffer.mean_surprise().unwrap() - 0.4).abs() < 1e-6);
        let targets = |w| Targets { material_scale: 1000.0, q_weight: 0.0, captures: false, surprise_weight: w };
        let draws = |w: f32, seed: u64| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut batch = Batch::default();
            buffer.sample_batch(&mut rng, 4000, &table, targets(w), &mut batch);
            let mut counts = [0usize; 4];
            for m in &batch.material {
                counts[*m as usize] += 1;
            }
            (counts, batch.material.clone())
        };
        // Weights with share 1: 0.25, 0.25, 2.5, 1 (of 4): shares 0.0625, 0.0625, 0.625, 0.25.
        let (counts, _) = draws(1.0, 5);
        for (c, share) in counts.iter().zip([0.0625, 0.0625, 0.625, 0.25]) {
            assert!((*c as f64 / 4000.0 - share).abs() < 0.03, "{counts:?}");
        }
        // Share 0.5: weights 0.625, 0.625, 1.75, 1 (of 4).
        let (counts, _) = draws(0.5, 6);
        for (c, w) in counts.iter().zip([0.625, 0.625, 1.75, 1.0]) {
            assert!((*c as f64 / 4000.0 - w / 4.0).abs() < 0.03, "{counts:?}");
        }
        // Share 0 draws exactly what uniform sampling draws.
        let uniform = {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            (0..4000).map(|_| buffer.samples[rng.gen_range(0..4)].material as f32 / 1000.0).collect::<Vec<_>>()
        };
        assert_eq!(draws(0.0, 7).1, uniform);
        // Eviction: the three recorded surprises leave the window one by one.
        buffer.push_game(vec![sample(0, Some(0.4)), sample(0, None)]);
        assert!((buffer.mean_surprise().unwrap() - 0.7).abs() < 1e-6, "{:?}", buffer.mean_surprise());
        buffer.push_game(vec![sample(0, None), sample(0, None), sample(0, None)]);
        assert_eq!(buffer.mean_surprise(), None);
        // Without a recorded surprise in the window the draws are uniform again.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut batch = Batch::default();
        buffer.sample_batch(&mut rng, 8, &table, targets(1.0), &mut batch);
        assert_eq!(batch.size, 8);
    }
}
