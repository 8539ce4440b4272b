//! Input planes and policy index (nn::encoding, nn::policy): hand-built positions give the
//! expected planes, colour-mirrored twins encode identically, and the policy index is a
//! bijection on the legal moves of a large random-position corpus (standard, HaChu and house
//! rules, both colours).

use engine::generate;
use engine::Game;
use engine::{Color, Kind, Move, MoveList, MoveTable, Piece, Position, Rules, Square};
use nn::encoding::*;
use nn::policy::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use Color::{Black, White};

fn sq(s: &str) -> Square {
    Square::parse_cecp(s).unwrap()
}

fn setup(pieces: &[(&str, Piece)], stm: Color) -> Position {
    let mut pos = Position::empty();
    for &(s, p) in pieces {
        pos.put(sq(s), p);
    }
    for (c, ks) in [(Black, "b1"), (White, "o16")] {
        if !pieces.iter().any(|(_, p)| p.color() == c && p.kind().is_royal()) {
            pos.put(sq(ks), Piece::of_kind(Kind::King, c));
        }
    }
    pos.set_side_to_move(stm);
    pos
}

fn enc(pos: &Position, t: &MoveTable, hist: HistoryFeatures) -> Vec<f32> {
    let mut out = vec![0.0; INPUT_SIZE];
    encode(pos, t, &hist, &mut out);
    out
}

fn plane(v: &[f32], p: usize) -> &[f32] {
    &v[p * 256..(p + 1) * 256]
}

/// Frame squares where the plane is non-zero.
fn set_squares(v: &[f32], p: usize) -> Vec<usize> {
    plane(v, p).iter().enumerate().filter(|(_, &x)| x != 0.0).map(|(i, _)| i).collect()
}

fn std_table() -> MoveTable {
    MoveTable::new(&Rules::standard())
}

// ------------------------------------------------------------------------------------------
// Hand-built positions
// ------------------------------------------------------------------------------------------

#[test]
fn layout_constants_are_consistent() {
    assert_eq!(NUM_PLANES, 121);
    assert_eq!(V1_PLANES, 115);
    assert_eq!(INPUT_SIZE, NUM_PLANES * 256);
    assert_eq!(ENCODING_VERSION, 2);
    assert_eq!(NUM_MOVE_PLANES, 673);
    assert_eq!(POLICY_SIZE, 673 * 256 + 1);
    assert_eq!(NULL_PASS_INDEX, POLICY_SIZE - 1);
    for p in 0..NUM_PLANES {
        assert_ne!(plane_name(p), "out of range", "{p}");
    }
    assert_eq!(plane_name(13), "own Lion");
    assert_eq!(plane_name(44 + 43), "opponent HeavenlyTetrarch");
}

