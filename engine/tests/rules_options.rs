//! Every rule flag of RULES.md §15 / option of §12, each both ways (the default and every
//! alternative), showing the move-set difference; and the §13 readings used by the `house`
//! preset. (The repetition options of §12.9 are exercised in `rules_repetition.rs`.)

mod common;
use common::*;
use engine::rules::*;
use engine::rules::{FreeEagle, HeavenlyTetrarch, LionHawk};
use engine::{DrawReason, Game, Outcome, WinReason};
use engine::{Kind::*, MoveTable, Rules};
use std::collections::BTreeSet;
use std::sync::Arc;

fn diff(a: &BTreeSet<String>, b: &BTreeSet<String>) -> BTreeSet<String> {
    a.difference(b).cloned().collect()
}

fn texts_to(from: &str, squares: &[&str]) -> BTreeSet<String> {
    squares.iter().map(|s| format!("{from}{s}")).collect()
}

// ---- §12.6 fire_demon_orthogonal -----------------------------------------------------------------

#[test]
fn rules_12_6_fire_demon_orthogonal_sideways_vs_vertical() {
    let pos = setup(&[("h8", b(FireDemon))], Black);
    let side = moves_from(&pos, &Rules::standard(), "h8");
    let vert_rules = Rules { fire_demon_orthogonal: FireDemonOrthogonal::Vertical, ..Rules::standard() };
    let vert = moves_from(&pos, &vert_rules, "h8");
    // Within three squares the area move covers both; beyond it only the slide axis differs.
    assert_eq!(diff(&side, &vert), texts_to("h8", &["a8", "b8", "c8", "d8", "l8", "m8", "n8", "o8", "p8"]));
    assert_eq!(diff(&vert, &side), texts_to("h8", &["h1", "h2", "h3", "h4", "h12", "h13", "h14", "h15", "h16"]));
    assert_eq!(Rules::hachu().fire_demon_orthogonal, FireDemonOrthogonal::Vertical);
}

// ---- §12.2 / §12.3 area moves ------------------------------------------------------------------

#[test]
fn rules_12_3_fire_demon_area_stop_on_capture_vs_none() {
    let pos = setup(&[("h8", b(FireDemon)), ("h9", w(Pawn))], Black);
    let with = moves_from(&pos, &Rules::standard(), "h8");
    let none_rules = Rules { fire_demon_area: AreaMove::None, ..Rules::standard() };
    let without = moves_from(&pos, &none_rules, "h8");
    // Without the area move: diagonal and sideways slides only, no pass.
    assert_eq!(dests(&without).len(), 29 + 15);
    assert!(!without.contains("h8h9") && !without.contains("h8h10") && !without.contains("h8g10"));
    assert!(with.contains("h8h9") && with.contains("h8h10") && with.contains("h8g10") && with.contains("h8h11"));
    assert!(without.is_subset(&with));
    // With the area move the FiD passes; next to the enemy Pawn that pass burns it: h8h8.
    let all = all_moves(&pos, &Rules::standard());
    assert!(all.contains("h8h8") && !all.contains("@@@@"));
    let all = all_moves(&pos, &none_rules);
    assert!(!all.contains("@@@@") && !all.contains("h8h8"), "no area move, no pass");
}

#[test]
fn rules_12_2_vice_general_area_stop_on_capture_vs_none() {
    let pos = setup(&[("h8", b(ViceGeneral))], Black);
    let with = moves_from(&pos, &Rules::standard(), "h8");
    let none_rules = Rules { vice_general_area: AreaMove::None, ..Rules::standard() };
    let without = moves_from(&pos, &none_rules, "h8");
    assert_eq!(with.len(), 65);
    assert_eq!(without.len(), 29, "a Bishop-range jumper only");
    assert!(has_null_pass(&pos, &Rules::standard()));
    assert!(!has_null_pass(&pos, &none_rules));
}

#[test]
fn rules_13_lion_like_area_captures_up_to_three_one_leg_per_capture() {
    let house = Rules::house();
    assert_eq!(house.vice_general_area, AreaMove::LionLike);
    assert_eq!(house.fire_demon_area, AreaMove::LionLike);
    for k in [ViceGeneral, FireDemon] {
        let lion_like =
            Rules { vice_general_area: AreaMove::LionLike, fire_demon_area: AreaMove::LionLike, ..Rules::standard() };
        // Two enemies side by side in front.
        let pos = setup(&[("h8", b(k)), ("g9", w(Pawn)), ("h9", w(Pawn))], Black);
        let got = moves_from(&pos, &lion_like, "h8");
        for m in [
            "h8g9,g9h9,h9h8", // §16.3's example: captures g9 and h9, returns home
            "h8h9,h9g9,g9h8", // the other order is another move
            "h8g9,g9h9",
            "h8h9,h9g9",
            "h8g9,g9h8", // igui-like
            "h8h9,h9h8",
            "h8g9,g9h9,h9h10",
            "h8g9,g9g10",
            "h8g9",
            "h8h9",
            "h8h10", // jumps h9 without capturing it
            "h8h11",
        ] {
            assert!(got.contains(m), "{k:?}: {m}");
        }
        // Never more than three steps.
        assert!(!got.contains("h8h12") && !got.iter().any(|m| m.matches(',').count() > 2));
        // The default area move gives none of the multi-capture moves.
        let std = moves_from(&pos, &Rules::standard(), "h8");
        assert!(std.iter().all(|m| !m.contains(',')), "{k:?}: {std:?}");
        assert!(std.contains("h8h10"), "round the enemies through empty squares");
        // Three captures in a line.
        let pos = setup(&[("h8", b(k)), ("h9", w(Pawn)), ("h10", w(Pawn)), ("h11", w(Gold))], Black);
        let got = moves_from(&pos, &lion_like, "h8");
        for m in ["h8h9,h9h10,h10h11", "h8h9,h9h10", "h8h9,h9h10,h10h9", "h8h10,h10h11", "h8h11", "h8h9,h9h11"] {
            assert!(got.contains(m), "{k:?}: {m}");
        }
        let t = table(&lion_like);
        let mut p = pos;
        let eff = play(&mut p, &t, "h8h9,h9h10,h10h11");
        assert_eq!(captured(&eff), set(&["h9", "h10", "h11"]));
        let mut p = pos;
        let eff = play(&mut p, &t, "h8h10,h10h11");
        assert_eq!(captured(&eff), set(&["h10", "h11"]), "h9 was jumped, not captured");
        assert!(p.piece_at(sq("h9")).is_some());
    }
}

