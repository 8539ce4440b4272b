//! The MCTS searcher (`search::mcts`) with fake evaluators: it takes the last royal when it
//! can, avoids hanging its own last royal, concentrates visits on the better move as visits
//! grow, finds the best move with 16 Gumbel visits, reuses trees (same result as a fresh search
//! of the same total visits, no leaked nodes, bounded memory), and is deterministic per seed.

use engine::Game;
use engine::{Color, Kind, Move, MoveTable, Piece, Position, Rules, Square};
use search::mcts::{
    search_many, Driver, EvalRequest, Evaluation, Evaluator, MaterialEvaluator, MctsConfig, MctsPlayer, Search,
    SearchResult, UniformEvaluator,
};
use search::{EngineSpec, Limits, Player, Thinking};
use std::sync::Arc;

use Color::{Black, White};

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

fn game(pos: Position) -> Game {
    Game::new(table(), pos)
}

fn mv(game: &Game, text: &str) -> Move {
    *game.legal_moves().iter().find(|m| m.to_string() == text).unwrap_or_else(|| panic!("{text} is not legal"))
}

/// Whether the side to move in `pos` can take the opponent's last royal at once.
fn can_take_royal(t: &MoveTable, pos: &Position) -> bool {
    let them = pos.side_to_move().other();
    engine::legal_moves(pos, t).into_iter().any(|m| {
        let mut p = *pos;
        p.play(t, m);
        p.royal_count(them) == 0
    })
}

fn cfg(visits: u32, gumbel: Option<usize>) -> MctsConfig {
    MctsConfig { gumbel, batch_per_tree: 1, ..MctsConfig::new(visits) }
}

fn run<E: Evaluator + ?Sized>(cfg: MctsConfig, g: &Game, ev: &mut E) -> SearchResult {
    let mut s = Search::new(cfg, g);
    s.run(ev);
    s.result()
}

fn visits_of(r: &SearchResult, m: Move) -> u32 {
    r.root_moves.iter().find(|x| x.mv == m).map_or(0, |x| x.visits)
}

// ---- the last royal ------------------------------------------------------------------------

/// Black's Rook can take the lone White King; many other moves exist.
fn royal_capture_position() -> Position {
    setup(
        &[
            ("b1", Kind::King, Black),
            ("e5", Kind::Rook, Black),
            ("c2", Kind::Gold, Black),
            ("f3", Kind::Queen, Black),
            ("e12", Kind::King, White),
            ("k12", Kind::Rook, White),
            ("m9", Kind::Gold, White),
        ],
        Black,
    )
}

#[test]
fn takes_the_last_royal_at_any_budget_from_8() {
    let pos = royal_capture_position();
    let g = game(pos);
    for visits in [8, 9, 16, 50, 200] {
        for gumbel in [None, Some(16), Some(4)] {
            for noise in [false, true] {
                for ev in [&mut UniformEvaluator as &mut dyn Evaluator, &mut MaterialEvaluator::new()] {
                    let c = MctsConfig { noise, seed: visits as u64, ..cfg(visits, gumbel) };
                    let r = run(c, &g, ev);
                    let mut p = pos;
                    p.play(g.table(), r.best);
                    // e5e12 or e5e12+ (the Rook enters the promotion zone).
                    assert_eq!(p.royal_count(White), 0, "visits {visits} gumbel {gumbel:?} noise {noise}: {}", r.best);
                    assert_eq!(r.policy_target().find(|x| x.0 == r.best).unwrap().1, 1.0);
                }
            }
        }
    }
}

#[test]
fn takes_the_last_royal_by_burning() {
    // A Fire Demon step next to the White King burns it.
    let pos = setup(
        &[
            ("b1", Kind::King, Black),
            ("h6", Kind::FireDemon, Black),
            ("c3", Kind::Gold, Black),
            ("h10", Kind::King, White),
            ("a16", Kind::Rook, White),
        ],
        Black,
    );
    let g = game(pos);
    for gumbel in [None, Some(16)] {
        let r = run(cfg(8, gumbel), &g, &mut UniformEvaluator);
        let mut p = pos;
        p.play(g.table(), r.best);
        assert_eq!(p.royal_count(White), 0, "{} does not burn the King", r.best);
    }
}

/// Black King h8; taking the White Side Mover on g9 (the capture the material priors like
/// best) puts the King within reach of the White Lion on g11, as do the steps to h9 and i9.
fn hanging_position() -> Position {
    setup(
        &[
            ("h8", Kind::King, Black),
            ("b2", Kind::Gold, Black),
            ("c2", Kind::Silver, Black),
            ("g9", Kind::SideMover, White),
            ("g11", Kind::Lion, White),
            ("o16", Kind::King, White),
        ],
        Black,
    )
}

#[test]
fn avoids_hanging_the_last_royal() {
    let pos = hanging_position();
    let g = game(pos);
    let t = g.table();
    let bait = mv(&g, "h8g9");
    // The setting is as described: the bait hangs the King, and some moves do not.
    let hangs = |m: Move| {
        let mut p = pos;
        p.play(t, m);
        can_take_royal(t, &p)
    };
    assert!(hangs(bait));
    assert!(g.legal_moves().iter().any(|&m| !hangs(m)));
    for visits in [8, 16, 64, 256] {
        for gumbel in [None, Some(16)] {
            for seed in 0..3 {
                let c = MctsConfig { noise: seed > 0, seed, ..cfg(visits, gumbel) };
                let r = run(c, &g, &mut MaterialEvaluator::new());
                assert!(!hangs(r.best), "visits {visits} gumbel {gumbel:?} seed {seed}: {} hangs the King", r.best);
            }
        }
    }
}

