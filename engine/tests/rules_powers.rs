//! RULES.md §5.1–§5.7 and §7.2/§7.3: lion power, linear lion, Lion Hawk, Free Eagle, Heavenly
//! Tetrarch, range-jumping generals, area moves, passes.

mod common;
use common::*;
use engine::{Kind::*, Rules};
use std::collections::BTreeSet;

fn lion_area_texts(from: &str) -> BTreeSet<String> {
    let f = sq(from);
    let mut out = BTreeSet::new();
    for df in -2..=2 {
        for dr in -2..=2 {
            if (df, dr) != (0, 0) {
                if let Some(s) = shift(f, df, dr) {
                    out.insert(format!("{from}{}", s.cecp()));
                }
            }
        }
    }
    out
}

// ---- §5.1 Lion ------------------------------------------------------------------------------

#[test]
fn rules_5_1_lion_steps_and_jumps_cover_the_24_square_area() {
    let pos = setup(&[("h8", b(Lion))], Black);
    let got = std_from(&pos, "h8");
    assert_eq!(got, lion_area_texts("h8"));
    assert_eq!(got.len(), 24);
    assert!(all_moves(&pos, &Rules::standard()).contains("@@@@"));
}

#[test]
fn rules_5_1_lion_hit_and_run_double_capture_and_igui() {
    let pos = setup(&[("h8", b(Lion)), ("h9", w(Pawn)), ("i10", w(Pawn))], Black);
    let got = std_from(&pos, "h8");
    let two_leg: BTreeSet<String> = got.iter().filter(|m| m.contains(',')).cloned().collect();
    assert_eq!(
        two_leg,
        set(&[
            "h8h9,h9g8",
            "h8h9,h9i8",
            "h8h9,h9g9",
            "h8h9,h9i9",
            "h8h9,h9g10",
            "h8h9,h9h10",
            "h8h9,h9i10", // double capture
            "h8h9,h9h8",  // igui
        ])
    );
    // The 24 one-leg moves are all still there (h9 and i10 are captures on the final square).
    assert_eq!(got.len(), 24 + 8);
    assert!(lion_area_texts("h8").is_subset(&got));

    let t = std_table();
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9,h9i10");
    assert_eq!(captured(&eff), set(&["h9", "i10"]));
    assert_eq!(p.piece_at(sq("i10")), Some(b(Lion)));
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9,h9h8");
    assert_eq!(captured(&eff), set(&["h9"]));
    assert_eq!(p.piece_at(sq("h8")), Some(b(Lion)), "igui: the Lion stays home");
    assert_eq!(p.piece_at(sq("h9")), None);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9,h9g10");
    assert_eq!(captured(&eff), set(&["h9"]));
    assert_eq!(p.piece_at(sq("g10")), Some(b(Lion)), "hit and run");
}

#[test]
fn rules_7_2_igui_is_distinct_from_the_step_capture() {
    let pos = setup(&[("h8", b(Lion)), ("h9", w(Gold))], Black);
    let got = std_from(&pos, "h8");
    assert!(got.contains("h8h9") && got.contains("h8h9,h9h8"));
    // Capture at distance 2 by jump and "via an empty square" are one move (§7.2).
    assert_eq!(got.iter().filter(|m| m.ends_with("h10")).count(), 2, "h8h10 and h8h9,h9h10: {got:?}");
}

#[test]
fn rules_5_1_lion_legs_never_land_on_friends() {
    let pos = setup(&[("h8", b(Lion)), ("h9", w(Pawn)), ("h10", b(Gold)), ("g9", b(Gold))], Black);
    let got = std_from(&pos, "h8");
    for bad in ["h8h9,h9h10", "h8h9,h9g9", "h8g9", "h8h10"] {
        assert!(!got.contains(bad), "{bad}");
    }
    assert!(got.iter().all(|m| !m.starts_with("h8g9,")), "first leg onto a friend");
    // Jumping over a friend is fine.
    assert!(got.contains("h8f10"));
    assert_eq!(got, reference(&pos, sq("h8")).0);
}

