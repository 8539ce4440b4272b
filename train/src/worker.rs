//! The self-play side of a run: a worker that plays with the newest published network and
//! uploads its finished games to the store as chunks ([`crate::chunk`]).
//!
//! The same worker runs inside `tenjiku train` (worker 0, over the run directory as a `file://`
//! store, stepped by the training loop) and as `tenjiku selfplay --store URL` on any number of
//! machines (stepped by [`serve`]). It keeps nothing that the store does not have: a restarted
//! worker reads where its last chunk left off (chunk number and game number) and goes on; what
//! a kill loses is the games in progress.
//!
//! # Publications (`published/NNNNNNNNN`)
//! The trainer publishes a network by writing its checkpoint first and then creating the next
//! numbered publication object (create-if-absent), a small JSON naming the checkpoint and its
//! step. A worker looks for the publication after the one it plays with (one existence check
//! per look, at most every `poll` seconds, and between rounds, so a game may change networks
//! midway; each game file records the network its game started with).
//!
//! # Seeds
//! Worker 0 plays games seeded by (`seed`, game number), as a single `train` process always
//! has; worker `w > 0` by a seed mixed from (`seed`, `w`), and numbers its games on from its last
//! chunk, so no two workers (and no restarted worker) play the same game.
//!
//! # Pool games
//! With `pool_fraction` > 0, each time it switches networks a worker draws the pool network
//! (for the pool games it starts from then on) from the store's pool checkpoints older than
//! the new network ([`crate::learner::pool_of`]), seeded by (its seed, the publication
//! number); one that does not load is skipped with a note and the previous one stays.

use crate::bootstrap::{Teacher, TeacherConfig};
use crate::chunk::{parse_chunk_key, Chunk, ChunkName, GAMES, MAX_CHUNK_BYTES};
use crate::config::{Bootstrap, RunConfig};
use crate::games::Finished;
use crate::replay::GameFile;
use crate::selfplay::{SelfPlay, SelfPlayConfig};
use crate::store::{Store, StoreError};
use crate::RunError;
use engine::MoveTable;
use nn::backend::Device;
use nn::checkpoint::MAX_CHECKPOINT_BYTES;
use nn::evaluator::NetEvaluator;
use search::mix_seed;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const PUBLISHED: &str = "published";

/// A published network.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Publication {
    /// Its number (1, 2, ...).
    #[serde(skip)]
    pub number: u64,
    /// The key of its checkpoint in the store.
    pub checkpoint: String,
    pub step: u64,
}

fn publication_key(n: u64) -> String {
    format!("{PUBLISHED}/{n:09}")
}

/// The publication numbered `n`, if there is one (an unreadable one is an error).
pub fn read_publication(store: &Store, n: u64) -> Result<Option<Publication>, RunError> {
    let Some(bytes) = store.get(&publication_key(n), 1 << 16)? else { return Ok(None) };
    let mut p: Publication = serde_json::from_slice(&bytes).map_err(|e| RunError::BadObject {
        store: store.url().to_string(),
        key: publication_key(n),
        why: e.to_string(),
    })?;
    p.number = n;
    Ok(Some(p))
}

/// The newest publication's number (0: none yet), from a listing.
pub fn newest_publication(store: &Store) -> Result<u64, StoreError> {
    Ok(store
        .list(PUBLISHED)?
        .iter()
        .filter_map(|e| e.key.strip_prefix(&format!("{PUBLISHED}/"))?.parse::<u64>().ok())
        .max()
        .unwrap_or(0))
}

/// Publish the checkpoint at `checkpoint` (already in the store) as number `n`; `Ok(false)` when
/// number `n` exists already (another trainer published it).
pub fn publish(store: &Store, n: u64, checkpoint: &str, step: u64) -> Result<bool, StoreError> {
    let p = Publication { number: n, checkpoint: checkpoint.to_string(), step };
    store.create(&publication_key(n), serde_json::to_vec(&p).expect("serializable"))
}

/// The worker index a job scheduler gives: `JOB_COMPLETION_INDEX` (a Kubernetes Indexed Job),
/// then `SLURM_ARRAY_TASK_ID` (a Slurm job array); `Err` names a variable that is not a number.
pub fn index_from_env() -> Result<Option<u32>, String> {
    for var in ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID"] {
        if let Ok(v) = std::env::var(var) {
            return v
                .trim()
                .parse::<u32>()
                .map(Some)
                .map_err(|_| format!("{var}='{v}' is not a worker index (expected 0 to {})", u32::MAX));
        }
    }
    Ok(None)
}

