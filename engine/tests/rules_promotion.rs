//! RULES.md §8 (promotion: zone entry, capture inside, deferral, multi-leg moves, last-rank
//! rules, useless deferral) and the §11 start-position breakdown.

mod common;
use common::*;
use engine::rules::LastRankRule;
use engine::{Kind, Kind::*, Rules};
use std::collections::BTreeSet;

fn with_rule(lr: LastRankRule) -> Rules {
    Rules { last_rank_rule: lr, ..Rules::standard() }
}

// ---- rule 1 and rule 2 -----------------------------------------------------------------------

#[test]
fn rules_8_entering_the_zone_may_promote() {
    let pos = setup(&[("h11", b(Gold)), ("g12", w(Pawn))], Black);
    assert_eq!(
        std_from(&pos, "h11"),
        set(&["h11h12+", "h11h12", "h11g12+", "h11g12", "h11i12+", "h11i12", "h11g11", "h11i11", "h11h10"])
    );
    // White's zone is ranks 1..5.
    let pos = setup(&[("h6", w(Gold))], White);
    let got = std_from(&pos, "h6");
    assert!(got.contains("h6h5+") && got.contains("h6h5") && got.contains("h6g5+"));
    assert!(!got.contains("h6h7+") && !got.contains("h6g6+"));
}

#[test]
fn rules_8_capture_inside_the_zone_may_promote_noncapture_never() {
    let pos = setup(&[("h13", b(Gold)), ("h14", w(Pawn)), ("h12", w(Pawn))], Black);
    assert_eq!(
        std_from(&pos, "h13"),
        set(&["h13h14+", "h13h14", "h13h12+", "h13h12", "h13g14", "h13i14", "h13g13", "h13i13"])
    );
}

#[test]
fn rules_8_capture_from_inside_to_outside_may_promote() {
    let pos = setup(&[("h12", b(Gold)), ("h11", w(Pawn))], Black);
    let got = std_from(&pos, "h12");
    assert!(got.contains("h12h11+") && got.contains("h12h11"));
    // Leaving without a capture: never.
    let pos = setup(&[("h12", b(Gold))], Black);
    let got = std_from(&pos, "h12");
    assert!(got.contains("h12h11") && !got.contains("h12h11+"));
    assert!(!got.contains("h12h13+"), "non-capture inside the zone");
}

#[test]
fn rules_8_deferral_then_only_capture_or_reentry() {
    let t = std_table();
    let mut p = setup(&[("h11", b(Gold)), ("o14", w(Pawn))], Black);
    play(&mut p, &t, "h11h12");
    p.set_side_to_move(Black);
    let got = moves_from_t(&p, &t, "h12");
    assert!(got.contains("h12h13") && !got.contains("h12h13+"), "deferred: a quiet move inside never promotes");
    play(&mut p, &t, "h12h13");
    p.set_side_to_move(Black);
    // A capture inside the zone still may.
    p.put(sq("h14"), w(Pawn));
    let got = moves_from_t(&p, &t, "h13");
    assert!(got.contains("h13h14+") && got.contains("h13h14"));
    p.remove(sq("h14"));
    // Leaving and re-entering restores rule 1.
    play(&mut p, &t, "h13h12");
    p.set_side_to_move(Black);
    play(&mut p, &t, "h12h11");
    p.set_side_to_move(Black);
    assert!(moves_from_t(&p, &t, "h11").contains("h11h12+"));
    let eff = play(&mut p, &t, "h11h12+");
    assert!(eff.promoted);
    assert_eq!(p.piece_at(sq("h12")), Some(promoted(Gold, Black)));
    assert_eq!(p.piece_at(sq("h12")).unwrap().kind(), Rook);
}

#[test]
fn rules_8_promoted_and_never_promoting_pieces_do_not_promote() {
    for pc in [
        b(King),
        b(GreatGeneral),
        b(ViceGeneral),
        b(FreeEagle),
        b(LionHawk),
        b(FireDemon),
        b(Prince),
        b(HeavenlyTetrarch),
        b(FlyingStag),
        b(FreeBoar),
        b(FlyingOx),
        b(WhiteHorse),
        b(Whale),
        b(MultiGeneral),
        promoted(Pawn, Black),
        promoted(Rook, Black),
        promoted(Kirin, Black),
        promoted(RookGeneral, Black),
    ] {
        let mut pieces = vec![("h11", pc), ("g12", w(Pawn))];
        if pc.kind().is_royal() {
            pieces.push(("b1", b(King)));
        }
        let pos = setup(&pieces, Black);
        let got = std_from(&pos, "h11");
        assert!(!got.is_empty());
        assert!(got.iter().all(|m| !m.ends_with('+')), "{pc:?}: {got:?}");
    }
}