/// Planes 115..121: what each side's moves capture (and whether the capturer is worth less
/// than its victim) and which squares they reach. Black Rook e4 takes the White Pawn e5 and
/// the White Gold h4 (not the squares behind them); the Black Pawn h3 takes the Gold, a
/// cheaper capture; the Black King b1 takes the White Silver c2. The White Pawn e5 takes the
/// Rook (cheaper), the Gold takes the Pawn h3, and the Silver takes the King (a royal victim
/// always counts as cheaper).
#[test]
fn attack_planes_mark_capturable_pieces_and_reach() {
    let t = std_table();
    let pos = setup(
        &[
            ("e4", Piece::of_kind(Kind::Rook, Black)),
            ("h3", Piece::of_kind(Kind::Pawn, Black)),
            ("e5", Piece::of_kind(Kind::Pawn, White)),
            ("h4", Piece::of_kind(Kind::Gold, White)),
            ("c2", Piece::of_kind(Kind::Silver, White)),
        ],
        Black,
    );
    let v = enc(&pos, &t, HistoryFeatures::default());
    let idx = |names: &[&str]| {
        let mut v: Vec<usize> = names.iter().map(|s| sq(s).index()).collect();
        v.sort();
        v
    };
    assert_eq!(set_squares(&v, PLANE_OPP_ATTACKED), idx(&["e5", "h4", "c2"]));
    assert_eq!(set_squares(&v, PLANE_OPP_ATTACKED_CHEAPER), idx(&["h4"]));
    assert_eq!(set_squares(&v, PLANE_OWN_ATTACKED), idx(&["e4", "h3", "b1"]));
    assert_eq!(set_squares(&v, PLANE_OWN_ATTACKED_CHEAPER), idx(&["e4", "b1"]));
    let own_reach = set_squares(&v, PLANE_OWN_REACH);
    for s in ["e5", "f4", "g4", "h4", "a4", "e1", "c2", "h4"] {
        assert!(own_reach.contains(&sq(s).index()), "own reach misses {s}");
    }
    for s in ["e6", "i4", "h5"] {
        assert!(!own_reach.contains(&sq(s).index()), "own reach has {s}");
    }
    let opp_reach = set_squares(&v, PLANE_OPP_REACH);
    for s in ["e4", "h3", "b1", "g3"] {
        assert!(opp_reach.contains(&sq(s).index()), "opponent reach misses {s}");
    }
    // White to move: the same facts from White's side, in White's frame.
    let mut w = pos.clone();
    w.set_side_to_move(White);
    let v = enc(&w, &t, HistoryFeatures::default());
    let rot = |names: &[&str]| {
        let mut v: Vec<usize> = names.iter().map(|s| 255 - sq(s).index()).collect();
        v.sort();
        v
    };
    assert_eq!(set_squares(&v, PLANE_OWN_ATTACKED), rot(&["e5", "h4", "c2"]));
    assert_eq!(set_squares(&v, PLANE_OPP_ATTACKED_CHEAPER), rot(&["e4", "b1"]));
}

#[test]
fn black_lion_is_on_the_own_lion_plane() {
    let t = std_table();
    let pos = setup(&[("h8", Piece::of_kind(Kind::Lion, Black))], Black);
    let v = enc(&pos, &t, HistoryFeatures::default());
    let h8 = sq("h8").index();
    assert_eq!(h8, 7 * 16 + 7);
    assert_eq!(set_squares(&v, PLANE_OWN_PIECES + Kind::Lion as usize), vec![h8]);
    assert_eq!(set_squares(&v, PLANE_OWN_PIECES + Kind::King as usize), vec![sq("b1").index()]);
    // The White King is an opponent piece, seen from Black: not rotated.
    assert_eq!(set_squares(&v, PLANE_OPP_PIECES + Kind::King as usize), vec![sq("o16").index()]);
    // Only those three piece squares anywhere in the piece planes.
    let n: usize = (0..2 * 44).map(|p| set_squares(&v, p).len()).sum();
    assert_eq!(n, 3);
    assert!(set_squares(&v, PLANE_OWN_PROMOTED).is_empty());
    assert!(set_squares(&v, PLANE_OPP_PROMOTED).is_empty());
}

#[test]
fn white_to_move_sees_the_board_turned_and_colours_swapped() {
    let t = std_table();
    let pos = setup(&[("c3", Piece::of_kind(Kind::Lion, White)), ("d4", Piece::of_kind(Kind::Pawn, Black))], White);
    let v = enc(&pos, &t, HistoryFeatures::default());
    // White's Lion is "own", on the rotated square n14 (index 255 - c3).
    assert_eq!(set_squares(&v, PLANE_OWN_PIECES + Kind::Lion as usize), vec![sq("n14").index()]);
    assert_eq!(set_squares(&v, PLANE_OWN_PIECES + Kind::Lion as usize), vec![255 - sq("c3").index()]);
    assert_eq!(set_squares(&v, PLANE_OPP_PIECES + Kind::Pawn as usize), vec![sq("m13").index()]);
    assert_eq!(set_squares(&v, PLANE_OWN_PIECES + Kind::King as usize), vec![sq("b1").index()]);
    assert_eq!(set_squares(&v, PLANE_OPP_PIECES + Kind::King as usize), vec![sq("o16").index()]);
}