#[test]
fn rules_5_1_lion_jumps_over_anything_to_distance_two() {
    let mut pieces = vec![("h8", b(Lion))];
    let ring = ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"];
    for s in ring {
        pieces.push((s, b(Gold)));
    }
    let pos = setup(&pieces, Black);
    let got = std_from(&pos, "h8");
    let outer: BTreeSet<String> =
        lion_area_texts("h8").into_iter().filter(|m| sq(&m[2..]).distance(sq("h8")) == 2).collect();
    assert_eq!(got, outer);
    assert_eq!(got.len(), 16);
    // Knight-jump squares are part of the 5x5 area.
    assert!(got.contains("h8g10") && got.contains("h8j9"));
}

#[test]
fn rules_7_3_lion_pass_needs_an_empty_neighbour() {
    let ring = ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"];
    let r = Rules::standard();
    // Surrounded by friends: no pass.
    let mut pieces = vec![("h8", b(Lion))];
    for s in ring {
        pieces.push((s, b(Gold)));
    }
    assert!(!has_null_pass(&setup(&pieces, Black), &r));
    // Surrounded by enemies: igui everywhere, still no pass.
    let mut pieces = vec![("h8", b(Lion))];
    for s in ring {
        pieces.push((s, w(Gold)));
    }
    let pos = setup(&pieces, Black);
    let all = all_moves(&pos, &r);
    assert!(!all.contains("@@@@"));
    assert!(!all.contains("h8h8"));
    for s in ring {
        assert!(all.contains(&format!("h8{s},{s}h8")), "igui on {s}");
    }
    // One empty neighbour is enough.
    let mut pieces = vec![("h8", b(Lion))];
    for s in &ring[1..] {
        pieces.push((s, b(Gold)));
    }
    assert!(has_null_pass(&setup(&pieces, Black), &r));
}

#[test]
fn rules_7_2_board_neutral_pass_listed_once_for_all_passers() {
    let pos = setup(
        &[
            ("c3", b(Lion)),
            ("h3", b(LionHawk)),
            ("m3", b(FreeEagle)),
            ("c8", b(SoaringEagle)),
            ("h8", b(HornedFalcon)),
            ("m8", b(ViceGeneral)),
            ("h12", b(FireDemon)),
        ],
        Black,
    );
    let all = all_moves(&pos, &Rules::standard()); // asserts at most one @@@@, no duplicates
    assert!(all.contains("@@@@"));
    for s in ["c3", "h3", "m3", "c8", "h8", "m8", "h12"] {
        assert!(!all.contains(&format!("{s}{s}")));
    }
    // Pieces that cannot pass give no @@@@.
    let pos = setup(&[("h8", b(Queen)), ("c3", b(HeavenlyTetrarch)), ("m3", b(GreatGeneral))], Black);
    assert!(!all_moves(&pos, &Rules::standard()).contains("@@@@"));
}

#[test]
fn rules_5_1_white_lion_mirrors_black() {
    let pos = setup(&[("h8", b(Lion)), ("h9", w(Pawn)), ("i10", w(Pawn)), ("g7", b(Gold))], Black);
    let got = std_from(&pos, "h8");
    let m = mirror(&pos);
    assert_eq!(std_from(&m, &rot_sq("h8")), rot_set(&got));
}

// ---- §5.2 Soaring Eagle and Horned Falcon ----------------------------------------------------

#[test]
fn rules_5_2_soaring_eagle_linear_lion_on_forward_diagonals() {
    let pos = setup(&[("h8", b(SoaringEagle)), ("g9", w(Pawn)), ("f10", w(Pawn)), ("i9", b(Gold))], Black);
    let got = std_from(&pos, "h8");
    for m in ["h8g9", "h8g9,g9h8", "h8g9,g9f10", "h8f10", "h8j10"] {
        assert!(got.contains(m), "{m}");
    }
    // Lion power along the line only: no bending, no 3rd square, nothing onto the friend.
    for m in ["h8g9,g9g10", "h8g9,g9f9", "h8g9,g9f8", "h8e11", "h8i9", "h8k11", "h8g10"] {
        assert!(!got.contains(m), "{m}");
    }
    assert_eq!(got.iter().filter(|m| m.contains(',')).count(), 2);
    assert_eq!(got, reference(&pos, sq("h8")).0);
    // Orthogonal and backward-diagonal slides are ordinary.
    assert!(got.contains("h8h16") && got.contains("h8a8") && got.contains("h8a1") && got.contains("h8o1"));
    let t = std_table();
    let mut p = pos;
    let eff = play(&mut p, &t, "h8g9,g9f10");
    assert_eq!(captured(&eff), set(&["g9", "f10"]));
}