#[test]
fn rules_13_lion_like_area_jumps_friends_and_needs_an_empty_neighbour_to_pass() {
    let ring = ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"];
    let mut pieces = vec![("h8", b(ViceGeneral))];
    for s in ring {
        pieces.push((s, b(Gold)));
    }
    let pos = setup(&pieces, Black);
    let house = Rules::house();
    let got = moves_from(&pos, &house, "h8");
    // Every empty square within three king steps is reachable by jumping the friends.
    for df in -3i32..=3 {
        for dr in -3i32..=3 {
            if df.abs().max(dr.abs()) >= 2 {
                let s = shift(sq("h8"), df, dr).unwrap().cecp();
                assert!(got.contains(&format!("h8{s}")), "{s}");
            }
        }
    }
    assert!(ring.iter().all(|s| !got.contains(&format!("h8{s}"))));
    assert!(!all_moves(&pos, &house).contains("@@@@"), "no empty neighbour: no pass");
    // Default: the VG is stuck (area through empty squares only; jumps capture only).
    assert!(moves_from(&pos, &Rules::standard(), "h8").is_empty());
    // Surrounded by enemies: capture-and-return moves, but no pass.
    let mut pieces = vec![("h8", b(FireDemon))];
    for s in ring {
        pieces.push((s, w(Gold)));
    }
    let pos = setup(&pieces, Black);
    let all = all_moves(&pos, &house);
    assert!(all.contains("h8g9,g9h8") && all.contains("h8g9,g9h9,h9h8"));
    assert!(!all.contains("@@@@") && !all.contains("h8h8"));
}

// ---- §12.7 fd_vs_fd, §6.4 wb_promotion_burns (details in rules_burning.rs) ----------------------

#[test]
fn rules_12_7_fd_vs_fd_each_option() {
    let pos = setup(&[("h8", b(FireDemon)), ("h11", w(FireDemon)), ("g11", w(Pawn))], Black);
    for (fd, gone) in [
        (FdVsFd::MoverBurned, set(&["h10"])),
        (FdVsFd::MoverBurnsOthers, set(&["h10", "g11"])),
        (FdVsFd::BothDestroyed, set(&["h10", "h11"])),
    ] {
        let t = table(&Rules { fd_vs_fd: fd, ..Rules::standard() });
        let mut p = pos;
        let eff = play(&mut p, &t, "h8h10");
        assert_eq!(burned(&eff), gone, "{fd:?}");
    }
    assert_eq!(Rules::house().fd_vs_fd, FdVsFd::BothDestroyed);
}

#[test]
fn rules_12_8_wb_promotion_burns_on_and_off() {
    let pos = setup(&[("h11", b(WaterBuffalo)), ("i13", w(Pawn))], Black);
    for (on, gone) in [(true, set(&["i13"])), (false, set(&[]))] {
        let t = table(&Rules { wb_promotion_burns: on, ..Rules::standard() });
        let mut p = pos;
        let eff = play(&mut p, &t, "h11h12+");
        assert_eq!(burned(&eff), gone, "wb_promotion_burns = {on}");
    }
    assert!(!Rules::hachu().wb_promotion_burns);
}

// ---- §12.1 range jumpers ---------------------------------------------------------------------

/// Rook General on h8 (jump power 1), own Pawn on h9, `target` on h11; and `target` again on
/// g8... no: a second copy directly next to it on i8 for the direct capture.
fn rg_targets(jc: JumpCapture, target: engine::Piece) -> (bool, bool) {
    let mut pieces = vec![("h8", b(RookGeneral)), ("h9", b(Pawn)), ("h11", target), ("i8", target)];
    if target.kind() == King {
        pieces.push(("o15", w(Prince))); // a second royal so that the White King is not "the" King slot
    }
    let pos = setup(&pieces, Black);
    let got = moves_from(&pos, &Rules { jump_capture_targets: jc, ..Rules::standard() }, "h8");
    (got.contains("h8h11"), got.contains("h8i8"))
}