// ---- the royal guard (`MctsConfig::royal_guard`) ---------------------------------------------

/// Whether `m` leaves its mover without royals or lets the opponent take the mover's last
/// royal at once (the slow reference: every opponent move is played).
fn loses_royal(t: &MoveTable, pos: &Position, m: Move) -> bool {
    let mover = pos.side_to_move();
    let mut p = *pos;
    p.play(t, m);
    if p.royal_count(mover) == 0 {
        return true;
    }
    p.royal_count(mover.other()) > 0 && pos.royal_count(mover) == 1 && can_take_royal(t, &p)
}

fn guarded(visits: u32, gumbel: Option<usize>) -> MctsConfig {
    MctsConfig { royal_guard: true, ..cfg(visits, gumbel) }
}

#[test]
fn royal_guard_keeps_the_bait_out_of_the_search_and_the_policy_target() {
    let pos = hanging_position();
    let g = game(pos);
    let t = g.table();
    let bait = mv(&g, "h8g9");
    assert!(loses_royal(t, &pos, bait));
    for visits in [1, 2, 8, 64] {
        for gumbel in [None, Some(4), Some(16)] {
            for seed in 0..3 {
                // The material evaluator likes the bait best (it wins a Side Mover).
                let c = MctsConfig { noise: seed > 0, seed, ..guarded(visits, gumbel) };
                let r = run(c, &g, &mut MaterialEvaluator::new());
                let at = |m: Move| r.root_moves.iter().find(|x| x.mv == m).unwrap();
                assert!(!loses_royal(t, &pos, r.best), "visits {visits} gumbel {gumbel:?}: {} hangs", r.best);
                for m in g.legal_moves() {
                    if loses_royal(t, &pos, m) {
                        assert_eq!(at(m).prior, 0.0, "{m}: a losing move keeps a prior");
                        if gumbel == Some(4) {
                            // Fewer considered actions than safe moves: never visited.
                            assert_eq!(at(m).visits, 0, "visits {visits} seed {seed}: {m} visited");
                            assert!(at(m).policy_target < 1e-6, "{m}: target {}", at(m).policy_target);
                        }
                    } else {
                        assert!(at(m).prior > 0.0, "{m}: a safe move lost its prior");
                    }
                }
            }
        }
    }
}

/// Black to move can mate the lone White King on a16: the Rook d1 to d16 checks along the 16th
/// rank while the Rook on c15 holds the 15th.
fn mate_position() -> Position {
    setup(
        &[
            ("h1", Kind::King, Black),
            ("d1", Kind::Rook, Black),
            ("c15", Kind::Rook, Black),
            ("e2", Kind::Gold, Black),
            ("a16", Kind::King, White),
        ],
        Black,
    )
}

#[test]
fn royal_guard_scores_a_mate_as_won_without_a_network_call() {
    let pos = mate_position();
    let g = game(pos);
    let t = g.table();
    // Every White reply to a mating move lets Black take the King.
    let mates = |m: Move| {
        let mut p = pos;
        p.play(t, m);
        p.royal_count(White) == 1 && engine::legal_moves(&p, t).into_iter().all(|r| loses_royal(t, &p, r))
    };
    assert!(mates(mv(&g, "d1d16")));
    assert!(g.legal_moves().iter().any(|&m| !mates(m)));
    // (A Gumbel root must consider the mating moves: with equal priors, all of them.)
    for gumbel in [None, Some(64)] {
        let mut ev = NoMatedLeaf { inner: MaterialEvaluator::new(), mated_asked: 0 };
        let r = run(guarded(200, gumbel), &g, &mut ev);
        assert!(mates(r.best), "gumbel {gumbel:?}: {} does not mate", r.best);
        let best = r.root_moves.iter().find(|x| x.mv == r.best).unwrap();
        assert_eq!(best.q, Some(1.0), "gumbel {gumbel:?}: the mate is not scored as won");
        assert_eq!(best.policy_target, 1.0, "gumbel {gumbel:?}: the policy target is not on the mate");
        assert_eq!(ev.mated_asked, 0, "gumbel {gumbel:?}: a mated position went to the evaluator");
        // Without the guard the evaluator is asked about mated positions.
        let mut plain = NoMatedLeaf { inner: MaterialEvaluator::new(), mated_asked: 0 };
        let _ = run(cfg(200, gumbel), &g, &mut plain);
        assert!(plain.mated_asked > 0, "gumbel {gumbel:?}: the unguarded search never met the mate");
    }
}

/// Counts the requests for positions whose side to move has one royal and only moves that
/// let the opponent take it.
struct NoMatedLeaf {
    inner: MaterialEvaluator,
    mated_asked: usize,
}

impl Evaluator for NoMatedLeaf {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        for r in requests {
            let stm = r.position.side_to_move();
            if r.position.royal_count(stm) == 1 && r.moves.iter().all(|&m| loses_royal(r.table, r.position, m)) {
                self.mated_asked += 1;
            }
        }
        self.inner.evaluate(requests, out)
    }
}

