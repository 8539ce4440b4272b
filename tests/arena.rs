//! End-to-end tests of `tenjiku arena`, `tenjiku go` and `tenjiku show --game`.

mod common;

use common::{stdout, tenjiku};
use std::process::Output;

/// A failing command: non-zero exit, nothing on stdout, one line on stderr naming `want`.
fn assert_one_line_error(o: &Output, want: &str) {
    common::assert_one_line_error(o, want);
    assert!(o.stdout.is_empty(), "stdout should be empty: {}", stdout(o));
}

fn temp_dir(_name: &str) -> common::TempPath {
    common::temp_dir()
}

#[test]
fn arena_writes_json_and_records_that_show_replays() {
    let dir = temp_dir("arena");
    let (json, pgn) = (dir.join("r.json"), dir.join("g.pgn"));
    let (js, ps) = (json.to_str().unwrap(), pgn.to_str().unwrap());
    let o = tenjiku(&[
        "arena",
        "--a",
        "random",
        "--b",
        "random",
        "--games",
        "4",
        "--openings",
        "2",
        "--json",
        js,
        "--pgn",
        ps,
        "--max-plies",
        "24",
        "--concurrency",
        "2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(out.contains("adjudication: material: off; draw at 24 plies"), "{out}");
    assert!(out.contains("games 4: "), "{out}");
    assert!(out.contains("elo difference"), "{out}");

    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["games", "wins", "draws", "losses", "score", "elo", "elo_ci95"]);
    assert_eq!(v["games"], 4);
    let n = ["wins", "draws", "losses"].iter().map(|k| v[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(n, 4);
    let score = v["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&score));
    assert!(v["elo_ci95"].as_array().unwrap().len() == 2);

    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event \"tenjiku arena\"]").count(), 4);
    for tag in ["[Black \"random\"]", "[Rules \"standard\"]", "[Variant \"tenjiku\"]", "[FEN \"", "[Termination \""] {
        assert!(text.contains(tag), "{tag} missing:\n{text}");
    }
    let o = tenjiku(&["show", "--game", ps, "--ply", "3", "--color", "never"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let shown = stdout(&o);
    assert!(shown.contains("ply 3 of 24"), "{shown}");
    assert!(shown.contains("last move (Black): "), "{shown}");
    assert!(shown.lines().any(|l| l.starts_with("fen ") && l.ends_with(" w")), "{shown}");
    let o = tenjiku(&["show", "--game", ps, "--index", "4", "--color", "never"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("game 4 of 4"));
    assert_one_line_error(&tenjiku(&["show", "--game", ps, "--index", "5"]), "has 4 game(s)");
    assert_one_line_error(&tenjiku(&["show", "--game", ps, "--ply", "99"]), "has only 24 plies");

    // A damaged record names the line.
    std::fs::write(&pgn, text.replacen("[Round \"", "[Round ", 1)).unwrap();
    assert_one_line_error(&tenjiku(&["show", "--game", ps]), "line 3: bad tag line");
}

#[test]
fn arena_sprt_and_adjudication_settings_are_reported() {
    let o = tenjiku(&[
        "arena",
        "--a",
        "random:seed=5",
        "--b",
        "random",
        "--games",
        "2",
        "--openings",
        "0",
        "--max-plies",
        "10",
        "--adjudicate-material",
        "900",
        "--adjudicate-plies",
        "3",
        "--sprt",
        "-5,5",
        "--alpha",
        "0.1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(
        out.contains("material: a side ahead by >= 900 cp for 3 consecutive plies wins; draw at 10 plies"),
        "{out}"
    );
    assert!(out.contains("SPRT: H0 elo -5 vs H1 elo 5, alpha 0.1, beta 0.05"), "{out}");
    assert!(out.contains("SPRT: LLR "), "{out}");
}

#[test]
fn arena_bad_input_is_a_one_line_error() {
    assert_one_line_error(
        &tenjiku(&["arena", "--a", "nosuch", "--b", "random", "--games", "2"]),
        "unknown engine 'nosuch'",
    );
    assert_one_line_error(&tenjiku(&["arena", "--a", "random:x", "--b", "random", "--games", "2"]), "bad engine spec");
    // The spec error says what was wrong once (it used to repeat itself after a colon).
    let o = tenjiku(&["arena", "--a", "alphabeta:depth=x", "--b", "random", "--games", "2"]);
    assert_one_line_error(&o, "'depth=x' is not a valid number");
    assert_eq!(String::from_utf8_lossy(&o.stderr).matches("bad engine spec").count(), 1, "{:?}", o);
    assert_one_line_error(&tenjiku(&["arena", "--a", "random", "--b", "random", "--games", "0"]), "--games");
    assert_one_line_error(
        &tenjiku(&["arena", "--a", "random", "--b", "random", "--games", "2", "--sprt", "5"]),
        "expected ELO0,ELO1",
    );
    assert_one_line_error(
        &tenjiku(&["arena", "--a", "random", "--b", "random", "--games", "2", "--rules", "nope"]),
        "unknown rules 'nope'",
    );
    assert_one_line_error(
        &tenjiku(&["arena", "--a", "random", "--b", "random", "--games", "2", "--balanced", "-5"]),
        "invalid value '-5' for '--balanced <CP>'",
    );
    assert_one_line_error(
        &tenjiku(&[
            "arena",
            "--a",
            "random",
            "--b",
            "random",
            "--games",
            "2",
            "--balanced",
            "100",
            "--balance-depth",
            "0",
        ]),
        "expected a depth from 1 to 8",
    );
    let dir = temp_dir("openings");
    let f = dir.join("o.txt");
    std::fs::write(&f, "# openings\n\nnot a fen\n").unwrap();
    assert_one_line_error(
        &tenjiku(&["arena", "--a", "random", "--b", "random", "--games", "2", "--openings-file", f.to_str().unwrap()]),
        "line 3",
    );
}

#[test]
fn go_ends_with_bestmove_and_rejects_bad_input() {
    let o = tenjiku(&["go", "--engine", "random", "--moves", "a5a6"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    let last = out.lines().last().unwrap();
    assert!(last.starts_with("bestmove "), "{out}");
    // The chosen move is legal after a5a6: `moves` lists it.
    let mv = last.trim_start_matches("bestmove ");
    let fen = "lnficsgekgscifnl/a1c!c!1txql!ot1c!c!1a/s'v'bhdw!d!q'h!d!w!dhbv's'/mvrf!e!b!r!v!q!r!b!e!f!rvm/pppppppppppppppp/4d'6d'4/16/16/16/16/P3D'6D'4/1PPPPPPPPPPPPPPP/MVRF!E!B!R!Q!V!R!B!E!F!RVM/S'V'BHDW!D!H!Q'D!W!DHBV'S'/A1C!C!1TOL!QXT1C!C!1A/LNFICSGKEGSCIFNL w";
    let legal = stdout(&tenjiku(&["moves", "--fen", fen]));
    assert!(legal.lines().any(|l| l == mv), "{mv} not in the legal moves");

    assert_one_line_error(&tenjiku(&["go", "--engine", "nosuch"]), "unknown engine 'nosuch'");
    assert_one_line_error(&tenjiku(&["go", "--engine", "random:seed"]), "bad engine spec");
    assert_one_line_error(&tenjiku(&["go", "--engine", "random", "--moves", "a5a9"]), "move 1 'a5a9'");
    assert_one_line_error(&tenjiku(&["go", "--engine", "random", "--moves", "zz"]), "malformed move 'zz'");
    assert_one_line_error(&tenjiku(&["go", "--engine", "random", "--fen", "16/16 b"]), "bad FEN");
    // A finished game has no move to choose.
    let o = tenjiku(&["go", "--engine", "random", "--fen", "16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/7K8 w"]);
    assert_one_line_error(&o, "the game is over");
}