#[test]
fn rules_8_every_promotable_type_promotes_on_entry() {
    for k in Kind::ALL.into_iter().filter(|k| k.is_start_kind() && k.info().promotes_to.is_some()) {
        // h11 -> somewhere in the zone: every promotable type that can enter does so with a twin.
        let pos = setup(&[("h11", b(k))], Black);
        let got = std_from(&pos, "h11");
        let promos: Vec<_> = got.iter().filter(|m| m.ends_with('+')).collect();
        if got.iter().any(|m| sq(m.trim_end_matches('+').get(3..).unwrap()).rank() >= 11) {
            assert!(!promos.is_empty(), "{k:?}");
        }
        for m in promos {
            let plain = m.trim_end_matches('+');
            let last = m.ends_with("16+") || (k == Knight && m.ends_with("15+"));
            let forced = last && matches!(k, Pawn | Lance | Iron | Knight);
            assert_eq!(got.contains(plain), !forced, "{k:?}: deferral of {m} offered unless forced");
        }
    }
}

#[test]
fn rules_8_promotion_and_deferral_both_listed_when_the_mover_is_burned() {
    let t = std_table();
    let pos = setup(&[("h11", b(Gold)), ("h13", w(FireDemon))], Black);
    let got = std_from(&pos, "h11");
    assert!(got.contains("h11h12+") && got.contains("h11h12"));
    let mut p = pos;
    let eff = play(&mut p, &t, "h11h12+");
    assert!(eff.promoted && eff.mover_burned);
}

// ---- multi-leg moves -------------------------------------------------------------------------

#[test]
fn rules_8_lion_igui_from_inside_promotes_from_outside_never() {
    // Lion inside the zone.
    let pos = setup(&[("h12", b(Lion)), ("g13", w(Pawn)), ("g11", w(Pawn))], Black);
    let got = std_from(&pos, "h12");
    for m in ["h12g13,g13h12+", "h12g13,g13h12", "h12g11,g11f10+", "h12g11,g11f10", "h12g11,g11h12+"] {
        assert!(got.contains(m), "{m}");
    }
    assert!(got.contains("h12h13") && !got.contains("h12h13+"), "quiet lion step inside");
    assert!(got.contains("h12h10") && !got.contains("h12h10+"), "quiet lion jump out");
    // Lion outside the zone.
    let pos = setup(&[("h11", b(Lion)), ("h12", w(Pawn))], Black);
    let got = std_from(&pos, "h11");
    for m in ["h11h12,h12h11", "h11h12,h12g11", "h11h12,h12i11"] {
        assert!(got.contains(m) && !got.contains(&format!("{m}+")), "{m}: starts and ends outside");
    }
    for m in ["h11h12+", "h11h12", "h11h12,h12h13+", "h11h12,h12h13", "h11h12,h12g12+", "h11h13+"] {
        assert!(got.contains(m), "{m}");
    }
    let t = std_table();
    let mut p = pos;
    let eff = play(&mut p, &t, "h11h12,h12h13+");
    assert!(eff.promoted);
    assert_eq!(p.piece_at(sq("h13")).unwrap().kind(), LionHawk);
}

#[test]
fn rules_8_linear_lion_igui_from_inside_promotes() {
    let pos = setup(&[("h12", b(HornedFalcon)), ("h13", w(Pawn))], Black);
    let got = std_from(&pos, "h12");
    assert!(got.contains("h12h13,h13h12+") && got.contains("h12h13,h13h12"));
    let pos = setup(&[("h11", b(SoaringEagle)), ("g12", w(Pawn))], Black);
    let got = std_from(&pos, "h11");
    assert!(got.contains("h11g12,g12h11") && !got.contains("h11g12,g12h11+"));
    assert!(got.contains("h11g12,g12f13+") && got.contains("h11g12+"));
}

#[test]
fn rules_8_pass_never_promotes() {
    // Not next to the FiD: the Lion's pass is the neutral @@@@, never a promotion.
    let pos = setup(&[("h13", b(Lion)), ("h15", w(FireDemon)), ("c3", w(Pawn))], Black);
    let all = all_moves(&pos, &Rules::standard());
    assert!(all.contains("@@@@") && !all.contains("h13h13"));
    assert!(!all.iter().any(|m| m.starts_with("h13h13")));
    // Next to it: the burned pass h14h14, without a promoting twin.
    let pos = setup(&[("h14", b(Lion)), ("h15", w(FireDemon))], Black);
    let all = all_moves(&pos, &Rules::standard());
    assert!(all.contains("h14h14") && !all.contains("h14h14+"));
}