/// Random games from the start position: at every position the guard's priors are zero exactly
/// for the moves that lose the last royal at once (per the slow reference), unless every move
/// does; a guarded search is deterministic per seed and never plays such a move while another
/// exists.
#[test]
fn royal_guard_matches_the_slow_check_over_random_games() {
    use rand::{Rng, SeedableRng};
    let t = table();
    let (mut positions, mut mixed) = (0usize, 0usize);
    for game_seed in 0..12u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(game_seed);
        let mut g = Game::new(t.clone(), Position::start());
        for _ply in 0..60 {
            if g.is_over() {
                break;
            }
            let pos = *g.position();
            let legal = g.legal_moves();
            if can_take_royal(&t, &pos) {
                // The search takes the royal at once, without an evaluation (no priors).
                g.play(legal[rng.gen_range(0..legal.len())]).unwrap();
                continue;
            }
            let losing: Vec<bool> = legal.iter().map(|&m| loses_royal(&t, &pos, m)).collect();
            let c = MctsConfig { seed: game_seed, ..guarded(8, Some(4)) };
            let r = run(c.clone(), &g, &mut UniformEvaluator);
            assert_eq!(r, run(c, &g, &mut UniformEvaluator), "not deterministic");
            let all = losing.iter().all(|&l| l);
            for (m, &l) in legal.iter().zip(&losing) {
                let prior = r.root_moves.iter().find(|x| x.mv == *m).unwrap().prior;
                assert_eq!(prior == 0.0, l && !all, "game {game_seed} ply {}: {m} prior {prior}", g.ply_count());
            }
            if !all {
                assert!(!loses_royal(&t, &pos, r.best), "game {game_seed}: {} loses the royal", r.best);
            }
            positions += 1;
            mixed += (losing.iter().any(|&l| l) && !all) as usize;
            g.play(legal[rng.gen_range(0..legal.len())]).unwrap();
        }
    }
    // The property was exercised: positions where some moves lose the royal and some do not.
    assert!(positions > 300 && mixed > 20, "{positions} positions, {mixed} with losing moves");
}

/// Whether `m` lets the opponent mate in one: a reply takes the mover's last royal, or attacks
/// it (per the slow reference) and leaves no move that keeps it (the slow reference of the
/// mate guard; `m` itself does not take the opponent's last royal).
fn allows_mate(t: &MoveTable, pos: &Position, m: Move) -> bool {
    let us = pos.side_to_move();
    let mut after = *pos;
    after.play(t, m);
    if after.royal_count(us) != 1 || after.royal_count(us.other()) == 0 {
        return after.royal_count(us) == 0;
    }
    engine::legal_moves(&after, t).into_iter().any(|r| {
        let mut p = after;
        p.play(t, r);
        if p.royal_count(us) == 0 {
            return true;
        }
        let mut attacked = p;
        attacked.set_side_to_move(us.other());
        p.royal_count(us.other()) > 0
            && can_take_royal(t, &attacked)
            && engine::legal_moves(&p, t).into_iter().all(|e| loses_royal(t, &p, e))
    })
}

/// The mate guard (`guard=2`) over random games from the start position: at the root the
/// priors are zero exactly for the moves that lose the last royal at once or let the opponent
/// mate in one (per the slow references), unless every move does one or the other (then the
/// royal guard's flags alone), with and without root noise; the move chosen is never such a
/// move while another exists.
#[test]
fn mate_guard_matches_the_slow_reference_over_random_games() {
    use rand::{Rng, SeedableRng};
    let t = table();
    let (mut positions, mut mated, mut budgeted) = (0usize, 0usize, 0usize);
    for game_seed in 0..4u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1000 + game_seed);
        let mut g = Game::new(t.clone(), Position::start());
        for ply in 0..48 {
            if g.is_over() {
                break;
            }
            let pos = *g.position();
            let legal = g.legal_moves();
            if ply % 4 != 3 || can_take_royal(&t, &pos) {
                g.play(legal[rng.gen_range(0..legal.len())]).unwrap();
                continue;
            }
            let losing: Vec<bool> = legal.iter().map(|&m| loses_royal(&t, &pos, m)).collect();
            let mating: Vec<bool> = legal.iter().zip(&losing).map(|(&m, &l)| l || allows_mate(&t, &pos, m)).collect();
            let want: Vec<bool> = if mating.iter().all(|&f| f) {
                if losing.iter().all(|&l| l) {
                    vec![false; legal.len()]
                } else {
                    losing.clone()
                }
            } else {
                mating.clone()
            };
            for (gumbel, noise) in [(Some(4), false), (None, true)] {
                let c = MctsConfig { mate_guard: true, noise, seed: game_seed, ..guarded(8, gumbel) };
                let r = run(c, &g, &mut UniformEvaluator);
                for (m, &w) in legal.iter().zip(&want) {
                    let prior = r.root_moves.iter().find(|x| x.mv == *m).unwrap().prior;
                    assert_eq!(prior == 0.0, w, "game {game_seed} ply {ply} noise {noise}: {m} prior {prior}");
                }
                let i = legal.iter().position(|&m| m == r.best).unwrap();
                assert!(!want[i], "game {game_seed} ply {ply}: {} was taken out", r.best);
            }
            // With a budget of 3 passing moves: only flagged moves lose their prior, and at
            // least 3 moves (or every one that passes) keep theirs.
            let c = MctsConfig { mate_guard: true, mate_guard_moves: 3, seed: game_seed, ..guarded(8, Some(4)) };
            let r = run(c, &g, &mut UniformEvaluator);
            let kept = r.root_moves.iter().filter(|x| x.prior > 0.0).count();
            let passing = want.iter().filter(|&&w| !w).count();
            assert!(kept >= passing.min(3), "game {game_seed} ply {ply}: {kept} moves keep a prior");
            for (m, &w) in legal.iter().zip(&want) {
                let prior = r.root_moves.iter().find(|x| x.mv == *m).unwrap().prior;
                assert!(prior > 0.0 || w, "game {game_seed} ply {ply}: {m} lost its prior with a budget");
            }
            budgeted += r.root_moves.iter().filter(|x| x.prior == 0.0).count();
            positions += 1;
            mated += (mating.iter().zip(&losing).any(|(&m, &l)| m && !l) && !mating.iter().all(|&f| f)) as usize;
            g.play(legal[rng.gen_range(0..legal.len())]).unwrap();
        }
    }
    // Exercised: positions where some move lets the opponent mate in one and another does not.
    assert!(positions > 25 && mated > 10, "{positions} positions, {mated} with mating replies");
    assert!(budgeted > 0, "the budgeted guard took nothing out");
}