#[test]
fn rules_5_2_soaring_eagle_pass_needs_empty_forward_diagonal() {
    let r = Rules::standard();
    // Every neighbour empty except the two forward diagonals: no pass.
    let pos = setup(&[("h8", b(SoaringEagle)), ("g9", b(Gold)), ("i9", w(Pawn))], Black);
    assert!(!has_null_pass(&pos, &r));
    let pos = setup(&[("h8", b(SoaringEagle)), ("g9", b(Gold))], Black);
    assert!(has_null_pass(&pos, &r));
    // Horned Falcon: only the forward square counts.
    let mut pieces = vec![("h8", b(HornedFalcon)), ("h9", b(Gold))];
    assert!(!has_null_pass(&setup(&pieces, Black), &r));
    pieces[1] = ("g9", b(Gold));
    assert!(has_null_pass(&setup(&pieces, Black), &r));
}

#[test]
fn rules_5_2_horned_falcon_linear_lion_forward() {
    let pos = setup(&[("h8", b(HornedFalcon)), ("h9", w(Pawn)), ("h10", w(Gold))], Black);
    let got = std_from(&pos, "h8");
    for m in ["h8h9", "h8h9,h9h8", "h8h9,h9h10", "h8h10"] {
        assert!(got.contains(m), "{m}");
    }
    for m in ["h8h11", "h8h9,h9g10", "h8h9,h9i9"] {
        assert!(!got.contains(m), "{m}");
    }
    assert_eq!(got, reference(&pos, sq("h8")).0);
    // Friend on h9: the jump to h10 remains.
    let pos = setup(&[("h8", b(HornedFalcon)), ("h9", b(Pawn))], Black);
    let got = std_from(&pos, "h8");
    assert!(got.contains("h8h10") && !got.contains("h8h9") && !got.contains("h8h11"));
    // Straight back is a slide.
    assert!(got.contains("h8h1"));
}

// ---- §5.3 Lion Hawk --------------------------------------------------------------------------

#[test]
fn rules_5_3_lion_hawk_is_lion_plus_bishop() {
    let pos = setup(&[("h8", b(LionHawk)), ("g9", w(Pawn)), ("k11", w(Pawn)), ("i7", b(Gold))], Black);
    let got = std_from(&pos, "h8");
    assert!(got.contains("h8g9,g9h8") && got.contains("h8g9,g9f10") && got.contains("h8k11"));
    assert!(!got.contains("h8l12") && !got.contains("h8e11"), "bishop slides stop at pieces");
    assert!(got.contains("h8j6"), "lion jump over the friend on i7");
    assert!(!got.contains("h8k5"), "no slide beyond the friend");
    assert_eq!(got, reference(&pos, sq("h8")).0);
}

// ---- §5.4 Free Eagle -------------------------------------------------------------------------

#[test]
fn rules_5_4_free_eagle_jumps_to_distance_two_on_its_lines() {
    let pos = setup(&[("h8", b(FreeEagle)), ("h9", b(Gold)), ("g9", b(Gold)), ("i8", w(Pawn))], Black);
    let got = std_from(&pos, "h8");
    assert!(got.contains("h8h10") && got.contains("h8f10") && got.contains("h8j8"));
    assert!(!got.contains("h8h11") && !got.contains("h8e11") && !got.contains("h8k8"));
    // No knight jumps.
    assert!(!got.contains("h8g10") && !got.contains("h8j9"));
    assert_eq!(got, reference(&pos, sq("h8")).0);
}