// ---- last-rank rules ---------------------------------------------------------------------------

fn from_with(pieces: &[(&str, engine::Piece)], lr: LastRankRule, s: &str) -> BTreeSet<String> {
    moves_from(&setup(pieces, Black), &with_rule(lr), s)
}

#[test]
fn rules_8_last_rank_forced_when_eligible_default() {
    use LastRankRule::ForcedWhenEligible as F;
    assert_eq!(Rules::standard().last_rank_rule, F);
    // Pawn: a quiet move inside the zone is not eligible -> the dead pawn is allowed.
    assert_eq!(from_with(&[("h15", b(Pawn))], F, "h15"), set(&["h15h16"]));
    // A capture onto the last rank is eligible -> promotion is compulsory.
    assert_eq!(from_with(&[("h15", b(Pawn)), ("h16", w(Gold))], F, "h15"), set(&["h15h16+"]));
    // Lance entering from outside onto the last rank: forced; elsewhere in the zone both.
    let got = from_with(&[("h8", b(Lance))], F, "h8");
    assert!(got.contains("h8h16+") && !got.contains("h8h16"));
    assert!(got.contains("h8h15+") && got.contains("h8h15"));
    // Lance inside the zone, quiet: dead lance allowed.
    assert_eq!(from_with(&[("h14", b(Lance))], F, "h14"), set(&["h14h15", "h14h16"]));
    // Iron: captures onto the last rank forced, quiet moves not eligible.
    let got = from_with(&[("h15", b(Iron)), ("g16", w(Pawn))], F, "h15");
    assert_eq!(got, set(&["h15g16+", "h15h16", "h15i16"]));
    // Knight: the last two ranks.
    let got = from_with(&[("h13", b(Knight)), ("g15", w(Pawn))], F, "h13");
    assert_eq!(got, set(&["h13g15+", "h13i15"]));
    let got = from_with(&[("h10", b(Knight))], F, "h10");
    assert_eq!(got, set(&["h10g12+", "h10g12", "h10i12+", "h10i12"]));
    // White mirrors it.
    let pos = setup(&[("h2", w(Pawn)), ("h1", b(Gold))], White);
    assert_eq!(std_from(&pos, "h2"), set(&["h2h1+"]));
}

#[test]
fn rules_8_last_rank_second_chance() {
    use LastRankRule::SecondChance as S;
    assert_eq!(from_with(&[("h15", b(Pawn))], S, "h15"), set(&["h15h16+"]));
    assert_eq!(from_with(&[("h15", b(Pawn)), ("h16", w(Gold))], S, "h15"), set(&["h15h16+"]));
    assert_eq!(from_with(&[("h14", b(Lance))], S, "h14"), set(&["h14h15", "h14h16+"]));
    assert_eq!(from_with(&[("h13", b(Knight))], S, "h13"), set(&["h13g15+", "h13i15+"]));
    assert_eq!(from_with(&[("h14", b(Knight))], S, "h14"), set(&["h14g16+", "h14i16+"]));
    // Not the last rank(s): unchanged.
    assert_eq!(from_with(&[("h13", b(Pawn))], S, "h13"), set(&["h13h14"]));
    assert_eq!(from_with(&[("h12", b(Knight))], S, "h12"), set(&["h12g14", "h12i14"]));
    // Other types are not affected.
    assert_eq!(
        from_with(&[("h15", b(Gold))], S, "h15"),
        moves_from(&setup(&[("h15", b(Gold))], Black), &Rules::standard(), "h15")
    );
}

#[test]
fn rules_8_last_rank_none() {
    use LastRankRule::None as N;
    assert_eq!(from_with(&[("h15", b(Pawn))], N, "h15"), set(&["h15h16"]));
    assert_eq!(from_with(&[("h15", b(Pawn)), ("h16", w(Gold))], N, "h15"), set(&["h15h16+", "h15h16"]));
    let got = from_with(&[("h8", b(Lance))], N, "h8");
    assert!(got.contains("h8h16+") && got.contains("h8h16"));
    let got = from_with(&[("h13", b(Knight)), ("g15", w(Pawn))], N, "h13");
    assert_eq!(got, set(&["h13g15+", "h13g15", "h13i15"]));
}

#[test]
fn rules_8_dead_pieces_have_no_moves() {
    for (s, k) in [("h16", Pawn), ("h16", Lance), ("h16", Iron), ("h15", Knight), ("h16", Knight)] {
        let pos = setup(&[(s, b(k))], Black);
        assert!(std_from(&pos, s).is_empty(), "{k:?} on {s}");
    }
}