// ---- the better of two moves ----------------------------------------------------------------

/// Black's Queen (h8) can take a White Rook (l12) defended by a Gold (l13), or an undefended
/// Silver (d4). The material priors prefer the Rook; the search must learn the recapture.
fn two_captures() -> Position {
    setup(
        &[
            ("b1", Kind::King, Black),
            ("h8", Kind::Queen, Black),
            ("l12", Kind::Rook, White),
            ("l13", Kind::Gold, White),
            ("d4", Kind::Silver, White),
            ("o16", Kind::King, White),
        ],
        Black,
    )
}

#[test]
fn visits_concentrate_on_the_better_move() {
    let g = game(two_captures());
    let good = mv(&g, "h8d4");
    let bad = mv(&g, "h8l12");
    let mut shares = Vec::new();
    for visits in [16, 64, 256, 1024] {
        let r = run(cfg(visits, None), &g, &mut MaterialEvaluator::new());
        let (a, b) = (visits_of(&r, good) as f64, visits_of(&r, bad) as f64);
        shares.push(a / (a + b).max(1.0));
        if visits >= 256 {
            assert_eq!(r.most_visited, good, "visits {visits}");
        }
    }
    eprintln!("share of the better move among the two, 16/64/256/1024 visits: {shares:.3?}");
    assert!(shares.windows(2).all(|w| w[1] >= w[0] - 0.02), "shares {shares:?}");
    assert!(shares[0] < 0.6 && *shares.last().unwrap() > 0.85, "shares {shares:?}");
}

#[test]
fn gumbel_16_visits_finds_the_best_move() {
    // Royal capture, hanging royal, and the defended-Rook trap (4 considered actions: with 16
    // there is one visit each, too few to see a recapture).
    // The trap is tested without Gumbel noise: with it the undefended Silver's capture is not
    // always among the sampled actions (that is what the exploration noise is for). With 16
    // considered actions each gets one visit, too few to see a recapture; from 3 on (the Rook
    // capture comes in two versions, promoting or not) the halving finds it.
    let cases: [(Position, &str, Option<usize>, bool); 6] = [
        (royal_capture_position(), "take", Some(16), true),
        (hanging_position(), "safe", Some(16), true),
        (hanging_position(), "safe", Some(4), true),
        (two_captures(), "h8d4", Some(3), false),
        (two_captures(), "h8d4", Some(4), false),
        (two_captures(), "h8d4", Some(8), false),
    ];
    for (pos, best, gumbel, noisy) in cases {
        let g = game(pos);
        for seed in 0..4 {
            let c = MctsConfig { noise: noisy && seed > 0, seed, ..cfg(16, gumbel) };
            let r = run(c, &g, &mut MaterialEvaluator::new());
            assert!(r.gumbel);
            let mut p = pos;
            p.play(g.table(), r.best);
            if best == "take" {
                assert_eq!(p.royal_count(White), 0, "seed {seed}: {}", r.best);
            } else if best == "safe" {
                assert!(!can_take_royal(g.table(), &p), "seed {seed}: {} hangs", r.best);
            } else {
                assert_eq!(r.best, mv(&g, best), "seed {seed} gumbel {gumbel:?}");
            }
            let sum: f32 = r.policy_target().map(|x| x.1).sum();
            assert!((sum - 1.0).abs() < 1e-3);
        }
    }
}

// ---- tree reuse ------------------------------------------------------------------------------