#[test]
fn rules_12_1_jump_capture_targets_each_option() {
    use JumpCapture::*;
    // (option, target) -> (jump capture allowed, direct capture allowed)
    let targets = [w(Pawn), w(BishopGeneral), w(GreatGeneral), w(King), w(Prince)];
    let table_: &[(JumpCapture, [(bool, bool); 5])] = &[
        (Any, [(true, true), (true, true), (true, true), (true, true), (true, true)]),
        (NoRoyals, [(true, true), (true, true), (true, true), (false, true), (false, true)]),
        (LowerOnly, [(true, true), (false, true), (false, true), (false, true), (false, true)]),
        (LowerOnlyEvenDirect, [(true, true), (false, false), (false, false), (false, false), (false, false)]),
        (NotHigherNoRoyals, [(true, true), (true, true), (false, true), (false, true), (false, true)]),
    ];
    for (jc, want) in table_ {
        for (i, &t) in targets.iter().enumerate() {
            assert_eq!(rg_targets(*jc, t), want[i], "{jc:?} vs {t:?}");
        }
    }
    assert_eq!(Rules::standard().jump_capture_targets, Any);
    assert_eq!(Rules::hachu().jump_capture_targets, LowerOnly);
}

#[test]
fn rules_12_1_jump_over_lower_rank_vs_enemy_lower_friend_any() {
    let friend_any = Rules { jump_over: JumpOver::EnemyLowerFriendAny, ..Rules::standard() };
    // (obstacle on h9, can the GG on h8 capture the Pawn on h11 under each option)
    let cases = [
        (b(GreatGeneral), false, true),
        (b(ViceGeneral), true, true),
        (w(GreatGeneral), false, false),
        (w(ViceGeneral), true, true),
        (b(King), false, false),
        (b(Prince), false, false),
        (w(Prince), false, false),
    ];
    for (ob, std_ok, house_ok) in cases {
        let mut pieces = vec![("h8", b(GreatGeneral)), ("h9", ob), ("h11", w(Pawn))];
        if ob.kind() == King {
            pieces.push(("c3", b(Prince)));
        }
        let pos = setup(&pieces, Black);
        assert_eq!(moves_from(&pos, &Rules::standard(), "h8").contains("h8h11"), std_ok, "{ob:?} default");
        assert_eq!(moves_from(&pos, &friend_any, "h8").contains("h8h11"), house_ok, "{ob:?} friend-any");
    }
}

#[test]
fn rules_12_1_jump_on_noncapture_off_and_on() {
    let pos = setup(&[("h8", b(GreatGeneral)), ("h9", b(Pawn)), ("h12", w(GreatGeneral)), ("h14", w(Pawn))], Black);
    let off = moves_from(&pos, &Rules::standard(), "h8");
    let on = moves_from(&pos, &Rules { jump_on_noncapture: true, ..Rules::standard() }, "h8");
    assert_eq!(diff(&on, &off), texts_to("h8", &["h10", "h11"]), "non-capturing jumps up to the unjumpable GG");
    assert!(off.contains("h8h12") && on.contains("h8h12"));
    assert!(!on.contains("h8h13") && !on.contains("h8h14"));
}

#[test]
fn rules_13_rook_general_outranks_bishop_general_off_and_on() {
    let on = Rules { rook_general_outranks_bishop_general: true, ..Rules::standard() };
    // RG over a BG.
    let pos = setup(&[("h8", b(RookGeneral)), ("h9", w(BishopGeneral)), ("h11", w(Pawn))], Black);
    assert!(!moves_from(&pos, &Rules::standard(), "h8").contains("h8h11"));
    assert!(moves_from(&pos, &on, "h8").contains("h8h11"));
    // BG over an RG: never.
    let pos = setup(&[("h8", b(BishopGeneral)), ("i9", w(RookGeneral)), ("k11", w(Pawn))], Black);
    assert!(!moves_from(&pos, &Rules::standard(), "h8").contains("h8k11"));
    assert!(!moves_from(&pos, &on, "h8").contains("h8k11"));
    // VG over an RG, GG over a VG, nobody over a King: unchanged.
    let pos = setup(&[("h8", b(ViceGeneral)), ("i9", w(RookGeneral)), ("k11", w(Pawn))], Black);
    assert!(moves_from(&pos, &on, "h8").contains("h8k11"));
    let pos = setup(&[("h8", b(GreatGeneral)), ("h9", w(ViceGeneral)), ("h11", w(Pawn))], Black);
    assert!(moves_from(&pos, &on, "h8").contains("h8h11"));
    let pos = setup(&[("h8", b(GreatGeneral)), ("h9", w(King)), ("h11", w(Pawn))], Black);
    assert!(!moves_from(&pos, &on, "h8").contains("h8h11"));
}

