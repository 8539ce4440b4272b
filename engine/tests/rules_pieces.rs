//! RULES.md §4 (movement primitives) and §5.0 (ordinary pieces); every one of the 44 types on
//! an empty board (exact move set for Black, mirrored for White), blockers, and crowded boards
//! compared square by square with the reference model of `common`.

mod common;
use common::*;
use engine::{Kind, Kind::*, MoveList};
use std::collections::{BTreeMap, BTreeSet};

/// The piece on h8 (Black) on an otherwise empty board (Kings on b1/o16): its exact move set
/// equals the reference model, its destination count is the hand-counted `n`, and a White piece
/// on i9 (the rotated square) has the rotated set.
fn empty_board(kind: Kind, n: usize) {
    let pos = setup(&[("h8", b(kind))], Black);
    let got = std_from(&pos, "h8");
    let (want, _) = reference(&pos, sq("h8"));
    assert_eq!(got, want, "{kind:?} on h8");
    assert_eq!(dests(&got).len(), n, "{kind:?}: destinations {:?}", dests(&got));
    assert!(got.iter().all(|m| !m.contains(',')), "{kind:?}: no multi-leg move without enemies");
    assert!(!got.contains("h8h8"), "{kind:?}: no board-changing pass on an empty board");
    // Promotion twins: only for promotable pieces, only for destinations in ranks 12..16.
    let can = b(kind).can_promote();
    for m in &got {
        if m.ends_with('+') {
            assert!(can, "{kind:?} cannot promote: {m}");
            assert!(sq(&m[2..m.len() - 1]).rank() >= 11, "{m}");
        }
    }
    // White mirrors Black (§1: White is the 180° rotation).
    let wpos = setup(&[("i9", w(kind))], White);
    let wgot = std_from(&wpos, "i9");
    assert_eq!(wgot, rot_set(&got), "{kind:?}: White on i9 is not the mirror of Black on h8");
}

/// Destination counts from h8 on an empty board, counted by hand: 8 squares up, 7 down, 7 left,
/// 8 right; diagonals up-left 7, up-right 8, down-left 7, down-right 7.
const EMPTY_BOARD_COUNTS: [(Kind, usize); 44] = [
    (King, 8),
    (Prince, 8),
    (DrunkElephant, 7),
    (Gold, 6),
    (Silver, 5),
    (Copper, 4),
    (Iron, 3),
    (FerociousLeopard, 6),
    (BlindTiger, 7),
    (Dog, 3),
    (Pawn, 1),
    (Knight, 2),
    (Kirin, 8),
    (Phoenix, 8),
    (Lance, 8),
    (ReverseChariot, 15),
    (SideMover, 17),
    (VerticalMover, 17),
    (Rook, 30),
    (Bishop, 29),
    (DragonKing, 34),
    (DragonHorse, 33),
    (Queen, 59),
    (SideSoldier, 18),
    (VerticalSoldier, 13),
    (WaterBuffalo, 48),
    (ChariotSoldier, 48),
    (FlyingStag, 21),
    (FreeBoar, 44),
    (FlyingOx, 44),
    (WhiteHorse, 30),
    (Whale, 29),
    (MultiGeneral, 22),
    (SoaringEagle, 48),
    (HornedFalcon, 53),
    (Lion, 24),
    (LionHawk, 45),
    (FreeEagle, 59),
    (HeavenlyTetrarch, 42),
    (GreatGeneral, 59),
    (ViceGeneral, 65),
    (RookGeneral, 30),
    (BishopGeneral, 29),
    (FireDemon, 74),
];

fn count_of(k: Kind) -> usize {
    EMPTY_BOARD_COUNTS.iter().find(|e| e.0 == k).unwrap().1
}

macro_rules! empty_board_tests {
    ($($name:ident: $kind:expr;)*) => {$(
        #[test]
        fn $name() {
            empty_board($kind, count_of($kind));
        }
    )*};
}