#[test]
fn promoted_pieces_have_their_movement_type_and_the_promoted_plane() {
    let t = std_table();
    let pos = setup(
        &[
            ("e5", Piece::new(Kind::Pawn, true, Black)), // +P: moves as Gold, cannot promote
            ("f5", Piece::new(Kind::Gold, false, Black)), // original Gold: may promote
            ("g5", Piece::new(Kind::ChariotSoldier, true, Black)), // Heavenly Tetrarch
            ("h12", Piece::new(Kind::Rook, true, White)), // +R: Dragon King
            ("i12", Piece::new(Kind::DrunkElephant, true, White)), // Prince
        ],
        Black,
    );
    let v = enc(&pos, &t, HistoryFeatures::default());
    let gold = set_squares(&v, PLANE_OWN_PIECES + Kind::Gold as usize);
    assert_eq!(gold, vec![sq("e5").index(), sq("f5").index()]);
    assert_eq!(set_squares(&v, PLANE_OWN_PIECES + Kind::HeavenlyTetrarch as usize), vec![sq("g5").index()]);
    assert_eq!(set_squares(&v, PLANE_OWN_PROMOTED), vec![sq("e5").index(), sq("g5").index()]);
    assert_eq!(set_squares(&v, PLANE_OPP_PIECES + Kind::DragonKing as usize), vec![sq("h12").index()]);
    assert_eq!(set_squares(&v, PLANE_OPP_PIECES + Kind::Prince as usize), vec![sq("i12").index()]);
    assert_eq!(set_squares(&v, PLANE_OPP_PROMOTED), vec![sq("h12").index(), sq("i12").index()]);
    assert!(set_squares(&v, PLANE_OWN_PIECES + Kind::Pawn as usize).is_empty());
}

#[test]
fn fire_demon_burn_zones_mark_the_eight_neighbours() {
    let t = std_table();
    let pos =
        setup(&[("h8", Piece::of_kind(Kind::FireDemon, White)), ("a1", Piece::of_kind(Kind::FireDemon, Black))], Black);
    let v = enc(&pos, &t, HistoryFeatures::default());
    // Enemy Fire Demon on h8: the 8 squares where a Black piece would burn.
    let mut expected: Vec<usize> =
        ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"].iter().map(|s| sq(s).index()).collect();
    expected.sort();
    assert_eq!(set_squares(&v, PLANE_OPP_BURN_ZONE), expected);
    // Own Fire Demon in the corner: 3 neighbours on the board.
    let mut corner: Vec<usize> = ["a2", "b1", "b2"].iter().map(|s| sq(s).index()).collect();
    corner.sort();
    assert_eq!(set_squares(&v, PLANE_OWN_BURN_ZONE), corner);
    // The same position with White to move: the zones swap roles and turn 180°.
    let mut w = pos;
    w.set_side_to_move(White);
    let v = enc(&w, &t, HistoryFeatures::default());
    let rot = |l: &[usize]| {
        let mut r: Vec<usize> = l.iter().map(|&i| 255 - i).collect();
        r.sort();
        r
    };
    assert_eq!(set_squares(&v, PLANE_OWN_BURN_ZONE), rot(&expected));
    assert_eq!(set_squares(&v, PLANE_OPP_BURN_ZONE), rot(&corner));
    // Two adjacent enemy Fire Demons: the union of their zones (12 squares).
    let pos =
        setup(&[("h8", Piece::of_kind(Kind::FireDemon, White)), ("i8", Piece::of_kind(Kind::FireDemon, White))], Black);
    let v = enc(&pos, &t, HistoryFeatures::default());
    assert_eq!(set_squares(&v, PLANE_OPP_BURN_ZONE).len(), 12);
    assert!(plane(&v, PLANE_OPP_BURN_ZONE).iter().all(|&x| x == 0.0 || x == 1.0));
}