#[test]
fn rules_13_house_range_jumpers() {
    let house = Rules::house();
    // §13's example: on move 1 the Rook General takes the enemy Rook General (jumping its own
    // and the enemy Pawn) but not the Fire Demon behind it; it also jumps to empty squares.
    let pos = engine::Position::start();
    let got = moves_from(&pos, &house, "g4");
    let mut want = texts_to("g4", &["g6", "g7", "g8", "g9", "g10", "g11", "g12", "g13"]);
    want.insert("g4g12+".into());
    want.insert("g4g13+".into());
    assert_eq!(got, want);
    assert_eq!(moves_from(&pos, &Rules::standard(), "g4"), set(&["g4g12", "g4g12+", "g4g13", "g4g13+"]));
    // Friendly pieces of any rank are jumped, never a King or Prince.
    for (ob, ok) in [(b(GreatGeneral), true), (b(King), false), (b(Prince), false)] {
        let mut pieces = vec![("h8", b(RookGeneral)), ("h9", ob)];
        if ob.kind() == King {
            pieces.push(("c3", b(Prince)));
        }
        let pos = setup(&pieces, Black);
        assert_eq!(moves_from(&pos, &house, "h8").contains("h8h10"), ok, "{ob:?}");
    }
    // Enemy of higher rank: captured directly, never jumped or jump-captured.
    let pos = setup(&[("h8", b(RookGeneral)), ("h9", w(ViceGeneral)), ("h12", w(Pawn))], Black);
    let got = moves_from(&pos, &house, "h8");
    assert!(got.contains("h8h9") && !got.contains("h8h10") && !got.contains("h8h12"));
    // Jump captures: lower and equal yes, higher and royals no; a direct hit on the King yes.
    for (tg, ok) in [(w(BishopGeneral), true), (w(RookGeneral), true), (w(ViceGeneral), false), (w(Prince), false)] {
        let pos = setup(&[("h8", b(RookGeneral)), ("h9", b(Pawn)), ("h11", tg)], Black);
        assert_eq!(moves_from(&pos, &house, "h8").contains("h8h11"), ok, "{tg:?}");
    }
    let pos = setup(&[("h8", b(RookGeneral)), ("h9", b(Pawn)), ("h11", w(King))], Black);
    assert!(!moves_from(&pos, &house, "h8").contains("h8h11"), "no check through a jump");
    let pos = setup(&[("h8", b(RookGeneral)), ("h9", w(King))], Black);
    assert!(moves_from(&pos, &house, "h8").contains("h8h9"));
    // RG > BG: the RG jumps an enemy BG; the BG cannot jump an enemy RG.
    let pos = setup(&[("h8", b(RookGeneral)), ("h9", w(BishopGeneral)), ("h11", w(Pawn))], Black);
    let got = moves_from(&pos, &house, "h8");
    assert!(got.contains("h8h9") && got.contains("h8h10") && got.contains("h8h11"));
    let pos = setup(&[("h8", b(BishopGeneral)), ("i9", w(RookGeneral)), ("k11", w(Pawn))], Black);
    let got = moves_from(&pos, &house, "h8");
    assert!(got.contains("h8i9") && !got.contains("h8j10") && !got.contains("h8k11"));
}

// ---- §12.5 free_eagle ------------------------------------------------------------------------

#[test]
fn rules_12_5_free_eagle_every_option() {
    use FreeEagle::*;
    let fe = |v: FreeEagle| Rules { free_eagle: v, ..Rules::standard() };
    // (a) friends on h9 and g9: the orthogonal jump to h10 and the diagonal one to f10.
    let pos_a = setup(&[("h8", b(engine::Kind::FreeEagle)), ("h9", b(Gold)), ("g9", b(Gold))], Black);
    // (b) an enemy on g9: capture, then a second step.
    let pos_b = setup(&[("h8", b(engine::Kind::FreeEagle)), ("g9", w(Pawn))], Black);
    // (c) an enemy far behind a friend on the file, and on a diagonal.
    let pos_c = setup(
        &[("h8", b(engine::Kind::FreeEagle)), ("h9", b(Gold)), ("h12", w(Pawn)), ("g9", b(Gold)), ("e11", w(Pawn))],
        Black,
    );
    let two_leg =
        |s: &BTreeSet<String>| -> BTreeSet<String> { s.iter().filter(|m| m.contains(',')).cloned().collect() };
    let diag4 = set(&["h8g9,g9h8", "h8g9,g9f10", "h8g9,g9h10", "h8g9,g9f8"]);
    let all8 = set(&[
        "h8g9,g9h8",
        "h8g9,g9f10",
        "h8g9,g9h10",
        "h8g9,g9f8",
        "h8g9,g9g10",
        "h8g9,g9f9",
        "h8g9,g9g8",
        "h8g9,g9h9",
    ]);
    // option, h10 in (a), f10 in (a), two-leg set in (b), h12 in (c), e11 in (c), can pass
    type Case = (FreeEagle, bool, bool, BTreeSet<String>, bool, bool);
    let cases: &[Case] = &[
        (Standard, true, true, diag4.clone(), false, false),
        (AnySecondStep, true, true, all8, false, false),
        (QueenDabbaba, true, false, set(&[]), false, false),
        (QueenRangeJump, false, false, set(&[]), true, false),
        (FerzTwice, true, false, set(&[]), false, false),
        (DiagonalLion, false, true, diag4, false, false),
        (Queen, false, false, set(&[]), false, false),
    ];
    for (v, h10, f10, tl, h12, e11) in cases.iter().cloned() {
        let r = fe(v);
        let a = moves_from(&pos_a, &r, "h8");
        assert_eq!(a.contains("h8h10"), h10, "{v:?} h10");
        assert_eq!(a.contains("h8f10"), f10, "{v:?} f10");
        assert!(!a.contains("h8h11") && !a.contains("h8e11"));
        assert_eq!(two_leg(&moves_from(&pos_b, &r, "h8")), tl, "{v:?} second steps");
        let c = moves_from(&pos_c, &r, "h8");
        assert_eq!(c.contains("h8h12"), h12, "{v:?} h12");
        assert_eq!(c.contains("h8e11"), e11, "{v:?} e11");
        // Pass: only the readings with diagonal lion power (§7.3: an empty diagonal neighbour).
        let alone = setup(&[("h8", b(engine::Kind::FreeEagle))], Black);
        let passes = matches!(v, Standard | AnySecondStep | DiagonalLion);
        assert_eq!(has_null_pass(&alone, &r), passes, "{v:?} pass");
        // Every reading keeps the Queen slides.
        assert!(moves_from(&alone, &r, "h8").is_superset(
            &moves_from(&setup(&[("h8", b(engine::Kind::Queen))], Black), &r, "h8")
                .into_iter()
                .filter(|m| !m.ends_with('+'))
                .collect()
        ));
    }
    // FerzTwice reaches the orthogonal distance-2 squares only through an empty diagonal square.
    let mut pieces = vec![("h8", b(engine::Kind::FreeEagle)), ("h9", b(Gold))];
    pieces.extend([("g9", b(Gold)), ("i9", b(Gold))]);
    let pos = setup(&pieces, Black);
    assert!(!moves_from(&pos, &fe(FerzTwice), "h8").contains("h8h10"));
    assert!(moves_from(&pos, &fe(Standard), "h8").contains("h8h10"));
    assert_eq!(Rules::house().free_eagle, DiagonalLion);
    assert_eq!(Rules::hachu().free_eagle, Queen);
}

