//! The batched multi-tree driver: N searches (one per game) share one evaluator.
//!
//! Each round: every search backs up the evaluations of its previous leaves and gathers up to
//! `batch_per_tree` new ones (virtual loss); all the leaves of all the trees go to the
//! evaluator in **one** call, on the calling thread, alone (so it can use every core).
//!
//! The per-tree work (backup, selection, move generation, expansion) is shared with `threads -
//! 1` helper threads that live for the whole run (at least 4 searches per thread, else the
//! calling thread does everything). A round is published as an epoch; every thread, the
//! calling one included, claims searches one at a time from an epoch-tagged ticket, and the
//! round ends when every search is done. A helper the OS does not schedule in time (a busy
//! machine) therefore never holds a round up: it claims nothing and the calling thread does
//! the work; only a helper preempted in the middle of one search can delay the round by that
//! search. Results do not depend on the thread count (each tree's work is sequential and
//! evaluators answer each request on its own).

use super::{EvalRequest, Evaluation, Evaluator, Search};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Condvar, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

/// Time accounting of a driver.
#[derive(Clone, Debug, Default)]
pub struct DriverStats {
    /// Evaluator calls.
    pub rounds: u64,
    /// Positions evaluated.
    pub evaluated: u64,
    /// Time inside `Evaluator::evaluate`.
    pub eval_time: Duration,
    /// Total time in [`Driver::run_until`].
    pub total_time: Duration,
    /// Per-search steps (backup + gather of one search in one round), and how many of them
    /// helper threads did.
    pub steps: u64,
    pub helper_steps: u64,
}

impl DriverStats {
    /// Fraction of the time spent outside the evaluator (tree work and overhead).
    pub fn outside_fraction(&self) -> f64 {
        let t = self.total_time.as_secs_f64();
        if t <= 0.0 {
            0.0
        } else {
            1.0 - self.eval_time.as_secs_f64() / t
        }
    }
    /// Share of the per-search steps done by helper threads.
    pub fn helper_share(&self) -> f64 {
        self.helper_steps as f64 / self.steps.max(1) as f64
    }
    /// Mean positions per evaluator call.
    pub fn mean_batch(&self) -> f64 {
        self.evaluated as f64 / self.rounds.max(1) as f64
    }
}

/// Steps many searches against one batched evaluator, reusing its output buffers.
pub struct Driver {
    threads: usize,
    out: RwLock<Vec<Evaluation>>,
    pub stats: DriverStats,
}

/// The default thread count: the machine's parallelism (at most 8).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(8)
}

/// Fewest searches per thread for the driver to use more than one thread.
const MIN_SEARCHES_PER_THREAD: usize = 4;

/// What a round asks of every search.
#[derive(Default)]
struct Round {
    apply: bool,
    gather: bool,
    /// Start of each search's slice of the outputs.
    offsets: Vec<usize>,
}

/// State shared by the threads of one run.
struct Shared<'a, 's> {
    cells: Vec<Mutex<&'s mut Search>>,
    out: &'a RwLock<Vec<Evaluation>>,
    round: RwLock<Round>,
    /// `epoch << 32 | next unclaimed search`.
    ticket: AtomicU64,
    /// Searches finished in the current epoch.
    finished: AtomicUsize,
    /// Steps done by helpers.
    helper_steps: AtomicU64,
    /// Latest epoch, for helpers to sleep on.
    epoch: Mutex<u64>,
    wake: Condvar,
    shutdown: AtomicBool,
}

impl Shared<'_, '_> {
    /// Claim and process searches of `epoch` until none is left.
    fn work(&self, epoch: u64, helper: bool) {
        let n = self.cells.len() as u64;
        loop {
            let v = self.ticket.load(SeqCst);
            if v >> 32 != epoch || v & 0xffff_ffff >= n {
                return;
            }
            if self.ticket.compare_exchange(v, v + 1, SeqCst, SeqCst).is_err() {
                continue;
            }
            let i = (v & 0xffff_ffff) as usize;
            {
                let round = self.round.read().unwrap_or_else(|e| e.into_inner());
                let mut s = lock(&self.cells[i]);
                if round.apply {
                    let out = self.out.read().unwrap_or_else(|e| e.into_inner());
                    let k = s.pending_len();
                    s.apply(&out[round.offsets[i]..round.offsets[i] + k]);
                }
                if round.gather {
                    s.gather();
                }
            }
            if helper {
                self.helper_steps.fetch_add(1, SeqCst);
            }
            self.finished.fetch_add(1, SeqCst);
        }
    }

    fn helper(&self) {
        let mut seen = 0u64;
        loop {
            let epoch = {
                let mut g = lock(&self.epoch);
                while *g == seen && !self.shutdown.load(SeqCst) {
                    g = self.wake.wait(g).unwrap_or_else(|e| e.into_inner());
                }
                if self.shutdown.load(SeqCst) {
                    return;
                }
                *g
            };
            seen = epoch;
            self.work(epoch, true);
        }
    }