#[test]
fn promotion_zones_ones_and_rule_planes() {
    let t = std_table();
    for stm in [Black, White] {
        let v = enc(&Position::start().with_side(stm), &t, HistoryFeatures::default());
        let own: Vec<usize> = (11 * 16..256).collect();
        let opp: Vec<usize> = (0..5 * 16).collect();
        assert_eq!(set_squares(&v, PLANE_OWN_PROMOTION_ZONE), own);
        assert_eq!(set_squares(&v, PLANE_OPP_PROMOTION_ZONE), opp);
        assert!(plane(&v, PLANE_ONES).iter().all(|&x| x == 1.0));
        for k in 0..NUM_RULE_PLANES {
            assert!(plane(&v, PLANE_RULES + k).iter().all(|&x| x == 0.0), "standard rule plane {k}");
        }
        for p in PLANE_REPETITION..=PLANE_PLY {
            assert!(plane(&v, p).iter().all(|&x| x == 0.0));
        }
    }
    let on = |r: &Rules| -> Vec<usize> {
        let t = MoveTable::new(r);
        let v = enc(&Position::start(), &t, HistoryFeatures::default());
        (0..NUM_RULE_PLANES)
            .filter(|&k| {
                let p = plane(&v, PLANE_RULES + k);
                assert!(p.iter().all(|&x| x == p[0]), "rule plane {k} is constant");
                p[0] == 1.0
            })
            .collect()
    };
    assert_eq!(on(&Rules::hachu()), vec![0, 1, 3, 6, 7, 10, 11, 14, 15]);
    assert_eq!(on(&Rules::house()), vec![2, 4, 5, 7, 8, 9, 10, 11]);
    assert_eq!(on(&Rules::standard()), Vec::<usize>::new());
}

trait WithSide {
    fn with_side(self, c: Color) -> Position;
}
impl WithSide for Position {
    fn with_side(mut self, c: Color) -> Position {
        self.set_side_to_move(c);
        self
    }
}

#[test]
fn start_position_piece_planes_match_the_setup() {
    let t = std_table();
    let v = enc(&Position::start(), &t, HistoryFeatures::default());
    // Pieces per type per side (RULES.md §2 counts), on ranks 1..6 (own) and 11..16 (opponent).
    for k in Kind::ALL {
        let own = set_squares(&v, PLANE_OWN_PIECES + k as usize);
        let opp = set_squares(&v, PLANE_OPP_PIECES + k as usize);
        assert_eq!(own.len(), k.info().count as usize, "{k:?}");
        assert_eq!(opp.len(), k.info().count as usize, "{k:?}");
        assert!(own.iter().all(|&i| i < 6 * 16));
        assert!(opp.iter().all(|&i| i >= 10 * 16));
    }
    // The opponent's Fire Demons on rank 14 burn nothing of ours yet; the zone squares exist.
    assert_eq!(set_squares(&v, PLANE_OPP_BURN_ZONE).len(), 16);
    // Black's King on h1 and White's on i16.
    assert_eq!(set_squares(&v, PLANE_OWN_PIECES), vec![sq("h1").index()]);
    assert_eq!(set_squares(&v, PLANE_OPP_PIECES), vec![sq("i16").index()]);
}

#[test]
fn repetition_and_ply_planes_come_from_the_game() {
    let rules = Rules::standard();
    let cap = rules.ply_cap as f32;
    let t = Arc::new(MoveTable::new(&rules));
    let start = setup(&[], Black);
    let mut g = Game::new(t, start);
    let mut out = vec![0.0; INPUT_SIZE];
    let shuffle = ["b1c1", "o16n16", "c1b1", "n16o16"];
    let mut ply = 0;
    for round in 0..3 {
        for m in shuffle {
            let mv = engine::notation::parse_cecp(g.position(), g.table(), m).unwrap();
            g.play(mv).unwrap();
            ply += 1;
        }
        // Back at the start position with Black to move: round + 1 earlier occurrences.
        assert_eq!(g.repetitions(), round + 1);
        encode_game(&g, &mut out);
        for k in 0..3 {
            let want = if k <= round { 1.0 } else { 0.0 };
            assert!(plane(&out, PLANE_REPETITION + k).iter().all(|&x| x == want), "round {round} plane {k}");
        }
        let p = plane(&out, PLANE_PLY);
        assert!(p.iter().all(|&x| x == ply as f32 / cap), "ply plane {} vs {}", p[0], ply as f32 / cap);
    }
    // The fourth occurrence ended the game (draw), but the final position still encodes.
    assert!(g.is_over());
    // White to move after 1 + 4 plies: the position after b1c1 occurred once before.
    let mut g = Game::new(Arc::new(MoveTable::new(&rules)), start);
    for m in ["b1c1", "o16n16", "c1b1", "n16o16", "b1c1"] {
        let mv = engine::notation::parse_cecp(g.position(), g.table(), m).unwrap();
        g.play(mv).unwrap();
    }
    encode_game(&g, &mut out);
    assert_eq!(g.repetitions(), 1);
    assert!(plane(&out, PLANE_REPETITION).iter().all(|&x| x == 1.0));
    assert!(plane(&out, PLANE_REPETITION + 1).iter().all(|&x| x == 0.0));
    assert!(plane(&out, PLANE_PLY).iter().all(|&x| x == 5.0 / cap));
    // White to move now: its King is "own" and rotated.
    assert_eq!(set_squares(&out, PLANE_OWN_PIECES), vec![255 - sq("o16").index()]);
    assert_eq!(set_squares(&out, PLANE_OPP_PIECES), vec![255 - sq("c1").index()]);
    // The ply plane saturates at 1.0 and is 0 without a cap.
    let pos = setup(&[], Black);
    let v = enc(&pos, &std_table(), HistoryFeatures { repetitions: 7, ply: 5000 });
    assert!(plane(&v, PLANE_PLY).iter().all(|&x| x == 1.0));
    assert!((0..3).all(|k| plane(&v, PLANE_REPETITION + k).iter().all(|&x| x == 1.0)));
    let nocap = MoveTable::new(&Rules { ply_cap: 0, ..Rules::standard() });
    let v = enc(&pos, &nocap, HistoryFeatures { repetitions: 0, ply: 500 });
    assert!(plane(&v, PLANE_PLY).iter().all(|&x| x == 0.0));
}