// ---- §12.10 heavenly_tetrarch, ht_can_pass --------------------------------------------------------

#[test]
fn rules_12_10_heavenly_tetrarch_every_option() {
    use HeavenlyTetrarch::*;
    let pos = setup(&[("h8", b(engine::Kind::HeavenlyTetrarch)), ("h9", w(Pawn))], Black);
    let cs_pos = setup(&[("h8", b(engine::Kind::ChariotSoldier)), ("h9", w(Pawn))], Black);
    let cs_moves: BTreeSet<String> = std_from(&cs_pos, "h8").into_iter().filter(|m| !m.ends_with('+')).collect();
    let ht = |v: HeavenlyTetrarch| moves_from(&pos, &Rules { heavenly_tetrarch: v, ..Rules::standard() }, "h8");
    let std = ht(Standard);
    assert!(
        std.contains("h8h9,h9h8")
            && std.contains("h8h10")
            && std.contains("h8f8")
            && std.contains("h8e8")
            && std.contains("h8f10")
    );
    assert!(!std.contains("h8h9") && !std.contains("h8g9") && !std.contains("h8d8"));
    let no_side = ht(NoSideways);
    assert_eq!(diff(&std, &no_side), texts_to("h8", &["f8", "e8", "j8", "k8"]));
    let no_orth = ht(NoOrthogonal);
    let mut orth = texts_to("h8", &["f8", "e8", "j8", "k8", "h1", "h2", "h3", "h4", "h5", "h6"]);
    orth.extend(texts_to("h8", &["h10", "h11", "h12", "h13", "h14", "h15", "h16"]));
    assert_eq!(diff(&std, &no_orth), orth);
    assert!(no_orth.contains("h8h9,h9h8"));
    assert_eq!(diff(&std, &ht(NoIgui)), set(&["h8h9,h9h8"]));
    assert_eq!(ht(ChariotSoldier), cs_moves);
    assert_eq!(ht(ChariotSoldierFreezing), cs_moves);
    assert_eq!(Rules::hachu().heavenly_tetrarch, ChariotSoldier);
}

#[test]
fn rules_13_heavenly_tetrarch_freezes_adjacent_enemies() {
    let house = Rules::house();
    assert_eq!(house.heavenly_tetrarch, HeavenlyTetrarch::ChariotSoldierFreezing);
    // A White Lion next to the Black Tetrarch makes no move at all (no igui, no pass).
    let pos =
        setup(&[("h8", b(engine::Kind::HeavenlyTetrarch)), ("h9", w(Lion)), ("g8", b(Gold)), ("c12", w(Gold))], White);
    let all = all_moves(&pos, &house);
    assert!(all.iter().all(|m| !m.starts_with("h9")), "{all:?}");
    assert!(!all.contains("@@@@"));
    assert!(all.iter().any(|m| m.starts_with("c12")), "pieces not next to it move");
    // Default rules: the Lion moves (and may even igui the Tetrarch).
    let all = all_moves(&pos, &Rules::standard());
    assert!(all.contains("h9h8,h8h9") && all.contains("@@@@"));
    // Friends next to it are not frozen.
    let mut p = pos;
    p.set_side_to_move(Black);
    assert!(!moves_from(&p, &house, "g8").is_empty());
    // Two opposing Tetrarchs side by side freeze each other.
    let pos = setup(&[("h8", b(engine::Kind::HeavenlyTetrarch)), ("h9", w(engine::Kind::HeavenlyTetrarch))], Black);
    assert!(moves_from(&pos, &house, "h8").is_empty());
    let mut p = pos;
    p.set_side_to_move(White);
    assert!(moves_from(&p, &house, "h9").is_empty());
    assert!(!moves_from(&pos, &Rules::standard(), "h8").is_empty());
    // A frozen Fire Demon still burns passively.
    let pos = setup(&[("h8", b(engine::Kind::HeavenlyTetrarch)), ("i9", w(FireDemon)), ("j11", b(Gold))], Black);
    let t = table(&house);
    let mut p = pos;
    let eff = play(&mut p, &t, "j11j10");
    assert!(eff.mover_burned);
    p.set_side_to_move(White);
    assert!(moves_from_t(&p, &t, "i9").is_empty());
}

#[test]
fn rules_5_5_ht_can_pass_off_and_on() {
    let on = Rules { ht_can_pass: true, ..Rules::standard() };
    let pos = setup(&[("h8", b(engine::Kind::HeavenlyTetrarch))], Black);
    assert!(!has_null_pass(&pos, &Rules::standard()));
    assert!(has_null_pass(&pos, &on));
    // Next to an enemy FiD the pass burns the Tetrarch: written h8h8.
    let pos = setup(&[("h8", b(engine::Kind::HeavenlyTetrarch)), ("h9", w(FireDemon))], Black);
    assert!(all_moves(&pos, &on).contains("h8h8"));
    assert!(!all_moves(&pos, &Rules::standard()).contains("h8h8"));
    // No empty neighbour: no pass even when allowed.
    let ring = ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"];
    let mut pieces = vec![("h8", b(engine::Kind::HeavenlyTetrarch))];
    for s in ring {
        pieces.push((s, b(Gold)));
    }
    assert!(!has_null_pass(&setup(&pieces, Black), &on));
}