/// The chunks in a store: `(key, name, modified ms)`, sorted by key.
pub fn list_chunks(store: &Store) -> Result<Vec<(String, ChunkName, i64)>, StoreError> {
    Ok(store
        .list(GAMES)?
        .into_iter()
        .filter_map(|e| parse_chunk_key(&e.key).map(|n| (e.key, n, e.modified_ms)))
        .collect())
}

/// Upload a chunk, written once (create-if-absent): a retry that finds its own bytes there is
/// done (so it is counted once); one that finds other bytes (another worker with this index)
/// takes the next free number (`next_seq` is moved past it). Returns the key, and the key it
/// first collided with.
pub fn upload_chunk(store: &Store, chunk: &Chunk, next_seq: &mut u64) -> Result<(String, Option<String>), StoreError> {
    let mut chunk = chunk.clone();
    let mut collided = None;
    loop {
        let bytes = chunk.to_bytes();
        let key = chunk.key();
        if store.create(&key, bytes.clone())? || store.get(&key, MAX_CHUNK_BYTES)?.as_deref() == Some(&bytes[..]) {
            return Ok((key, collided));
        }
        collided.get_or_insert(key);
        chunk.seq = (*next_seq).max(chunk.seq + 1);
        *next_seq = chunk.seq + 1;
    }
}

/// What a round of a worker did.
#[derive(Debug, Default)]
pub struct RoundOutput {
    /// The chunk it uploaded (its key and games), if games finished.
    pub chunk: Option<(String, Vec<GameFile>)>,
    /// Positions played (self-play and teacher), and the root policy entropy's sum and count.
    pub positions: u64,
    pub entropy_sum: f64,
    pub entropy_n: u64,
    /// Whether the round played teacher games.
    pub teacher: bool,
    /// The network calls of the round: positions evaluated, calls, and seconds spent in them.
    pub net_positions: u64,
    pub net_calls: u64,
    pub net_secs: f64,
}

/// A self-play worker (see the module documentation).
pub struct Worker {
    store: Arc<Store>,
    pub index: u32,
    cfg: RunConfig,
    rules_tag: String,
    table: Arc<MoveTable>,
    device: Device,
    evaluator: Option<NetEvaluator>,
    /// The pool network (pool games) and its step.
    pool: Option<(u64, NetEvaluator)>,
    /// What the caller should log (the pool network drawn, or why it stayed).
    notes: Vec<String>,
    /// The publication it plays with.
    net: Option<Publication>,
    sp_cfg: SelfPlayConfig,
    teacher_cfg: Option<TeacherConfig>,
    teacher: Option<Teacher>,
    selfplay: Option<SelfPlay>,
    next_seq: u64,
    next_game: u64,
    /// Chunks whose upload failed, tried again before the next one.
    pending: Vec<Chunk>,
    last_look: Option<Instant>,
    /// Games and positions uploaded by this worker in this process.
    pub games: u64,
    pub positions: u64,
    /// Positions played in this process (uploaded or still in games in progress).
    pub played: u64,
}