#[test]
fn rules_5_4_free_eagle_diagonal_capture_then_diagonal_step() {
    let pos = setup(&[("h8", b(FreeEagle)), ("g9", w(Pawn)), ("h10", w(Pawn)), ("h9", w(Gold))], Black);
    let got = std_from(&pos, "h8");
    let two_leg: BTreeSet<String> = got.iter().filter(|m| m.contains(',')).cloned().collect();
    assert_eq!(two_leg, set(&["h8g9,g9h8", "h8g9,g9f10", "h8g9,g9h10", "h8g9,g9f8"]));
    // The orthogonal enemy on h9 gives only the ordinary capture (and h10 by jump).
    assert!(got.contains("h8h9") && got.contains("h8h10"));
    assert_eq!(got, reference(&pos, sq("h8")).0);
    let t = std_table();
    let mut p = pos;
    let eff = play(&mut p, &t, "h8g9,g9h10");
    assert_eq!(captured(&eff), set(&["g9", "h10"]));
    assert_eq!(p.piece_at(sq("h9")), Some(w(Gold)));
}

#[test]
fn rules_7_3_free_eagle_pass_needs_an_empty_diagonal_neighbour() {
    let r = Rules::standard();
    let diag = [("g9", b(Gold)), ("i9", b(Gold)), ("g7", b(Gold)), ("i7", b(Gold))];
    let mut pieces = vec![("h8", b(FreeEagle))];
    pieces.extend(diag);
    assert!(!has_null_pass(&setup(&pieces, Black), &r), "orthogonal neighbours do not allow a pass");
    pieces.pop();
    assert!(has_null_pass(&setup(&pieces, Black), &r));
}

// ---- §5.5 Heavenly Tetrarch ------------------------------------------------------------------

#[test]
fn rules_5_5_heavenly_tetrarch_igui_and_never_adjacent() {
    let pos = setup(&[("h8", b(HeavenlyTetrarch)), ("h9", w(Pawn)), ("g7", w(Pawn)), ("i8", b(Gold))], Black);
    let got = std_from(&pos, "h8");
    assert!(got.contains("h8h9,h9h8") && got.contains("h8g7,g7h8"));
    for m in ["h8h9", "h8g7", "h8g8", "h8i9", "h8i8"] {
        assert!(!got.contains(m), "{m}");
    }
    // The skip-first slide ignores the piece on h9 and on i8.
    assert!(got.contains("h8h10") && got.contains("h8h16") && got.contains("h8j8") && got.contains("h8k8"));
    assert_eq!(got, reference(&pos, sq("h8")).0);
    let t = std_table();
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9,h9h8");
    assert_eq!(captured(&eff), set(&["h9"]));
    assert_eq!(p.piece_at(sq("h8")), Some(b(HeavenlyTetrarch)));
}

#[test]
fn rules_5_5_heavenly_tetrarch_blockers_from_the_second_square() {
    let pos = setup(
        &[
            ("h8", b(HeavenlyTetrarch)),
            ("h10", b(Gold)), // blocks the whole upward line
            ("h5", w(Pawn)),  // down: h6 then capture h5, stop
            ("j8", b(Gold)),  // right: 3rd square needs the 2nd empty
            ("f8", w(Pawn)),  // left: capture on the 2nd square, no 3rd
            ("f10", w(Pawn)), // up-left diagonal: capture and stop
        ],
        Black,
    );
    let got = std_from(&pos, "h8");
    for m in ["h8h6", "h8h5", "h8f8", "h8f10"] {
        assert!(got.contains(m), "{m}");
    }
    for m in ["h8h10", "h8h11", "h8h4", "h8j8", "h8k8", "h8e8", "h8e11"] {
        assert!(!got.contains(m), "{m}");
    }
    assert_eq!(got, reference(&pos, sq("h8")).0);
}

#[test]
fn rules_5_5_heavenly_tetrarch_cannot_pass_by_default() {
    let pos = setup(&[("h8", b(HeavenlyTetrarch))], Black);
    let all = all_moves(&pos, &Rules::standard());
    assert!(!all.contains("@@@@") && !all.contains("h8h8"));
    // The Tetrarch written as a FEN piece: +C!.
    let p = fen("16/16/16/16/16/16/16/16/7+C!8/16/16/16/16/16/16/16 b");
    assert_eq!(p.piece_at(sq("h8")), Some(b(HeavenlyTetrarch)));
}