// ---- §12.4 lion_hawk ----------------------------------------------------------------------------

#[test]
fn rules_12_4_lion_hawk_lion_bishop_vs_bishop_area2() {
    let tsa = Rules { lion_hawk: LionHawk::BishopArea2, ..Rules::standard() };
    // Surrounded by friends: the Lion jumps out, the two-step area move cannot.
    let ring = ["g7", "h7", "i7", "g8", "i8", "g9", "h9", "i9"];
    let mut pieces = vec![("h8", b(engine::Kind::LionHawk))];
    for s in ring {
        pieces.push((s, b(Gold)));
    }
    let pos = setup(&pieces, Black);
    assert_eq!(moves_from(&pos, &Rules::standard(), "h8").len(), 16);
    assert!(moves_from(&pos, &tsa, "h8").is_empty());
    // An enemy next to it: lion double moves only in the default.
    let pos = setup(&[("h8", b(engine::Kind::LionHawk)), ("h9", w(Pawn))], Black);
    let std = moves_from(&pos, &Rules::standard(), "h8");
    let alt = moves_from(&pos, &tsa, "h8");
    assert!(std.contains("h8h9,h9h8") && std.contains("h8h9,h9h10"));
    assert!(alt.iter().all(|m| !m.contains(',')));
    assert!(alt.contains("h8h9") && alt.contains("h8h10") && alt.contains("h8l12"));
    assert!(!alt.contains("h8h11"));
    // Both readings pass (area path out and back).
    assert!(has_null_pass(&setup(&[("h8", b(engine::Kind::LionHawk))], Black), &tsa));
}

// ---- §12.8 last_rank_rule, offer_useless_deferral (details in rules_promotion.rs) ---------------

#[test]
fn rules_12_8_last_rank_rule_each_option() {
    let pos = setup(&[("h15", b(Pawn)), ("g14", b(Knight))], Black);
    for (lr, pawn, knight) in [
        (LastRankRule::ForcedWhenEligible, set(&["h15h16"]), set(&["g14f16", "g14h16"])),
        (LastRankRule::SecondChance, set(&["h15h16+"]), set(&["g14f16+", "g14h16+"])),
        (LastRankRule::None, set(&["h15h16"]), set(&["g14f16", "g14h16"])),
    ] {
        let r = Rules { last_rank_rule: lr, ..Rules::standard() };
        assert_eq!(moves_from(&pos, &r, "h15"), pawn, "{lr:?}");
        assert_eq!(moves_from(&pos, &r, "g14"), knight, "{lr:?}");
    }
    // With a capture the difference between forced and none shows.
    let pos = setup(&[("h15", b(Pawn)), ("h16", w(Gold))], Black);
    let forced = moves_from(&pos, &Rules::standard(), "h15");
    let none = moves_from(&pos, &Rules { last_rank_rule: LastRankRule::None, ..Rules::standard() }, "h15");
    assert_eq!(forced, set(&["h15h16+"]));
    assert_eq!(none, set(&["h15h16+", "h15h16"]));
}

#[test]
fn rules_12_8_offer_useless_deferral_on_and_off() {
    let pos = setup(&[("h11", b(Lion)), ("h12", w(Pawn))], Black);
    let on = moves_from(&pos, &Rules::standard(), "h11");
    let off = moves_from(&pos, &Rules { offer_useless_deferral: false, ..Rules::standard() }, "h11");
    let removed = diff(&on, &off);
    assert!(!removed.is_empty());
    assert!(removed.iter().all(|m| !m.ends_with('+') && on.contains(&format!("{m}+"))), "{removed:?}");
    assert!(removed.contains("h11h12") && removed.contains("h11h12,h12h13"));
    assert!(off.contains("h11h12,h12h11"), "not eligible, so not affected");
    assert!(!Rules::hachu().offer_useless_deferral);
}

// ---- §6.5 / §12.11 double_royal_loss ------------------------------------------------------------

#[test]
fn rules_6_5_double_royal_loss_each_option() {
    // Black's King takes White's last royal and ends next to a White Fire Demon.
    let pos = setup(&[("h8", b(King)), ("h9", w(King)), ("h10", w(FireDemon))], Black);
    assert!(all_moves(&pos, &Rules::standard()).contains("h8h9"));
    for (opt, want) in [
        (DoubleRoyalLoss::MoverWins, Outcome::Win { winner: Black, reason: WinReason::RoyalCaptured }),
        (DoubleRoyalLoss::MoverLoses, Outcome::Win { winner: White, reason: WinReason::RoyalCaptured }),
        (DoubleRoyalLoss::Draw, Outcome::Draw(DrawReason::BothRoyalsLost)),
    ] {
        let t = MoveTable::new(&Rules { double_royal_loss: opt, ..Rules::standard() });
        let mut g = Game::new(Arc::new(t), pos);
        let m = engine::notation::parse_cecp(&pos, g.table(), "h8h9").unwrap();
        let eff = g.play(m).unwrap();
        assert!(eff.mover_burned);
        assert_eq!(g.outcome(), Some(want), "{opt:?}");
    }
    assert_eq!(Rules::standard().double_royal_loss, DoubleRoyalLoss::MoverWins);
}