empty_board_tests! {
    rules_5_0_king_empty_board: King;
    rules_5_0_prince_empty_board: Prince;
    rules_5_0_drunk_elephant_empty_board: DrunkElephant;
    rules_5_0_gold_empty_board: Gold;
    rules_5_0_silver_empty_board: Silver;
    rules_5_0_copper_empty_board: Copper;
    rules_5_0_iron_empty_board: Iron;
    rules_5_0_ferocious_leopard_empty_board: FerociousLeopard;
    rules_5_0_blind_tiger_empty_board: BlindTiger;
    rules_5_0_dog_empty_board: Dog;
    rules_5_0_pawn_empty_board: Pawn;
    rules_5_0_knight_empty_board: Knight;
    rules_5_0_kirin_empty_board: Kirin;
    rules_5_0_phoenix_empty_board: Phoenix;
    rules_5_0_lance_empty_board: Lance;
    rules_5_0_reverse_chariot_empty_board: ReverseChariot;
    rules_5_0_side_mover_empty_board: SideMover;
    rules_5_0_vertical_mover_empty_board: VerticalMover;
    rules_5_0_rook_empty_board: Rook;
    rules_5_0_bishop_empty_board: Bishop;
    rules_5_0_dragon_king_empty_board: DragonKing;
    rules_5_0_dragon_horse_empty_board: DragonHorse;
    rules_5_0_queen_empty_board: Queen;
    rules_5_0_side_soldier_empty_board: SideSoldier;
    rules_5_0_vertical_soldier_empty_board: VerticalSoldier;
    rules_5_0_water_buffalo_empty_board: WaterBuffalo;
    rules_5_0_chariot_soldier_empty_board: ChariotSoldier;
    rules_5_0_flying_stag_empty_board: FlyingStag;
    rules_5_0_free_boar_empty_board: FreeBoar;
    rules_5_0_flying_ox_empty_board: FlyingOx;
    rules_5_0_white_horse_empty_board: WhiteHorse;
    rules_5_0_whale_empty_board: Whale;
    rules_5_0_multi_general_empty_board: MultiGeneral;
    rules_5_2_soaring_eagle_empty_board: SoaringEagle;
    rules_5_2_horned_falcon_empty_board: HornedFalcon;
    rules_5_1_lion_empty_board: Lion;
    rules_5_3_lion_hawk_empty_board: LionHawk;
    rules_5_4_free_eagle_empty_board: FreeEagle;
    rules_5_5_heavenly_tetrarch_empty_board: HeavenlyTetrarch;
    rules_5_6_great_general_empty_board: GreatGeneral;
    rules_5_6_vice_general_empty_board: ViceGeneral;
    rules_5_6_rook_general_empty_board: RookGeneral;
    rules_5_6_bishop_general_empty_board: BishopGeneral;
    rules_5_7_fire_demon_empty_board: FireDemon;
}

#[test]
fn rules_2_all_44_types_have_an_empty_board_test() {
    for k in Kind::ALL {
        assert_eq!(EMPTY_BOARD_COUNTS.iter().filter(|e| e.0 == k).count(), 1, "{k:?}");
    }
}

// ---- hand-written exact sets (independent of the reference model) ---------------------------

#[test]
fn rules_5_0_step_pieces_exact_sets() {
    let cases: &[(Kind, &[&str])] = &[
        (King, &["h9", "i9", "i8", "i7", "h7", "g7", "g8", "g9"]),
        (DrunkElephant, &["h9", "i9", "i8", "i7", "g7", "g8", "g9"]),
        (Gold, &["h9", "i9", "i8", "h7", "g8", "g9"]),
        (Silver, &["h9", "i9", "i7", "g7", "g9"]),
        (Copper, &["h9", "i9", "h7", "g9"]),
        (Iron, &["h9", "i9", "g9"]),
        (FerociousLeopard, &["h9", "i9", "i7", "h7", "g7", "g9"]),
        (BlindTiger, &["i9", "i8", "i7", "h7", "g7", "g8", "g9"]),
        (Dog, &["h9", "i7", "g7"]),
        (Pawn, &["h9"]),
        (Knight, &["g10", "i10"]),
        (Kirin, &["g9", "i9", "g7", "i7", "h10", "h6", "f8", "j8"]),
        (Phoenix, &["h9", "h7", "g8", "i8", "f10", "j10", "f6", "j6"]),
        (
            SideSoldier,
            &[
                "h9", "h10", "h7", "a8", "b8", "c8", "d8", "e8", "f8", "g8", "i8", "j8", "k8", "l8", "m8", "n8", "o8",
                "p8",
            ],
        ),
        (VerticalSoldier, &["h9", "h10", "h11", "h12", "h13", "h14", "h15", "h16", "h7", "f8", "g8", "i8", "j8"]),
    ];
    for &(k, want) in cases {
        let pos = setup(&[("h8", b(k))], Black);
        let got = dests(&std_from(&pos, "h8"));
        let want: BTreeSet<String> = want.iter().map(|s| s.to_string()).collect();
        assert_eq!(got, want, "{k:?}");
    }
}