/// Search `first` visits, play the best move and the most visited reply, then continue the same
/// tree to `total` visits. Returns the final result and whether the tree was reused.
fn reuse_then_continue(c: &MctsConfig, start: &Game, first: u32, total: u32) -> (Game, SearchResult, bool, usize) {
    let mut s = Search::new(MctsConfig { visits: first, ..c.clone() }, start);
    let mut ev = MaterialEvaluator::new();
    s.run(&mut ev);
    let r = s.result();
    // The principal variation's first two moves: their subtree exists.
    assert!(r.pv.len() >= 2, "pv {:?}", r.pv);
    let mut g = start.clone();
    g.play(r.pv[0]).unwrap();
    g.play(r.pv[1]).unwrap();
    let before = s.tree().node_count();
    s.set_visits(total);
    let reused = s.set_game(&g);
    assert!(s.tree().node_count() <= before);
    assert_eq!(s.tree().node_count(), s.tree().reachable_count());
    let kept = s.root_visits();
    s.run(&mut ev);
    (g, s.result(), reused, kept as usize)
}

#[test]
fn tree_reuse_equals_a_fresh_search_exactly_without_noise() {
    // Batch 1, no noise: PUCT is deterministic, and the reused subtree is exactly what a fresh
    // search from that position would have built with its visits.
    let start = game(two_captures());
    let c = cfg(0, None);
    let (g, reused_result, reused, kept) = reuse_then_continue(&c, &start, 300, 400);
    assert!(reused && kept > 0, "nothing reused");
    let fresh = run(MctsConfig { visits: 400, ..c }, &g, &mut MaterialEvaluator::new());
    assert_eq!(reused_result.visits, 400);
    let v = |r: &SearchResult| r.root_moves.iter().map(|x| (x.mv, x.visits)).collect::<Vec<_>>();
    assert_eq!(v(&reused_result), v(&fresh));
    assert_eq!(reused_result.best, fresh.best);
}

/// Total variation distance between the root visit distributions of two results.
fn tv(a: &SearchResult, b: &SearchResult) -> f64 {
    let share = |r: &SearchResult, m: Move| visits_of(r, m) as f64 / r.visits.max(1) as f64;
    a.root_moves.iter().map(|x| (share(a, x.mv) - share(b, x.mv)).abs()).sum::<f64>() / 2.0
}

#[test]
fn tree_reuse_matches_fresh_search_statistically() {
    // With root noise and batches of 4 runs differ; a reused tree must be as close to a fresh
    // search of the same total visits as two fresh searches (other seeds) are to each other.
    let start = game(two_captures());
    let seeds = 12;
    let (mut reuse_fresh, mut fresh_fresh) = (0.0, 0.0);
    for seed in 0..seeds {
        let c = MctsConfig { noise: true, batch_per_tree: 4, seed, ..cfg(0, None) };
        let (g, r, reused, _) = reuse_then_continue(&c, &start, 150, 400);
        assert!(reused);
        assert_eq!(r.visits, 400);
        let fresh = |s: u64| run(MctsConfig { visits: 400, seed: s, ..c.clone() }, &g, &mut MaterialEvaluator::new());
        let (f1, f2) = (fresh(seed + 1000), fresh(seed + 2000));
        reuse_fresh += tv(&r, &f1) / seeds as f64;
        fresh_fresh += tv(&f1, &f2) / seeds as f64;
    }
    eprintln!("mean total variation: reuse vs fresh {reuse_fresh:.3}, fresh vs fresh {fresh_fresh:.3}");
    assert!(reuse_fresh <= 1.25 * fresh_fresh + 0.05, "reuse-fresh {reuse_fresh:.3}, fresh-fresh {fresh_fresh:.3}");
}

#[test]
fn tree_reuse_never_leaks_and_respects_the_node_budget() {
    // A self-play game from the start position with a small node budget: after every move the
    // tree holds only the subtree of the new root, and never more than the budget.
    let t = table();
    let mut g = Game::new(t, Position::start());
    let budget = 400;
    let c = MctsConfig { node_budget: budget, noise: true, batch_per_tree: 8, ..cfg(600, None) };
    let mut s = Search::new(c, &g);
    let mut ev = MaterialEvaluator::new();
    let mut reused_count = 0;
    for _ in 0..12 {
        s.run(&mut ev);
        assert!(s.tree().node_count() <= budget);
        assert_eq!(s.tree().node_count(), s.tree().reachable_count());
        assert!(s.out_of_memory(), "600 visits should not fit in 400 nodes");
        let r = s.result();
        assert!(g.legal_moves().contains(&r.best));
        g.play(r.best).unwrap();
        let before = s.tree().node_count();
        if s.set_game(&g) {
            reused_count += 1;
            assert!(s.tree().node_count() < before, "nothing was freed");
        }
        assert_eq!(s.tree().node_count(), s.tree().reachable_count());
    }
    assert!(reused_count > 6, "reused {reused_count} times");
    // Memory stays at its working size: capacity bounded by the budgets.
    assert!(s.tree().allocated_bytes() <= budget * 2 * search::mcts::NODE_BYTES + (1 << 24) * 16 + (1 << 20));
}

// ---- driver, determinism, player -------------------------------------------------------------

/// Counts calls and positions; answers like the material evaluator.
struct Counting {
    inner: MaterialEvaluator,
    calls: usize,
    positions: usize,
    max_batch: usize,
}

impl Evaluator for Counting {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        self.calls += 1;
        self.positions += requests.len();
        self.max_batch = self.max_batch.max(requests.len());
        for r in requests {
            assert_eq!(engine::legal_moves(r.position, r.table).len(), r.moves.len());
        }
        self.inner.evaluate(requests, out)
    }
}