#[test]
fn encode_overwrites_a_dirty_buffer() {
    let t = std_table();
    let mut out = vec![7.0; INPUT_SIZE];
    encode(&Position::start(), &t, &HistoryFeatures::default(), &mut out);
    assert_eq!(out, enc(&Position::start(), &t, HistoryFeatures::default()));
    assert!(out.iter().all(|&x| (0.0..=1.0).contains(&x)));
}

// ------------------------------------------------------------------------------------------
// Random-position corpus
// ------------------------------------------------------------------------------------------

/// Positions from seeded random games (every ply, restarting when a royal is lost) plus
/// random placements of random pieces (every type, promoted or not, either side to move).
fn corpus(rules: &Rules, seed: u64, games: usize, max_plies: usize, placements: usize) -> Vec<Position> {
    let t = MoveTable::new(rules);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut list = MoveList::new();
    for _ in 0..games {
        let mut pos = Position::start();
        for _ in 0..max_plies {
            generate(&pos, &t, &mut list);
            if list.is_empty() {
                break;
            }
            out.push(pos);
            let m = list.as_slice()[rng.gen_range(0..list.len())];
            pos.play(&t, m);
        }
    }
    let all: Vec<Piece> = Piece::all().collect();
    for _ in 0..placements {
        let mut pos = Position::empty();
        let n = rng.gen_range(4..90);
        for _ in 0..n {
            let s = Square::from_index(rng.gen_range(0..256));
            pos.put(s, all[rng.gen_range(0..all.len())]);
        }
        for c in [Black, White] {
            if pos.royal_count(c) == 0 {
                let s = Square::from_index(rng.gen_range(0..256));
                pos.put(s, Piece::of_kind(Kind::King, c));
            }
        }
        if pos.royal_count(Black) == 0 || pos.royal_count(White) == 0 {
            continue;
        }
        pos.set_side_to_move(if rng.gen_bool(0.5) { Black } else { White });
        out.push(pos);
    }
    out
}

