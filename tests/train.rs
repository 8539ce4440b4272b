//! `tenjiku train` end to end with `configs/tiny.toml` (runs of a few seconds): the files of a
//! run, resuming after `kill -9` and after Ctrl-C, one-line config errors, the bootstrap option
//! and the in-loop evaluation.

mod common;

use common::{assert_one_line_error, ok, stdout, tenjiku};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tiny.toml");

fn tmpdir(name: &str) -> common::TempPath {
    common::temp_path(name)
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The step named by `checkpoints/latest`.
fn latest_step(run: &Path) -> Option<u64> {
    let name = std::fs::read_to_string(run.join("checkpoints/latest")).ok()?;
    name.trim().strip_prefix("step-")?.strip_suffix(".ckpt")?.parse().ok()
}

/// Games in the run's chunks (from their names).
fn games(run: &Path) -> usize {
    let dir = run.join("games/w0000");
    std::fs::read_dir(dir).map_or(0, |d| {
        d.flatten()
            .filter_map(|e| train::parse_chunk_key(&format!("games/w0000/{}", e.file_name().to_string_lossy())))
            .map(|n| n.games as usize)
            .sum()
    })
}

/// `step` of every row of metrics.csv.
fn metric_steps(run: &Path) -> Vec<u64> {
    read(&run.join("metrics.csv")).lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect()
}

/// Spawn an endless tiny run and wait until it has written a checkpoint past step 0.
fn spawn_until_checkpoint(run: &Path) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_tenjiku"))
        .args(["train", "--config", TINY, "--run-dir", run.to_str().unwrap(), "--max-steps", "0", "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary runs");
    let t = Instant::now();
    while latest_step(run).unwrap_or(0) < 10 {
        assert!(t.elapsed() < Duration::from_secs(60), "no checkpoint within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

#[test]
fn a_tiny_run_writes_its_files() {
    let run = tmpdir("files");
    let o = tenjiku(&["train", "--config", TINY, "--run-dir", run.to_str().unwrap()]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("step 30,"), "{}", String::from_utf8_lossy(&o.stdout));
    let cfg = read(&run.join("config.toml"));
    assert!(cfg.contains("visits = 8") && cfg.contains("[net]") && cfg.contains("channels = 8"), "{cfg}");
    assert_eq!(latest_step(&run), Some(30));
    assert!(run.join("checkpoints/step-000000000.ckpt").exists(), "the initial network is kept");
    assert!(games(&run) > 0);
    let metrics = read(&run.join("metrics.csv"));
    assert_eq!(
        metrics.lines().next().unwrap(),
        "time_s,step,games,positions,loss_total,loss_policy,loss_value,loss_moves_left,loss_material,\
         policy_entropy,game_length,resign_rate,false_resign_rate,selfplay_positions_per_s,train_steps_per_s,\
         elo_vs_previous,elo_vs_previous_ci,elo_vs_baseline,elo_vs_baseline_ci,baseline,elo_equal_time,\
         elo_equal_time_ci,opponent_games,opponent_score,net_mean_batch,net_busy,loss_capture"
    );
    assert_eq!(metric_steps(&run), vec![5, 10, 15, 20, 25, 30]);
    let mut net_rows = 0;
    for row in metrics.lines().skip(1) {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!(cells.len(), 27, "{row}");
        let loss: f64 = cells[4].parse().unwrap();
        assert!(loss.is_finite() && loss > 0.0, "{row}");
        // Rows with self-play since the previous one say how the network was called: positions
        // per call (at least one, at most every game's leaf) and the share of time in the calls.
        if !cells[24].is_empty() {
            let (batch, busy): (f64, f64) = (cells[24].parse().unwrap(), cells[25].parse().unwrap());
            assert!((1.0..=64.0).contains(&batch) && busy > 0.0 && busy <= 1.0, "{row}");
            net_rows += 1;
        }
    }
    assert!(net_rows > 0, "no row reports the network calls:\n{metrics}");
    assert!(read(&run.join("train.log")).contains("stopped: max_steps 30 reached"));
    // The checkpoint is a normal one: `checkpoint info` reads it.
    let o = tenjiku(&["checkpoint", "info", run.join("checkpoints/step-000000030.ckpt").to_str().unwrap()]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("step = 30"));
}

#[test]
fn a_killed_run_resumes_from_its_latest_checkpoint() {
    let run = tmpdir("kill");
    let mut child = spawn_until_checkpoint(&run);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let killed_at = latest_step(&run).unwrap();
    let games_before = games(&run);
    let rows_kept = metric_steps(&run).iter().filter(|&&s| s <= killed_at).count();
    let target = killed_at + 30; // needs more positions than the killed run had
                                 // A damaged game file is skipped with a warning.
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(run.join("games/w0000")).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let bytes = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &bytes[..bytes.len() / 2]).unwrap();

    // The same command (here without --config: the run's own config) continues the run.
    let o = tenjiku(&["train", "--run-dir", run.to_str().unwrap(), "--max-steps", &target.to_string()]);
    ok(&o);
    assert_eq!(latest_step(&run), Some(target));
    let log = read(&run.join("train.log"));
    assert!(log.contains(&format!("resumed from step {killed_at} ")), "{log}");
    assert!(log.contains("warning: skipping game file") && log.contains("checksum mismatch"), "{log}");
    // One row per step: the rows the killed run wrote after its last checkpoint were dropped,
    // and the steps done again wrote theirs once.
    let steps = metric_steps(&run);
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "{steps:?} (killed at {killed_at})");
    assert_eq!(steps.iter().filter(|&&s| s <= killed_at).count(), rows_kept, "{steps:?}");
    assert_eq!(*steps.last().unwrap(), target, "{steps:?}");
    assert!(games(&run) > games_before, "self-play went on: {} -> {}", games_before, games(&run));
}

#[test]
fn ctrl_c_stops_with_a_checkpoint() {
    let run = tmpdir("sigint");
    let child = spawn_until_checkpoint(&run);
    let s = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(s.success());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let log = read(&run.join("train.log"));
    assert!(log.contains("stopped: interrupted (SIGINT)"), "{log}");
    // The checkpoint holds the last step taken: the log's final step.
    let last = log.lines().last().unwrap();
    let step = latest_step(&run).unwrap();
    assert!(last.contains(&format!("step {step},")), "{last} vs {step}");
}

#[test]
fn bad_configs_are_one_line_errors() {
    let dir = tmpdir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let tiny = read(Path::new(TINY))
        .replace("\"net-tiny.toml\"", &format!("{:?}", concat!(env!("CARGO_MANIFEST_DIR"), "/configs/net-tiny.toml")));
    let run = dir.join("run");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let unknown = write("unknown.toml", &format!("{tiny}\nvisitz = 3\n"));
    assert_one_line_error(
        &tenjiku(&["train", "--config", &unknown, "--run-dir", run.to_str().unwrap()]),
        "unknown field `visitz`",
    );
    let bad = write("bad.toml", &tiny.replace("full_search_fraction = 0.5", "full_search_fraction = 1.5"));
    assert_one_line_error(
        &tenjiku(&["train", "--config", &bad, "--run-dir", run.to_str().unwrap()]),
        "`full_search_fraction`",
    );
    assert!(!run.exists(), "nothing is created for a bad config");
    assert_one_line_error(&tenjiku(&["train", "--run-dir", run.to_str().unwrap()]), "give --config");

    // A run refuses a different config, naming the first differing field.
    let ok_cfg = write("ok.toml", &tiny.replace("max_steps = 30", "max_steps = 5"));
    ok(&tenjiku(&["train", "--config", &ok_cfg, "--run-dir", run.to_str().unwrap()]));
    let other = write("other.toml", &tiny.replace("batch_size = 16", "batch_size = 8"));
    assert_one_line_error(&tenjiku(&["train", "--config", &other, "--run-dir", run.to_str().unwrap()]), "`batch_size`");
    // --set: only the learning schedule may change on a resume; malformed or bad values are
    // one-line errors naming the field, and nothing is trained.
    let r = run.to_str().unwrap();
    assert_one_line_error(&tenjiku(&["train", "--run-dir", r, "--set", "batch_size=8"]), "--set batch_size");
    assert_one_line_error(&tenjiku(&["train", "--run-dir", r, "--set", "visitz=3"]), "no such field");
    assert_one_line_error(&tenjiku(&["train", "--run-dir", r, "--set", "lr=-1"]), "`lr`");
    assert_one_line_error(&tenjiku(&["train", "--run-dir", r, "--set", "lr"]), "expected FIELD=VALUE");
    assert_one_line_error(&tenjiku(&["train", "--run-dir", r, "--set", "temperature_plies=soon"]), "temperature_plies");
    assert_eq!(latest_step(&run), Some(5));
}

#[test]
fn a_resumed_run_can_change_its_learning_schedule() {
    let run = tmpdir("schedule");
    let r = run.to_str().unwrap();
    ok(&tenjiku(&["train", "--config", TINY, "--run-dir", r, "--max-steps", "5"]));
    ok(&tenjiku(&["train", "--run-dir", r, "--max-steps", "10", "--set", "lr=0.0003", "--set", "temperature_plies=2"]));
    assert_eq!(latest_step(&run), Some(10));
    // The run's config follows the change, so a plain resume keeps it.
    let cfg = read(&run.join("config.toml"));
    assert!(cfg.contains("\nlr = 0.0003\n") && cfg.contains("\ntemperature_plies = 2\n"), "{cfg}");
    assert!(cfg.contains("\nmax_steps = 5\n"), "the later --max-steps is not written into the config: {cfg}");
    ok(&tenjiku(&["train", "--run-dir", r, "--max-steps", "15"]));
    assert_eq!(latest_step(&run), Some(15));
    let log = read(&run.join("train.log"));
    let changes: Vec<&str> = log.lines().filter(|l| l.contains("schedule change")).collect();
    assert_eq!(changes.len(), 1, "{log}");
    assert!(changes[0].ends_with("schedule change at step 5: lr 0.001 -> 0.0003, temperature_plies 8 -> 2"), "{log}");
}

/// `(positions on disk, positions in the buffer)` of the last "resumed from step" line.
fn resumed_buffer(log: &str) -> (u64, u64) {
    let line = log.lines().rev().find(|l| l.contains("resumed from step")).unwrap_or_else(|| panic!("{log}"));
    let number_before = |what: &str| -> u64 {
        let head = line.split(what).next().unwrap();
        head.rsplit([' ', '(']).find(|w| !w.is_empty()).unwrap().parse().unwrap_or_else(|e| panic!("{line}: {e}"))
    };
    (number_before(" positions on disk"), number_before(" in the buffer"))
}

#[test]
fn a_resumed_run_can_shrink_or_grow_its_replay_window() {
    let run = tmpdir("window");
    let r = run.to_str().unwrap();
    ok(&tenjiku(&["train", "--config", TINY, "--run-dir", r, "--max-steps", "20", "--quiet"]));
    // Shrunk: the resumed run samples from its newest 60 positions only.
    ok(&tenjiku(&["train", "--run-dir", r, "--max-steps", "25", "--quiet", "--set", "window_positions=60"]));
    let log = read(&run.join("train.log"));
    let (disk, buffer) = resumed_buffer(&log);
    assert!(disk > 60 && buffer == 60, "disk {disk}, buffer {buffer}: {log}");
    assert!(read(&run.join("config.toml")).contains("\nwindow_positions = 60\n"));
    // Grown again: the next resume reloads every position on disk.
    ok(&tenjiku(&["train", "--run-dir", r, "--max-steps", "30", "--quiet", "--set", "window_positions=2000"]));
    let log = read(&run.join("train.log"));
    let (disk, buffer) = resumed_buffer(&log);
    assert!(disk > 60 && buffer == disk, "disk {disk}, buffer {buffer}: {log}");
    assert_eq!(latest_step(&run), Some(30));
    let changes: Vec<&str> = log.lines().filter(|l| l.contains("schedule change")).collect();
    assert!(changes[0].ends_with("schedule change at step 20: window_positions 2000 -> 60"), "{log}");
    assert!(changes[1].ends_with("schedule change at step 25: window_positions 60 -> 2000"), "{log}");
    // Below min_positions (48 in tiny.toml) it is refused, in one line.
    let o = tenjiku(&["train", "--run-dir", r, "--max-steps", "35", "--set", "window_positions=10"]);
    assert_one_line_error(&o, "min_positions");
    assert_eq!(latest_step(&run), Some(30));
}

#[test]
fn the_self_play_material_mix_drops_to_zero_at_its_step() {
    let run = tmpdir("mix-until");
    let r = run.to_str().unwrap();
    ok(&tenjiku(&["train", "--config", TINY, "--run-dir", r, "--max-steps", "5"]));
    let set = ["--set", "selfplay_material_mix=0.5", "--set", "selfplay_material_mix_until_step=20"];
    ok(&tenjiku(&[&["train", "--run-dir", r, "--max-steps", "30"][..], &set[..]].concat()));
    assert_eq!(latest_step(&run), Some(30));
    let cfg = read(&run.join("config.toml"));
    assert!(cfg.contains("\nselfplay_material_mix_until_step = 20\n"), "a schedule field kept in the run: {cfg}");
    let log = read(&run.join("train.log"));
    assert!(
        log.contains("self-play material mix: 0.5 for the networks of steps before 20, then 0 (the result head alone)"),
        "{log}"
    );
    // Logged once, with the checkpoint the workers switch at: step 20, not 10 or 30.
    let lines: Vec<&str> = log.lines().collect();
    let drops: Vec<usize> =
        (0..lines.len()).filter(|&i| lines[i].contains("self-play material mix 0.5 -> 0")).collect();
    assert_eq!(drops.len(), 1, "{log}");
    assert!(lines[drops[0] - 1].contains("step-000000020.ckpt"), "{log}");
    assert_one_line_error(
        &tenjiku(&["train", "--run-dir", r, "--set", "selfplay_material_mix_until_step=soon"]),
        "selfplay_material_mix_until_step",
    );
}

/// A run on a network with a capture head trains it when `capture_weight` > 0: its loss is a
/// column of metrics.csv and the log says so; a weight without the head is a one-line error.
#[test]
fn a_capture_head_is_trained_and_reported() {
    let run = tmpdir("capture");
    let r = run.to_str().unwrap();
    std::fs::create_dir_all(&run).unwrap();
    let tiny_net = read(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/net-tiny.toml")));
    let net = run.join("net-capture.toml");
    std::fs::write(&net, tiny_net.replace("capture_head = false", "capture_head = true")).unwrap();
    let network = format!("network={}", net.display());
    let run_dir = run.join("run");
    let rd = run_dir.to_str().unwrap();
    let set = ["--set", &network, "--set", "capture_weight=2", "--set", "capture_horizon=3"];
    ok(&tenjiku(
        &[&["train", "--config", TINY, "--run-dir", rd, "--max-steps", "20", "--quiet"][..], &set[..]].concat(),
    ));
    assert_eq!(latest_step(&run_dir), Some(20));
    let log = read(&run_dir.join("train.log"));
    assert!(log.contains("with a capture head (weight 2, horizon 3 plies)"), "{log}");
    assert!(log.contains(" captures 0."), "{log}");
    let metrics = read(&run_dir.join("metrics.csv"));
    assert!(metrics.lines().next().unwrap().ends_with(",loss_capture"));
    let losses: Vec<f64> = metrics
        .lines()
        .skip(1)
        .filter_map(|row| row.rsplit(',').next().filter(|c| !c.is_empty()).map(|c| c.parse().unwrap()))
        .collect();
    assert!(losses.len() >= 2, "{metrics}");
    assert!(losses.iter().all(|l| l.is_finite() && *l > 0.0 && *l < 1.0), "{metrics}");
    assert_one_line_error(
        &tenjiku(&["train", "--config", TINY, "--run-dir", r, "--set", "capture_weight=1"]),
        "capture_weight",
    );
}

/// `average_checkpoints = 2`: each checkpoint publishes the mean of it and the one before
/// (`checkpoints/averaged/`), the workers load it, evaluation rates it, pruning keeps as many
/// means as checkpoints; bad values are one-line errors.
#[test]
fn the_guards_start_at_their_steps() {
    let run = tmpdir("guards-from");
    let r = run.to_str().unwrap();
    let set = [
        "--set",
        "royal_guard=true",
        "--set",
        "royal_guard_from_step=20",
        "--set",
        "mate_guard=true",
        "--set",
        "mate_guard_from_step=30",
        "--set",
        "eval_every_checkpoints=1",
    ];
    ok(&tenjiku(&[&["train", "--config", TINY, "--run-dir", r, "--max-steps", "40"][..], &set[..]].concat()));
    assert_eq!(latest_step(&run), Some(40));
    let cfg = read(&run.join("config.toml"));
    assert!(cfg.contains("\nroyal_guard_from_step = 20\n"), "kept in the run: {cfg}");
    assert!(cfg.contains("\nmate_guard_from_step = 30\n"), "kept in the run: {cfg}");
    let log = read(&run.join("train.log"));
    assert!(log.contains("royal guard: no guard for the networks of steps before 20, then the royal guard"), "{log}");
    assert!(
        log.contains("mate guard: the royal guard alone for the networks of steps before 30, then the mate guard too"),
        "{log}"
    );
    // Each switched once, with the checkpoint of its step; the in-loop evaluation rates each
    // network with the guard its self-play used (none, then guard=1 from step 20, guard=2 from 30).
    let lines: Vec<&str> = log.lines().collect();
    for (switch, ckpt) in [
        ("royal guard on from this network on", "step-000000020.ckpt"),
        ("mate guard on from this network on", "step-000000030.ckpt"),
    ] {
        let on: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(switch)).collect();
        assert_eq!(on.len(), 1, "{switch}: {log}");
        assert!(lines[on[0] - 1].contains(ckpt) || lines[on[0] - 2].contains(ckpt), "{switch}: {log}");
    }
    let rated = |step: &str| {
        let l = lines
            .iter()
            .find(|l| l.contains(&format!("evaluation step {step} vs previous")))
            .unwrap_or_else(|| panic!("step {step} rated: {log}"));
        if l.contains("guard=2") {
            2
        } else if l.contains("guard=1") {
            1
        } else {
            0
        }
    };
    assert_eq!([rated("10"), rated("20"), rated("30"), rated("40")], [0, 1, 2, 2], "{log}");
}

#[test]
fn the_workers_play_the_mean_of_the_newest_checkpoints() {
    let run = tmpdir("average");
    let r = run.to_str().unwrap();
    let set = ["--set", "average_checkpoints=2", "--set", "eval_every_checkpoints=2"];
    ok(&tenjiku(&[&["train", "--config", TINY, "--run-dir", r, "--max-steps", "50"][..], &set[..]].concat()));
    assert_eq!(latest_step(&run), Some(50));
    let log = read(&run.join("train.log"));
    assert!(
        log.contains(
            "snapshot averaging: the workers play (and evaluation rates) the mean of the newest 2 checkpoints"
        ),
        "{log}"
    );
    for (step, before) in [(20, 10), (30, 20), (50, 40)] {
        let line = format!("step-{step:09}.ckpt (published as {}: the mean of steps {before}, {step} (", step / 10 + 1);
        assert!(log.contains(&line), "{line} not in {log}");
    }
    // The newest publication names the mean, whose header names its inputs.
    let mut pubs: Vec<_> = std::fs::read_dir(run.join("published")).unwrap().flatten().map(|e| e.path()).collect();
    pubs.sort();
    let newest = read(pubs.last().unwrap());
    assert!(newest.contains("checkpoints/averaged/step-000000050.ckpt") && newest.contains("\"step\":50"), "{newest}");
    let mean = run.join("checkpoints/averaged/step-000000050.ckpt");
    let info = stdout(&tenjiku(&["checkpoint", "info", mean.to_str().unwrap()]));
    assert!(
        info.contains("step = 50") && info.contains("step-000000040.ckpt (step 40)") && info.contains("(step 50)"),
        "{info}"
    );
    // Evaluation rated the means (step 20 against step 0's, and step 40 against step 20's).
    assert!(
        log.contains("evaluation step 40 vs previous (mcts:checkpoint=")
            && log.contains("averaged/step-000000020.ckpt"),
        "{log}"
    );
    // Pruned like the checkpoints: the newest 3 (keep_checkpoints) and the evaluated ones.
    let mut kept: Vec<String> = std::fs::read_dir(run.join("checkpoints/averaged"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    kept.sort();
    let want: Vec<String> = [0, 20, 30, 40, 50].iter().map(|s| format!("step-{s:09}.ckpt")).collect();
    assert_eq!(kept, want);
    assert_one_line_error(
        &tenjiku(&["train", "--run-dir", r, "--set", "average_checkpoints=0"]),
        "average_checkpoints",
    );
    assert_one_line_error(
        &tenjiku(&["train", "--run-dir", r, "--set", "average_checkpoints=4"]),
        "expected 1 to `keep_checkpoints` (3)",
    );
}

#[test]
fn pool_games_play_older_checkpoints_that_pruning_keeps() {
    let run = tmpdir("pool");
    let r = run.to_str().unwrap();
    let set = [
        "--set",
        "pool_fraction=0.5",
        "--set",
        "pool_every_steps=20",
        "--set",
        "pool_size=2",
        "--set",
        "eval_every_checkpoints=0",
    ];
    ok(&tenjiku(&[&["train", "--config", TINY, "--run-dir", r, "--max-steps", "60"][..], &set[..]].concat()));
    assert_eq!(latest_step(&run), Some(60));
    let log = read(&run.join("train.log"));
    assert!(
        log.contains("pool games: 50% of self-play games have an older network on one side, drawn from the newest 2 checkpoints at multiples of 20 steps"),
        "{log}"
    );
    // No pool before step 20 is older than the network playing; then the draws name it.
    assert!(log.contains("pool games against step 20 from now on (drawn from steps 20 for network step "), "{log}");
    assert!(!log.contains("for network step 20)"), "{log}");
    // Pool games are counted as opponent games in the reports.
    assert!(log.contains(" opponent games "), "{log}");
    // Kept: step 0, the pool of step 60 (20 and 40) and the newest 3 (keep_checkpoints).
    let mut kept: Vec<String> = std::fs::read_dir(run.join("checkpoints"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ckpt"))
        .collect();
    kept.sort();
    let want: Vec<String> = [0, 20, 40, 50, 60].iter().map(|s| format!("step-{s:09}.ckpt")).collect();
    assert_eq!(kept, want);
    assert_one_line_error(&tenjiku(&["train", "--run-dir", r, "--set", "pool_every_steps=25"]), "pool_every_steps");
    assert_one_line_error(&tenjiku(&["train", "--run-dir", r, "--set", "pool_fraction=2"]), "[0, 1]");
}

#[test]
fn the_same_seed_plays_the_same_games() {
    // Both ways of running the loop: training steps beside the self-play rounds (the default,
    // `overlap_selfplay`, two threads) and one after the other.
    for overlap in ["true", "false"] {
        let (a, b) = (tmpdir(&format!("seed-a-{overlap}")), tmpdir(&format!("seed-b-{overlap}")));
        for run in [&a, &b] {
            ok(&tenjiku(&[
                "train",
                "--config",
                TINY,
                "--run-dir",
                run.to_str().unwrap(),
                "--max-steps",
                "10",
                "--seed",
                "9",
                "--set",
                &format!("overlap_selfplay={overlap}"),
            ]));
        }
        let files = |run: &Path| {
            let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(run.join("games/w0000"))
                .unwrap()
                .flatten()
                .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
                .collect();
            v.sort();
            v
        };
        let (fa, fb) = (files(&a), files(&b));
        assert!(!fa.is_empty());
        assert!(fa == fb, "overlap_selfplay={overlap}: same seed, different games");
        assert_eq!(
            checkpoint_files(&a).into_iter().map(|(n, _)| n).collect::<Vec<_>>(),
            checkpoint_files(&b).into_iter().map(|(n, _)| n).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_run_carried_over_without_its_games_keeps_training() {
    // What a fresh clone gets from checkpoints/: the run's config and latest checkpoint, no
    // replay data. The run refills its buffer and goes on training at the configured ratio.
    let run = tmpdir("carry-src");
    ok(&tenjiku(&["train", "--config", TINY, "--run-dir", run.to_str().unwrap(), "--quiet"]));
    let carried = tmpdir("carry-dst");
    std::fs::create_dir_all(carried.join("checkpoints")).unwrap();
    std::fs::copy(run.join("config.toml"), carried.join("config.toml")).unwrap();
    std::fs::copy(run.join("metrics.csv"), carried.join("metrics.csv")).unwrap();
    let name = "step-000000030.ckpt";
    std::fs::copy(run.join("checkpoints").join(name), carried.join("checkpoints").join(name)).unwrap();
    std::fs::write(carried.join("checkpoints/latest"), format!("{name}\n")).unwrap();

    let o = tenjiku(&["train", "--run-dir", carried.to_str().unwrap(), "--max-steps", "40", "--quiet"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("step 40,"), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(latest_step(&carried), Some(40));
    let steps = metric_steps(&carried);
    assert!(steps.windows(2).all(|w| w[0] <= w[1]) && *steps.last().unwrap() == 40, "{steps:?}");
    let log = read(&carried.join("train.log"));
    assert!(log.contains("counted as played"), "{log}");
    // It trains again only once its window has refilled (here: the positions 30 steps stand for).
    assert!(log.contains("training waits until the buffer holds"), "{log}");
    let refill: usize = log
        .split("training waits until the buffer holds ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(refill > 48, "more than min_positions: {refill}");
    let first_new_step = read(&carried.join("metrics.csv"))
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>())
        .find(|r| r[1].parse::<u64>().unwrap() > 30)
        .unwrap();
    let positions: u64 = first_new_step[3].parse().unwrap();
    assert!(positions >= refill as u64, "step {} taken with {positions} new positions", first_new_step[1]);

    // The charts of the run.
    let o = tenjiku(&["plot", carried.to_str().unwrap()]);
    ok(&o);
    for f in ["losses.png", "entropy.png", "game_length.png"] {
        let bytes = std::fs::read(carried.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(&bytes[1..4], b"PNG");
    }
    let o = tenjiku(&["plot", tmpdir("carry-none").to_str().unwrap()]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("cannot read metrics"));
}

#[test]
fn a_bootstrapped_run_learns_from_the_teacher_then_plays_itself_and_is_evaluated() {
    let dir = tmpdir("boot");
    std::fs::create_dir_all(&dir).unwrap();
    // The tiny config with evaluation every 30 steps, at fixed depth and at equal time, from
    // balanced 4-ply openings.
    let cfg = read(Path::new(TINY))
        .replace("\"net-tiny.toml\"", &format!("{:?}", concat!(env!("CARGO_MANIFEST_DIR"), "/configs/net-tiny.toml")))
        .replace("eval_every_checkpoints = 0", "eval_every_checkpoints = 3")
        .replace("eval_movetime_ms = 0", "eval_movetime_ms = 20")
        .replace("eval_opening_plies = 2", "eval_opening_plies = 4")
        .replace("eval_balanced_cp = 0", "eval_balanced_cp = 150");
    let cfg_path = dir.join("boot.toml");
    std::fs::write(&cfg_path, cfg).unwrap();
    let run = dir.join("run");
    let args = ["train", "--config", cfg_path.to_str().unwrap(), "--run-dir", run.to_str().unwrap(), "--quiet"];
    let o = tenjiku(&[&args[..], &["--bootstrap", "alphabeta"]].concat());
    ok(&o);
    assert!(read(&run.join("config.toml")).contains("bootstrap = \"alphabeta\""));
    let log = read(&run.join("train.log"));
    assert!(log.contains("bootstrap: teacher alphabeta:depth=1 plays until 80 positions"), "{log}");
    assert!(log.contains("bootstrap done: self-play from step"), "{log}");
    // Teacher games first (flag 16), then self-play games.
    let flags: Vec<bool> = common::chunks(&run).into_iter().flat_map(|(_, c)| c.games).map(|g| g.teacher).collect();
    assert!(flags[0] && !flags.last().unwrap(), "{flags:?}");
    let teacher = flags.iter().take_while(|f| **f).count();
    assert!(flags[teacher..].iter().all(|f| !f), "{flags:?}");

    // The evaluation row at step 30: against the previous checkpoint, the fixed baseline and
    // alpha-beta at equal time, with their games recorded.
    let metrics = read(&run.join("metrics.csv"));
    let eval_row = metrics.lines().find(|l| l.contains("alphabeta:depth=1")).expect("an evaluation row");
    let cells: Vec<&str> = eval_row.split(',').collect();
    assert_eq!(cells[1], "30");
    assert!(!cells[15].is_empty() && !cells[17].is_empty() && !cells[20].is_empty(), "{eval_row}");
    for name in ["previous", "baseline", "equal-time"] {
        assert!(run.join(format!("eval/step-000000030-vs-{name}.pgn")).exists(), "{name}");
    }
    assert!(read(&run.join("eval/step-000000030-vs-equal-time.pgn")).contains("alphabeta:time=20ms"));
    // Each pair of games opens with the same 4 plies, and alpha-beta at depth 3 scores the
    // position they reach within 150 cp (the arena's --balanced check).
    let pgn = read(&run.join("eval/step-000000030-vs-baseline.pgn"));
    let openings: Vec<Vec<String>> = pgn
        .lines()
        .filter(|l| l.starts_with("1. "))
        .map(|l| l.split_whitespace().filter(|w| !w.ends_with('.')).take(4).map(str::to_string).collect())
        .collect();
    assert!(openings.len() >= 2 && openings.len() % 2 == 0, "{pgn}");
    for pair in openings.chunks(2) {
        assert_eq!(pair[0], pair[1], "a pair shares its opening");
        let mut args = vec!["go", "--engine", "alphabeta:depth=3", "--moves"];
        args.extend(pair[0].iter().map(String::as_str));
        let o = tenjiku(&args);
        ok(&o);
        let out = String::from_utf8_lossy(&o.stdout).to_string();
        let score: i32 = out
            .lines()
            .find_map(|l| l.strip_prefix("depth 3 score ")?.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no depth-3 score in {out}"));
        assert!(score.abs() <= 150, "opening {:?} scores {score}", pair[0]);
    }

    // A resume must keep the run's bootstrap setting.
    assert_one_line_error(
        &tenjiku(&["train", "--run-dir", run.to_str().unwrap(), "--bootstrap", "none"]),
        "--bootstrap none differs from the run's bootstrap 'alphabeta'",
    );
    assert_one_line_error(&tenjiku(&[&args[..], &["--bootstrap", "maybe"]].concat()), "expected none or alphabeta");
}

/// Copy a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// `tests/data/run-before-redesign`: 20 steps of `configs/tiny.toml` written by the binary of
/// commit 09da776, before the crates were split (its checkpoint and game files were checksummed
/// by the hand-written XXH64 that `xxhash-rust` replaced). It resumes: the checkpoint loads, all
/// five game files load into the window, and its metrics rows are kept.
#[test]
fn a_run_directory_written_before_the_redesign_resumes() {
    let run = common::temp_dir();
    copy_tree(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/run-before-redesign")), &run);
    ok(&tenjiku(&["train", "--run-dir", run.to_str().unwrap(), "--max-steps", "25", "--quiet"]));
    let log = read(&run.join("train.log"));
    assert!(log.contains("resumed from step 20 (5 games, 90 positions on disk, 90 in the buffer)"), "{log}");
    assert!(!log.contains("warning"), "{log}");
    assert_eq!(latest_step(&run), Some(25));
    let steps = metric_steps(&run);
    assert_eq!(steps[..4], [5, 10, 15, 20], "{steps:?}");
    assert_eq!(*steps.last().unwrap(), 25, "{steps:?}");
}

/// The step of every checkpoint file, and each file's bytes.
fn checkpoint_files(run: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(run.join("checkpoints"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".ckpt"))
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect();
    v.sort();
    v
}

/// `latest` is never followed: a run resumes from its newest checkpoint that loads, says so
/// when `latest` names another one (or a path outside the run), and replaces no checkpoint.
#[test]
fn resume_takes_the_newest_checkpoint_whatever_latest_says() {
    let run = tmpdir("latest");
    ok(&tenjiku(&["train", "--config", TINY, "--run-dir", run.to_str().unwrap(), "--quiet"]));
    assert_eq!(latest_step(&run), Some(30));
    let before = checkpoint_files(&run);
    for (named, want) in [
        ("step-000000010.ckpt\n", "checkpoints/latest names step 10; resuming from step 30"),
        ("../../outside.ckpt\n", "checkpoints/latest names '../../outside.ckpt', outside this directory; ignored"),
    ] {
        std::fs::write(run.join("checkpoints/latest"), named).unwrap();
        let log_len = read(&run.join("train.log")).len();
        ok(&tenjiku(&["train", "--run-dir", run.to_str().unwrap(), "--max-steps", "30", "--quiet"]));
        let log = read(&run.join("train.log"))[log_len..].to_string();
        assert!(log.contains(want), "{log}");
        assert!(log.contains("resumed from step 30 "), "{log}");
    }
    ok(&tenjiku(&["train", "--run-dir", run.to_str().unwrap(), "--max-steps", "40", "--quiet"]));
    let after = checkpoint_files(&run);
    for (name, bytes) in &before {
        if let Some((_, b)) = after.iter().find(|(n, _)| n == name) {
            assert!(b == bytes, "{name} was rewritten");
        }
    }
    assert_eq!(latest_step(&run), Some(40));
}

/// A run directory whose checkpoints all fail to load is refused (one line) rather than
/// restarted from a random network, until --start-over; the damaged files are kept aside.
#[test]
fn a_run_whose_checkpoints_do_not_load_is_refused_unless_started_over() {
    let run = tmpdir("unloadable");
    ok(&tenjiku(&["train", "--config", TINY, "--run-dir", run.to_str().unwrap(), "--max-steps", "20", "--quiet"]));
    for (name, _) in checkpoint_files(&run) {
        std::fs::write(run.join("checkpoints").join(&name), b"not a checkpoint").unwrap();
    }
    let games_before = games(&run);
    for _ in 0..2 {
        let o = tenjiku(&["train", "--run-dir", run.to_str().unwrap(), "--max-steps", "30", "--quiet"]);
        assert_one_line_error(&o, "give --start-over to start again from a random network");
        assert!(checkpoint_files(&run).is_empty(), "the unloadable checkpoints were set aside");
    }
    let aside = std::fs::read_dir(run.join("checkpoints/unloadable")).unwrap().count();
    assert!(aside >= 2, "{aside}");
    ok(&tenjiku(&["train", "--run-dir", run.to_str().unwrap(), "--max-steps", "10", "--start-over", "--quiet"]));
    assert!(read(&run.join("train.log")).contains("--start-over: no checkpoint loads"));
    assert_eq!(latest_step(&run), Some(10));
    assert_eq!(std::fs::read_dir(run.join("checkpoints/unloadable")).unwrap().count(), aside, "kept");
    assert!(games(&run) >= games_before, "the games stay");
}

/// Sizes that would exhaust the machine's memory are refused before anything is allocated.
#[test]
fn a_run_too_large_for_the_machine_is_refused_before_allocating() {
    let run = tmpdir("too-large");
    let o = tenjiku(&[
        "train",
        "--config",
        TINY,
        "--run-dir",
        run.to_str().unwrap(),
        "--set",
        "window_positions=100000000",
        "--quiet",
    ]);
    assert_one_line_error(&o, "the run needs about");
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(e.contains("the replay window (window_positions)"), "{e}");
    assert!(!run.join("checkpoints").exists(), "nothing was created");
}

#[test]
fn yardstick_charts_plot_the_committed_records_and_refuse_bad_tables() {
    // The committed table of issue 23's matches: every record it names is there.
    let table = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/training/scratch/yardstick.csv"));
    let points = train::read_yardstick(table).unwrap_or_else(|e| panic!("{e}"));
    assert!(points.len() >= 20 && points.iter().all(|p| p.wins + p.draws + p.losses >= 10));

    // A table of its own, charted beside it.
    let dir = tmpdir("yardstick");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("m.json"), r#"{"games": 4, "wins": 1, "draws": 1, "losses": 2}"#).unwrap();
    let t = dir.join("t.csv");
    std::fs::write(&t, "chart,series,hours,record,wins,draws,losses\nd1,run,1.5,m,,,\nd1,run,0.5,,3,0,7\n").unwrap();
    let o = tenjiku(&["plot", "--yardstick", t.to_str().unwrap(), "--goal", "55"]);
    ok(&o);
    let bytes = std::fs::read(dir.join("yardstick-d1.png")).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    // The legend goes under the 1000x600 chart, a 22-pixel row per entry (the run, the goal) and
    // one spare: the PNG header's width and height.
    let (w, h) =
        (u32::from_be_bytes(bytes[16..20].try_into().unwrap()), u32::from_be_bytes(bytes[20..24].try_into().unwrap()));
    assert_eq!((w, h), (1000, 600 + 3 * 22), "the legend is below the chart");
    assert!(String::from_utf8_lossy(&o.stdout).contains("yardstick-d1.png"));

    std::fs::write(&t, "chart,series,hours,record\nd1,run,1.5,missing\n").unwrap();
    assert_one_line_error(&tenjiku(&["plot", "--yardstick", t.to_str().unwrap()]), "cannot read arena record");
    std::fs::write(&t, "chart,series,hours,record\nd1,run,1.5,m\n").unwrap();
    assert_one_line_error(
        &tenjiku(&["plot", "--yardstick", t.to_str().unwrap(), "--goal", "150"]),
        "not a score in percent",
    );
    let o = tenjiku(&["plot", "--goal", "55", dir.to_str().unwrap()]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--yardstick"));
}