impl Worker {
    /// A worker over `store` for the run `cfg`; `chunks` is the store's listing of games
    /// (where worker `index` left off is read from its last chunk).
    pub fn open(
        store: Arc<Store>,
        cfg: &RunConfig,
        rules_tag: &str,
        table: Arc<MoveTable>,
        index: u32,
        device: &Device,
        chunks: &[(String, ChunkName, i64)],
    ) -> Result<Worker, RunError> {
        let mut sp_cfg = SelfPlayConfig::from_run(cfg, rules_tag)?;
        let mut teacher_cfg =
            if cfg.bootstrap == Bootstrap::None { None } else { Some(TeacherConfig::from_run(cfg, rules_tag)?) };
        if index > 0 {
            let seed = mix_seed(cfg.seed, 0x574F_524B_0000_0000 | index as u64);
            sp_cfg.seed = seed;
            if let Some(t) = teacher_cfg.as_mut() {
                t.seed = seed;
            }
        }
        // Where this worker left off: after its newest chunk (a run from before chunks: after
        // its newest game file).
        let mine = |n: &ChunkName| n.worker == Some(index) || (index == 0 && n.worker.is_none());
        let (mut next_seq, mut next_game) = (0, 0);
        if let Some((key, name, _)) =
            chunks.iter().filter(|c| mine(&c.1) && c.1.worker.is_some()).max_by_key(|c| c.1.seq)
        {
            next_seq = name.seq + 1;
            if let Some(bytes) = store.get(key, MAX_CHUNK_BYTES)? {
                match Chunk::from_object(name, &bytes) {
                    Ok(c) => next_game = c.next_game,
                    // Its games are skipped by the trainer; numbering goes on past any game it
                    // could have held.
                    Err(_) => next_game = name.seq.saturating_add(1) << 16,
                }
            }
        }
        if let Some(legacy) = chunks.iter().filter(|c| index == 0 && c.1.worker.is_none()).map(|c| c.1.seq).max() {
            next_game = next_game.max(legacy + 1);
        }
        Ok(Worker {
            store,
            index,
            cfg: cfg.clone(),
            rules_tag: rules_tag.to_string(),
            table,
            device: device.clone(),
            evaluator: None,
            pool: None,
            notes: Vec::new(),
            net: None,
            sp_cfg,
            teacher_cfg,
            teacher: None,
            selfplay: None,
            next_seq,
            next_game,
            pending: Vec::new(),
            last_look: None,
            games: 0,
            positions: 0,
            played: 0,
        })
    }

    /// Look for a newer published network (at most every `every`, except the first look) and
    /// switch to the newest; returns whether it switched.
    pub fn look_for_network(&mut self, every: Duration) -> Result<bool, RunError> {
        if self.last_look.is_some_and(|t| t.elapsed() < every) {
            return Ok(false);
        }
        self.last_look = Some(Instant::now());
        let mut n = match &self.net {
            Some(p) => p.number,
            None => newest_publication(&self.store)?,
        };
        let mut newest = None;
        if self.net.is_none() {
            newest = read_publication(&self.store, n)?;
        }
        while let Some(p) = read_publication(&self.store, n + 1)? {
            n += 1;
            newest = Some(p);
        }
        let Some(p) = newest else { return Ok(false) };
        self.load(p)?;
        Ok(true)
    }

    /// A checkpoint of the store that this run's workers can play (`missing`: why it should
    /// have been there).
    fn read_checkpoint(&self, key: &str, missing: String) -> Result<nn::checkpoint::Checkpoint, RunError> {
        let bytes = self.store.get(key, MAX_CHECKPOINT_BYTES)?.ok_or_else(|| RunError::BadObject {
            store: self.store.url().to_string(),
            key: key.to_string(),
            why: missing,
        })?;
        let ckpt = nn::checkpoint::from_bytes(std::path::Path::new(key), &bytes, &self.device)?;
        if &ckpt.header.network != self.cfg.net() {
            return Err(RunError::NetworkShape);
        }
        if ckpt.header.rules != self.rules_tag {
            return Err(RunError::RulesDiffer { checkpoint: ckpt.header.rules, config: self.rules_tag.clone() });
        }
        Ok(ckpt)
    }

    /// The evaluator for the network of `step`: `old` with the network swapped in (its buffers
    /// kept), or a new one at the run's precision; the material mix the run gives that step.
    fn evaluator_for(&self, old: Option<NetEvaluator>, net: nn::Network, step: u64) -> Result<NetEvaluator, RunError> {
        let mut e = match old {
            Some(mut e) => {
                e.set_network(net);
                e
            }
            None => {
                let mut e = NetEvaluator::new(net, &self.device);
                e.set_precision(self.cfg.precision.parse()?)?;
                e
            }
        };
        e.set_material_mix(self.cfg.selfplay_material_mix_at(step))?;
        Ok(e)
    }

    /// Notes for the log since the last call (the pool network drawn, or why none was).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// The step of the pool network, if there is one.
    pub fn pool_step(&self) -> Option<u64> {
        self.pool.as_ref().map(|(s, _)| *s)
    }

