//! Properties over thousands of seeded random games (RULES.md as a whole):
//! make/unmake restores everything, the incremental hash equals a fresh one, FEN and every
//! move's CECP text round-trip, move lists hold no duplicates, and finished games carry the
//! right result.

use engine::generate;
use engine::notation::{parse_cecp_in, to_cecp};
use engine::{DrawReason, Game, Outcome, WinReason};
use engine::{MoveList, MoveTable, Position, Rules};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use std::sync::Arc;

fn check_position(pos: &Position, t: &MoveTable) {
    assert_eq!(pos.hash(), pos.compute_hash(), "incremental hash differs from a fresh one");
    let fen = pos.to_fen();
    let back = Position::from_fen(&fen).expect("own FEN parses");
    assert!(back == *pos, "FEN round trip changed the position: {fen}");
    let mut list = MoveList::new();
    generate(pos, t, &mut list);
    let set: HashSet<_> = list.iter().copied().collect();
    assert_eq!(set.len(), list.len(), "duplicate moves in {fen}");
    let texts: HashSet<String> = list.iter().map(|&m| to_cecp(m)).collect();
    if texts.len() != list.len() {
        let mut v: Vec<_> = list.iter().map(|&m| format!("{m:?}/{:?}", m.via().collect::<Vec<_>>())).collect();
        v.sort();
        panic!("two moves share a text in {fen}: {v:?}");
    }
    for &m in list.iter() {
        let text = to_cecp(m);
        assert_eq!(parse_cecp_in(pos, list.as_slice(), &text), Ok(m), "{text} in {fen}");
        let mut p = *pos;
        let eff = p.play(t, m);
        // The played move's hash is checked from scratch in the game loop; here a cheap
        // consistency check of the effect keeps the all-moves pass fast.
        assert_eq!(p.side_to_move(), pos.side_to_move().other());
        p.unplay(m, &eff);
        assert!(p == *pos, "make/unmake of {text} did not restore {fen}");
    }
}

fn random_games(rules: Rules, games: u64, max_plies: usize, seed0: u64) -> (usize, usize) {
    let t = Arc::new(MoveTable::new(&rules));
    let mut finished = 0;
    let mut total_plies = 0;
    for g in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(seed0 + g);
        let mut game = Game::new(t.clone(), Position::start());
        while !game.is_over() && game.ply_count() < max_plies {
            check_position(game.position(), &t);
            let moves = game.legal_moves();
            let &m = moves.choose(&mut rng).unwrap();
            game.play(m).unwrap();
        }
        total_plies += game.ply_count();
        if let Some(o) = game.outcome() {
            finished += 1;
            check_outcome(&game, o);
        }
    }
    (finished, total_plies)
}

/// §9: the recorded result follows from the final position.
fn check_outcome(game: &Game, o: Outcome) {
    let pos = game.position();
    let mover = pos.side_to_move().other();
    match o {
        Outcome::Win { winner, reason: WinReason::RoyalCaptured } => {
            assert_eq!(pos.royal_count(winner.other()), 0, "loser still has a royal");
            if pos.royal_count(winner) == 0 {
                assert_eq!(winner, mover, "double royal loss: the mover wins by default");
            }
        }
        Outcome::Win { winner, reason: WinReason::NoLegalMoves } => {
            assert_eq!(winner, mover);
            let mut l = MoveList::new();
            generate(pos, game.table(), &mut l);
            assert!(game.legal_moves().is_empty());
        }
        Outcome::Draw(DrawReason::PlyCap) => assert_eq!(game.ply_count() as u32, game.table().rules.ply_cap),
        Outcome::Draw(DrawReason::Repetition) => assert!(game.repetitions() >= 3),
        other => panic!("unexpected outcome {other:?}"),
    }
}

#[test]
fn random_games_standard_rules_keep_every_invariant() {
    let (finished, plies) = random_games(Rules::standard(), 1000, 300, 1);
    assert!(finished > 100, "only {finished} of 1000 random games finished");
    assert!(plies > 50_000, "{plies}");
}

#[test]
fn random_games_house_rules_keep_every_invariant() {
    random_games(Rules::house(), 200, 300, 10_000);
}

#[test]
fn random_games_hachu_rules_keep_every_invariant() {
    random_games(Rules::hachu(), 200, 300, 20_000);
}

#[test]
fn make_unmake_perft_equals_copy_make_perft() {
    let t = MoveTable::new(&Rules::standard());
    fn walk(p: &mut Position, t: &MoveTable, d: u32) -> u64 {
        let mut l = MoveList::new();
        generate(p, t, &mut l);
        if d == 1 {
            return l.len() as u64;
        }
        let mut n = 0;
        for &m in l.iter() {
            let e = p.play(t, m);
            n += walk(p, t, d - 1);
            p.unplay(m, &e);
        }
        n
    }
    for (_, fen) in engine::perft::bench_positions() {
        let mut p = Position::from_fen(&fen).unwrap();
        let copy = engine::perft::perft(&p, &t, 2);
        assert_eq!(walk(&mut p, &t, 2), copy, "{fen}");
    }
}
