//! A run on many machines, on one: `tenjiku learn` (the trainer) and `tenjiku selfplay` workers
//! as separate processes over one store, with `configs/tiny.toml`: over a `file://` directory
//! (workers and the trainer killed with `kill -9` and started again), and over `s3://` against
//! a real S3-compatible server on 127.0.0.1 (moto; the test says SKIPPED when it is not
//! installed: `.ci/run` installs it).

mod common;

use common::{assert_one_line_error, ok, tenjiku};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/tiny.toml");

/// Start the binary with its output (stdout and stderr) going to `log`.
fn spawn(args: &[&str], log: &Path, env: &[(&str, String)]) -> Child {
    let f = std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap();
    Command::new(env!("CARGO_BIN_EXE_tenjiku"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v.as_str())))
        .stdin(Stdio::null())
        .stdout(f.try_clone().unwrap())
        .stderr(f)
        .spawn()
        .expect("binary runs")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

/// Wait (at most `secs`) until `done`; panics naming `what` and showing `logs`.
fn wait_until(what: &str, secs: u64, logs: &[&Path], mut done: impl FnMut() -> bool) {
    let t = Instant::now();
    while !done() {
        if t.elapsed() > Duration::from_secs(secs) {
            let shown: Vec<String> = logs.iter().map(|l| format!("--- {}:\n{}", l.display(), read(l))).collect();
            panic!("{what}: not within {secs} s\n{}", shown.join("\n"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn interrupt(child: &mut Child) {
    let s = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(s.success());
    let t = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            assert!(st.success(), "stopped with {st}");
            return;
        }
        assert!(t.elapsed() < Duration::from_secs(120), "not stopped by SIGINT within 120 s");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn kill9(child: &mut Child) {
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

/// The chunks of each worker: worker -> [(chunk number, network steps of its games)].
fn by_worker(store: &Path) -> BTreeMap<u32, Vec<(u64, Vec<u64>)>> {
    let mut m: BTreeMap<u32, Vec<(u64, Vec<u64>)>> = BTreeMap::new();
    for (_, c) in common::chunks(store) {
        m.entry(c.worker).or_default().push((c.seq, c.games.iter().map(|g| g.net_step).collect()));
    }
    m
}

/// The steps of the published networks.
fn published_steps(store: &Path) -> Vec<u64> {
    let mut v: Vec<u64> = std::fs::read_dir(store.join("published"))
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let j: serde_json::Value = serde_json::from_str(&read(&e.path())).ok()?;
                    j["step"].as_u64()
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn latest_step(store: &Path) -> u64 {
    read(&store.join("checkpoints/latest"))
        .trim()
        .strip_prefix("step-")
        .and_then(|s| s.strip_suffix(".ckpt"))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// `(games, positions)` of a summary line "...: step N, G games, P positions (...)".
fn summary_counts(stdout: &str) -> (u64, u64) {
    let line = stdout.lines().find(|l| l.contains(" games, ")).unwrap_or_else(|| panic!("no summary: {stdout}"));
    let num = |word: &str| -> u64 {
        let before = line.split(&format!(" {word}")).next().unwrap();
        before.rsplit(' ').next().unwrap().parse().unwrap()
    };
    (num("games,"), num("positions"))
}

#[test]
fn workers_and_a_trainer_over_a_directory_store_lose_nothing_to_kill_9() {
    let dir = common::temp_dir();
    let store = dir.join("store");
    let s = store.to_str().unwrap();
    let (tlog, w1log, w2log) = (dir.join("trainer.log"), dir.join("w1.log"), dir.join("w2.log"));
    let logs = [tlog.as_path(), w1log.as_path(), w2log.as_path()];
    let trainer_args =
        ["learn", "--store", s, "--config", TINY, "--max-steps", "0", "--quiet", "--poll-seconds", "0.2"];
    let mut trainer = spawn(&trainer_args, &tlog, &[]);
    let worker =
        |n: &'static str| ["selfplay", "--store", s, "--worker", n, "--poll-seconds", "0.2", "--report-seconds", "1"];
    let mut w1 = spawn(&worker("1"), &w1log, &[]);
    // Worker 2 takes its index from a Kubernetes Indexed Job's variable.
    let w2_args = ["selfplay", "--store", s, "--poll-seconds", "0.2", "--config", TINY];
    let mut w2 = spawn(&w2_args, &w2log, &[("JOB_COMPLETION_INDEX", "2".into())]);

    // A second trainer on the store is refused while the first runs.
    wait_until("the trainer's lease", 60, &logs, || store.join("lease/000000001").exists());
    assert_one_line_error(&tenjiku(&["learn", "--store", s, "--quiet"]), "has a running trainer");

    // Games from both workers arrive, and both play a network the trainer published after step 0
    // (each game names the network it started with).
    wait_until("games of networks past step 0 from both workers", 120, &logs, || {
        let m = by_worker(&store);
        [1, 2].iter().all(|w| m.get(w).is_some_and(|c| c.iter().any(|(_, steps)| steps.iter().any(|&s| s > 0))))
    });

    // kill -9 a worker mid-run: what it uploaded stays; started again, it goes on from its next
    // chunk number.
    kill9(&mut w1);
    let before: Vec<u64> = by_worker(&store)[&1].iter().map(|c| c.0).collect();
    let mut w1 = spawn(&worker("1"), &w1log, &[]);
    wait_until("worker 1 uploading again", 60, &logs, || by_worker(&store)[&1].len() > before.len() + 1);
    let after: Vec<u64> = by_worker(&store)[&1].iter().map(|c| c.0).collect();
    assert_eq!(after[..before.len()], before[..], "chunks of a killed worker stay as they were");
    assert!(read(&w1log).contains(&format!("chunks from number {}", before.len())), "{}", read(&w1log));

    // kill -9 the trainer: started again, it takes over the lease at once (its holder's process
    // is gone), resumes from its last checkpoint and goes on training and publishing.
    let published_before = published_steps(&store).len();
    kill9(&mut trainer);
    let killed_at = latest_step(&store);
    let mut trainer = spawn(&trainer_args, &tlog, &[]);
    wait_until("the trainer resuming and publishing again", 120, &logs, || {
        latest_step(&store) >= killed_at + 20 && published_steps(&store).len() > published_before + 1
    });
    let tl = read(&store.join("train.log"));
    assert!(tl.contains("(its process no longer runs)"), "{tl}");
    assert!(tl.contains(&format!("resumed from step {killed_at} ")), "{tl}");

    // A damaged chunk is skipped with a warning naming it.
    let bad = store.join("games/w0009/c000000000-g1-p3.chunk");
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    std::fs::write(&bad, b"TNJKCHNK and then not a chunk at all").unwrap();
    wait_until("the damaged chunk's warning", 60, &logs, || {
        let tl = read(&store.join("train.log"));
        tl.contains("warning: skipping chunk") && tl.contains("w0009/c000000000-g1-p3.chunk")
    });
    std::fs::remove_file(&bad).unwrap();

    // Stop: the workers finish their round and upload what finished; then the trainer.
    interrupt(&mut w1);
    interrupt(&mut w2);
    interrupt(&mut trainer);

    // Every chunk is whole (common::chunks checks each one's checksum and name), the workers'
    // numbers have no gap and no repeat, and every game names a published network.
    let m = by_worker(&store);
    assert_eq!(m.keys().copied().collect::<Vec<_>>(), [1, 2]);
    let published = published_steps(&store);
    for (w, chunks) in &m {
        let seqs: Vec<u64> = chunks.iter().map(|c| c.0).collect();
        assert_eq!(seqs, (0..seqs.len() as u64).collect::<Vec<_>>(), "worker {w}");
        for (_, steps) in chunks {
            assert!(steps.iter().all(|s| published.contains(s)), "worker {w}: {steps:?} not in {published:?}");
        }
    }
    // The trainer counts each chunk once: started again on the store, it counts exactly what
    // the chunks hold (as one `train` process over the directory would).
    let all = common::chunks(&store);
    let games: u64 = all.iter().map(|(_, c)| c.games.len() as u64).sum();
    let positions: u64 = all.iter().map(|(_, c)| c.positions()).sum();
    let step = latest_step(&store).to_string();
    let o = tenjiku(&["learn", "--store", s, "--max-steps", &step, "--quiet"]);
    ok(&o);
    assert_eq!(summary_counts(&String::from_utf8_lossy(&o.stdout)), (games, positions));
    let o = tenjiku(&["train", "--run-dir", s, "--max-steps", &step, "--quiet"]);
    ok(&o);
    assert_eq!(summary_counts(&String::from_utf8_lossy(&o.stdout)), (games, positions));
}

/// A free TCP port on 127.0.0.1.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `moto_server` (PyPI `moto[server]`) on PATH, or where `.ci/run` installs it.
fn moto_server() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    if let Some(h) = std::env::var_os("HOME") {
        dirs.push(Path::new(&h).join(".cache/tenjiku-moto/bin"));
    }
    dirs.into_iter().map(|d| d.join("moto_server")).find(|p| p.is_file())
}

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn workers_and_a_trainer_over_s3_with_conditional_writes() {
    let Some(moto) = moto_server() else {
        eprintln!(
            "SKIPPED: workers_and_a_trainer_over_s3_with_conditional_writes needs moto_server (pip install 'moto[server]'; .ci/run installs it)"
        );
        return;
    };
    let dir = common::temp_dir();
    let port = free_port();
    let server_log = dir.join("moto.log");
    let f = std::fs::File::create(&server_log).unwrap();
    let _server = Killed(
        Command::new(&moto)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(f.try_clone().unwrap())
            .stderr(f)
            .spawn()
            .expect("moto_server starts"),
    );
    let endpoint = format!("http://127.0.0.1:{port}");
    let t = Instant::now();
    // The bucket (moto accepts unsigned requests).
    loop {
        match ureq::put(&format!("{endpoint}/tenjiku-runs")).call() {
            Ok(_) => break,
            Err(e) => {
                assert!(
                    t.elapsed() < Duration::from_secs(30),
                    "moto_server did not answer: {e}\n{}",
                    read(&server_log)
                );
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
    let env = [
        ("AWS_ENDPOINT", endpoint.clone()),
        ("AWS_ALLOW_HTTP", "true".into()),
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_REGION", "us-east-1".into()),
    ];
    let url = "s3://tenjiku-runs/run-1";
    let run_dir = dir.join("trainer");
    let (tlog, wlog) = (dir.join("trainer.log"), dir.join("worker.log"));
    let logs = [tlog.as_path(), wlog.as_path(), server_log.as_path()];
    let args = ["learn", "--store", url, "--config", TINY, "--run-dir", run_dir.to_str().unwrap(), "--quiet"];
    let mut trainer = spawn(&[&args[..], &["--max-steps", "40", "--poll-seconds", "0.2"]].concat(), &tlog, &env);
    let mut worker = spawn(
        &["selfplay", "--store", url, "--worker", "4", "--poll-seconds", "0.2", "--report-seconds", "1"],
        &wlog,
        &env,
    );
    // A second trainer is refused: the lease is a create-if-absent write on the server.
    wait_until("the trainer starting", 60, &logs, || read(&run_dir.join("train.log")).contains("trainer of store"));
    let second = Command::new(env!("CARGO_BIN_EXE_tenjiku"))
        .args(["learn", "--store", url, "--run-dir", dir.join("second").to_str().unwrap(), "--quiet"])
        .envs(env.iter().map(|(k, v)| (k, v.as_str())))
        .output()
        .unwrap();
    assert_one_line_error(&second, "has a running trainer");

    wait_until("the trainer reaching step 40", 180, &logs, || matches!(trainer.try_wait(), Ok(Some(_))));
    assert!(trainer.wait().unwrap().success(), "{}", read(&tlog));
    wait_until("the worker playing the last network", 60, &logs, || {
        read(&wlog).contains("playing network step 40 (publication 5)")
    });
    interrupt(&mut worker);

    let tl = read(&run_dir.join("train.log"));
    assert!(tl.contains(&format!("checkpoint {url}/checkpoints/step-000000040.ckpt (published as 5)")), "{tl}");
    // The objects on the server: chunks of worker 4, checkpoints, publications, and the
    // trainer's metrics copied into the store.
    let list =
        ureq::get(&format!("{endpoint}/tenjiku-runs?list-type=2&prefix=run-1/")).call().unwrap().into_string().unwrap();
    for k in [
        "run-1/games/w0004/c000000000-",
        "run-1/checkpoints/step-000000040.ckpt",
        "run-1/published/000000005",
        "run-1/lease/000000001",
        "run-1/metrics.csv",
        "run-1/train.log",
        "run-1/config.toml",
    ] {
        assert!(list.contains(k), "{k} not in the bucket: {list}");
    }
    // Evaluation and resumption read the checkpoints the trainer copied into its run directory.
    assert!(run_dir.join("checkpoints/step-000000040.ckpt").exists());

    // The trainer resumes from the bucket alone (a fresh run directory, as on another machine).
    let o = Command::new(env!("CARGO_BIN_EXE_tenjiku"))
        .args([
            "learn",
            "--store",
            url,
            "--run-dir",
            dir.join("elsewhere").to_str().unwrap(),
            "--max-steps",
            "40",
            "--quiet",
        ])
        .envs(env.iter().map(|(k, v)| (k, v.as_str())))
        .output()
        .unwrap();
    ok(&o);
    assert!(read(&dir.join("elsewhere/train.log")).contains("resumed from step 40"));
}

#[test]
fn bad_stores_and_options_are_one_line_errors() {
    let dir = common::temp_dir();
    let d = dir.to_str().unwrap();
    assert_one_line_error(&tenjiku(&["selfplay", "--store", "ftp://host/x"]), "expected file://DIR");
    assert_one_line_error(&tenjiku(&["learn", "--store", "s3://"]), "--run-dir is required");
    assert_one_line_error(&tenjiku(&["learn", "--store", "s3://", "--run-dir", d]), "no bucket name");
    assert_one_line_error(&tenjiku(&["learn", "--store", d, "--lease-seconds", "1"]), "--lease-seconds");
    assert_one_line_error(&tenjiku(&["selfplay", "--store", d, "--poll-seconds", "0"]), "0.1 to 3600");
    assert_one_line_error(&tenjiku(&["selfplay", "--store", d, "--worker", "x"]), "--worker");
    assert_one_line_error(&tenjiku(&["selfplay", "--store", d, "--set", "visits=3"]), "a worker may set only");
    // A store without a run: the trainer needs a config; a worker waits for one until its time is up.
    let empty = dir.join("empty");
    assert_one_line_error(&tenjiku(&["learn", "--store", empty.to_str().unwrap()]), "give --config");
    assert!(!empty.exists(), "nothing is created without a config");
    let o = tenjiku(&["selfplay", "--store", d, "--max-minutes", "0.02"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("waiting for the trainer to start the run"), "{err}");
    assert!(err.lines().last().unwrap().contains("no trainer started a run there"), "{err}");
    // A worker's config must be the run's (except its own backend, threads, concurrent_games).
    let store = dir.join("run");
    let s = store.to_str().unwrap();
    ok(&tenjiku(&["learn", "--store", s, "--config", TINY, "--max-steps", "0", "--max-minutes", "0.01", "--quiet"]));
    let other = dir.join("other.toml");
    std::fs::write(
        &other,
        read(Path::new(TINY)).replace("visits = 8", "visits = 9").replace(
            "\"net-tiny.toml\"",
            &format!("{:?}", concat!(env!("CARGO_MANIFEST_DIR"), "/configs/net-tiny.toml")),
        ),
    )
    .unwrap();
    assert_one_line_error(&tenjiku(&["selfplay", "--store", s, "--config", other.to_str().unwrap()]), "`visits`");
    let o = tenjiku(&["selfplay", "--store", s, "--config", TINY, "--set", "concurrent_games=2", "--max-games", "1"]);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("2 games at a time"), "{}", String::from_utf8_lossy(&o.stderr));
}