// ---- §12.11 lion_trading_rules ------------------------------------------------------------------

#[test]
fn rules_12_11_no_lion_trading_restrictions() {
    assert!(!Rules::standard().lion_trading_rules);
    assert!(!Rules::house().lion_trading_rules && !Rules::hachu().lion_trading_rules);
    assert!(Rules::from_toml("lion_trading_rules = true").is_err());
    // A protected Lion may be taken from a distance, by a double move, and by a non-Lion.
    let pos = setup(&[("h8", b(Lion)), ("h9", w(Pawn)), ("h10", w(Lion)), ("h11", w(Gold)), ("a10", b(Rook))], Black);
    let all = all_moves(&pos, &Rules::standard());
    for m in ["h8h10", "h8h9,h9h10", "a10h10"] {
        assert!(all.contains(m), "{m}");
    }
}

// ---- presets ------------------------------------------------------------------------------------

#[test]
fn rules_15_presets_match_the_flag_table() {
    let s = Rules::standard();
    assert_eq!(
        (s.fire_demon_orthogonal, s.fire_demon_area, s.vice_general_area, s.fd_vs_fd, s.wb_promotion_burns),
        (FireDemonOrthogonal::Sideways, AreaMove::StopOnCapture, AreaMove::StopOnCapture, FdVsFd::MoverBurned, true)
    );
    assert_eq!(
        (s.jump_capture_targets, s.jump_over, s.jump_on_noncapture),
        (JumpCapture::Any, JumpOver::LowerRank, false)
    );
    assert_eq!(
        (s.free_eagle, s.heavenly_tetrarch, s.ht_can_pass, s.lion_hawk),
        (FreeEagle::Standard, HeavenlyTetrarch::Standard, false, LionHawk::LionBishop)
    );
    assert_eq!(
        (s.last_rank_rule, s.offer_useless_deferral, s.repetition),
        (LastRankRule::ForcedWhenEligible, true, Repetition::Jcsa)
    );
    let h = Rules::hachu();
    assert_eq!(
        (h.fire_demon_orthogonal, h.fire_demon_area, h.vice_general_area, h.fd_vs_fd, h.wb_promotion_burns),
        (FireDemonOrthogonal::Vertical, AreaMove::None, AreaMove::None, FdVsFd::MoverBurned, false)
    );
    assert_eq!(
        (h.jump_capture_targets, h.jump_over, h.jump_on_noncapture),
        (JumpCapture::LowerOnly, JumpOver::LowerRank, false)
    );
    assert_eq!(
        (h.free_eagle, h.heavenly_tetrarch, h.lion_hawk),
        (FreeEagle::Queen, HeavenlyTetrarch::ChariotSoldier, LionHawk::LionBishop)
    );
    assert_eq!(
        (h.last_rank_rule, h.offer_useless_deferral, h.repetition),
        (LastRankRule::ForcedWhenEligible, false, Repetition::Forbidden)
    );
    let u = Rules::house();
    assert_eq!(
        (u.fire_demon_orthogonal, u.fire_demon_area, u.vice_general_area, u.fd_vs_fd, u.wb_promotion_burns),
        (FireDemonOrthogonal::Sideways, AreaMove::LionLike, AreaMove::LionLike, FdVsFd::BothDestroyed, true)
    );
    assert_eq!(
        (u.jump_capture_targets, u.jump_over, u.jump_on_noncapture, u.rook_general_outranks_bishop_general),
        (JumpCapture::NotHigherNoRoyals, JumpOver::EnemyLowerFriendAny, true, true)
    );
    assert_eq!(
        (u.free_eagle, u.heavenly_tetrarch, u.lion_hawk),
        (FreeEagle::DiagonalLion, HeavenlyTetrarch::ChariotSoldierFreezing, LionHawk::LionBishop)
    );
}

#[test]
fn rules_13_house_and_hachu_move_lists_have_no_duplicates_on_crowded_boards() {
    // Every preset and every single-flag alternative on crowded boards: the generator never
    // lists a move twice and every listed move can be played and taken back.
    let mut variants = vec![Rules::standard(), Rules::house(), Rules::hachu()];
    variants.push(Rules { fd_vs_fd: FdVsFd::MoverBurnsOthers, ..Rules::standard() });
    variants.push(Rules { free_eagle: FreeEagle::AnySecondStep, ..Rules::standard() });
    variants.push(Rules { free_eagle: FreeEagle::QueenRangeJump, ..Rules::standard() });
    variants.push(Rules { free_eagle: FreeEagle::FerzTwice, ..Rules::standard() });
    variants.push(Rules { free_eagle: FreeEagle::QueenDabbaba, ..Rules::standard() });
    variants.push(Rules { lion_hawk: LionHawk::BishopArea2, ..Rules::standard() });
    variants.push(Rules { ht_can_pass: true, ..Rules::standard() });
    variants.push(Rules { jump_capture_targets: JumpCapture::LowerOnlyEvenDirect, ..Rules::standard() });
    variants.push(Rules { last_rank_rule: LastRankRule::SecondChance, ..Rules::standard() });
    for r in &variants {
        let t = table(r);
        let mut rng = Lcg(7);
        for _ in 0..25 {
            let mut pos = engine::Position::empty();
            for s in engine::Square::all() {
                if rng.below(100) < 30 {
                    pos.put(s, random_piece(&mut rng));
                }
            }
            for c in [Black, White] {
                pos.put(engine::Square::from_index(rng.below(256) as usize), engine::Piece::of_kind(King, c));
            }
            for stm in [Black, White] {
                pos.set_side_to_move(stm);
                let moves = all_moves_t(&pos, &t);
                for m in moves.iter().step_by(7) {
                    let mut p = pos;
                    play(&mut p, &t, m);
                }
            }
        }
    }
}