// ---- §5.6 range-jumping generals ---------------------------------------------------------------

#[test]
fn rules_5_6_general_noncapture_is_a_plain_slide() {
    let pos = setup(&[("h8", b(GreatGeneral)), ("h9", b(Pawn)), ("h12", w(Pawn))], Black);
    let got = std_from(&pos, "h8");
    assert!(got.contains("h8h12"), "jump capture over the own Pawn");
    assert!(!got.contains("h8h10") && !got.contains("h8h11") && !got.contains("h8h13"));
}

#[test]
fn rules_5_6_great_general_jumps_lower_ranks_only() {
    let pos = setup(
        &[
            ("h8", b(GreatGeneral)),
            // up: own VG (rank 2) and an enemy Pawn are jumped, enemy GG captured, not passed
            ("h9", b(ViceGeneral)),
            ("h10", w(Pawn)),
            ("h12", w(GreatGeneral)),
            ("h14", w(Pawn)),
            // right: enemy GG captured directly, nothing behind it
            ("j8", w(GreatGeneral)),
            ("l8", w(Pawn)),
            // up-right: own RG, enemy BG, enemy Pawn
            ("i9", b(RookGeneral)),
            ("j10", w(BishopGeneral)),
            ("l12", w(Pawn)),
            // down: own Pawn, the enemy King (never jumped, but captured), a Pawn behind
            ("h6", b(Pawn)),
            ("h4", w(King)),
            ("h2", w(Pawn)),
            // left: own King blocks every jump
            ("e8", b(King)),
            ("c8", w(Pawn)),
        ],
        Black,
    );
    let got = std_from(&pos, "h8");
    let caps: BTreeSet<String> =
        got.iter().filter(|m| pos.piece_at(sq(&m[2..])).is_some_and(|p| p.color() == White)).cloned().collect();
    assert_eq!(caps, set(&["h8h10", "h8h12", "h8j8", "h8j10", "h8l12", "h8h4"]));
    assert_eq!(got, reference(&pos, sq("h8")).0);
    // Only the target is captured; jumped pieces stay.
    let t = std_table();
    let mut p = pos;
    let eff = play(&mut p, &t, "h8l12");
    assert_eq!(captured(&eff), set(&["l12"]));
    assert!(p.piece_at(sq("i9")).is_some() && p.piece_at(sq("j10")).is_some());
}

#[test]
fn rules_5_6_rank_hierarchy_rook_bishop_vice_general() {
    // RG cannot jump a BG (equal rank), VG can jump RG and BG but not VG or GG.
    let cases: &[(engine::Piece, &str, engine::Piece, bool)] = &[
        (b(RookGeneral), "h9", b(BishopGeneral), false),
        (b(RookGeneral), "h9", w(RookGeneral), false),
        (b(RookGeneral), "h9", b(Queen), true),
        (b(RookGeneral), "h9", b(LionHawk), true),
        (b(BishopGeneral), "i9", b(RookGeneral), false),
        (b(ViceGeneral), "i9", b(RookGeneral), true),
        (b(ViceGeneral), "i9", w(BishopGeneral), true),
        (b(ViceGeneral), "i9", b(ViceGeneral), false),
        (b(ViceGeneral), "i9", w(GreatGeneral), false),
        (b(GreatGeneral), "h9", w(ViceGeneral), true),
        (b(GreatGeneral), "h9", b(GreatGeneral), false),
        (b(GreatGeneral), "h9", w(Prince), false),
        (b(GreatGeneral), "h9", b(Prince), false),
        // A promoted RG moves as a GG (rank 3); a promoted SE moves as an RG (rank 1).
        (promoted(RookGeneral, Black), "h9", b(ViceGeneral), true),
        (b(RookGeneral), "h9", promoted(SoaringEagle, Black), false),
        (b(GreatGeneral), "h9", promoted(SoaringEagle, White), true),
        (b(ViceGeneral), "i9", promoted(HornedFalcon, Black), true),
        (b(GreatGeneral), "h9", promoted(BishopGeneral, Black), true),
        (b(ViceGeneral), "i9", promoted(BishopGeneral, Black), false),
    ];
    for &(mover, at, obstacle, ok) in cases {
        // The target stands three squares behind the obstacle, out of the VG's area range.
        let t_sq = shift(sq(at), 3 * (sq(at).file() - 7), 3 * (sq(at).rank() - 7)).unwrap().cecp();
        let pos = setup(&[("h8", mover), (at, obstacle), (&t_sq, w(Pawn))], Black);
        let got = std_from(&pos, "h8");
        assert_eq!(got.contains(&format!("h8{t_sq}")), ok, "{mover:?} over {obstacle:?} to {t_sq}");
        assert_eq!(got, reference(&pos, sq("h8")).0, "{mover:?} over {obstacle:?}");
    }
}