fn presets() -> [(&'static str, Rules); 3] {
    [("standard", Rules::standard()), ("hachu", Rules::hachu()), ("house", Rules::house())]
}

#[test]
fn mirrored_twins_encode_identically_and_share_policy_indices() {
    for (name, rules) in presets() {
        let t = MoveTable::new(&rules);
        let mut a = vec![0.0; INPUT_SIZE];
        let mut b = vec![0.0; INPUT_SIZE];
        let mut la = MoveList::new();
        let mut lb = MoveList::new();
        let (mut ia, mut ib) = (Vec::new(), Vec::new());
        let positions = corpus(&rules, 11, 6, 250, 300);
        let mut n = 0;
        for (k, pos) in positions.iter().enumerate() {
            let twin = pos.mirrored();
            assert_ne!(pos.side_to_move(), twin.side_to_move());
            let hist = HistoryFeatures { repetitions: (k % 5) as u32, ply: k as u32 % 1200 };
            encode(pos, &t, &hist, &mut a);
            encode(&twin, &t, &hist, &mut b);
            assert!(a == b, "{name}: position {k} and its mirror encode differently: {pos:?}");
            generate(pos, &t, &mut la);
            generate(&twin, &t, &mut lb);
            assert_eq!(la.len(), lb.len());
            legal_indices(la.as_slice(), pos.side_to_move(), &mut ia);
            legal_indices(lb.as_slice(), twin.side_to_move(), &mut ib);
            let sa: HashSet<usize> = ia.iter().copied().filter(|&i| i != NO_INDEX).collect();
            let sb: HashSet<usize> = ib.iter().copied().filter(|&i| i != NO_INDEX).collect();
            assert!(sa == sb, "{name}: position {k}: mirrored twin has other policy indices");
            n += 1;
        }
        assert!(n > 1500, "{name}: only {n} positions");
    }
}

#[test]
fn policy_index_is_a_bijection_on_legal_moves_of_random_positions() {
    let mut totals = Vec::new();
    for (name, rules) in presets() {
        let t = MoveTable::new(&rules);
        let positions = corpus(&rules, 2024, 12, 300, 1500);
        let mut list = MoveList::new();
        let mut idx = Vec::new();
        let (mut moves, mut missing, mut per_side, mut house_planes) = (0usize, 0usize, [0usize; 2], 0usize);
        let mut seen = HashSet::new();
        for pos in &positions {
            let side = pos.side_to_move();
            generate(pos, &t, &mut list);
            let miss = legal_indices(list.as_slice(), side, &mut idx);
            assert_eq!(idx.len(), list.len());
            seen.clear();
            for (&m, &i) in list.iter().zip(&idx) {
                if i == NO_INDEX {
                    // Only the house rules' three-leg area moves are outside the index.
                    assert_eq!(name, "house", "{m} has no index in {pos:?}");
                    assert_eq!(m.via_count(), 2, "{m} has no index in {pos:?}");
                    assert_eq!(move_index(m, side), None);
                    continue;
                }
                assert!(i < POLICY_SIZE);
                assert!(seen.insert(i), "{name}: two legal moves share index {i} ({m}) in {pos:?}");
                assert_eq!(index_to_move(i, side), Some(m), "{name}: index {i} of {m} decodes wrongly");
                assert_eq!(legal_move_for_index(i, list.as_slice(), side), Some(m));
                if i != NULL_PASS_INDEX && i % NUM_MOVE_PLANES >= PLANE_AREA_NEAR {
                    house_planes += 1;
                }
                moves += 1;
            }
            if name != "house" {
                assert_eq!(miss, 0);
            }
            missing += miss;
            per_side[side.index()] += 1;
        }
        assert!(per_side[0] > 1000 && per_side[1] > 1000, "{name}: {per_side:?}");
        if name == "house" {
            assert!(house_planes > 0, "the house corpus never used the house area planes");
        } else {
            assert_eq!(house_planes, 0);
        }
        totals.push(format!(
            "{name}: {} positions, {moves} indexed moves, {house_planes} on house area planes, {missing} unindexed",
            positions.len()
        ));
    }
    eprintln!("{}", totals.join("\n"));
}

/// The non-preset values of the move-changing flags (§15) are covered too: every legal move
/// indexed, no two sharing an index, each decoding back.
#[test]
fn policy_index_covers_the_other_rule_flags() {
    use engine::rules::*;
    let s = Rules::standard;
    let variants = [
        Rules { free_eagle: FreeEagle::AnySecondStep, ..s() },
        Rules { free_eagle: FreeEagle::QueenDabbaba, ..s() },
        Rules { free_eagle: FreeEagle::QueenRangeJump, ..s() },
        Rules { free_eagle: FreeEagle::FerzTwice, ..s() },
        Rules { lion_hawk: LionHawk::BishopArea2, ht_can_pass: true, ..s() },
        Rules { heavenly_tetrarch: HeavenlyTetrarch::NoSideways, last_rank_rule: LastRankRule::SecondChance, ..s() },
        Rules { heavenly_tetrarch: HeavenlyTetrarch::NoOrthogonal, last_rank_rule: LastRankRule::None, ..s() },
        Rules { heavenly_tetrarch: HeavenlyTetrarch::NoIgui, fd_vs_fd: FdVsFd::MoverBurnsOthers, ..s() },
        Rules { jump_capture_targets: JumpCapture::NoRoyals, jump_on_noncapture: true, ..s() },
        Rules { jump_capture_targets: JumpCapture::LowerOnlyEvenDirect, fire_demon_area: AreaMove::None, ..s() },
    ];
    let mut list = MoveList::new();
    let mut idx = Vec::new();
    let mut seen = HashSet::new();
    for (k, rules) in variants.iter().enumerate() {
        let t = MoveTable::new(rules);
        for pos in corpus(rules, 500 + k as u64, 2, 200, 400) {
            let side = pos.side_to_move();
            generate(&pos, &t, &mut list);
            assert_eq!(legal_indices(list.as_slice(), side, &mut idx), 0, "variant {k}: {pos:?}");
            seen.clear();
            for (&m, &i) in list.iter().zip(&idx) {
                assert!(seen.insert(i), "variant {k}: index {i} shared ({m}) in {pos:?}");
                assert_eq!(index_to_move(i, side), Some(m));
            }
        }
    }
}

#[test]
fn every_index_decodes_to_a_move_that_indexes_back() {
    for side in [Black, White] {
        let mut decoded = 0;
        let mut froms: HashMap<usize, usize> = HashMap::new();
        for i in 0..POLICY_SIZE {
            if let Some(m) = index_to_move(i, side) {
                assert_eq!(move_index(m, side), Some(i), "{side:?} index {i} -> {m}");
                decoded += 1;
                if let Some(f) = m.from() {
                    *froms.entry(frame_square(f, side)).or_default() += 1;
                }
            }
        }
        // Every square is an origin of some index; the centre squares of most planes.
        assert_eq!(froms.len(), 256);
        assert!(decoded > POLICY_SIZE / 2, "{decoded}");
        assert_eq!(index_to_move(POLICY_SIZE, side), None);
    }
}

#[test]
fn hand_checked_policy_indices() {
    let t = std_table();
    // Black pawn a5-a6 and White pawn p12-p11 are the same pattern: plane 0 (N, distance 1)
    // from frame square a5 (frame index 64).
    let bp = Move::new(sq("a5"), sq("a6"), false);
    let wp = Move::new(sq("p12"), sq("p11"), false);
    assert_eq!(move_index(bp, Black), Some(64 * NUM_MOVE_PLANES));
    assert_eq!(move_index(wp, White), Some(64 * NUM_MOVE_PLANES));
    // Range-jump capture GG h4 x h12: N distance 8 (plane 7) from h4 (index 55).
    let gg = Move::new(sq("h4"), sq("h12"), false);
    assert_eq!(move_index(gg, Black), Some(55 * NUM_MOVE_PLANES + 7));
    // Promoting version: plane + 208.
    assert_eq!(move_index(gg.with_promotion(true), Black), Some(55 * NUM_MOVE_PLANES + 208 + 7));
    // Knight g1-f3 (df -1, dr +2): off-line square.
    let n = Move::new(sq("g1"), sq("f3"), false);
    let p = ONE_LEG_DELTAS.iter().position(|&d| d == (-1, 2)).unwrap();
    assert!(p >= PLANE_OFF_LINE);
    assert_eq!(move_index(n, Black), Some(6 * NUM_MOVE_PLANES + p));
    // Lion igui h8 x h9: first step N (0), second S (4): plane 144 + 4.
    let igui = Move::with_via(sq("h8"), &[sq("h9")], sq("h8"), false);
    assert_eq!(move_index(igui, Black), Some(sq("h8").index() * NUM_MOVE_PLANES + 144 + 4));
    // The same igui by White (h8 x h7 is White's forward) gets the same plane.
    let wigui = Move::with_via(sq("i9"), &[sq("i8")], sq("i9"), false);
    assert_eq!(move_index(wigui, White), move_index(igui, Black));
    // Pass moves.
    assert_eq!(move_index(Move::NULL_PASS, Black), Some(NULL_PASS_INDEX));
    assert_eq!(move_index(Move::NULL_PASS, White), Some(NULL_PASS_INDEX));
    let g3 = Move::new(sq("g3"), sq("g3"), false);
    assert_eq!(move_index(g3, Black), Some(sq("g3").index() * NUM_MOVE_PLANES + PLANE_PIECE_PASS));
    // The start position's 74 moves all have distinct indices.
    let mut l = MoveList::new();
    generate(&Position::start(), &t, &mut l);
    let mut idx = Vec::new();
    assert_eq!(legal_indices(l.as_slice(), Black, &mut idx), 0);
    assert_eq!(idx.iter().collect::<HashSet<_>>().len(), 74);
}

#[test]
fn house_area_moves_use_their_own_planes() {
    let t = MoveTable::new(&Rules::house());
    // Black Fire Demon h8, White pawns on i9 and j10 (diagonal), a White Gold on h10.
    let pos = setup(
        &[
            ("h8", Piece::of_kind(Kind::FireDemon, Black)),
            ("i9", Piece::of_kind(Kind::Pawn, White)),
            ("j10", Piece::of_kind(Kind::Pawn, White)),
            ("h10", Piece::of_kind(Kind::Gold, White)),
        ],
        Black,
    );
    let mut l = MoveList::new();
    generate(&pos, &t, &mut l);
    let text: HashSet<String> = l.iter().map(|m| m.to_string()).collect();
    // Capture i9, then two more steps to k10 (via j10 jumped or captured).
    let near = Move::with_via(sq("h8"), &[sq("i9")], sq("j11"), false);
    assert!(text.contains(&near.to_string()), "{near} missing: {text:?}");
    let i = move_index(near, Black).unwrap();
    assert!((PLANE_AREA_NEAR..PLANE_AREA_FAR).contains(&(i % NUM_MOVE_PLANES)));
    // Capture j10 (two steps away), then step to k11.
    let far = Move::with_via(sq("h8"), &[sq("j10")], sq("k11"), false);
    assert!(text.contains(&far.to_string()), "{far} missing");
    let i = move_index(far, Black).unwrap();
    assert!((PLANE_AREA_FAR..NUM_MOVE_PLANES).contains(&(i % NUM_MOVE_PLANES)));
    // Three legs: capture i9 and j10 and end on k11 — outside the index.
    let three = Move::with_via(sq("h8"), &[sq("i9"), sq("j10")], sq("k11"), false);
    assert!(l.contains(three));
    assert_eq!(move_index(three, Black), None);
    let mut idx = Vec::new();
    let missing = legal_indices(l.as_slice(), Black, &mut idx);
    assert_eq!(missing, l.iter().filter(|m| m.via_count() == 2).count());
    assert!(missing > 0);
}

#[test]
fn masked_softmax_is_a_stable_distribution_over_legal_moves() {
    let mut logits = vec![0.0f32; POLICY_SIZE];
    logits[10] = 1000.0;
    logits[20] = 999.0;
    logits[30] = -1e30;
    logits[40] = 5000.0; // not legal: must not matter
    let legal = [10, 20, 30, NO_INDEX];
    let mut out = [0.0f32; 4];
    mask_and_softmax(&logits, &legal, &mut out);
    assert!(out.iter().all(|x| x.is_finite()));
    assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    let e = (-1.0f32).exp();
    assert!((out[0] - 1.0 / (1.0 + e)).abs() < 1e-6);
    assert!((out[1] - e / (1.0 + e)).abs() < 1e-6);
    assert_eq!(out[2], 0.0);
    assert_eq!(out[3], 0.0);
    // Equal logits: uniform; NaN logits ignored.
    logits[10] = f32::NAN;
    logits[20] = 3.0;
    logits[30] = 3.0;
    let mut out = [0.0f32; 3];
    mask_and_softmax(&logits, &[10, 20, 30], &mut out);
    assert_eq!(out, [0.0, 0.5, 0.5]);
    // Nothing usable: uniform.
    let mut out = [0.0f32; 2];
    mask_and_softmax(&logits, &[NO_INDEX, NO_INDEX], &mut out);
    assert_eq!(out, [0.5, 0.5]);
}