#[test]
fn many_searches_share_batched_calls_and_match_single_runs() {
    let games: Vec<Game> = [royal_capture_position(), hanging_position(), two_captures(), Position::start()]
        .into_iter()
        .cycle()
        .take(8)
        .map(game)
        .collect();
    let mk = |i: usize, g: &Game| {
        let gumbel = if i.is_multiple_of(2) { None } else { Some(8) };
        Search::new(MctsConfig { seed: i as u64, noise: true, batch_per_tree: 4, ..cfg(64, gumbel) }, g)
    };
    let mut many: Vec<Search> = games.iter().enumerate().map(|(i, g)| mk(i, g)).collect();
    let mut ev = Counting { inner: MaterialEvaluator::new(), calls: 0, positions: 0, max_batch: 0 };
    let stats = search_many(&mut many, &mut ev);
    assert!(ev.max_batch > 8, "batches of {}", ev.max_batch);
    assert!(ev.calls < ev.positions / 4, "{} calls for {} positions", ev.calls, ev.positions);
    assert_eq!(stats.rounds as usize, ev.calls);
    for threads in [1, 2] {
        let mut again: Vec<Search> = games.iter().enumerate().map(|(i, g)| mk(i, g)).collect();
        Driver::new(threads).run(&mut again, &mut MaterialEvaluator::new());
        for (a, b) in many.iter_mut().zip(again.iter_mut()) {
            assert_eq!(a.result(), b.result());
        }
    }
    for (i, g) in games.iter().enumerate() {
        let mut one = mk(i, g);
        one.run(&mut MaterialEvaluator::new());
        assert_eq!(one.result(), many[i].result(), "game {i}");
        assert!(one.is_done());
    }
}

#[test]
fn no_legal_move_loses() {
    // White's King (p16) is walled in by its own Pawns on files o and p, which cannot move
    // (each is blocked by the next, the last stands on White's last rank): after any Black move
    // White has no legal move and loses (RULES.md §9).
    let mut pieces = vec![("a1", Kind::King, Black), ("p16", Kind::King, White)];
    let squares: Vec<String> = (1..=16).map(|r| format!("o{r}")).chain((1..=15).map(|r| format!("p{r}"))).collect();
    for s in &squares {
        pieces.push((s.as_str(), Kind::Pawn, White));
    }
    let pos = setup(&pieces, Black);
    let mut white_to_move = pos;
    white_to_move.set_side_to_move(White);
    assert!(engine::legal_moves(&white_to_move, &table()).is_empty());
    let g = game(pos);
    for gumbel in [None, Some(16)] {
        let r = run(cfg(32, gumbel), &g, &mut MaterialEvaluator::new());
        assert!(r.root_moves.iter().all(|x| x.q.is_none_or(|q| q == 1.0)), "{:?}", r.root_moves);
        assert!(r.root_moves.iter().any(|x| x.q == Some(1.0)));
    }
}

#[test]
fn the_ply_cap_is_a_draw() {
    // One ply before the cap every move draws (the root's own evaluation is 1 visit of 65).
    let mut rules = Rules::standard();
    rules.ply_cap = 1;
    let g = Game::new(Arc::new(MoveTable::new(&rules)), two_captures());
    let r = run(cfg(64, None), &g, &mut MaterialEvaluator::new());
    assert!(r.value.abs() < 0.01 && r.wdl[1] > 0.98, "{:?} {:?}", r.value, r.wdl);
    assert!(r.root_moves.iter().all(|x| x.q.is_none_or(|q| q == 0.0)));
}

#[test]
fn player_reports_thinking_reuses_its_tree_and_obeys_limits() {
    let spec = EngineSpec::parse("mcts:visits=64,seed=3,batch=4").unwrap();
    let mut p = MctsPlayer::from_spec(&spec, MaterialEvaluator::new(), &["checkpoint"]).unwrap();
    assert_eq!(p.name(), "mcts:visits=64,seed=3,batch=4");
    assert!(p.config().gumbel.is_some(), "Gumbel is the default below 100 visits");
    let mut g = Game::new(table(), Position::start());
    let mut lines: Vec<Thinking> = Vec::new();
    let mut reused = 0;
    for _ in 0..6 {
        let m = p.choose(&g, &mut |t| lines.push(t.clone()));
        assert!(g.legal_moves().contains(&m));
        reused += p.search().unwrap().reused() as usize;
        g.play(m).unwrap();
    }
    // It plays both sides: from the second move on the subtree of its own last move is kept.
    assert!(reused >= 4, "reused {reused} times");
    assert!(p.last_result().unwrap().policy_target().map(|x| x.1).sum::<f32>() > 0.99);
    assert!(lines.iter().any(|t| t.depth >= 64 && !t.pv.is_empty() && t.wdl.is_some()));
    // PUCT with a node limit.
    let mut q = MctsPlayer::new(
        MaterialEvaluator::new(),
        MctsConfig::new(200),
        Limits { nodes: Some(150), ..Limits::default() },
    );
    let r = q.think(&g, &mut |_| {});
    assert!(r.visits >= 150 && !r.gumbel);
    // A time limit alone stops a PUCT search.
    let mut q = MctsPlayer::new(
        MaterialEvaluator::new(),
        MctsConfig::new(800),
        Limits { movetime: Some(std::time::Duration::from_millis(100)), ..Limits::default() },
    );
    let t0 = std::time::Instant::now();
    let r = q.think(&g, &mut |_| {});
    assert!(t0.elapsed() < std::time::Duration::from_secs(2) && r.visits > 0);
}