#[test]
fn rules_5_6_jump_capture_of_equal_higher_and_royal_targets() {
    // Option A (default): any enemy, including a higher general and the King.
    for target in [w(GreatGeneral), w(ViceGeneral), w(RookGeneral), w(King), w(Prince)] {
        let mut pieces = vec![("h8", b(RookGeneral)), ("h9", b(Pawn)), ("h10", w(Pawn)), ("h12", target)];
        if target.kind() != King {
            pieces.push(("o15", w(King)));
        }
        let pos = setup(&pieces, Black);
        let got = std_from(&pos, "h8");
        assert!(got.contains("h8h12"), "{target:?}");
        assert!(got.contains("h8h10"));
    }
}

#[test]
fn rules_5_6_vice_general_area_through_empty_squares_only() {
    // A wall of friends in front: the area path must go round it within three steps.
    let pos = setup(&[("h8", b(ViceGeneral)), ("g9", b(Gold)), ("h9", b(Gold)), ("i9", b(Gold))], Black);
    let got = std_from(&pos, "h8");
    // g10 = g8-f9-g10, f10 = g8-f9-f10; f11 would need a 4th step.
    for m in ["h8g10", "h8i10", "h8f10", "h8j10", "h8f9", "h8j9"] {
        assert!(got.contains(m), "{m}");
    }
    for m in ["h8h10", "h8h11", "h8e11", "h8k11", "h8g11", "h8i11", "h8f11", "h8j11"] {
        assert!(!got.contains(m), "{m}");
    }
    assert_eq!(got, reference(&pos, sq("h8")).0);
}

#[test]
fn rules_4_area_move_stops_at_the_first_capture() {
    for k in [ViceGeneral, FireDemon] {
        let mut pieces = vec![("h8", b(k)), ("h9", w(Pawn))];
        for s in ["g7", "h7", "i7", "g8", "i8", "g9", "i9"] {
            pieces.push((s, b(Gold)));
        }
        let pos = setup(&pieces, Black);
        assert_eq!(std_from(&pos, "h8"), set(&["h8h9"]), "{k:?}");
        assert!(!all_moves(&pos, &Rules::standard()).contains("@@@@"), "{k:?}: no empty neighbour, no pass");
    }
}

#[test]
fn rules_4_area_move_return_is_a_pass_and_deduplicated() {
    for (k, n) in [(ViceGeneral, 65), (FireDemon, 74)] {
        let pos = setup(&[("h8", b(k))], Black);
        let all = all_moves(&pos, &Rules::standard());
        assert!(all.contains("@@@@"), "{k:?}");
        assert!(!all.contains("h8h8"));
        let got = std_from(&pos, "h8");
        assert_eq!(got.len(), n, "{k:?}: area squares and slides merged");
    }
}

#[test]
fn rules_5_7_fire_demon_slides_sideways_and_diagonally() {
    let pos = setup(&[("h8", b(FireDemon))], Black);
    let got = std_from(&pos, "h8");
    for m in ["h8a8", "h8p8", "h8a1", "h8p16", "h8a15", "h8o1", "h8h11", "h8h5"] {
        assert!(got.contains(m), "{m}");
    }
    for m in ["h8h12", "h8h16", "h8h4", "h8h1", "h8g12", "h8l9"] {
        assert!(!got.contains(m), "{m}");
    }
}
