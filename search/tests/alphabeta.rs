//! The alpha-beta baseline engine (`search::alphabeta`): finds royal captures ("mates", RULES.md
//! §9: the game ends when the last royal is captured or burned, §6), always returns a legal
//! move, is deterministic at fixed depth, and gives the same answers with and without its
//! transposition table. All searches here are depth- or node-limited (no timing).

use engine::Game;
use engine::{Color, Kind, Move, MoveTable, Piece, Position, Rules, Square};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use search::alphabeta::{AlphaBeta, SearchConfig, MATE};
use search::{EngineSpec, Limits, Player, Thinking};
use std::sync::Arc;

fn sq(s: &str) -> Square {
    Square::parse_cecp(s).unwrap()
}

fn table() -> Arc<MoveTable> {
    Arc::new(MoveTable::new(&Rules::standard()))
}

/// A position from `(square, kind, colour)` triples, `stm` to move.
fn setup(pieces: &[(&str, Kind, Color)], stm: Color) -> Position {
    let mut p = Position::empty();
    for &(s, k, c) in pieces {
        p.put(sq(s), Piece::of_kind(k, c));
    }
    p.set_side_to_move(stm);
    p
}

fn depth_engine(depth: u32) -> AlphaBeta {
    AlphaBeta::new(
        Limits { depth: Some(depth), ..Limits::default() },
        SearchConfig { tt_mb: 4, ..SearchConfig::default() },
        0,
    )
}

fn best(depth: u32, game: &Game) -> (Move, i32) {
    let r = depth_engine(depth).search(game, &mut |_| {});
    (r.best, r.score)
}

/// The position after `m`.
fn after(t: &MoveTable, pos: &Position, m: Move) -> Position {
    let mut p = *pos;
    p.play(t, m);
    p
}

/// Whether the side to move can take the opponent's last royal at once; with `burn_only`, by a
/// burn (the royal is among the burned pieces).
fn can_kill(t: &MoveTable, pos: &Position, burn_only: bool) -> bool {
    let them = pos.side_to_move().other();
    engine::legal_moves(pos, t).into_iter().any(|m| {
        let mut p = *pos;
        let eff = p.play(t, m);
        p.royal_count(them) == 0 && (!burn_only || eff.burned().any(|(_, pc)| pc.kind().is_royal()))
    })
}

/// `m` wins in two: after it, every reply of the opponent leaves a kill (by a burn if
/// `burn_only`), and the engine finds the kill at depth 1 after each reply.
fn assert_wins_in_two(t: &Arc<MoveTable>, pos: &Position, m: Move, burn_only: bool) {
    let p1 = after(t, pos, m);
    assert!(!p1.is_finished(), "{m} already ends the game");
    let replies = engine::legal_moves(&p1, t);
    assert!(!replies.is_empty());
    let us = pos.side_to_move();
    for r in replies {
        let p2 = after(t, &p1, r);
        if p2.royal_count(us.other()) == 0 {
            continue; // the reply was a suicide (a royal moving next to our Fire Demon)
        }
        assert!(can_kill(t, &p2, burn_only), "after {m} {r} there is no kill");
        let g = Game::new(t.clone(), p2);
        let (k, score) = best(1, &g);
        assert_eq!(after(t, &p2, k).royal_count(us.other()), 0, "after {m} {r} the engine plays {k}");
        assert_eq!(score, MATE - 1);
    }
}

// ---- §5.6 jumping generals, §9 the game ends with the last royal ----------------------------

#[test]
fn rules_5_6_mate_in_1_by_a_jumping_great_general() {
    let t = table();
    // The Great General on h8 jumps the two pawns on its diagonal and takes the King on p16;
    // a Queen hangs on a3 as a decoy for the Rook on a1.
    let pos = setup(
        &[
            ("b1", Kind::King, Color::Black),
            ("h8", Kind::GreatGeneral, Color::Black),
            ("a1", Kind::Rook, Color::Black),
            ("p16", Kind::King, Color::White),
            ("k11", Kind::Pawn, Color::White),
            ("m13", Kind::Pawn, Color::White),
            ("a3", Kind::Queen, Color::White),
            ("c16", Kind::Pawn, Color::White),
        ],
        Color::Black,
    );
    let g = Game::new(t.clone(), pos);
    for depth in [1, 2, 3] {
        let (m, score) = best(depth, &g);
        assert_eq!(m.to(), Some(sq("p16")), "depth {depth}: {m}");
        assert_eq!(after(&t, &pos, m).royal_count(Color::White), 0);
        assert_eq!(score, MATE - 1, "depth {depth}");
    }
}