#[test]
fn a_time_limit_stops_a_solved_puct_tree() {
    // Black's lone King is lost whatever it does (both Rooks take it on any square it can
    // reach): once every reply is proven, every simulation ends on a terminal node and no leaf
    // needs the network; with a time limit and no visit limit the search must still stop at the
    // deadline (it used to loop on for 2^32 simulations).
    let g = game(setup(
        &[("a1", Kind::King, Black), ("h1", Kind::Rook, White), ("h2", Kind::Rook, White), ("p16", Kind::King, White)],
        Black,
    ));
    let mut q = MctsPlayer::new(
        MaterialEvaluator::new(),
        MctsConfig { gumbel: None, ..MctsConfig::new(800) },
        Limits { movetime: Some(std::time::Duration::from_millis(50)), ..Limits::default() },
    );
    let t0 = std::time::Instant::now();
    let r = q.think(&g, &mut |_| {});
    assert!(t0.elapsed() < std::time::Duration::from_secs(2), "{:?}", t0.elapsed());
    assert!(g.legal_moves().contains(&r.best));
    assert!(r.visits > 1000 && r.value < -0.9, "{} visits, value {}", r.visits, r.value);
    // Without a deadline, solved trees still get their whole budget (the gather that gives up
    // its turn is called again), on one driver thread and on two.
    for threads in [1, 2] {
        let mut searches: Vec<Search> = (0..8).map(|_| Search::new(cfg(20_000, None), &g)).collect();
        Driver::new(threads).run(&mut searches, &mut MaterialEvaluator::new());
        for s in &mut searches {
            let v = s.result().visits;
            assert!(v >= 20_000, "threads {threads}: {v}");
        }
    }
}

#[test]
fn same_seed_same_search() {
    let g = game(Position::start());
    for gumbel in [None, Some(16)] {
        let c = MctsConfig { noise: true, batch_per_tree: 8, seed: 42, ..cfg(96, gumbel) };
        let a = run(c.clone(), &g, &mut MaterialEvaluator::new());
        let b = run(c.clone(), &g, &mut MaterialEvaluator::new());
        assert_eq!(a, b);
        let d = run(MctsConfig { seed: 43, ..c }, &g, &mut MaterialEvaluator::new());
        assert_ne!(a.root_moves, d.root_moves);
    }
}

// ---- repetition (RULES.md §9) ------------------------------------------------------------------

/// Lone Black King (a1) against White King (p16) and Rook (p14): White is a Rook up.
fn shuffle_game(cycles: usize, extra: &[&str]) -> Game {
    let pos = setup(&[("a1", Kind::King, Black), ("p16", Kind::King, White), ("p14", Kind::Rook, White)], Black);
    let mut g = game(pos);
    for _ in 0..cycles {
        for m in ["a1b1", "p16o16", "b1a1", "o16p16"] {
            let m = mv(&g, m);
            g.play(m).unwrap();
        }
    }
    for m in extra {
        let m = mv(&g, m);
        g.play(m).unwrap();
    }
    g
}

#[test]
fn repetition_verdicts_in_the_tree() {
    // JCSA, a 2nd occurrence: scored as a draw, which the losing side takes.
    let g = shuffle_game(1, &[]);
    let r = run(cfg(200, None), &g, &mut MaterialEvaluator::new());
    let rep = mv(&g, "a1b1");
    assert_eq!(r.best, rep);
    assert_eq!(r.root_moves.iter().find(|x| x.mv == rep).unwrap().q, Some(0.0));
    // JCSA, a 4th occurrence: the exact verdict of `engine::game` (a draw here: nobody
    // checks or attacks), which the winning side avoids.
    let g = shuffle_game(2, &["a1b1", "p16o16", "b1a1"]);
    let rep = mv(&g, "o16p16");
    let r = run(cfg(200, None), &g, &mut MaterialEvaluator::new());
    assert_ne!(r.best, rep);
    if let Some(q) = r.root_moves.iter().find(|x| x.mv == rep).unwrap().q {
        assert_eq!(q, 0.0);
    }
    let mut check = g.clone();
    check.play(rep).unwrap();
    assert!(check.is_over(), "the 4th occurrence ends the game");
    // HaChu's rule (repeating is illegal): searches run and return legal moves.
    let t = Arc::new(MoveTable::new(&Rules::hachu()));
    let mut g = Game::new(t, Position::start());
    for _ in 0..4 {
        let r = run(cfg(64, None), &g, &mut MaterialEvaluator::new());
        g.play(r.best).unwrap();
    }
}

// ---- the capture floor ---------------------------------------------------------------------

/// Priors all on one move (`b1a1`, a King step), value 0: a network that has not learned
/// what a hanging piece is worth.
struct OneMove;

impl Evaluator for OneMove {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        for (r, o) in requests.iter().zip(out.iter_mut()) {
            o.priors = r.moves.iter().map(|m| if m.to_string() == "b1a1" { 1.0 } else { 0.0 }).collect();
            o.value = 0.0;
            o.draw = 0.0;
        }
    }
}