    /// Run one round on every search (from the calling thread, helpers joining in).
    fn round(&self, epoch: u64, apply: bool, gather: bool) {
        {
            let mut r = self.round.write().unwrap_or_else(|e| e.into_inner());
            r.apply = apply;
            r.gather = gather;
            r.offsets.clear();
            let mut off = 0;
            for c in &self.cells {
                r.offsets.push(off);
                off += if apply { lock(c).pending_len() } else { 0 };
            }
        }
        self.finished.store(0, SeqCst);
        self.ticket.store(epoch << 32, SeqCst);
        *lock(&self.epoch) = epoch;
        self.wake.notify_all();
        self.work(epoch, false);
        // A helper still busy finishes within a search's work (microseconds): spin, then yield.
        let mut spins = 0u32;
        while self.finished.load(SeqCst) < self.cells.len() {
            if spins < 20_000 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Driver {
    pub fn new(threads: usize) -> Driver {
        Driver { threads: threads.max(1), out: RwLock::new(Vec::new()), stats: DriverStats::default() }
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Run every search to its budget.
    pub fn run<E: Evaluator + ?Sized>(&mut self, searches: &mut [Search], evaluator: &mut E) {
        self.run_until(searches, evaluator, &mut |_| false);
    }

    /// Run until every search is done or `stop` (asked once a round, with every leaf backed up)
    /// says so. Nothing is left in flight on return. The helper threads live for this call.
    pub fn run_until<E: Evaluator + ?Sized>(
        &mut self,
        searches: &mut [Search],
        evaluator: &mut E,
        stop: &mut dyn FnMut(&[&Search]) -> bool,
    ) {
        let start = Instant::now();
        let threads = self.threads.min(searches.len() / MIN_SEARCHES_PER_THREAD).max(1);
        if threads == 1 {
            self.run_single(searches, evaluator, stop);
        } else {
            self.run_threaded(searches, evaluator, stop, threads);
        }
        self.stats.total_time += start.elapsed();
    }

    fn run_single<E: Evaluator + ?Sized>(
        &mut self,
        searches: &mut [Search],
        evaluator: &mut E,
        stop: &mut dyn FnMut(&[&Search]) -> bool,
    ) {
        let mut have_outputs = false;
        loop {
            if have_outputs {
                let out = self.out.get_mut().unwrap_or_else(|e| e.into_inner());
                let mut off = 0;
                for s in searches.iter_mut() {
                    let k = s.pending_len();
                    s.apply(&out[off..off + k]);
                    off += k;
                }
            }
            let view: Vec<&Search> = searches.iter().collect();
            if stop(&view) {
                break;
            }
            searches.iter_mut().for_each(|s| s.gather());
            self.stats.steps += searches.len() as u64;
            let requests: Vec<EvalRequest<'_>> = searches.iter().flat_map(|s| s.requests()).collect();
            if requests.is_empty() {
                if searches.iter().any(|s| s.yielded()) {
                    have_outputs = false;
                    continue;
                }
                break;
            }
            self.evaluate(evaluator, &requests);
            have_outputs = true;
        }
    }

    fn run_threaded<E: Evaluator + ?Sized>(
        &mut self,
        searches: &mut [Search],
        evaluator: &mut E,
        stop: &mut dyn FnMut(&[&Search]) -> bool,
        threads: usize,
    ) {
        let out = std::mem::take(&mut self.out);
        let shared = Shared {
            cells: searches.iter_mut().map(Mutex::new).collect(),
            out: &out,
            round: RwLock::new(Round::default()),
            ticket: AtomicU64::new(0),
            finished: AtomicUsize::new(0),
            helper_steps: AtomicU64::new(0),
            epoch: Mutex::new(0),
            wake: Condvar::new(),
            shutdown: AtomicBool::new(false),
        };
        let stats = &mut self.stats;
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|| shared.helper());
            }
            let mut epoch = 0u64;
            let mut have_outputs = false;
            loop {
                // Helpers are idle here: every search can be locked at once.
                let stopping = {
                    let guards: Vec<MutexGuard<'_, &mut Search>> = shared.cells.iter().map(lock).collect();
                    let view: Vec<&Search> = guards.iter().map(|g| &***g).collect();
                    stop(&view)
                };
                epoch += 1;
                shared.round(epoch, have_outputs, !stopping);
                stats.steps += shared.cells.len() as u64;
                if stopping {
                    break;
                }
                let guards: Vec<MutexGuard<'_, &mut Search>> = shared.cells.iter().map(lock).collect();
                let requests: Vec<EvalRequest<'_>> = guards.iter().flat_map(|g| g.requests()).collect();
                if requests.is_empty() {
                    if guards.iter().any(|g| g.yielded()) {
                        have_outputs = false;
                        continue;
                    }
                    break;
                }
                let mut o = out.write().unwrap_or_else(|e| e.into_inner());
                evaluate_into(evaluator, &requests, &mut o, stats);
                have_outputs = true;
            }
            shared.shutdown.store(true, SeqCst);
            *lock(&shared.epoch) = u64::MAX;
            shared.wake.notify_all();
        });
        self.stats.helper_steps += shared.helper_steps.load(SeqCst);
        drop(shared);
        self.out = out;
    }

    fn evaluate<E: Evaluator + ?Sized>(&mut self, evaluator: &mut E, requests: &[EvalRequest<'_>]) {
        let out = self.out.get_mut().unwrap_or_else(|e| e.into_inner());
        evaluate_into(evaluator, requests, out, &mut self.stats);
    }
}

fn evaluate_into<E: Evaluator + ?Sized>(
    evaluator: &mut E,
    requests: &[EvalRequest<'_>],
    out: &mut Vec<Evaluation>,
    stats: &mut DriverStats,
) {
    let n = requests.len();
    if out.len() < n {
        out.resize_with(n, Evaluation::default);
    }
    let t = Instant::now();
    evaluator.evaluate(requests, &mut out[..n]);
    stats.eval_time += t.elapsed();
    stats.rounds += 1;
    stats.evaluated += n as u64;
}

/// Run every search to its budget with one shared evaluator (threads: [`default_threads`]).
pub fn search_many<E: Evaluator + ?Sized>(searches: &mut [Search], evaluator: &mut E) -> DriverStats {
    let mut d = Driver::new(default_threads());
    d.run(searches, evaluator);
    d.stats
}
