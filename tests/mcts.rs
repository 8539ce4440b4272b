//! The `mcts:` engine spec end to end: `go` prints the search summary, `xboard` shows the search
//! progressing, `arena` plays it, `play` accepts it, and bad specs are one-line errors. The
//! networks are random ones of `configs/net-tiny.toml` (fast); the default-size network's
//! arena result against a random mover is recorded in BENCHMARKS.md.

mod common;

use common::{tenjiku, tenjiku_stdin};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/net-tiny.toml");

fn tiny_spec(extra: &str) -> String {
    format!("mcts:checkpoint=random,config={TINY}{extra}")
}

#[test]
fn go_prints_visits_value_pv_and_top_moves() {
    let spec = tiny_spec(",visits=32");
    let o = tenjiku(&["go", "--engine", &spec]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("visits 32 value ") && l.contains(" wdl ")), "{out}");
    assert!(lines.iter().any(|l| l.starts_with("pv ")), "{out}");
    let header = lines.iter().position(|l| l.split_whitespace().eq(["move", "visits", "prior", "q", "target"]));
    let header = header.unwrap_or_else(|| panic!("no top-moves table:\n{out}"));
    let top: Vec<u32> = lines[header + 1..]
        .iter()
        .take_while(|l| !l.starts_with("bestmove"))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(!top.is_empty() && top.windows(2).all(|w| w[0] >= w[1]), "sorted by visits: {top:?}");
    assert!(top.iter().sum::<u32>() <= 32);
    let best = lines.last().unwrap().strip_prefix("bestmove ").expect("ends with bestmove");
    // The chosen move is legal from the start position.
    let moves = text(&tenjiku(&["moves"]).stdout);
    assert!(moves.lines().any(|m| m == best), "{best} is not a legal start move");

    // Same seed, same search.
    let again = tenjiku(&["go", "--engine", &spec]);
    let strip = |s: &str| -> Vec<String> {
        s.lines().filter(|l| !l.starts_with("depth")).map(String::from).collect()
        // thinking lines carry times
    };
    assert_eq!(strip(&out), strip(&text(&again.stdout)));
}

#[test]
fn mcts_takes_the_royal_when_it_can() {
    // Black's Rook on a1 can take White's only King on a16 (RULES: capturing the last royal
    // wins), even through a random network.
    let fen = "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/16/R14K b";
    let o = tenjiku(&["go", "--fen", fen, "--engine", &tiny_spec(",visits=8")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let best = out.trim_end().lines().last().unwrap();
    assert!(best == "bestmove a1a16" || best == "bestmove a1a16+", "{out}");
}

#[test]
fn guard_finds_a_mate_in_one_and_reports_it_won() {
    // Black mates the lone White King on a16 with d1d16 (or d1b1): the Rook on c15 holds the
    // 15th rank. With guard=1 the reply positions are scored as lost without a network call;
    // a Gumbel root over every move (about 50) visits each of them once.
    let fen = "k15/2R13/16/16/16/16/16/16/16/16/16/16/16/16/4G11/3R3K8 b";
    let o = tenjiku(&["go", "--fen", fen, "--engine", &tiny_spec(",visits=64,gumbel=64,guard=1")]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let best = out.lines().last().unwrap();
    assert!(["bestmove d1d16", "bestmove d1d16+", "bestmove d1b1"].contains(&best), "{out}");
    assert!(out.contains("value 1.000 wdl 1.000 0.000 0.000"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("pv d1d16") || l.starts_with("pv d1b1")), "{out}");
}

#[test]
fn xboard_shows_the_search_progressing() {
    let spec = tiny_spec(",visits=64");
    let o = tenjiku_stdin(&["xboard", "--engine", &spec], "xboard\nprotover 2\nnew\npost\ngo\nquit\n");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    // CECP thinking lines: PLY SCORE TIME NODES PV, with the visits growing.
    let visits: Vec<u32> = out
        .lines()
        .filter(|l| l.split_whitespace().next().is_some_and(|w| w.parse::<u32>().is_ok()))
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert!(visits.len() >= 3 && visits.windows(2).all(|w| w[0] <= w[1]), "{out}");
    assert_eq!(*visits.last().unwrap(), 64, "{out}");
    assert!(out.lines().any(|l| l.starts_with("move ")), "{out}");
}

#[test]
fn arena_and_play_accept_mcts_specs() {
    let spec = tiny_spec(",visits=8");
    let o = tenjiku(&["arena", "--a", &spec, "--b", "random", "--games", "2", "--max-plies", "60", "--quiet"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("games 2"), "{}", text(&o.stdout));

    let o = tenjiku_stdin(&["play", "--engine", &spec, "--color", "white", "--term-color", "never"], "quit\n");
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn bad_mcts_specs_are_one_line_errors() {
    let cases = [
        ("mcts:visits=8", "missing 'checkpoint' (checkpoint=PATH, or checkpoint=random"),
        ("mcts:checkpoint=/no/such.ckpt", "cannot read checkpoint /no/such.ckpt"),
        ("mcts:checkpoint=random,visits=many", "'visits=many' is not a valid number"),
        ("mcts:checkpoint=random,colour=red", "unknown parameter 'colour'"),
        ("mcts:checkpoint=random,config=/no/such.toml", "cannot read network config /no/such.toml"),
        ("mcts:checkpoint=random,threads=0", "'threads=0' is out of range (expected 1 to 1024)"),
        ("mcts:checkpoint=random,visits=0", "'visits=0' is out of range (expected 1 to 10000000)"),
        ("mcts:checkpoint=random,cpuct=NaN", "'cpuct=NaN' is out of range (expected 0 to 100)"),
        ("mcts:checkpoint=random,gumbel=1", "'gumbel=1' is out of range (expected 0 (PUCT) or 2 to 256)"),
        ("mcts:checkpoint=random,noise=2", "'noise=2' is out of range (expected 0 to 1)"),
        ("mcts:checkpoint=random,guard=3", "'guard=3' is out of range (expected 0 to 2)"),
        ("mcts:checkpoint=random,temp=-1", "'temp=-1' is out of range (expected 0 to 10)"),
        ("mcts:checkpoint=random,time=1e30", "'time=1e30' is not a duration"),
        ("mcts:checkpoint=random,backend=tpu", "unknown or not compiled-in backend 'tpu'"),
        ("mcts:checkpoint=random,qsearch_mix=2", "'qsearch_mix=2' is out of range (expected 0 to 1)"),
        ("mcts:checkpoint=random,material_mix=-1", "'material_mix=-1' is out of range (expected 0 to 1)"),
    ];
    for (spec, want) in cases {
        let o = tenjiku(&["go", "--engine", spec]);
        assert!(!o.status.success(), "{spec} should fail");
        let e = text(&o.stderr);
        assert_eq!(e.trim_end().lines().count(), 1, "{spec}: {e}");
        assert!(e.contains(want), "{spec}: {e:?} should mention {want:?}");
    }
}
