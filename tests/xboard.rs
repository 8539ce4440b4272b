//! `tenjiku xboard` driven through its standard input, as XBoard drives it: the handshake, moves
//! in and out, bad input, position set-up, take-backs, and whole games of the engine against
//! itself relayed between two processes.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tenjiku"))
}

/// Run `tenjiku xboard ARGS` on a whole script; its standard output (the run must succeed).
fn script(args: &[&str], input: &str) -> String {
    let out = common::tenjiku_stdin(&[&["xboard"], args].concat(), input);
    common::ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("panicked"));
    text
}

/// A rules file with a ply cap, so that games end quickly.
fn capped_rules(cap: u32) -> (common::TempPath, String) {
    let dir = common::temp_dir();
    let path = dir.join("capped.toml");
    std::fs::write(&path, format!("preset = \"standard\"\nply_cap = {cap}\n")).unwrap();
    let s = path.display().to_string();
    (dir, s)
}

#[test]
fn handshake_announces_features_and_the_variant() {
    let out = script(&["--engine", "random"], "xboard\nprotover 2\nnew\nvariant tenjiku\nping 42\nquit\n");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("feature ") && lines[0].contains("variants=\"tenjiku\""), "{out}");
    for f in ["setboard=1", "usermove=1", "ping=1", "highlight=1", "memory=1"] {
        assert!(lines[0].contains(f), "{f} missing: {}", lines[0]);
    }
    assert_eq!(lines[1], "feature done=1");
    assert!(lines[2].starts_with("setup (") && lines[2].contains(" 16x16+0_chu "), "{}", lines[2]);
    assert!(lines[2].ends_with("LNFICSGKEGSCIFNL w 0 1"), "XBoard's FEN names the first player w: {}", lines[2]);
    assert!(lines.contains(&"piece N& ffN"));
    assert_eq!(*lines.last().unwrap(), "pong 42");
}