fn prior_of(r: &SearchResult, m: Move) -> f32 {
    r.root_moves.iter().find(|x| x.mv == m).map_or(f32::NAN, |x| x.prior)
}

#[test]
fn capture_floor_gives_the_captures_their_share_by_material() {
    // Two captures for Black: the Silver on d4 (300 cp) and the Rook on l12 (600 cp).
    let g = game(two_captures());
    let (silver, rook, king) = (mv(&g, "h8d4"), mv(&g, "h8l12"), mv(&g, "b1a1"));
    for guard in [false, true] {
        let off = run(MctsConfig { royal_guard: guard, ..cfg(64, None) }, &g, &mut OneMove);
        assert!(prior_of(&off, silver) < 1e-3 && prior_of(&off, rook) < 1e-3, "guard {guard}: no floor, no share");
        let c = MctsConfig { capture_prior: 0.3, royal_guard: guard, ..cfg(64, None) };
        let on = run(c, &g, &mut OneMove);
        // f16 priors: compare within a few thousandths.
        let close = |a: f32, b: f32| (a - b).abs() < 4e-3;
        // Three capturing moves: h8d4 (300 cp), h8l12 and h8l12+ (600 cp each, the Rook with
        // or without promotion): 0.3 of the mass split 300 : 600 : 600.
        let rook_promo = mv(&g, "h8l12+");
        assert!(close(prior_of(&on, silver), 0.06), "guard {guard}: silver {}", prior_of(&on, silver));
        assert!(close(prior_of(&on, rook), 0.12), "guard {guard}: rook {}", prior_of(&on, rook));
        assert!(close(prior_of(&on, rook_promo), 0.12), "guard {guard}: rook+ {}", prior_of(&on, rook_promo));
        assert!(close(prior_of(&on, king), 0.7), "guard {guard}: king step {}", prior_of(&on, king));
        let quiet: f32 =
            on.root_moves.iter().filter(|x| ![silver, rook, rook_promo, king].contains(&x.mv)).map(|x| x.prior).sum();
        assert!(quiet < 1e-3, "guard {guard}: the quiet moves keep their (zero) prior, got {quiet}");
        // The search now looks at the captures; without the floor it never does.
        assert_eq!(visits_of(&off, silver) + visits_of(&off, rook), 0, "guard {guard}");
        assert!(visits_of(&on, silver) > 0 && visits_of(&on, rook) > 0, "guard {guard}");
    }
    // No capture on the board: the priors are the network's.
    let quiet_pos =
        game(setup(&[("b1", Kind::King, Black), ("h8", Kind::Queen, Black), ("o16", Kind::King, White)], Black));
    let r = run(MctsConfig { capture_prior: 0.3, ..cfg(8, None) }, &quiet_pos, &mut OneMove);
    assert!((prior_of(&r, mv(&quiet_pos, "b1a1")) - 1.0).abs() < 1e-3);
}

#[test]
fn capture_floor_spec_key_is_checked() {
    let spec = EngineSpec::parse("mcts:visits=16,captures=0.25").unwrap();
    let p = MctsPlayer::from_spec(&spec, UniformEvaluator, &[]).unwrap();
    assert_eq!(p.config().capture_prior, 0.25);
    for bad in ["mcts:captures=1.5", "mcts:captures=-0.1", "mcts:captures=x"] {
        let err = MctsPlayer::from_spec(&EngineSpec::parse(bad).unwrap(), UniformEvaluator, &[])
            .err()
            .unwrap_or_else(|| panic!("{bad} accepted"));
        assert!(err.to_string().contains("captures"), "{bad}: {err}");
    }
}

#[test]
fn capture_floor_counts_a_fire_demons_burns() {
    // Black's Fire Demon (h8) captures nothing on a square of its own, but several of its moves
    // end next to the White Gold (l10) and burn it: those get the floor's share, by what they
    // remove (checked against the material balance before and after each move).
    let pos = setup(
        &[
            ("b1", Kind::King, Black),
            ("h8", Kind::FireDemon, Black),
            ("l10", Kind::Gold, White),
            ("e16", Kind::King, White),
        ],
        Black,
    );
    let g = game(pos);
    let t = table();
    let removed = |m: Move| {
        let mut after = pos;
        after.play(&t, m);
        search::values::material_balance(&after) - search::values::material_balance(&pos)
    };
    let r = run(MctsConfig { capture_prior: 0.3, ..cfg(64, None) }, &g, &mut OneMove);
    assert!(r.root_moves.iter().all(|x| removed(x.mv) >= 0), "Black's moves remove White material only");
    let takers: Vec<_> = r.root_moves.iter().filter(|x| removed(x.mv) != 0).collect();
    assert!(!takers.is_empty(), "some Fire Demon move burns the Gold");
    assert!(
        takers.iter().any(|x| x.mv.to() != Some(sq("l10")) && x.mv.via().all(|v| v != sq("l10"))),
        "a burn, not a capture on the Gold's square"
    );
    let share: f32 = takers.iter().map(|x| x.prior).sum();
    assert!((share - 0.3).abs() < 5e-3, "the moves that remove material share 0.3, got {share}");
    for x in &r.root_moves {
        if removed(x.mv) == 0 && x.mv != mv(&g, "b1a1") {
            assert!(x.prior < 1e-3, "{} removes nothing but has prior {}", x.mv, x.prior);
        }
    }
}