// ---- §12.1 option D in full ---------------------------------------------------------------------

#[test]
fn rules_12_1_option_d_forbids_every_capture_of_equal_or_higher_rank() {
    let d = Rules { jump_capture_targets: JumpCapture::LowerOnlyEvenDirect, ..Rules::standard() };
    // Vice General (rank 2) next to an enemy GG on its diagonal and on its file, an enemy RG
    // on a diagonal: neither the slide nor the area move may take the GG; the RG (lower) is fine.
    let pos = setup(
        &[("h8", b(ViceGeneral)), ("i9", w(GreatGeneral)), ("h9", w(GreatGeneral)), ("g7", w(RookGeneral))],
        Black,
    );
    let got = moves_from(&pos, &d, "h8");
    assert!(!got.contains("h8i9") && !got.contains("h8h9"), "{got:?}");
    assert!(got.contains("h8g7"));
    let dflt = moves_from(&pos, &Rules::standard(), "h8");
    assert!(dflt.contains("h8i9") && dflt.contains("h8h9") && dflt.contains("h8g7"));
    // The same with the lion-like area move.
    let dl = Rules { vice_general_area: AreaMove::LionLike, ..d.clone() };
    let got = moves_from(&pos, &dl, "h8");
    assert!(got.iter().all(|m| !m.contains("i9") && !m.contains("h9,")), "{got:?}");
    assert!(got.iter().all(|m| !m.ends_with("h9")) && got.contains("h8g7"), "{got:?}");
    // Option C (HaChu) allows every direct capture.
    let c = Rules { jump_capture_targets: JumpCapture::LowerOnly, ..Rules::standard() };
    let got = moves_from(&pos, &c, "h8");
    assert!(got.contains("h8i9") && got.contains("h8h9"));
}

#[test]
fn rules_12_1_option_d_concerns_the_ranked_generals_only() {
    // A Free Eagle (rank 0) under the JW range-jump reading keeps its Queen captures under D.
    let d = Rules {
        jump_capture_targets: JumpCapture::LowerOnlyEvenDirect,
        free_eagle: FreeEagle::QueenRangeJump,
        ..Rules::standard()
    };
    let pos = setup(&[("h8", b(engine::Kind::FreeEagle)), ("i9", w(RookGeneral)), ("h9", w(GreatGeneral))], Black);
    let got = moves_from(&pos, &d, "h8");
    assert!(got.contains("h8i9") && got.contains("h8h9"), "{got:?}");
    // Fire Demon and King are not generals either.
    let pos = setup(&[("h8", b(FireDemon)), ("i9", w(GreatGeneral)), ("c3", b(King)), ("c4", w(ViceGeneral))], Black);
    assert!(moves_from(&pos, &d, "h8").contains("h8i9"));
    assert!(moves_from(&pos, &d, "c3").contains("c3c4"));
}

#[test]
fn rules_15_presets_match_the_rule_text_on_crowded_boards() {
    // The reference model of `common` implements the three presets' readings (§12, §13, §15)
    // from the words of RULES.md; the engine must agree piece by piece, and stay symmetric.
    let mut variants = vec![Rules::standard(), Rules::house(), Rules::hachu()];
    variants.push(Rules { jump_capture_targets: JumpCapture::NoRoyals, ..Rules::standard() });
    variants.push(Rules { jump_over: JumpOver::EnemyLowerFriendAny, ..Rules::standard() });
    variants.push(Rules { jump_on_noncapture: true, ..Rules::standard() });
    variants.push(Rules { rook_general_outranks_bishop_general: true, ..Rules::standard() });
    variants.push(Rules {
        fire_demon_area: AreaMove::LionLike,
        vice_general_area: AreaMove::None,
        ..Rules::standard()
    });
    variants.push(Rules {
        free_eagle: FreeEagle::DiagonalLion,
        heavenly_tetrarch: HeavenlyTetrarch::ChariotSoldierFreezing,
        ..Rules::standard()
    });
    for r in &variants {
        let t = table(r);
        for seed in 300..330 {
            let pos = crowded(seed, 15 + seed % 35);
            for stm in [Black, White] {
                let mut p = pos;
                p.set_side_to_move(stm);
                compare_with_reference(&p, &t);
                let m = mirror(&p);
                assert_eq!(all_moves_t(&m, &t), rot_set(&all_moves_t(&p, &t)), "mirror under {:?}", r.preset_name());
            }
        }
    }
}

#[test]
fn rules_13_house_three_vice_generals_amid_enemies_do_not_overflow_the_move_list() {
    // A Vice General and two promoted Bishop Generals (moving as VGs) amid 75 enemies: each
    // lion-like area move has several hundred distinct (captures, destination) moves.
    let mut pos = setup(&[], Black);
    pos.put(sq("f8"), b(ViceGeneral));
    pos.put(sq("h8"), promoted(BishopGeneral, Black));
    pos.put(sq("j8"), promoted(BishopGeneral, Black));
    for s in engine::Square::all() {
        if ["f8", "h8", "j8"].iter().any(|v| s.distance(sq(v)) <= 3) && pos.piece_at(s).is_none() {
            pos.put(s, w(Gold));
        }
    }
    assert!(pos.piece_count(White) <= 78);
    let n = all_moves(&pos, &Rules::house()).len();
    assert!(n > 2048, "{n}");
}
