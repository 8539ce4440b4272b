//! End-to-end tests of the `tenjiku` binary: output formats, determinism, and one-line errors.

mod common;

use common::{assert_one_line_error, stderr, stdout, tenjiku};

#[test]
fn moves_lists_74_sorted_moves_from_the_start() {
    let o = tenjiku(&["moves"]);
    assert!(o.status.success());
    let lines: Vec<String> = stdout(&o).lines().map(String::from).collect();
    assert_eq!(lines.len(), 74);
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "sorted bytewise");
    // §11: the Great General on h4 (9m) takes the Pawn on h12 (9e) by jumping its own Pawn.
    assert!(lines.contains(&"h4h12".to_string()), "{lines:?}");
    assert!(lines.contains(&"h4h13+".to_string()) || lines.iter().any(|l| l.ends_with('+')));
}

#[test]
fn perft_prints_the_count_and_divide_lines() {
    let o = tenjiku(&["perft", "2"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim(), "perft 2 = 5538");
    assert!(stderr(&o).contains("leaves/s"));
    let o = tenjiku(&["perft", "2", "--divide"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 75);
    assert_eq!(*lines.last().unwrap(), "perft 2 = 5538");
    let sum: u64 = lines[..74].iter().map(|l| l.split(' ').nth(1).unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(sum, 5538);
}

#[test]
fn perft_with_fen_and_rules() {
    let fen = "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/16/15K b";
    let o = tenjiku(&["perft", "1", "--fen", fen, "--rules", "house"]);
    assert_eq!(stdout(&o).trim(), "perft 1 = 3");
}

#[test]
fn bad_input_gives_one_line_errors() {
    assert_one_line_error(&tenjiku(&["moves", "--fen", "16/16 b"]), "ranks");
    assert_one_line_error(&tenjiku(&["moves", "--fen", "xyz"]), "FEN");
    assert_one_line_error(&tenjiku(&["moves", "--rules", "chu"]), "unknown rules");
    assert_one_line_error(&tenjiku(&["perft", "0"]), "depth");
    assert_one_line_error(
        &tenjiku(&["show", "--fen", "16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/15Z b"]),
        "unknown piece",
    );
}

#[test]
fn show_draws_both_styles() {
    for style in ["english", "kanji"] {
        let o = tenjiku(&["show", "--style", style]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        assert!(!out.contains('\u{1b}'), "no colour codes when not a terminal");
        assert!(out.lines().count() >= 18, "{out}");
    }
    let o = tenjiku(&["show", "--style", "kanji"]);
    assert!(stdout(&o).contains("獅子"));
}

#[test]
fn play_random_is_deterministic_per_seed() {
    let a = tenjiku(&["play-random", "--seed", "7", "--plies", "30"]);
    let b = tenjiku(&["play-random", "--seed", "7", "--plies", "30"]);
    let c = tenjiku(&["play-random", "--seed", "8", "--plies", "30"]);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    assert_ne!(stdout(&a), stdout(&c));
    let out = stdout(&a);
    assert!(out.lines().last().unwrap().starts_with("result"));
    assert!(out.lines().count() >= 3);
}

#[test]
fn bad_arguments_give_one_line_errors() {
    assert_one_line_error(&tenjiku(&["perft", "abc"]), "invalid value");
    assert_one_line_error(&tenjiku(&["nonsense"]), "unrecognized subcommand");
    assert_one_line_error(&tenjiku(&["show", "--style", "comic"]), "comic");
    let o = tenjiku(&["--help"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("perft"));
}

/// A transposition table larger than half the memory this machine has available is refused
/// before it is allocated, naming the key, the value and the limit (issue 19).
#[test]
fn a_transposition_table_larger_than_the_machine_is_refused_before_allocating() {
    let out = tenjiku(&["go", "--engine", "alphabeta:depth=1,tt=65536"]);
    if out.status.success() {
        eprintln!("SKIPPED: this machine has more than 128 GiB available, so tt=65536 fits");
        return;
    }
    assert_one_line_error(&out, "'tt=65536' is out of range");
    assert!(stderr(&out).contains("available"), "{}", stderr(&out));
}
