//! RULES.md §6 (burning), §7.1 (suicide is legal) and the pass forms of §16.3.

mod common;
use common::*;
use engine::rules::FdVsFd;
use engine::{Kind::*, Rules};

// ---- §6.2 passive burn -----------------------------------------------------------------------

#[test]
fn rules_6_2_piece_ending_next_to_enemy_fire_demon_is_burned() {
    let t = std_table();
    let pos = setup(&[("h8", b(Gold)), ("h10", w(FireDemon)), ("c3", w(Pawn))], Black);
    // §7.1: the suicide is a legal move.
    assert!(std_from(&pos, "h8").contains("h8h9"));
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9");
    assert!(eff.mover_burned);
    assert_eq!(burned(&eff), set(&["h9"]));
    assert_eq!(p.piece_at(sq("h9")), None);
    assert_eq!(p.piece_at(sq("h10")), Some(w(FireDemon)), "the Fire Demon is unaffected");
    // A move that does not end next to it is not burned.
    let mut p = pos;
    let eff = play(&mut p, &t, "h8g8");
    assert!(!eff.mover_burned && eff.burned().count() == 0);
}

#[test]
fn rules_6_2_only_the_final_square_counts() {
    let t = std_table();
    // The Lion captures on g9 (next to the FiD on f10), then runs to h10: not burned.
    let pos = setup(&[("h8", b(Lion)), ("g9", w(Pawn)), ("f10", w(FireDemon))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8g9,g9h10");
    assert!(!eff.mover_burned);
    assert_eq!(p.piece_at(sq("h10")), Some(b(Lion)));
    // A Rook sliding past the FiD to a square not next to it is not burned.
    let pos = setup(&[("h1", b(Rook)), ("i8", w(FireDemon))], Black);
    let mut p = pos;
    assert!(!play(&mut p, &t, "h1h12").mover_burned);
    let mut p = pos;
    assert!(play(&mut p, &t, "h1h9").mover_burned);
}

#[test]
fn rules_6_2_lion_igui_next_to_enemy_fire_demon_is_burned() {
    let t = std_table();
    let pos = setup(&[("h8", b(Lion)), ("h9", w(Pawn)), ("i7", w(FireDemon))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9,h9h8");
    assert_eq!(captured(&eff), set(&["h9"]));
    assert!(eff.mover_burned, "igui ends on the origin, next to the FiD");
    assert_eq!(p.piece_at(sq("h8")), None);
    assert_eq!(p.piece_at(sq("h9")), None);
}

#[test]
fn rules_6_note_capturing_the_fire_demon_removes_its_burn() {
    let t = std_table();
    // First leg captures the FiD on h9, the Lion ends next to that square: not burned.
    let pos = setup(&[("h8", b(Lion)), ("h9", w(FireDemon))], Black);
    for m in ["h8h9,h9h10", "h8h9,h9h8", "h8h9,h9g9", "h8h9"] {
        let mut p = pos;
        let eff = play(&mut p, &t, m);
        assert!(!eff.mover_burned, "{m}");
        assert_eq!(captured(&eff), set(&["h9"]), "{m}");
    }
    // ... but a second surviving FiD next to the final square does burn it.
    let pos = setup(&[("h8", b(Lion)), ("h9", w(FireDemon)), ("g11", w(FireDemon))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9,h9h10");
    assert!(eff.mover_burned);
    assert_eq!(captured(&eff), set(&["h9"]));
    // Capturing the FiD on the destination square itself: not burned by it.
    let pos = setup(&[("h1", b(Rook)), ("h9", w(FireDemon))], Black);
    let mut p = pos;
    assert!(!play(&mut p, &t, "h1h9").mover_burned);
    // Double capture of two FiDs: nothing left to burn.
    let pos = setup(&[("h8", b(Lion)), ("h9", w(FireDemon)), ("h10", w(FireDemon))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9,h9h10");
    assert!(!eff.mover_burned);
    assert_eq!(captured(&eff), set(&["h9", "h10"]));
}

// ---- §6.3 active burn ------------------------------------------------------------------------

#[test]
fn rules_6_3_fire_demon_burns_adjacent_enemies_only() {
    let t = std_table();
    let pos = setup(
        &[
            ("h8", b(FireDemon)),
            ("g12", w(Pawn)),
            ("i12", w(Gold)),
            ("h12", b(Gold)),   // friend next to the destination: never burned
            ("h10", w(Silver)), // enemy next to the destination, not on the path
        ],
        Black,
    );
    // h11 is reached by the area move round h10 (h8-g9-g10-h11).
    assert!(std_from(&pos, "h8").contains("h8h11"));
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h11");
    assert!(captured(&eff).is_empty());
    assert!(!eff.mover_burned);
    assert_eq!(burned(&eff), set(&["g12", "i12", "h10"]));
    assert_eq!(p.piece_at(sq("h12")), Some(b(Gold)));
    assert_eq!(p.piece_at(sq("h11")), Some(b(FireDemon)));
}

#[test]
fn rules_6_3_fire_demon_capture_then_burn() {
    let t = std_table();
    let pos = setup(&[("h8", b(FireDemon)), ("k8", w(Gold)), ("l9", w(Pawn)), ("l7", w(Pawn)), ("j9", b(Pawn))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8k8");
    assert_eq!(captured(&eff), set(&["k8"]));
    assert_eq!(burned(&eff), set(&["l9", "l7"]));
    assert_eq!(p.piece_at(sq("j9")), Some(b(Pawn)));
}

#[test]
fn rules_6_3_intermediate_area_squares_do_not_burn() {
    let t = std_table();
    // Path h8-g9-f10-f11 passes next to e9 (and starts next to i9); only the final square's
    // neighbours burn.
    let pos = setup(&[("h8", b(FireDemon)), ("e9", w(Pawn)), ("i9", w(Pawn)), ("i12", w(Pawn))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8f11");
    assert!(captured(&eff).is_empty());
    assert!(burned(&eff).is_empty(), "{:?}", burned(&eff));
    // Ending on h11 burns i12 only.
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h11");
    assert_eq!(burned(&eff), set(&["i12"]));
}

#[test]
fn rules_6_3_fire_demon_pass_burns_and_is_written_as_its_square_twice() {
    let t = std_table();
    let pos = setup(&[("h8", b(FireDemon)), ("h9", w(Pawn)), ("g7", w(Gold)), ("i8", b(Gold))], Black);
    let all = all_moves_t(&pos, &t);
    assert!(all.contains("h8h8"));
    assert!(!all.contains("@@@@"), "the only passer changes the board: no neutral pass");
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h8");
    assert!(captured(&eff).is_empty());
    assert_eq!(burned(&eff), set(&["h9", "g7"]));
    assert_eq!(p.piece_at(sq("h8")), Some(b(FireDemon)));
    assert_eq!(p.piece_at(sq("i8")), Some(b(Gold)));
    // A FiD with no enemy neighbour passes neutrally.
    let pos = setup(&[("h8", b(FireDemon)), ("i8", b(Gold))], Black);
    let all = all_moves_t(&pos, &t);
    assert!(all.contains("@@@@") && !all.contains("h8h8"));
}

#[test]
fn rules_16_3_burned_passer_is_listed_per_piece_and_neutral_pass_once() {
    let t = std_table();
    // The Lion stands next to an enemy FiD: its pass is h8h8 (it is burned); the Free Eagle
    // on c3 passes neutrally: @@@@ once.
    let pos = setup(&[("h8", b(Lion)), ("i9", w(FireDemon)), ("c3", b(FreeEagle)), ("m3", b(HornedFalcon))], Black);
    let all = all_moves_t(&pos, &t);
    assert!(all.contains("h8h8"));
    assert!(all.contains("@@@@"));
    assert!(!all.contains("c3c3") && !all.contains("m3m3"));
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h8");
    assert!(eff.mover_burned);
    assert!(captured(&eff).is_empty());
    // An SE next to an enemy FiD with an empty forward diagonal: xNxN as well.
    let pos = setup(&[("h8", b(SoaringEagle)), ("h7", w(FireDemon))], Black);
    let all = all_moves_t(&pos, &t);
    assert!(all.contains("h8h8") && !all.contains("@@@@"));
    // No empty lion neighbour: no pass at all, even next to the FiD.
    let pos = setup(&[("h8", b(SoaringEagle)), ("h7", w(FireDemon)), ("g9", b(Gold)), ("i9", b(Gold))], Black);
    let all = all_moves_t(&pos, &t);
    assert!(!all.contains("h8h8") && !all.contains("@@@@"));
}

#[test]
fn rules_6_5_burned_royal_counts_as_captured() {
    let t = std_table();
    let pos = setup(&[("h8", b(FireDemon)), ("h10", w(King))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9");
    assert_eq!(burned(&eff), set(&["h10"]));
    assert_eq!(p.royal_count(White), 0);
    assert!(p.is_finished());
    assert!(engine::legal_moves(&p, &t).is_empty(), "§16.3: a finished position has no moves");
    // A King that steps next to an enemy FiD burns itself.
    let pos = setup(&[("h8", b(King)), ("h10", w(FireDemon))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h9");
    assert!(eff.mover_burned);
    assert_eq!(p.royal_count(Black), 0);
}

// ---- §6.2 / §12.7 Fire Demon next to an enemy Fire Demon --------------------------------------

fn fd_vs_fd_position() -> engine::Position {
    // Black FiD h8 moves to h10 (area move), next to White FiD h11 and White Pawns g11, i9.
    setup(&[("h8", b(FireDemon)), ("h11", w(FireDemon)), ("g11", w(Pawn)), ("i9", w(Pawn)), ("g9", b(Gold))], Black)
}

#[test]
fn rules_12_7_fd_vs_fd_default_mover_burned_burns_nothing() {
    let t = std_table();
    assert_eq!(t.rules.fd_vs_fd, FdVsFd::MoverBurned);
    let mut p = fd_vs_fd_position();
    let eff = play(&mut p, &t, "h8h10");
    assert!(eff.mover_burned);
    assert_eq!(burned(&eff), set(&["h10"]));
    for s in ["h11", "g11", "i9"] {
        assert!(p.piece_at(sq(s)).is_some(), "{s} survives");
    }
}

#[test]
fn rules_12_7_fd_vs_fd_mover_burns_others() {
    let t = table(&Rules { fd_vs_fd: FdVsFd::MoverBurnsOthers, ..Rules::standard() });
    let mut p = fd_vs_fd_position();
    let eff = play(&mut p, &t, "h8h10");
    assert!(eff.mover_burned);
    assert_eq!(burned(&eff), set(&["g11", "i9", "h10"]));
    assert_eq!(p.piece_at(sq("h11")), Some(w(FireDemon)), "the enemy FiD is not burned");
    assert_eq!(p.piece_at(sq("g9")), Some(b(Gold)));
}

#[test]
fn rules_12_7_fd_vs_fd_both_destroyed() {
    let t = table(&Rules { fd_vs_fd: FdVsFd::BothDestroyed, ..Rules::standard() });
    let mut p = fd_vs_fd_position();
    let eff = play(&mut p, &t, "h8h10");
    assert!(eff.mover_burned);
    assert_eq!(burned(&eff), set(&["h11", "h10"]));
    assert!(p.piece_at(sq("g11")).is_some() && p.piece_at(sq("i9")).is_some(), "nothing else burns");
    // Two enemy FiDs adjacent: both go.
    let pos = setup(&[("h8", b(FireDemon)), ("h11", w(FireDemon)), ("g11", w(FireDemon))], Black);
    let mut p = pos;
    let eff = play(&mut p, &t, "h8h10");
    assert_eq!(burned(&eff), set(&["h11", "g11", "h10"]));
}

#[test]
fn rules_12_7_fire_demon_pass_next_to_enemy_fire_demon() {
    // The FiD's own pass ends next to the enemy FiD: under the default it is burned, burns nothing.
    let pos = setup(&[("h8", b(FireDemon)), ("h9", w(FireDemon)), ("g7", w(Pawn))], Black);
    for (fd, want_burned) in [
        (FdVsFd::MoverBurned, set(&["h8"])),
        (FdVsFd::MoverBurnsOthers, set(&["g7", "h8"])),
        (FdVsFd::BothDestroyed, set(&["h9", "h8"])),
    ] {
        let t = table(&Rules { fd_vs_fd: fd, ..Rules::standard() });
        assert!(all_moves_t(&pos, &t).contains("h8h8"));
        let mut p = pos;
        let eff = play(&mut p, &t, "h8h8");
        assert!(eff.mover_burned, "{fd:?}");
        assert_eq!(burned(&eff), want_burned, "{fd:?}");
    }
}

// ---- §6.4 Water Buffalo promotion burn -------------------------------------------------------

fn wb_position() -> engine::Position {
    // WB h11 -> h12 enters the zone; White pieces on g13 and i12 are next to h12.
    setup(&[("h11", b(WaterBuffalo)), ("g13", w(Pawn)), ("i12", w(Gold)), ("g12", b(Pawn))], Black)
}

#[test]
fn rules_6_4_water_buffalo_promotion_burns_by_default() {
    let t = std_table();
    assert!(t.rules.wb_promotion_burns);
    let moves = std_from(&wb_position(), "h11");
    assert!(moves.contains("h11h12+") && moves.contains("h11h12"));
    let mut p = wb_position();
    let eff = play(&mut p, &t, "h11h12+");
    assert!(eff.promoted);
    assert_eq!(burned(&eff), set(&["g13", "i12"]));
    assert_eq!(p.piece_at(sq("h12")).unwrap().kind(), FireDemon);
    assert_eq!(p.piece_at(sq("g12")), Some(b(Pawn)));
    // Declining: a Water Buffalo burns nothing.
    let mut p = wb_position();
    let eff = play(&mut p, &t, "h11h12");
    assert!(burned(&eff).is_empty());
}

#[test]
fn rules_6_4_water_buffalo_promotion_burn_off() {
    let t = table(&Rules { wb_promotion_burns: false, ..Rules::standard() });
    let mut p = wb_position();
    let eff = play(&mut p, &t, "h11h12+");
    assert!(eff.promoted);
    assert!(burned(&eff).is_empty());
    assert_eq!(p.piece_at(sq("h12")).unwrap().kind(), FireDemon);
    // The new FiD burns from its next move on (here: its pass next to the enemies).
    p.set_side_to_move(Black);
    let eff = play(&mut p, &t, "h12h12");
    assert_eq!(burned(&eff), set(&["g13", "i12"]));
}

#[test]
fn rules_6_4_water_buffalo_promoting_next_to_enemy_fire_demon() {
    let pos = setup(&[("h11", b(WaterBuffalo)), ("h13", w(FireDemon)), ("i12", w(Gold))], Black);
    // Default: the new FiD is burned and burns nothing.
    let t = std_table();
    let mut p = pos;
    let eff = play(&mut p, &t, "h11h12+");
    assert!(eff.mover_burned);
    assert_eq!(burned(&eff), set(&["h12"]));
    assert!(p.piece_at(sq("h13")).is_some() && p.piece_at(sq("i12")).is_some());
    // §13 reading of `both destroyed`: the WB is burned first, as a WB; the FiD survives.
    let t = table(&Rules { fd_vs_fd: FdVsFd::BothDestroyed, ..Rules::standard() });
    let mut p = pos;
    let eff = play(&mut p, &t, "h11h12+");
    assert!(eff.mover_burned);
    assert_eq!(burned(&eff), set(&["h12"]));
    assert_eq!(p.piece_at(sq("h13")), Some(w(FireDemon)));
    // `mover burns others`: the promotion burn happens (default on), then the mover burns.
    let t = table(&Rules { fd_vs_fd: FdVsFd::MoverBurnsOthers, ..Rules::standard() });
    let mut p = pos;
    let eff = play(&mut p, &t, "h11h12+");
    assert_eq!(burned(&eff), set(&["i12", "h12"]));
    assert_eq!(p.piece_at(sq("h13")), Some(w(FireDemon)));
    // ... unless promotion burns are off.
    let t = table(&Rules { fd_vs_fd: FdVsFd::MoverBurnsOthers, wb_promotion_burns: false, ..Rules::standard() });
    let mut p = pos;
    let eff = play(&mut p, &t, "h11h12+");
    assert_eq!(burned(&eff), set(&["h12"]));
}

// ---- §6 symmetry -----------------------------------------------------------------------------

#[test]
fn rules_6_white_fire_demon_burns_black() {
    let t = std_table();
    let pos = mirror(&setup(
        &[("h8", b(FireDemon)), ("k8", w(Gold)), ("l9", w(Pawn)), ("l7", w(Pawn)), ("j9", b(Pawn))],
        Black,
    ));
    let mut p = pos;
    let eff = play(&mut p, &t, &rot_move("h8k8"));
    assert_eq!(captured(&eff), set(&[&rot_sq("k8")]));
    assert_eq!(burned(&eff), set(&[&rot_sq("l9"), &rot_sq("l7")]));
}

// ---- §6 on crowded boards: the engine's play against the rule text ---------------------------

#[test]
fn rules_6_every_move_burns_as_the_rule_text_says_on_crowded_boards() {
    let variants = [
        Rules::standard(),
        Rules { fd_vs_fd: FdVsFd::MoverBurnsOthers, ..Rules::standard() },
        Rules { fd_vs_fd: FdVsFd::BothDestroyed, ..Rules::standard() },
        Rules { wb_promotion_burns: false, ..Rules::standard() },
        Rules { fd_vs_fd: FdVsFd::MoverBurnsOthers, wb_promotion_burns: false, ..Rules::standard() },
        Rules::house(),
    ];
    for r in &variants {
        let t = table(r);
        for seed in 0..12 {
            // Many Fire Demons and Water Buffaloes so that burns happen often.
            let mut pos = crowded(1000 + seed, 25);
            let mut rng = Lcg(seed);
            for _ in 0..14 {
                let s = engine::Square::from_index(rng.below(256) as usize);
                if pos.piece_at(s).is_some_and(|p| p.kind().is_royal()) {
                    continue;
                }
                let k = if rng.below(3) == 0 { WaterBuffalo } else { FireDemon };
                pos.put(s, if rng.below(2) == 0 { b(k) } else { w(k) });
            }
            for stm in [Black, White] {
                pos.set_side_to_move(stm);
                compare_play_with_reference(&pos, &t);
            }
        }
    }
}