    /// With pool games on: draw the pool network for the pool games started from now on, one
    /// of the store's pool checkpoints older than the network of publication `p` (none yet
    /// early in a run). A draw that does not load leaves the previous one, with a note.
    fn draw_pool(&mut self, p: &Publication) -> Result<(), RunError> {
        use rand::{Rng, SeedableRng};
        if self.cfg.pool_fraction <= 0.0 {
            return Ok(());
        }
        let all = crate::learner::list_checkpoints(&self.store)?;
        let members = crate::learner::pool_of(&all, self.cfg.pool_every_steps, self.cfg.pool_size, p.step);
        if members.is_empty() {
            return Ok(());
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(mix_seed(self.sp_cfg.seed, 0x9001_0000_0000 ^ p.number));
        let (step, key) = &members[rng.gen_range(0..members.len())];
        if self.pool_step() == Some(*step) {
            return Ok(());
        }
        let steps: Vec<String> = members.iter().map(|(s, _)| s.to_string()).collect();
        match self.read_checkpoint(key, "listed as a pool checkpoint, then gone".into()) {
            Ok(ckpt) => {
                let old = self.pool.take().map(|(_, e)| e);
                self.pool = Some((*step, self.evaluator_for(old, ckpt.network, *step)?));
                self.notes.push(format!(
                    "pool games against step {step} from now on (drawn from steps {} for network step {})",
                    steps.join(", "),
                    p.step
                ));
            }
            Err(e) => self.notes.push(format!(
                "warning: pool checkpoint {} not used: {e} (pool games go on against step {})",
                self.store.describe(key),
                self.pool_step().map_or("none".into(), |s| s.to_string())
            )),
        }
        Ok(())
    }

    fn load(&mut self, p: Publication) -> Result<(), RunError> {
        let ckpt =
            self.read_checkpoint(&p.checkpoint, format!("publication {} names it, but it is not there", p.number))?;
        let old = self.evaluator.take();
        self.evaluator = Some(self.evaluator_for(old, ckpt.network, p.step)?);
        let (royal_guard, mate_guard) = (self.cfg.royal_guard_at(p.step), self.cfg.mate_guard_at(p.step));
        self.sp_cfg.royal_guard = royal_guard;
        self.sp_cfg.mate_guard = mate_guard;
        if let Some(sp) = self.selfplay.as_mut() {
            sp.net_step = p.step;
            sp.set_royal_guard(royal_guard);
            sp.set_mate_guard(mate_guard);
        }
        self.draw_pool(&p)?;
        self.net = Some(p);
        Ok(())
    }

    /// Play one round: teacher games (`teaching`: whole games, `threads` at a time) or one move
    /// in every self-play game; the games it finishes are uploaded as one chunk. Needs a
    /// network ([`Worker::look_for_network`]) for self-play. An upload that fails is an error,
    /// and the chunk is kept and uploaded before the next one.
    pub fn round(&mut self, teaching: bool) -> Result<RoundOutput, RunError> {
        let mut out = RoundOutput::default();
        let finished = match self.teacher_cfg.as_ref().filter(|_| teaching) {
            Some(tc) => {
                let teacher =
                    self.teacher.get_or_insert_with(|| Teacher::new(tc.clone(), self.table.clone(), self.next_game));
                let finished = teacher.round();
                self.next_game = teacher.next_game();
                out.positions = finished.iter().map(|f| f.file.plies.len() as u64).sum();
                out.teacher = true;
                finished
            }
            None => {
                let step = self.net.as_ref().map_or(0, |p| p.step);
                let evaluator = self.evaluator.as_mut().ok_or(RunError::NoNetwork)?;
                let sp = self.selfplay.get_or_insert_with(|| {
                    SelfPlay::new(self.sp_cfg.clone(), self.table.clone(), self.next_game, step)
                });
                let before = (evaluator.positions, evaluator.calls, evaluator.busy);
                let pool = self.pool.as_mut().map(|(_, e)| e as &mut dyn search::mcts::Evaluator);
                let (finished, st) = sp.round(evaluator, pool);
                out.net_positions = evaluator.positions - before.0;
                out.net_calls = evaluator.calls - before.1;
                out.net_secs = (evaluator.busy - before.2).as_secs_f64();
                self.next_game = sp.next_game();
                out.positions = st.positions;
                out.entropy_sum = st.entropy_sum;
                out.entropy_n = st.positions;
                finished
            }
        };
        self.played += out.positions;
        if !finished.is_empty() {
            let games: Vec<GameFile> = finished.into_iter().map(|f: Finished| f.file).collect();
            let chunk = Chunk { worker: self.index, seq: self.next_seq, next_game: self.next_game, games };
            self.next_seq += 1;
            self.pending.push(chunk);
        }
        while !self.pending.is_empty() {
            let chunk = self.pending.remove(0);
            match self.upload(&chunk) {
                Ok(key) => out.chunk = Some((key, chunk.games)),
                Err(e) => {
                    self.pending.insert(0, chunk);
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    /// Upload a chunk ([`upload_chunk`]) and count its games as uploaded.
    fn upload(&mut self, chunk: &Chunk) -> Result<String, RunError> {
        let (key, collided) = upload_chunk(&self.store, chunk, &mut self.next_seq)?;
        self.games += chunk.games.len() as u64;
        self.positions += chunk.positions();
        if let Some(taken) = collided {
            eprintln!(
                "warning: worker {}: chunk {taken} exists with other games (two workers with index {}?); uploaded as {key}",
                self.index, self.index
            );
        }
        Ok(key)
    }
}

/// What `tenjiku selfplay` gives.
#[derive(Clone, Debug, Default)]
pub struct WorkerOptions {
    pub store: String,
    /// The run config; must agree with the store's `config.toml` (which the trainer writes).
    pub config: Option<std::path::PathBuf>,
    /// The worker index; `None`: from the job scheduler's environment, else 0.
    pub worker: Option<u32>,
    /// Stop after uploading this many games.
    pub max_games: Option<u64>,
    pub max_minutes: Option<f64>,
    /// Overrides the config's `backend` (and `threads`, `concurrent_games` with `sets`).
    pub backend: Option<String>,
    /// `FIELD=VALUE` of the runtime fields a worker may set for itself (threads,
    /// concurrent_games, backend).
    pub sets: Vec<String>,
    /// How often to look for a newer network (0: 10 s).
    pub poll_seconds: f64,
    /// Print a progress line at most this often (0: 10 s).
    pub report_seconds: f64,
}

/// How a worker stopped.
#[derive(Clone, Debug)]
pub struct WorkerSummary {
    pub worker: u32,
    pub games: u64,
    pub positions: u64,
    /// Positions played (those of the games still in progress at the stop included) and the
    /// seconds it played.
    pub played: u64,
    pub seconds: f64,
    pub stop: String,
}

/// The fields a worker may set for itself (they do not change what a game is).
pub const WORKER_FIELDS: [&str; 3] = ["threads", "concurrent_games", "backend"];

/// The run's config as the store has it, waiting for the trainer to write it; `--config` must
/// agree with it except in the runtime fields.
fn worker_config(store: &Store, opts: &WorkerOptions, say: &mut dyn FnMut(String)) -> Result<RunConfig, RunError> {
    for s in &opts.sets {
        let field = s.split('=').next().unwrap_or("").trim();
        if !WORKER_FIELDS.contains(&field) {
            return Err(crate::ConfigError::Field {
                origin: "--set".into(),
                error: crate::config::FieldError {
                    field: "--set",
                    why: format!("a worker may set only {} (got '{s}')", WORKER_FIELDS.join(", ")),
                },
            }
            .into());
        }
    }
    let given = opts.config.as_deref().map(RunConfig::load).transpose()?;
    let start = Instant::now();
    let mut waited = false;
    let stored = loop {
        if let Some(bytes) = store.get("config.toml", engine::input::MAX_CONFIG_BYTES)? {
            let origin = store.describe("config.toml");
            let text = String::from_utf8(bytes)
                .map_err(|_| crate::ConfigError::Read { path: origin.clone(), reason: "not UTF-8 text".into() })?;
            break RunConfig::from_stored(&text, &origin)?;
        }
        if opts.max_minutes.is_some_and(|m| start.elapsed().as_secs_f64() >= m * 60.0) {
            return Err(RunError::NoRunYet { store: store.url().to_string(), why: "--max-minutes reached" });
        }
        if crate::run::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(RunError::NoRunYet { store: store.url().to_string(), why: "interrupted" });
        }
        if !waited {
            say(format!("waiting for the trainer to start the run in {} (no config.toml yet)", store.url()));
            waited = true;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    let mut cfg = stored.clone();
    if let Some(g) = &given {
        let mut g = g.clone();
        // The runtime fields (backend, threads, max_steps, ...) are the worker's own or the
        // trainer's; the rest must be the run's.
        let concurrent = g.concurrent_games;
        g.seed = stored.seed;
        g.concurrent_games = stored.concurrent_games;
        if let Some((field, run, given)) = stored.first_difference(&g) {
            return Err(RunError::ConfigDiffers {
                given_by: format!(
                    "{} differs from the store's {}",
                    opts.config.as_ref().expect("given").display(),
                    store.describe("config.toml")
                ),
                field,
                run,
                given,
            });
        }
        cfg.threads = g.threads;
        cfg.concurrent_games = concurrent;
        cfg.backend = g.backend.clone();
    }
    for s in &opts.sets {
        cfg.set_field(s)?;
    }
    if let Some(b) = &opts.backend {
        cfg.backend = b.clone();
    }
    Ok(cfg)
}

/// Run a self-play worker until a stop condition (see the module documentation).
pub fn selfplay(opts: &WorkerOptions) -> Result<WorkerSummary, RunError> {
    use crate::run::INTERRUPTED;
    use std::sync::atomic::Ordering;
    crate::run::catch_interrupts();
    let store = Arc::new(Store::open(&opts.store)?);
    let index = match opts.worker {
        Some(i) => i,
        None => index_from_env()
            .map_err(|why| RunError::BadObject { store: store.url().to_string(), key: "worker index".into(), why })?
            .unwrap_or(0),
    };
    let say = |s: String| eprintln!("worker {index}: {s}");
    let cfg = worker_config(&store, opts, &mut |s| say(s))?;
    let rules = engine::Rules::load(&cfg.rules)?;
    let rules_tag = engine::record::rules_tag(&rules, &cfg.rules);
    let device = nn::backend::device_by_name(&cfg.backend)?;
    cfg.precision.parse::<nn::backend::Precision>()?.check(&device, &cfg.backend)?;
    let table = Arc::new(MoveTable::new(&rules));
    let chunks = list_chunks(&store)?;
    let mut store_positions: u64 = chunks.iter().map(|c| c.1.positions).sum();
    let mut w = Worker::open(store.clone(), &cfg, &rules_tag, table, index, &device, &chunks)?;
    say(format!(
        "store {}, chunks from number {}, games from number {}, {} games at a time",
        store.url(),
        w.next_seq,
        w.next_game,
        cfg.concurrent_games
    ));
    let poll = Duration::from_secs_f64(if opts.poll_seconds > 0.0 { opts.poll_seconds } else { 10.0 });
    let report = Duration::from_secs_f64(if opts.report_seconds > 0.0 { opts.report_seconds } else { 10.0 });
    let start = Instant::now();
    let mut last_report = Instant::now();
    let mut waited = false;
    let bootstrap = if cfg.bootstrap == Bootstrap::None { 0 } else { cfg.bootstrap_positions };
    let status_key = format!("workers/w{index:04}.json");
    let stop = loop {
        if INTERRUPTED.load(Ordering::SeqCst) {
            break "interrupted (SIGINT)".to_string();
        }
        if opts.max_games.is_some_and(|g| w.games >= g) {
            break format!("--max-games {} reached", opts.max_games.unwrap_or(0));
        }
        if opts.max_minutes.is_some_and(|m| start.elapsed().as_secs_f64() >= m * 60.0) {
            break "--max-minutes reached".to_string();
        }
        let teaching = store_positions < bootstrap;
        if !teaching {
            match w.look_for_network(if w.net.is_none() { Duration::ZERO } else { poll }) {
                Ok(true) => {
                    let p = w.net.as_ref().expect("just loaded");
                    say(format!("playing network step {} (publication {})", p.step, p.number));
                    for note in w.take_notes() {
                        say(note);
                    }
                    if bootstrap > 0 {
                        store_positions = list_chunks(&store)?.iter().map(|c| c.1.positions).sum();
                    }
                }
                Ok(false) => {}
                Err(RunError::Store(e)) => say(format!("warning: {e} (trying again)")),
                Err(e) => return Err(e),
            }
            if w.net.is_none() {
                if !waited {
                    say("waiting for the trainer to publish a network".into());
                    waited = true;
                }
                std::thread::sleep(Duration::from_millis(250));
                continue;
            }
        }
        match w.round(teaching) {
            Ok(out) => {
                if let Some((_, games)) = &out.chunk {
                    store_positions += games.iter().map(|g| g.plies.len() as u64).sum::<u64>();
                }
            }
            Err(RunError::Store(e)) => {
                say(format!("warning: {e} (its games are kept and uploaded again)"));
                std::thread::sleep(poll.min(Duration::from_secs(5)));
            }
            Err(e) => return Err(e),
        }
        if last_report.elapsed() >= report {
            last_report = Instant::now();
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let step = w.net.as_ref().map_or(0, |p| p.step);
            say(format!(
                "{} games, {} positions uploaded ({:.1} positions/s), network step {step}",
                w.games,
                w.positions,
                w.positions as f64 / secs
            ));
            let status = serde_json::json!({
                "worker": index, "host": crate::lease::host_name(), "pid": std::process::id(),
                "games": w.games, "positions": w.positions,
                "positions_per_s": w.positions as f64 / secs, "network_step": step,
                "updated_unix": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            });
            let _ = store.put(&status_key, status.to_string().into_bytes());
        }
    };
    // Chunks whose upload failed: one more try each.
    if !w.pending.is_empty() {
        let pending = std::mem::take(&mut w.pending);
        for c in pending {
            match w.upload(&c) {
                Ok(_) => {}
                Err(e) => say(format!("warning: chunk {} not uploaded, its games are lost: {e}", c.key())),
            }
        }
    }
    Ok(WorkerSummary {
        worker: index,
        games: w.games,
        positions: w.positions,
        played: w.played,
        seconds: start.elapsed().as_secs_f64(),
        stop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::PlyRecord;
    use engine::{Color, Outcome, Position, WinReason};

    fn chunk(worker: u32, seq: u64, seed: u64) -> Chunk {
        let g = GameFile {
            rules: "standard".into(),
            start_fen: Position::start().to_fen(),
            seed,
            net_step: 0,
            outcome: Outcome::Win { winner: Color::White, reason: WinReason::Resignation },
            resign_off: false,
            would_resign: None,
            teacher: false,
            opponent: None,
            plies: vec![PlyRecord {
                mv: "a1a2".into(),
                value: 0.0,
                policy: vec![],
                is_policy_target: false,
                surprise: None,
            }],
        };
        Chunk { worker, seq, next_game: seed + 1, games: vec![g] }
    }

    #[test]
    fn a_retried_upload_is_one_chunk_and_a_collision_takes_the_next_number() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().to_str().unwrap()).unwrap();
        let mut next = 1;
        let c = chunk(2, 0, 5);
        let (k1, col) = upload_chunk(&store, &c, &mut next).unwrap();
        assert_eq!(col, None);
        // The same upload again (its first try's answer was lost): the same object, no other.
        let (k2, col) = upload_chunk(&store, &c, &mut next).unwrap();
        assert_eq!((k1.as_str(), col), (k2.as_str(), None));
        assert_eq!(store.list("games").unwrap().len(), 1);
        // Another worker with index 2 uploads other games as chunk 0: they go to chunk 1.
        let (k3, col) = upload_chunk(&store, &chunk(2, 0, 9), &mut next).unwrap();
        assert_eq!(col.as_deref(), Some(k1.as_str()));
        assert!(k3.starts_with("games/w0002/c000000001-"), "{k3}");
        assert_eq!(next, 2);
        assert_eq!(list_chunks(&store).unwrap().len(), 2);
    }

    #[test]
    fn the_worker_index_comes_from_the_scheduler() {
        // (One test sets the variables, so no other test sees them change.)
        std::env::remove_var("JOB_COMPLETION_INDEX");
        std::env::remove_var("SLURM_ARRAY_TASK_ID");
        assert_eq!(index_from_env(), Ok(None));
        std::env::set_var("SLURM_ARRAY_TASK_ID", "7");
        assert_eq!(index_from_env(), Ok(Some(7)));
        std::env::set_var("JOB_COMPLETION_INDEX", "3");
        assert_eq!(index_from_env(), Ok(Some(3)));
        std::env::set_var("JOB_COMPLETION_INDEX", "x");
        assert!(index_from_env().unwrap_err().contains("JOB_COMPLETION_INDEX='x' is not a worker index"));
        std::env::remove_var("JOB_COMPLETION_INDEX");
        std::env::remove_var("SLURM_ARRAY_TASK_ID");
    }
}