// ---- §12.8 offer_useless_deferral --------------------------------------------------------------

#[test]
fn rules_12_8_offer_useless_deferral_both_ways() {
    let no = Rules { offer_useless_deferral: false, ..Rules::standard() };
    // HaChu's list of upward-compatible types (§12.8): only the promoting move is generated.
    let upward = [
        Pawn,
        Dog,
        BlindTiger,
        DrunkElephant,
        Kirin,
        Lance,
        ReverseChariot,
        Rook,
        Bishop,
        DragonKing,
        DragonHorse,
        RookGeneral,
        BishopGeneral,
        Lion,
        Queen,
        ChariotSoldier,
        VerticalSoldier,
        SideSoldier,
    ];
    for k in Kind::ALL.into_iter().filter(|k| k.is_start_kind() && k.info().promotes_to.is_some()) {
        let pos = setup(&[("h11", b(k)), ("h12", w(Pawn)), ("g12", w(Pawn)), ("i12", w(Pawn))], Black);
        let yes = std_from(&pos, "h11");
        let without = moves_from(&pos, &no, "h11");
        let promos: BTreeSet<String> = yes.iter().filter(|m| m.ends_with('+')).cloned().collect();
        assert!(!promos.is_empty(), "{k:?}");
        for m in &promos {
            assert!(yes.contains(m.trim_end_matches('+')), "{k:?} default offers {m} deferred");
            assert!(without.contains(m), "{k:?}: {m}");
            assert_eq!(
                without.contains(m.trim_end_matches('+')),
                !upward.contains(&k),
                "{k:?}: deferral of {m} with offer_useless_deferral = false"
            );
        }
    }
    // The explicit example: a Pawn entering the zone.
    let pos = setup(&[("h11", b(Pawn))], Black);
    assert_eq!(std_from(&pos, "h11"), set(&["h11h12+", "h11h12"]));
    assert_eq!(moves_from(&pos, &no, "h11"), set(&["h11h12+"]));
    // A Gold (→ Rook loses its diagonal steps) keeps its deferral.
    let pos = setup(&[("h11", b(Gold))], Black);
    assert!(moves_from(&pos, &no, "h11").contains("h11h12"));
}

// ---- §11 start position --------------------------------------------------------------------------

#[test]
fn rules_11_start_position_74_moves_breakdown() {
    let pos = engine::Position::start();
    let all = all_moves(&pos, &Rules::standard());
    assert_eq!(all.len(), 74);
    let is_capture = |m: &String| {
        pos.piece_at(sq(m.trim_end_matches('+').get(2..).unwrap().trim_start_matches(|c: char| c.is_ascii_digit())))
            .is_some()
    };
    let caps: BTreeSet<String> = all.iter().filter(|m| is_capture(m)).cloned().collect();
    let mut want = set(&["h4h12", "h4h13", "h4h14", "h4h15", "h4h16", "h4p12", "i4a12"]);
    for m in ["g4g12", "g4g13", "j4j12", "j4j13", "f4n12", "f4o13", "f4p14", "k4c12", "k4b13", "k4a14"] {
        want.insert(m.to_string());
        want.insert(format!("{m}+"));
    }
    assert_eq!(caps, want);
    assert_eq!(caps.len(), 27);
    let quiet: Vec<&String> = all.iter().filter(|m| !is_capture(m)).collect();
    assert_eq!(quiet.len(), 47);
    let to = |d: &str| quiet.iter().filter(|m| dests(&set(&[m.as_str()])).contains(d)).count();
    assert_eq!(to("e2"), 9);
    assert_eq!(to("l2"), 8);
    assert_eq!(to("b2"), 4);
    assert_eq!(to("o2"), 4);
    for m in ["d4d6", "m4m6", "e4c6", "e4g6", "l4n6", "l4j6", "e6e7", "l6l7", "a5a6", "p5p6", "f2e2"] {
        assert!(all.contains(m), "{m}");
    }
    assert!(!all.contains("e5e6") && !all.contains("l5l6"), "Pawns behind the Dogs");
}

#[test]
fn rules_11_start_position_hachu_profile_62_moves() {
    let pos = engine::Position::start();
    let all = all_moves(&pos, &Rules::hachu());
    assert_eq!(all.len(), 62);
    assert!(!all.contains("g4g13") && !all.contains("g4g13+") && !all.contains("j4j13+"), "no RG x RG");
    assert!(all.contains("g4g12+") && !all.contains("g4g12"), "only the promoting RG capture");
    assert!(all.contains("f4n12+") && !all.contains("f4n12"));
}