#[test]
fn rules_5_6_mate_in_2_by_a_jumping_great_general() {
    let t = table();
    // The White King on p16 is boxed in by its own pawns; the Great General on h3 reaches a
    // line through p16 (only pawns, jump-rank 0, in between) and takes the King next move.
    let pos = setup(
        &[
            ("b1", Kind::King, Color::Black),
            ("h3", Kind::GreatGeneral, Color::Black),
            ("p16", Kind::King, Color::White),
            ("o16", Kind::Pawn, Color::White),
            ("o15", Kind::Pawn, Color::White),
            ("p15", Kind::Pawn, Color::White),
        ],
        Color::Black,
    );
    assert!(!can_kill(&t, &pos, false), "no mate in 1 here");
    let g = Game::new(t.clone(), pos);
    let (m, score) = best(3, &g);
    assert_eq!(score, MATE - 3, "{m}");
    assert_wins_in_two(&t, &pos, m, false);
}

// ---- §6 burning -------------------------------------------------------------------------------

#[test]
fn rules_6_mate_in_1_by_a_burn() {
    let t = table();
    // The Fire Demon on a15 slides along rank 15 to o15 (or takes the pawn on p15): both end
    // next to the King on p16, which burns. It cannot take the King itself (not on its lines).
    let pos = setup(
        &[
            ("b1", Kind::King, Color::Black),
            ("a15", Kind::FireDemon, Color::Black),
            ("a1", Kind::Rook, Color::Black),
            ("p16", Kind::King, Color::White),
            ("p15", Kind::Pawn, Color::White),
            ("a3", Kind::GreatGeneral, Color::White),
        ],
        Color::Black,
    );
    let g = Game::new(t.clone(), pos);
    for depth in [1, 2, 3] {
        let (m, score) = best(depth, &g);
        let mut p = pos;
        let eff = p.play(&t, m);
        assert_eq!(p.royal_count(Color::White), 0, "depth {depth}: {m}");
        assert!(eff.burned().any(|(s, _)| s == sq("p16")), "the King is burned");
        assert_eq!(score, MATE - 1);
    }
}

#[test]
fn rules_6_mate_in_2_by_a_burn() {
    let t = table();
    // A lone White King on p16 and a Black Fire Demon on c1 (no kill in one move). Fire Demon
    // to p14 leaves the King o16 only (o15 and p15 are next to the Fire Demon: suicide), and
    // from p14 the Fire Demon reaches a square next to any King square and burns it.
    let pos = setup(
        &[("b1", Kind::King, Color::Black), ("c1", Kind::FireDemon, Color::Black), ("p16", Kind::King, Color::White)],
        Color::Black,
    );
    assert!(!can_kill(&t, &pos, false), "no mate in 1 here");
    let g = Game::new(t.clone(), pos);
    let (m, score) = best(3, &g);
    assert_eq!(score, MATE - 3, "{m}");
    assert_wins_in_two(&t, &pos, m, true);
}

#[test]
fn rules_9_losing_side_sees_the_mate_and_a_finished_position_is_never_searched() {
    let t = table();
    // White to move in the mate-in-1 position, with the Black GG already aligned: whatever
    // White does (it has no way to stop the jump), the score is a loss in 2 plies.
    let pos = setup(
        &[
            ("b1", Kind::King, Color::Black),
            ("h8", Kind::GreatGeneral, Color::Black),
            ("p16", Kind::King, Color::White),
            ("o16", Kind::Pawn, Color::White),
            ("o15", Kind::Pawn, Color::White),
            ("p15", Kind::Pawn, Color::White),
        ],
        Color::White,
    );
    let g = Game::new(t.clone(), pos);
    let (m, score) = best(2, &g);
    assert!(g.legal_moves().contains(&m));
    assert_eq!(score, -(MATE - 2));
}

// ---- always a legal move ----------------------------------------------------------------------

/// Positions of seeded random games (every 15th ply), with their games (history included).
fn corpus(seeds: std::ops::Range<u64>, plies: usize) -> Vec<Game> {
    let t = table();
    let mut out = Vec::new();
    for seed in seeds {
        let mut g = Game::new(t.clone(), Position::start());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        while !g.is_over() && g.ply_count() < plies {
            if g.ply_count().is_multiple_of(15) {
                out.push(g.clone());
            }
            let m = *g.legal_moves().choose(&mut rng).unwrap();
            g.play(m).unwrap();
        }
        if !g.is_over() {
            out.push(g.clone());
        }
    }
    out
}

