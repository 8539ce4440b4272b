//! RULES.md §9 repetition (JCSA default) and the §12.9 alternatives, with hand-built games.

use engine::notation::{parse_cecp_in, to_cecp};
use engine::rules::Repetition;
use engine::{DrawReason, Game, Outcome, WinReason};
use engine::{MoveTable, Position, Rules};
use std::sync::Arc;

fn game(fen: &str, rules: Rules) -> Game {
    Game::new(Arc::new(MoveTable::new(&rules)), Position::from_fen(fen).unwrap())
}

fn legal_texts(g: &Game) -> Vec<String> {
    g.legal_moves().into_iter().map(to_cecp).collect()
}

fn play(g: &mut Game, text: &str) {
    let legal = g.legal_moves();
    let m = parse_cecp_in(g.position(), &legal, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    g.play(m).unwrap();
}

fn empty_rank(n: usize) -> String {
    vec!["16"; n].join("/")
}

/// Kings only, far apart: White K a16, Black K p1.
fn kings_fen() -> String {
    format!("k15/{}/15K b", empty_rank(14))
}

#[test]
fn rules_9_fourth_occurrence_without_check_or_attack_is_a_draw() {
    let mut g = game(&kings_fen(), Rules::standard());
    let cycle = ["p1p2", "a16a15", "p2p1", "a15a16"];
    for i in 0..11 {
        play(&mut g, cycle[i % 4]);
        assert!(!g.is_over(), "over after ply {}", i + 1);
    }
    // The 12th move recreates the start position a 4th time: draw.
    assert!(legal_texts(&g).contains(&"a15a16".to_string()));
    play(&mut g, "a15a16");
    assert_eq!(g.outcome(), Some(Outcome::Draw(DrawReason::Repetition)));
    assert_eq!(g.repetitions(), 3);
}

/// White K a16; Black R b1 and K p2 (out of the rook's rank). Black checks on every move.
fn perpetual_check_fen() -> String {
    format!("k15/{}/15K/1R14 b", empty_rank(13))
}

#[test]
fn rules_9_perpetual_checker_must_deviate() {
    let mut g = game(&perpetual_check_fen(), Rules::standard());
    let cycle = ["b1a1", "a16b16", "a1b1", "b16a16"];
    for i in 0..12 {
        play(&mut g, cycle[i % 4]);
        assert!(!g.is_over(), "over after ply {}", i + 1);
    }
    // Ply 12 (White's) made the 4th occurrence, but the checker is Black: no draw. Black's
    // repeating check is now illegal; other rook moves stay legal.
    let legal = legal_texts(&g);
    assert!(!legal.contains(&"b1a1".to_string()), "perpetual check must be illegal");
    assert!(legal.contains(&"b1c1".to_string()));
    assert!(!g.in_check(engine::Color::White));
}

#[test]
fn rules_9_perpetual_chaser_must_deviate() {
    // White K a16 and Gold on c10 (shuffling c10/d10); Black R attacks it from rank 1
    // every move (c1 / d1); Black K p2. Nobody checks.
    let fen = format!("k15/{}/2g13/{}/15K/2R13 b", empty_rank(5), empty_rank(7));
    let mut g = game(&fen, Rules::standard());
    let cycle = ["c1d1", "c10c9", "d1c1", "c9c10"];
    // Rook on d1 attacks nothing on d... make the gold move along the file so it stays attacked.
    let _ = cycle;
    let cycle = ["c1c2", "c10c11", "c2c1", "c11c10"];
    for i in 0..12 {
        play(&mut g, cycle[i % 4]);
        assert!(!g.is_over(), "over after ply {}", i + 1);
    }
    let legal = legal_texts(&g);
    assert!(!legal.contains(&"c1c2".to_string()), "perpetual attack must be illegal for the chaser");
    assert!(legal.contains(&"c1c3".to_string()));
}

#[test]
fn rules_9_consecutive_passes_first_passer_must_deviate() {
    // Each side has a Lion with empty neighbours and kings far away: both can pass (@@@@).
    let fen = format!("k15/{}/7l!8/{}/7L!8/{}/15K b", empty_rank(2), empty_rank(8), empty_rank(2));
    let mut g = game(&fen, Rules::standard());
    for i in 0..6 {
        assert!(legal_texts(&g).contains(&"@@@@".to_string()), "ply {i}");
        play(&mut g, "@@@@");
        assert!(!g.is_over());
    }
    // Six passes: the start position occurred a 4th time on White's pass, but Black began
    // the run of passes, so Black's next pass (4th occurrence of the other position) is illegal.
    assert!(!legal_texts(&g).contains(&"@@@@".to_string()));
}

#[test]
fn rules_12_9_forbidden_option_bans_any_repeat() {
    let rules = Rules { repetition: Repetition::Forbidden, ..Rules::standard() };
    let mut g = game(&kings_fen(), rules);
    for m in ["p1p2", "a16a15", "p2p1"] {
        play(&mut g, m);
    }
    assert!(!legal_texts(&g).contains(&"a15a16".to_string()));
    assert!(legal_texts(&g).contains(&"a15b16".to_string()));
    // Under the default the same move is legal.
    let mut g = game(&kings_fen(), Rules::standard());
    for m in ["p1p2", "a16a15", "p2p1"] {
        play(&mut g, m);
    }
    assert!(legal_texts(&g).contains(&"a15a16".to_string()));
}

#[test]
fn rules_12_9_hachu_repeater_loses_unless_in_check() {
    let rules = Rules { repetition: Repetition::LossForRepeater, ..Rules::standard() };
    let mut g = game(&kings_fen(), rules.clone());
    for m in ["p1p2", "a16a15", "p2p1", "a15a16"] {
        play(&mut g, m);
    }
    assert_eq!(g.outcome(), Some(Outcome::Win { winner: engine::Color::Black, reason: WinReason::Repetition }));
    // The repeater in check wins instead: White, checked by the rook, repeats.
    let mut g = game(&perpetual_check_fen(), rules);
    for m in ["b1a1", "a16b16", "a1b1", "b16a16"] {
        play(&mut g, m);
    }
    assert_eq!(g.outcome(), Some(Outcome::Win { winner: engine::Color::White, reason: WinReason::Repetition }));
}

#[test]
fn rules_9_no_legal_move_loses() {
    // White K p1 boxed in by its own Pawns: those on o1/p2... White pawns move towards rank 1;
    // on o1 a pawn is dead (last rank, rule `none`), o2 and p2 would step onto o1/p1, occupied.
    let rules = Rules { last_rank_rule: engine::rules::LastRankRule::None, ..Rules::standard() };
    let fen = format!("K15/{}/14pp/14pk w", empty_rank(13));
    let g = game(&fen, rules);
    assert_eq!(g.legal_moves().len(), 0);
    assert_eq!(g.outcome(), Some(Outcome::Win { winner: engine::Color::Black, reason: WinReason::NoLegalMoves }));
}

#[test]
fn rules_9_capturing_the_last_royal_wins_and_a_finished_position_has_no_moves() {
    let fen = format!("k15/R15/{}/15K b", empty_rank(13));
    let mut g = game(&fen, Rules::standard());
    play(&mut g, "a15a16");
    assert_eq!(g.outcome(), Some(Outcome::Win { winner: engine::Color::Black, reason: WinReason::RoyalCaptured }));
    assert!(g.legal_moves().is_empty());
    assert!(engine::legal_moves(g.position(), g.table()).is_empty(), "§16.3: no moves once a side has no royal");
}

#[test]
fn rules_9_a_player_with_king_and_prince_must_lose_both() {
    // White has a King a16 and a Prince (promoted Drunk Elephant, `+e`) on p16.
    let fen = format!("k14+e/R15/{}/15K b", empty_rank(13));
    let mut g = game(&fen, Rules::standard());
    play(&mut g, "a15a16");
    assert!(!g.is_over(), "the Prince is still a royal");
    assert_eq!(g.position().royal_count(engine::Color::White), 1);
}

#[test]
fn rules_9_a_move_the_repetition_rule_forbids_is_refused_for_that_reason() {
    // Under `forbidden`, White's a15a16 would recreate the start position. Read from text, it
    // is refused because of the repetition rule, not as a move the king cannot make.
    let rules = Rules { repetition: Repetition::Forbidden, ..Rules::standard() };
    let mut g = game(&kings_fen(), rules);
    for m in ["p1p2", "a16a15", "p2p1"] {
        play(&mut g, m);
    }
    let e = engine::record::play_text(&mut g, "a15a16").unwrap_err();
    assert!(matches!(e, engine::PlayError::Repetition(_)), "{e:?}");
    assert!(e.to_string().contains("the repetition rule forbids it"), "{e}");
    assert_eq!(g.ply_count(), 3, "nothing was played");
    // A move no piece can make is still refused as such.
    let e = engine::record::play_text(&mut g, "a15a13").unwrap_err().to_string();
    assert!(e.contains("cannot make this move"), "{e}");
}