#[test]
fn rules_5_5_heavenly_tetrarch_exact_empty_board_set() {
    let pos = setup(&[("h8", b(HeavenlyTetrarch))], Black);
    let got = std_from(&pos, "h8");
    let mut want = BTreeSet::new();
    for r in (10..=16).chain(1..=6) {
        want.insert(format!("h8h{r}"));
    }
    for s in ["f8", "e8", "j8", "k8"] {
        want.insert(format!("h8{s}"));
    }
    for s in ["f10", "e11", "d12", "c13", "b14", "a15"] {
        want.insert(format!("h8{s}"));
    }
    for s in ["j10", "k11", "l12", "m13", "n14", "o15", "p16"] {
        want.insert(format!("h8{s}"));
    }
    for s in ["f6", "e5", "d4", "c3", "b2", "a1"] {
        want.insert(format!("h8{s}"));
    }
    for s in ["j6", "k5", "l4", "m3", "n2", "o1"] {
        want.insert(format!("h8{s}"));
    }
    assert_eq!(got, want);
}

// ---- blockers --------------------------------------------------------------------------------

#[test]
fn rules_4_step_blocked_by_friend_captures_enemy() {
    let pos = setup(&[("h8", b(Gold)), ("h9", b(Pawn)), ("g9", w(Pawn))], Black);
    assert_eq!(std_from(&pos, "h8"), set(&["h8g9", "h8i9", "h8g8", "h8i8", "h8h7"]));
}

#[test]
fn rules_4_slide_stops_before_friend_and_on_enemy() {
    let pos = setup(&[("h8", b(Rook)), ("h11", b(Pawn)), ("k8", w(Pawn)), ("h3", w(Gold)), ("c8", b(Gold))], Black);
    let got = std_from(&pos, "h8");
    assert_eq!(
        got,
        set(&[
            "h8h9", "h8h10", "h8i8", "h8j8", "h8k8", "h8h7", "h8h6", "h8h5", "h8h4", "h8h3", "h8g8", "h8f8", "h8e8",
            "h8d8"
        ])
    );
    // The same for every slider type: nothing beyond the first piece on a line.
    for k in [
        Lance,
        ReverseChariot,
        Rook,
        Bishop,
        Queen,
        DragonKing,
        DragonHorse,
        WhiteHorse,
        Whale,
        MultiGeneral,
        FreeBoar,
        FlyingOx,
    ] {
        let pos = setup(&[("h8", b(k)), ("h10", w(Pawn)), ("j10", b(Pawn)), ("f6", w(Pawn)), ("e8", b(Pawn))], Black);
        let got = dests(&std_from(&pos, "h8"));
        for beyond in ["h11", "h12", "k11", "e5", "d8"] {
            assert!(!got.contains(beyond), "{k:?} passed a piece to {beyond}");
        }
        assert!(!got.contains("j10") && !got.contains("e8"), "{k:?} landed on a friend");
        assert_eq!(got, dests(&reference(&pos, sq("h8")).0), "{k:?}");
    }
}