#[test]
fn returns_a_legal_move_in_every_corpus_position_under_any_limit() {
    let games = corpus(0..4, 300);
    assert!(games.len() >= 40);
    let limits = [
        Limits { depth: Some(1), ..Limits::default() },
        Limits { nodes: Some(1), ..Limits::default() },
        Limits { nodes: Some(300), ..Limits::default() },
        Limits { movetime: Some(std::time::Duration::ZERO), ..Limits::default() },
    ];
    for (i, g) in games.iter().enumerate() {
        let legal = g.legal_moves();
        for l in limits {
            let mut e = AlphaBeta::new(l, SearchConfig { tt_mb: 1, ..SearchConfig::default() }, i as u64);
            let m = e.choose(g, &mut |_| {});
            assert!(legal.contains(&m), "{m} not legal in {} under {l:?}", g.position().to_fen());
        }
    }
}

#[test]
fn plays_a_short_game_against_itself_with_legal_moves() {
    // Through the engine spec, both sides depth 1, 40 plies; every move is accepted by Game.
    let t = table();
    let spec = EngineSpec::parse("alphabeta:depth=1,tt=1,seed=5").unwrap();
    let mut e = AlphaBeta::from_spec(&spec).unwrap();
    assert_eq!(e.name(), "alphabeta:depth=1,tt=1,seed=5");
    let mut g = Game::new(t, Position::start());
    while !g.is_over() && g.ply_count() < 40 {
        let m = e.choose(&g, &mut |_| {});
        g.play(m).unwrap();
    }
}

// ---- determinism and the transposition table --------------------------------------------------

#[test]
fn deterministic_at_fixed_depth_and_nodes_for_a_seed() {
    let games = corpus(7..8, 120);
    for g in games.iter().step_by(3) {
        for limits in
            [Limits { depth: Some(2), ..Limits::default() }, Limits { nodes: Some(3000), ..Limits::default() }]
        {
            let run = || {
                AlphaBeta::new(limits, SearchConfig { tt_mb: 2, ..SearchConfig::default() }, 11).search(g, &mut |_| {})
            };
            let (a, b) = (run(), run());
            assert_eq!((a.best, a.score, a.nodes, &a.pv), (b.best, b.score, b.nodes, &b.pv));
        }
    }
}

#[test]
fn tt_on_and_off_agree_at_fixed_depth() {
    let mut games = corpus(20..22, 200);
    games.truncate(12);
    for (i, g) in games.iter().enumerate() {
        let depth = if i < 3 { 3 } else { 2 };
        let limits = Limits { depth: Some(depth), ..Limits::default() };
        let on = AlphaBeta::new(limits, SearchConfig { tt_mb: 4, ..SearchConfig::default() }, 1).search(g, &mut |_| {});
        let off =
            AlphaBeta::new(limits, SearchConfig { tt_mb: 0, ..SearchConfig::default() }, 1).search(g, &mut |_| {});
        assert_eq!((on.best, on.score), (off.best, off.score), "{}", g.position().to_fen());
    }
}

// ---- engine spec and thinking output -------------------------------------------------------------

#[test]
fn engine_spec_and_thinking_lines() {
    for bad in [
        "alphabeta:depth=0",
        "alphabeta:foo=1",
        "alphabeta:time=x",
        "alphabeta:tt=-1",
        "alphabeta:depth=49",
        "alphabeta:tt=65537",
        "alphabeta:time=1e30",
        "alphabeta:nodes=0",
    ] {
        let e =
            AlphaBeta::from_spec(&EngineSpec::parse(bad).unwrap()).err().unwrap_or_else(|| panic!("{bad} accepted"));
        assert!(!e.to_string().contains('\n'), "{e}");
    }
    let spec = EngineSpec::parse("alphabeta:depth=2,tt=1").unwrap();
    let mut e = AlphaBeta::from_spec(&spec).unwrap();
    let g = Game::new(table(), Position::start());
    let mut lines: Vec<Thinking> = Vec::new();
    let m = e.choose(&g, &mut |t| lines.push(t.clone()));
    assert_eq!(lines.iter().map(|l| l.depth).collect::<Vec<_>>(), vec![1, 2]);
    let last = lines.last().unwrap();
    assert_eq!(last.pv.first(), Some(&m));
    assert!(last.nodes > 0 && last.score_cp.abs() < 1000);
    // set_limits replaces the limits.
    e.set_limits(Limits { depth: Some(1), ..Limits::default() });
    lines.clear();
    e.choose(&g, &mut |t| lines.push(t.clone()));
    assert_eq!(lines.len(), 1);
}
