//! Chunks: the finished games a self-play worker uploads at once, one immutable object each.
//!
//! # Name (`games/wWWWW/cSSSSSSSSS-gG-pP.chunk`)
//! Worker `W`, its chunk number `S` (0, 1, 2, ... per worker), `G` games and `P` positions, so
//! the totals of a run come from a listing alone. A chunk is written once, with a
//! create-if-absent write: a retried upload that finds its own bytes there is done, and one that
//! finds other bytes (another worker with the same index) takes the next number.
//!
//! Runs from before chunks have one game per file, `games/game-NNNNNNNNN-pPPPP.bin`
//! ([`crate::replay`]); they are read as chunks of one game.
//!
//! # Content
//! All integers little-endian.
//!
//! | field | content |
//! |---|---|
//! | 8 | magic `TNJKCHNK` |
//! | u32 | format version ([`CHUNK_VERSION`]) |
//! | u32, u64 | worker, chunk number |
//! | u64 | the worker's next game number after this chunk (where a restarted worker goes on) |
//! | u32 | games `G` |
//! | G × (u32 length, game file) | each game as a game file ([`crate::replay`], with its own checksum) |
//! | u64 | XXH64 (seed 0) of every byte before it |

use crate::replay::{parse_game_file_name, GameFile, GameFileError};
use xxhash_rust::xxh64::xxh64;

pub const CHUNK_MAGIC: &[u8; 8] = b"TNJKCHNK";
pub const CHUNK_VERSION: u32 = 1;
/// The folder of the games in a store.
pub const GAMES: &str = "games";
/// The most bytes a chunk may have.
pub const MAX_CHUNK_BYTES: u64 = 1 << 30;

/// A worker's upload of finished games.
#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    pub worker: u32,
    pub seq: u64,
    pub next_game: u64,
    pub games: Vec<GameFile>,
}

/// What a chunk's name says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkName {
    /// `None`: a game file of a run from before chunks.
    pub worker: Option<u32>,
    /// The chunk number (a legacy game file: its game number).
    pub seq: u64,
    pub games: u64,
    pub positions: u64,
}

/// A chunk that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    #[error("not a chunk (bad magic or too short)")]
    NotAChunk,
    #[error("chunk format version {found}, this build reads {CHUNK_VERSION}")]
    Version { found: u32 },
    #[error("checksum mismatch (damaged or truncated)")]
    Checksum,
    #[error("truncated")]
    Truncated,
    #[error("game {index}: {error}")]
    Game { index: usize, error: GameFileError },
    #[error("its name says {named_games} games and {named_positions} positions, it holds {games} and {positions}")]
    NameDiffers { named_games: u64, named_positions: u64, games: u64, positions: u64 },
}

impl Chunk {
    pub fn positions(&self) -> u64 {
        self.games.iter().map(|g| g.plies.len() as u64).sum()
    }

    /// Its key in a store.
    pub fn key(&self) -> String {
        chunk_key(self.worker, self.seq, self.games.len() as u64, self.positions())
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(CHUNK_MAGIC);
        b.extend_from_slice(&CHUNK_VERSION.to_le_bytes());
        b.extend_from_slice(&self.worker.to_le_bytes());
        b.extend_from_slice(&self.seq.to_le_bytes());
        b.extend_from_slice(&self.next_game.to_le_bytes());
        b.extend_from_slice(&(self.games.len() as u32).to_le_bytes());
        for g in &self.games {
            let bytes = g.to_bytes();
            b.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            b.extend_from_slice(&bytes);
        }
        let sum = xxh64(&b, 0);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Parse a chunk's bytes (each game's format checked; moves are checked when replayed).
    pub fn from_bytes(bytes: &[u8]) -> Result<Chunk, ChunkError> {
        if bytes.len() < 8 + 4 + 4 + 8 + 8 + 4 + 8 || &bytes[..8] != CHUNK_MAGIC {
            return Err(ChunkError::NotAChunk);
        }
        let (body, tail) = bytes.split_at(bytes.len() - 8);
        let mut at = 8;
        let mut take = |n: usize| -> Result<&[u8], ChunkError> {
            let s = body.get(at..at + n).ok_or(ChunkError::Truncated)?;
            at += n;
            Ok(s)
        };
        let version = u32::from_le_bytes(take(4)?.try_into().expect("4"));
        if version != CHUNK_VERSION {
            return Err(ChunkError::Version { found: version });
        }
        if xxh64(body, 0) != u64::from_le_bytes(tail.try_into().expect("8")) {
            return Err(ChunkError::Checksum);
        }
        let worker = u32::from_le_bytes(take(4)?.try_into().expect("4"));
        let seq = u64::from_le_bytes(take(8)?.try_into().expect("8"));
        let next_game = u64::from_le_bytes(take(8)?.try_into().expect("8"));
        let n = u32::from_le_bytes(take(4)?.try_into().expect("4")) as usize;
        let mut games = Vec::with_capacity(n.min(4096));
        for index in 0..n {
            let len = u32::from_le_bytes(take(4)?.try_into().expect("4")) as usize;
            let g = GameFile::from_bytes(take(len)?).map_err(|error| ChunkError::Game { index, error })?;
            games.push(g);
        }
        if at != body.len() {
            return Err(ChunkError::Truncated);
        }
        Ok(Chunk { worker, seq, next_game, games })
    }