#[test]
fn user_moves_engine_moves_and_illegal_moves() {
    // After `new` the engine plays White; Black's pawn move makes it answer at once.
    let out =
        script(&["--engine", "random"], "protover 2\nnew\nusermove h5h6\nusermove h6h7h8\nusermove a1a2\nping 1\n");
    let lines: Vec<&str> = out.lines().skip(2).collect();
    assert!(lines[0].starts_with("move "), "{out}");
    assert_eq!(lines[1], "Illegal move (leg 1 'h6h7h8' does not end with a square a1..p16): h6h7h8");
    assert!(lines[2].starts_with("Illegal move (") && lines[2].ends_with("): a1a2"), "{}", lines[2]);
    assert_eq!(lines[3], "pong 1");
    // Garbage and unknown commands get one-line errors and no panic.
    let out = script(
        &["--engine", "random"],
        "usermove\nfoo bar\nlevel x\nst -1\nsd 0\ntime zz\nmemory lots\nlift z99\nsetboard nonsense\nping 2\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 10, "{out}");
    assert!(
        lines[..9]
            .iter()
            .all(|l| l.starts_with("Error") || l.starts_with("Illegal move") || l.starts_with("tellusererror")),
        "{out}"
    );
    assert_eq!(lines[9], "pong 2");
}

#[test]
fn force_go_setboard_undo_remove_and_multi_leg_moves() {
    // A Black Lion on h2 next to a White pawn on h3: igui (capture without moving) is a
    // two-leg move; after it White has lost the pawn and Black's Lion is still on h2.
    let fen = "k15/16/16/16/16/16/16/16/16/16/16/16/16/7p8/7L!8/K15 w 0 1";
    let input = format!(
        "protover 2\nforce\nsetboard {fen}\nusermove h2h3,h3h2\nusermove a16a15\nremove\nusermove h2h3\nundo\nundo\nremove\nping 1\n"
    );
    let out = script(&["--engine", "random"], &input);
    let lines: Vec<&str> = out.lines().skip(2).collect();
    // force mode: the engine never answers; `remove` takes back two plies, `undo` one; at the
    // start both are errors.
    assert_eq!(
        lines,
        ["Error (command not legal now): undo", "Error (command not legal now): remove", "pong 1"],
        "{out}"
    );
    // `go` makes the engine move for the side to move, then play that side.
    let out = script(&["--engine", "random"], &format!("protover 2\nforce\nsetboard {fen}\ngo\nping 3\n"));
    let lines: Vec<&str> = out.lines().skip(2).collect();
    assert!(lines[0].starts_with("move "), "{out}");
    assert_eq!(*lines.last().unwrap(), "pong 3");
}

#[test]
fn a_move_from_the_16th_rank_sent_as_xboard_mangles_it_is_understood() {
    let out = script(&["--engine", "random"], "protover 2\nnew\nforce\nusermove h5h6\nusermove E@e15\nping 1\n");
    assert_eq!(out.lines().nth(2), Some("pong 1"), "{out}");
}

#[test]
fn thinking_lines_and_time_controls() {
    let out = script(
        &["--engine", "alphabeta:depth=2"],
        "protover 2\nnew\nforce\nlevel 40 5 0\ntime 30000\notim 30000\nsd 2\npost\ngo\nnopost\nst 1\ngo\nping 1\n",
    );
    let lines: Vec<&str> = out.lines().skip(2).collect();
    // Thinking lines (depth score time nodes pv) before Black's move; none after `nopost`.
    let first_move = lines.iter().position(|l| l.starts_with("move ")).expect("a move");
    let thinking = &lines[..first_move];
    assert!(!thinking.is_empty(), "{out}");
    for t in thinking {
        let f: Vec<&str> = t.split_whitespace().collect();
        assert!(f.len() >= 5 && f[..4].iter().all(|x| x.parse::<i64>().is_ok()), "bad thinking line {t}");
    }
    assert!(lines[first_move..lines.len() - 1].iter().all(|l| l.starts_with("move ")), "{out}");
    assert!(lines.len() - 1 - first_move >= 2, "two moves: {out}");
    assert_eq!(*lines.last().unwrap(), "pong 1");
}

/// One engine process driven line by line.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = bin().arg("xboard").args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine { child, stdin, stdout }
    }
    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }
    fn line(&mut self) -> String {
        let mut l = String::new();
        assert!(self.stdout.read_line(&mut l).unwrap() > 0, "engine closed its output");
        l.trim_end().to_string()
    }
    /// Read until a whole move (legs ending in `,` continue) or a result; returns
    /// (move text joined with commas, result line if any).
    fn reply(&mut self) -> (Option<String>, Option<String>) {
        let mut legs = String::new();
        loop {
            let l = self.line();
            if let Some(leg) = l.strip_prefix("move ") {
                legs.push_str(leg);
                if !leg.ends_with(',') {
                    // A move may be followed by the result it caused; ask with a ping.
                    self.send("ping 9");
                    let next = self.line();
                    let result = (next != "pong 9").then(|| {
                        assert_eq!(self.line(), "pong 9");
                        next
                    });
                    return (Some(legs), result);
                }
            } else if l.starts_with("1-0 {") || l.starts_with("0-1 {") || l.starts_with("1/2-1/2 {") {
                return (None, Some(l));
            } else if l.starts_with("pong") || l.starts_with("feature") || l.starts_with('#') {
                continue;
            } else {
                panic!("unexpected engine output: {l}");
            }
        }
    }
    fn quit(mut self) {
        self.send("quit");
        assert!(self.child.wait().unwrap().success());
    }
}

#[test]
fn a_whole_game_engine_against_itself_until_the_result() {
    let (_dir, rules) = capped_rules(60);
    for seed in [1, 2] {
        let spec_a = format!("random:seed={seed}");
        let spec_b = format!("random:seed={}", seed + 100);
        let mut a = Engine::start(&["--engine", &spec_a, "--rules", &rules]);
        let mut b = Engine::start(&["--engine", &spec_b, "--rules", &rules]);
        for e in [&mut a, &mut b] {
            e.send("xboard");
            e.send("protover 2");
            assert_eq!(e.line().split_whitespace().next(), Some("feature"));
            assert_eq!(e.line(), "feature done=1");
            e.send("new");
            e.send("variant tenjiku");
            e.send("ping 0");
            while e.line() != "pong 0" {}
        }
        // A plays Black (moves first), B plays White, as in XBoard's Two Machines mode.
        a.send("go");
        let (mut mover, mut other) = (&mut a, &mut b);
        let mut plies = 0;
        let result = loop {
            let (mv, result) = mover.reply();
            let Some(mv) = mv else { break result.unwrap() };
            plies += 1;
            other.send(&format!("usermove {mv}"));
            if let Some(r) = result {
                // The receiving engine must see the same end.
                let (none, r2) = other.reply();
                assert_eq!((none, r2.as_deref()), (None, Some(r.as_str())), "both engines agree on the result");
                break r;
            }
            std::mem::swap(&mut mover, &mut other);
        };
        assert!(plies <= 60, "{plies}");
        assert!(
            result.starts_with("1-0 {") || result.starts_with("0-1 {") || result.starts_with("1/2-1/2 {"),
            "{result}"
        );
        a.quit();
        b.quit();
    }
}