#[test]
fn rules_4_limited_range_needs_first_square_empty() {
    // Side Soldier: up to 2 forward.
    let p = setup(&[("h8", b(SideSoldier)), ("h9", b(Pawn))], Black);
    assert!(!dests(&std_from(&p, "h8")).contains("h10"));
    let p = setup(&[("h8", b(SideSoldier)), ("h9", w(Pawn)), ("h10", w(Pawn))], Black);
    let d = dests(&std_from(&p, "h8"));
    assert!(d.contains("h9") && !d.contains("h10"), "captures on the 1st square and stops");
    let p = setup(&[("h8", b(SideSoldier)), ("h10", w(Pawn))], Black);
    assert!(dests(&std_from(&p, "h8")).contains("h10"), "captures on the 2nd square");
    // Vertical Soldier / Chariot Soldier: up to 2 sideways; Water Buffalo up to 2 vertically.
    for (k, first, second) in [
        (VerticalSoldier, "i8", "j8"),
        (ChariotSoldier, "g8", "f8"),
        (WaterBuffalo, "h7", "h6"),
        (WaterBuffalo, "h9", "h10"),
    ] {
        let p = setup(&[("h8", b(k)), (first, b(Pawn))], Black);
        let d = dests(&std_from(&p, "h8"));
        assert!(!d.contains(first) && !d.contains(second), "{k:?}: {second} behind a friend on {first}");
        let p = setup(&[("h8", b(k)), (first, w(Pawn))], Black);
        let d = dests(&std_from(&p, "h8"));
        assert!(d.contains(first) && !d.contains(second), "{k:?}: stops on the capture on {first}");
        let p = setup(&[("h8", b(k)), (second, w(Pawn))], Black);
        assert!(dests(&std_from(&p, "h8")).contains(second), "{k:?}");
        // Never a 3rd square.
        let p = setup(&[("h8", b(k))], Black);
        let third = shift(sq("h8"), 3 * (sq(first).file() - 7), 3 * (sq(first).rank() - 7)).unwrap().cecp();
        assert!(!dests(&std_from(&p, "h8")).contains(&third), "{k:?} reached {third}");
    }
}

#[test]
fn rules_4_jump_to_second_square_ignores_the_first() {
    // Kirin: orthogonal jump over friend and foe alike; diagonal steps only.
    let p = setup(
        &[
            ("h8", b(Kirin)),
            ("h9", b(Pawn)),
            ("h10", w(Pawn)),
            ("g8", w(Pawn)),
            ("f8", b(Gold)),
            ("i9", w(Pawn)),
            ("j10", w(Pawn)),
        ],
        Black,
    );
    assert_eq!(std_from(&p, "h8"), set(&["h8h10", "h8h6", "h8j8", "h8i9", "h8g9", "h8g7", "h8i7"]));
    // The first square's piece is unaffected by the jump.
    let t = std_table();
    let mut q = p;
    let eff = play(&mut q, &t, "h8h10");
    assert_eq!(captured(&eff), set(&["h10"]));
    assert_eq!(q.piece_at(sq("h9")), Some(b(Pawn)));
    // Phoenix: diagonal jump, orthogonal steps.
    let p = setup(
        &[("h8", b(Phoenix)), ("g9", b(Pawn)), ("f10", w(Pawn)), ("i9", w(Pawn)), ("j10", b(Pawn)), ("h9", w(Pawn))],
        Black,
    );
    assert_eq!(std_from(&p, "h8"), set(&["h8f10", "h8f6", "h8j6", "h8h9", "h8h7", "h8g8", "h8i8"]));
}

#[test]
fn rules_5_0_knight_jumps_two_forward_one_sideways_only() {
    let mut pieces = vec![("h8", b(Knight)), ("g10", w(Pawn)), ("i10", b(Pawn))];
    for s in ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9", "h10"] {
        pieces.push((s, b(Gold)));
    }
    let p = setup(&pieces, Black);
    assert_eq!(std_from(&p, "h8"), set(&["h8g10"]));
    // White's knight jumps towards rank 1.
    let p = setup(&[("h8", w(Knight))], White);
    assert_eq!(std_from(&p, "h8"), set(&["h8g6", "h8i6"]));
    // At the edge only one square remains.
    let p = setup(&[("a8", b(Knight))], Black);
    assert_eq!(std_from(&p, "a8"), set(&["a8b10"]));
}