    /// Parse the object at `key` (a chunk, or a legacy game file), checked against its name.
    pub fn from_object(name: &ChunkName, bytes: &[u8]) -> Result<Chunk, ChunkError> {
        let chunk = match name.worker {
            Some(_) => Chunk::from_bytes(bytes)?,
            None => {
                let g = GameFile::from_bytes(bytes).map_err(|error| ChunkError::Game { index: 0, error })?;
                Chunk { worker: 0, seq: name.seq, next_game: name.seq + 1, games: vec![g] }
            }
        };
        let (games, positions) = (chunk.games.len() as u64, chunk.positions());
        if (games, positions) != (name.games, name.positions) {
            return Err(ChunkError::NameDiffers {
                named_games: name.games,
                named_positions: name.positions,
                games,
                positions,
            });
        }
        Ok(chunk)
    }
}

/// The folder of worker `w`'s chunks.
pub fn worker_prefix(worker: u32) -> String {
    format!("{GAMES}/w{worker:04}")
}

pub fn chunk_key(worker: u32, seq: u64, games: u64, positions: u64) -> String {
    format!("{}/c{seq:09}-g{games}-p{positions}.chunk", worker_prefix(worker))
}

/// What the key of a chunk (or of a legacy game file) says; `None` for any other object.
pub fn parse_chunk_key(key: &str) -> Option<ChunkName> {
    let rest = key.strip_prefix(GAMES)?.strip_prefix('/')?;
    if let Some((i, p)) = parse_game_file_name(rest) {
        return Some(ChunkName { worker: None, seq: i, games: 1, positions: p });
    }
    let (w, file) = rest.split_once('/')?;
    let worker = w.strip_prefix('w')?.parse().ok()?;
    let body = file.strip_prefix('c')?.strip_suffix(".chunk")?;
    let mut parts = body.split('-');
    let seq = parts.next()?.parse().ok()?;
    let games = parts.next()?.strip_prefix('g')?.parse().ok()?;
    let positions = parts.next()?.strip_prefix('p')?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some(ChunkName { worker: Some(worker), seq, games, positions })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::PlyRecord;
    use engine::{Color, Outcome, Position, WinReason};

    fn game(plies: usize) -> GameFile {
        GameFile {
            rules: "standard".into(),
            start_fen: Position::start().to_fen(),
            seed: 3,
            net_step: 10,
            outcome: Outcome::Win { winner: Color::Black, reason: WinReason::Resignation },
            resign_off: false,
            would_resign: None,
            teacher: false,
            opponent: None,
            plies: (0..plies)
                .map(|_| PlyRecord {
                    mv: "a1a2".into(),
                    value: 0.0,
                    policy: vec![],
                    is_policy_target: false,
                    surprise: None,
                })
                .collect(),
        }
    }

    #[test]
    fn chunks_round_trip_and_damage_is_an_error() {
        let c = Chunk { worker: 3, seq: 12, next_game: 40, games: vec![game(2), game(5)] };
        let key = c.key();
        assert_eq!(key, "games/w0003/c000000012-g2-p7.chunk");
        let name = parse_chunk_key(&key).unwrap();
        assert_eq!(name, ChunkName { worker: Some(3), seq: 12, games: 2, positions: 7 });
        let bytes = c.to_bytes();
        assert_eq!(Chunk::from_object(&name, &bytes).unwrap(), c);
        for cut in [0, 10, bytes.len() / 2, bytes.len() - 1] {
            assert!(Chunk::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = bytes.clone();
        bad[30] ^= 4;
        assert_eq!(Chunk::from_bytes(&bad), Err(ChunkError::Checksum));
        let other = ChunkName { positions: 8, ..name };
        assert!(matches!(Chunk::from_object(&other, &bytes), Err(ChunkError::NameDiffers { .. })));
        assert_eq!(
            parse_chunk_key("games/game-000000007-p0031.bin"),
            Some(ChunkName { worker: None, seq: 7, games: 1, positions: 31 })
        );
        for k in ["games/w1/c1-g1-p1.chunk.tmp", "games/x/c1-g1-p1.chunk", "checkpoints/latest", "games/w1/c1-g1.chunk"]
        {
            assert_eq!(parse_chunk_key(k), None, "{k}");
        }
    }

    #[test]
    fn damaged_chunks_are_errors_never_panics() {
        use rand::{Rng, SeedableRng};
        let c = Chunk { worker: 1, seq: 2, next_game: 3, games: vec![game(3), game(1)] };
        let bytes = c.to_bytes();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..5000 {
            let mut b = bytes.clone();
            for _ in 0..rng.gen_range(1..4) {
                let i = rng.gen_range(0..b.len());
                b[i] = rng.gen();
            }
            b.truncate(rng.gen_range(0..=b.len()));
            let _ = Chunk::from_bytes(&b);
            // With a valid checksum over changed content (a hostile file), still no panic.
            if b.len() > 8 {
                let n = b.len() - 8;
                let sum = xxh64(&b[..n], 0).to_le_bytes();
                b[n..].copy_from_slice(&sum);
                let _ = Chunk::from_bytes(&b);
            }
        }
    }
}
