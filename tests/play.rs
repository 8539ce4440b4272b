//! `tenjiku play` driven through its standard input, as a script would: moves in both notations,
//! refused moves that leave the board as it was, and every command.

mod common;

use std::process::{Command, Stdio};

/// Run `tenjiku play ARGS` on a script; its standard output (the run must succeed).
fn play(args: &[&str], input: &str) -> String {
    let out = common::tenjiku_stdin(&[&["play"], args].concat(), input);
    common::ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("panicked") && !text.contains('\x1b'), "no colours when stdout is not a terminal");
    text
}

/// The lines after the last prompt that precedes `marker`'s line.
fn answer<'a>(out: &'a str, marker: &str) -> &'a str {
    let at = out.find(marker).unwrap_or_else(|| panic!("{marker:?} not in output:\n{out}"));
    &out[at..]
}

#[test]
fn moves_in_both_notations_and_refusals_with_reasons() {
    let out = play(&["--engine", "random:seed=3"], "P-9k\nh5h6\nLnx9a\nfoo\nP-8k\nquit\n");
    assert!(
        out.starts_with("You play Black against random:seed=3") || out.starts_with("You play Black against random"),
        "{out}"
    );
    // A Hodges move, then the engine's reply, with the board after each.
    assert!(out.contains("You play P-9k (h5h6)."), "{out}");
    assert!(out.contains("White (random") && out.contains(") plays "), "{out}");
    // h5h6 again: the pawn has gone from h5, so the reason names the square.
    assert!(answer(&out, "> Illegal move 'h5h6'").lines().next().unwrap().contains("no piece on h5"), "{out}");
    let lnx = answer(&out, "> Illegal move 'Lnx9a'").lines().next().unwrap();
    assert!(lnx.contains("Lnx9a"), "{lnx}");
    assert!(answer(&out, "> Malformed move 'foo'").lines().next().unwrap().contains("unknown piece"), "{out}");
    // Refused moves print no board: the next board drawn is after P-8k.
    let after_refusals = answer(&out, "Malformed move 'foo'");
    let next_board = after_refusals.find("+----").unwrap();
    assert!(after_refusals[..next_board].contains("You play P-8k (i5i6)."), "{after_refusals}");
}

#[test]
fn an_ambiguous_hodges_move_lists_the_candidates() {
    // Two Rooks can reach 15k: the move must name its origin.
    let fen = "k15/16/16/16/16/16/16/16/16/16/R15/16/16/16/16/R14K b";
    let out = play(&["--engine", "random", "--fen", fen], "R-16l\nquit\n");
    let line = answer(&out, "Ambiguous move 'R-16l'").lines().next().unwrap();
    assert!(line.contains("R16k-16l") && line.contains("R16p-16l"), "{line}");
}

#[test]
fn commands_moves_undo_hint_save_resign_help() {
    let dir = common::temp_dir();
    let file = dir.join("game.txt");
    let script = format!(
        "help\nmoves h3\nmoves h5\nmoves 9e\nmoves zz\nh5h6\nundo\nundo\nhint\nh5h6\nsave {}\nresign\nh5h6\nquit\n",
        file.display()
    );
    let out = play(&["--engine", "random", "--style", "kanji"], &script);
    assert!(out.contains("moves SQUARE") && out.contains("save FILE") && out.contains("resign"), "help: {out}");
    assert!(out.contains("Black Lion Hawk on 9n (h3): 0 moves"), "{out}");
    let pawn = answer(&out, "Black Pawn on 9l (h5): 1 move");
    assert!(pawn.lines().nth(1).unwrap().split_whitespace().eq(["P-9k", "h5h6"]), "{pawn}");
    assert!(out.contains("White Pawn on 9e (h12): 1 move (if it were its turn)"), "{out}");
    assert!(out.contains("Usage: moves SQUARE"), "{out}");
    assert!(out.contains("Took back 2 moves."), "{out}");
    assert!(out.contains("Nothing to undo."), "{out}");
    assert!(answer(&out, "Hint: ").lines().next().unwrap().contains('('), "{out}");
    assert!(out.contains(&format!("Saved 2 plies to {}.", file.display())), "{out}");
    assert!(out.contains("Game over: 0-1 (White wins: resignation) - the engine wins."), "{out}");
    assert!(out.contains("The game is over"), "moves after the end are refused: {out}");
    // The record replays with `tenjiku show --game`.
    let rec = std::fs::read_to_string(&file).unwrap();
    assert!(
        rec.contains("[Black \"person\"]") && rec.contains("[White \"random\"]") && rec.contains("1. h5h6 "),
        "{rec}"
    );
    let show = Command::new(env!("CARGO_BIN_EXE_tenjiku")).args(["show", "--game"]).arg(&file).output().unwrap();
    assert!(show.status.success(), "{}", String::from_utf8_lossy(&show.stderr));
}

#[test]
fn the_person_can_play_white_and_bad_flags_fail_in_one_line() {
    let out = play(&["--engine", "random", "--color", "white", "--term-color", "never"], "quit\n");
    assert!(out.starts_with("You play White"), "{out}");
    assert!(out.contains("Black (random) plays "), "the engine moves first: {out}");
    for (args, want) in [
        (vec!["--engine", "nonsense:x"], "bad engine spec"),
        (vec!["--term-color", "purple"], "--term-color"),
        (vec!["--fen", "16/16 b"], "--fen"),
        (vec!["--rules", "no-such-rules"], "no-such-rules"),
    ] {
        let o =
            Command::new(env!("CARGO_BIN_EXE_tenjiku")).arg("play").args(&args).stdin(Stdio::null()).output().unwrap();
        assert!(!o.status.success());
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
        assert!(e.contains(want) && !e.contains("panicked"), "{e}");
    }
}
