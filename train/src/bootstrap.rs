//! The bootstrap option (`tenjiku train --bootstrap alphabeta`): the first
//! `bootstrap_positions` positions of a run come from games the alpha-beta baseline plays
//! against itself, labelled by its search, instead of from self-play. Pure self-play (the
//! default, `bootstrap = "none"`) never touches this module, so the two kinds of run can be
//! compared curve for curve.
//!
//! A teacher game:
//! - labels every position with the teacher's search (`bootstrap_engine`, e.g.
//!   `alphabeta:depth=2`): its move is the policy target (the teacher gives no distribution) and
//!   its score the stored root value (`tanh(score / 600)`);
//! - plays the teacher's move, except in the first `bootstrap_random_plies` plies, where a
//!   random legal move is played instead when the teacher, searching the reply, scores it within
//!   [`RANDOM_MARGIN_CP`] of its best ([`RANDOM_TRIES`] tries). The teacher is deterministic, so
//!   without these every game would be the same; uniformly random plies would not do, since in
//!   Tenjiku they often leave a royal to a jumping general and the game ends in ten plies;
//! - ends by the rules, by the ply cap (`max_plies`), or by resignation when the teacher's own
//!   score stays below [`crate::games::RESIGN_CP`] for [`crate::games::RESIGN_MOVES`] of its consecutive moves (decided games
//!   would otherwise drag on for hundreds of plies).
//!
//! The value, moves-left and material targets come from the game's end as in self-play. Games
//! are written in the self-play game format with the teacher flag (`replay.rs`).
//!
//! # Determinism
//! Game `i` draws its random plies from a generator seeded by (`seed`, `i`) and the teacher is a
//! fresh engine seeded the same way with a depth or node limit (a time limit is refused), so
//! the same seed gives the same games whatever the thread count.

use crate::config::FieldError;
use crate::games::{cap_plies, check_engine, play_or_draw, resigns, score_value, Finished};
use crate::replay::{GameFile, PlyRecord};
use engine::Game;
use engine::{notation, Color, MoveTable, Position};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use search::alphabeta::AlphaBeta;
use search::mix_seed;
use search::EngineSpec;
use std::sync::Arc;

/// An opening ply plays a random move instead of the teacher's when the teacher scores it at
/// most this many centipawns below its best...
pub const RANDOM_MARGIN_CP: i32 = 100;
/// ...trying this many random moves before settling for the teacher's.
pub const RANDOM_TRIES: usize = 4;

/// Settings of the teacher games (from the run config).
#[derive(Clone, Debug)]
pub struct TeacherConfig {
    pub engine: EngineSpec,
    pub random_plies: u32,
    /// 0 = the rules' cap only.
    pub max_plies: u32,
    /// Games played at once (one per thread).
    pub threads: usize,
    pub seed: u64,
    pub rules_tag: String,
}

impl TeacherConfig {
    pub fn from_run(c: &crate::config::RunConfig, rules_tag: &str) -> Result<TeacherConfig, FieldError> {
        let engine = check_engine(&c.bootstrap_engine)
            .map_err(|e| FieldError { field: "bootstrap_engine", why: e.to_string() })?;
        Ok(TeacherConfig {
            engine,
            random_plies: c.bootstrap_random_plies,
            max_plies: c.max_plies,
            threads: c.threads.max(1),
            seed: c.seed,
            rules_tag: rules_tag.to_string(),
        })
    }
}

/// The teacher games of a run, numbered on from the run's games.
pub struct Teacher {
    cfg: TeacherConfig,
    table: Arc<MoveTable>,
    next_game: u64,
}

impl Teacher {
    pub fn new(cfg: TeacherConfig, table: Arc<MoveTable>, first_game: u64) -> Teacher {
        Teacher { cfg, table, next_game: first_game }
    }

    /// The number the next game will get.
    pub fn next_game(&self) -> u64 {
        self.next_game
    }

    /// Play `threads` whole games at once (one per thread); returns them in game order.
    pub fn round(&mut self) -> Vec<Finished> {
        let first = self.next_game;
        let n = self.cfg.threads as u64;
        self.next_game += n;
        let (cfg, table) = (&self.cfg, &self.table);
        std::thread::scope(|s| {
            let handles: Vec<_> =
                (first..first + n).map(|i| s.spawn(move || play_game(cfg, table.clone(), i))).collect();
            handles.into_iter().map(|h| h.join().expect("a teacher game does not panic")).collect()
        })
    }
}