#[test]
fn rules_2_promoted_piece_moves_as_its_promoted_type() {
    // +R moves as a Dragon King, +P as a Gold, +O (Kirin) as a Lion; none can promote again.
    for (start, as_kind) in
        [(Rook, DragonKing), (Pawn, Gold), (Kirin, Lion), (Lance, WhiteHorse), (DrunkElephant, Prince)]
    {
        let pp = setup(&[("h10", promoted(start, Black))], Black);
        let pk = setup(&[("h10", b(as_kind))], Black);
        let got = std_from(&pp, "h10");
        assert_eq!(dests(&got), dests(&std_from(&pk, "h10")), "{start:?}");
        assert!(got.iter().all(|m| !m.ends_with('+')), "+{start:?} promoted again: {got:?}");
    }
}

#[test]
fn rules_4_board_edges_and_corners() {
    // A Queen in the corner, a Lion and a Fire Demon on the edge: nothing off the board.
    for (k, s) in [
        (Queen, "a16"),
        (Lion, "a16"),
        (FireDemon, "p8"),
        (HeavenlyTetrarch, "a9"),
        (FreeEagle, "p1"),
        (ViceGeneral, "h16"),
    ] {
        let pos = setup(&[(s, b(k))], Black);
        assert_eq!(std_from(&pos, s), reference(&pos, sq(s)).0, "{k:?} on {s}");
    }
    let pos = setup(&[("a16", b(Lion))], Black);
    assert_eq!(dests(&std_from(&pos, "a16")), set(&["a15", "a14", "b16", "b15", "b14", "c16", "c15", "c14"]));
}

// ---- crowded boards: every piece, both colours, against the reference model ------------------

fn compare_crowded(seed: u64, density: u64) {
    let mut r = Lcg(seed);
    let mut pos = engine::Position::empty();
    for s in engine::Square::all() {
        if r.below(100) < density {
            pos.put(s, random_piece(&mut r));
        }
    }
    // A royal of each side somewhere.
    for c in [Black, White] {
        let s = engine::Square::from_index(r.below(256) as usize);
        pos.put(s, engine::Piece::of_kind(King, c));
    }
    let t = std_table();
    for stm in [Black, White] {
        pos.set_side_to_move(stm);
        let all = all_moves_t(&pos, &t);
        let mut l = MoveList::new();
        engine::generate(&pos, &t, &mut l);
        let mut by_from: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for m in l.iter().filter(|m| !m.is_null_pass()) {
            by_from.entry(m.from().unwrap().cecp()).or_default().insert(engine::notation::to_cecp(*m));
        }
        let mut neutral = false;
        for s in pos.squares_of(stm).collect::<Vec<_>>() {
            let (want, n) = reference(&pos, s);
            neutral |= n;
            let got = by_from.remove(&s.cecp()).unwrap_or_default();
            assert_eq!(got, want, "seed {seed}: {:?} on {s} in {pos:?}", pos.piece_at(s).unwrap());
        }
        assert!(by_from.is_empty());
        assert_eq!(all.contains("@@@@"), neutral, "seed {seed}: @@@@ in {pos:?}");
    }
}

#[test]
fn rules_5_every_piece_matches_the_rule_text_on_crowded_boards() {
    for seed in 0..120 {
        compare_crowded(seed, 15 + seed % 40);
    }
}

#[test]
fn rules_5_start_position_pieces_match_the_rule_text() {
    let t = std_table();
    let pos = engine::Position::start();
    let all = all_moves_t(&pos, &t);
    let mut want: BTreeSet<String> = BTreeSet::new();
    for s in pos.squares_of(Black).collect::<Vec<_>>() {
        want.extend(reference(&pos, s).0);
    }
    assert_eq!(all, want);
    assert_eq!(all.len(), 74);
}

#[test]
fn rules_5_generate_piece_agrees_and_white_mirrors_black_on_crowded_boards() {
    let t = std_table();
    for seed in 200..240 {
        let pos = crowded(seed, 20 + seed % 30);
        for stm in [Black, White] {
            let mut p = pos;
            p.set_side_to_move(stm);
            compare_with_reference(&p, &t);
            let m = mirror(&p);
            assert_eq!(all_moves_t(&m, &t), rot_set(&all_moves_t(&p, &t)), "mirror of {p:?}");
        }
    }
}