/// A random legal move the teacher scores within [`RANDOM_MARGIN_CP`] of `best_score` (each
/// candidate searched from the opponent's side after it), else `best`.
fn near_best_random_move(
    teacher: &mut AlphaBeta,
    game: &mut Game,
    rng: &mut ChaCha8Rng,
    best: engine::Move,
    best_score: i32,
) -> engine::Move {
    let moves = game.legal_moves();
    if moves.is_empty() {
        return best;
    }
    for _ in 0..RANDOM_TRIES {
        let m = moves[rng.gen_range(0..moves.len())];
        if m == best {
            return best;
        }
        if game.play(m).is_err() {
            continue;
        }
        let reply = if game.is_over() { None } else { Some(teacher.search(game, &mut |_| {}).score) };
        game.undo();
        // A move that ends the game at once is a win for the mover (the rules end games by
        // capture of the last royal, and the teacher would have found it as its best).
        if reply.is_none_or(|s| -s >= best_score - RANDOM_MARGIN_CP) {
            return m;
        }
    }
    best
}

/// Play teacher game number `index`.
pub fn play_game(cfg: &TeacherConfig, table: Arc<MoveTable>, index: u64) -> Finished {
    let seed = mix_seed(cfg.seed, index);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut teacher = AlphaBeta::from_spec(&cfg.engine).expect("teacher spec checked with the config");
    teacher.set_seed(mix_seed(seed, 0x7EAC));
    let mut game = Game::new(table, Position::start());
    let mut plies = Vec::new();
    let mut low = [0u32; 2];
    while !game.is_over() {
        let us = game.side_to_move();
        let r = teacher.search(&game, &mut |_| {});
        if resigns(&mut low[(us == Color::White) as usize], r.score) {
            game.resign(us);
            break;
        }
        let policy = nn::policy::move_index(r.best, us).map(|i| vec![(i as u32, u16::MAX)]).unwrap_or_default();
        let value = score_value(r.score);
        let mv = if (game.ply_count() as u32) < cfg.random_plies {
            near_best_random_move(&mut teacher, &mut game, &mut rng, r.best, r.score)
        } else {
            r.best
        };
        let target = !policy.is_empty();
        plies.push(PlyRecord { mv: notation::to_cecp(mv), value, policy, is_policy_target: target, surprise: None });
        play_or_draw(&mut game, mv, "teacher game", index);
        cap_plies(&mut game, cfg.max_plies);
    }
    let file = GameFile {
        rules: cfg.rules_tag.clone(),
        start_fen: game.start_position().to_fen(),
        seed,
        net_step: 0,
        outcome: game.outcome().expect("finished game"),
        resign_off: false,
        would_resign: None,
        teacher: true,
        opponent: None,
        plies,
    };
    Finished { index, file }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::EngineCheckError;

    fn cfg(threads: usize) -> TeacherConfig {
        TeacherConfig {
            engine: check_engine("alphabeta:depth=1").unwrap(),
            random_plies: 4,
            max_plies: 40,
            threads,
            seed: 7,
            rules_tag: "standard".into(),
        }
    }

    #[test]
    fn teacher_games_are_labelled_replayable_and_repeatable() {
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let a = Teacher::new(cfg(2), table.clone(), 10).round();
        // The opening plies differ between games (near-best random moves).
        assert_ne!(a[0].file.plies[..4], a[1].file.plies[..4]);
        assert_eq!(a.iter().map(|f| f.index).collect::<Vec<_>>(), vec![10, 11]);
        for f in &a {
            let g = &f.file;
            assert!(g.teacher && g.plies.len() <= 40 && !g.plies.is_empty());
            // Every ply carries the teacher's one move as its policy target.
            for p in &g.plies {
                assert!(p.is_policy_target);
                assert_eq!(p.policy.len(), 1);
                assert_eq!(p.policy[0].1, u16::MAX);
            }
            let bytes = g.to_bytes();
            assert_eq!(&GameFile::from_bytes(&bytes).unwrap(), g);
            assert_eq!(g.samples(&table).unwrap().len(), g.plies.len());
        }
        // The same numbers give the same games with one thread.
        let mut t = Teacher::new(cfg(1), table.clone(), 10);
        let b: Vec<_> = (0..2).flat_map(|_| t.round()).collect();
        assert_eq!(a.iter().map(|f| &f.file).collect::<Vec<_>>(), b.iter().map(|f| &f.file).collect::<Vec<_>>());
    }

    #[test]
    fn teacher_spec_errors() {
        assert!(check_engine("alphabeta:depth=2").is_ok());
        assert_eq!(check_engine("alphabeta:time=1s").unwrap_err(), EngineCheckError::Timed);
        assert_eq!(check_engine("alphabeta").unwrap_err(), EngineCheckError::NoLimit);
        assert!(check_engine("random").unwrap_err().to_string().contains("alphabeta"));
        assert!(check_engine("alphabeta:depth=x").is_err());
    }
}
