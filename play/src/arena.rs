//! The arena: plays engine A against engine B and rates A.
//!
//! - **Pairs.** Games 2k and 2k+1 start from the same opening with colours swapped (A is Black
//!   in the even game), so an unbalanced opening favours neither engine.
//! - **Openings.** Pair k starts from `openings_fens[k % len]` (or the start position) followed
//!   by `opening_plies` uniformly random legal plies drawn from a generator seeded by
//!   (`seed`, k). The opening plies are part of the game and of its record, so a record always
//!   replays from its `FEN` tag; an opening that happens to end the game is drawn again.
//!   **Balanced openings** (`balance`): the random plies are drawn again (up to 100 tries, then
//!   the base position) until alpha-beta at the given depth scores the position within the
//!   margin for the side to move. Uniformly random plies often leave a royal or a big piece to a
//!   jumping general or a Lion; such a pair is split 1-1 whoever plays, and says nothing about
//!   the engines.
//! - **Engines.** Each game builds fresh players from the specs (no state leaks between
//!   games). An engine that accepts a `seed` parameter and was given none gets a different
//!   seed each game, derived from `seed`, so two random movers do not repeat one game; the
//!   record then has a `BlackSeed`/`WhiteSeed` tag. Every move an engine returns is checked
//!   against `Game::legal_moves`; an illegal move or a panic inside the engine loses the game
//!   for that engine, with the reason in the `Termination` tag.
//! - **Adjudication** (never silent: the settings are printed in the report header, stored in
//!   every record's `Adjudication` tag, and a decided game says so in `Termination`):
//!   `material = (CP, M)`: a side ahead by at least CP centipawns of plain material
//!   ([`search::values::material_balance`], or `values`) for M consecutive plies wins; `max_plies = N`: the game is drawn when N
//!   plies (opening included) have been played.
//! - **Concurrency.** `concurrency` worker threads take games in order; results are counted,
//!   written and shown as they finish. With an SPRT, no new game starts once the LLR crosses a
//!   bound; games already running are finished and counted.
//! - **Records.** With `pgn`, the file is created empty at the start and each finished game is
//!   appended in one write ([`append_record`]), so a killed arena leaves a
//!   readable file of whole games.

use crate::stats::{fmt_elo, Sprt, SprtDecision, Wdl};
use engine::record::GameRecord;
use engine::{notation, Color, MoveTable, Position, Rules};
use engine::{DrawReason, Game, Outcome, WinReason};
use indicatif::{ProgressBar, ProgressStyle};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use search::mix_seed;
use search::values::{MaterialLead, ValueTable};
use search::{EngineSpec, Player, SpecError};
use std::collections::BTreeMap;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Arc};

/// Builds an engine from its spec: the registry ([`crate::build`]), or in tests a factory that
/// adds engines of their own.
pub type Factory = Arc<dyn Fn(&EngineSpec, &Rules) -> Result<Box<dyn Player>, SpecError> + Send + Sync>;

/// Games decided outside the rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    /// (margin in centipawns, consecutive plies).
    pub material: Option<(i32, u32)>,
    /// The piece values that count the material ([`ValueTable::Material`] unless measuring the
    /// other table).
    pub values: ValueTable,
    /// Draw when this many plies have been played; 0 = no cap beyond the rules' own.
    pub max_plies: u32,
}

impl Adjudication {
    pub fn describe(&self) -> String {
        let mat = match self.material {
            Some((cp, m)) if self.values == ValueTable::Material => {
                format!("material: a side ahead by >= {cp} cp for {m} consecutive plies wins")
            }
            Some((cp, m)) => format!(
                "material by the {} values: a side ahead by >= {cp} cp for {m} consecutive plies wins",
                self.values.name()
            ),
            None => "material: off".to_string(),
        };
        let cap =
            if self.max_plies > 0 { format!("draw at {} plies", self.max_plies) } else { "no ply cap".to_string() };
        format!("{mat}; {cap}")
    }
}

/// Everything a match needs.
pub struct ArenaConfig {
    pub a: EngineSpec,
    pub b: EngineSpec,
    pub rules: Rules,
    /// The `Rules` tag of the records ([`engine::record::rules_tag`]).
    pub rules_tag: String,
    pub games: u32,
    pub opening_plies: u32,
    /// Start positions of the openings, used in turn; empty = the start position.
    pub opening_fens: Vec<Position>,
    /// Keep only openings that alpha-beta scores as balanced.
    pub balance: Option<Balance>,
    pub concurrency: usize,
    pub seed: u64,
    pub adjudication: Adjudication,
    pub sprt: Option<Sprt>,
    /// Append each finished game to this record file (created empty at the start).
    pub pgn: Option<PathBuf>,
    /// Show a progress bar on stderr (only drawn when it is a terminal).
    pub progress: bool,
}

/// The balanced-openings check: alpha-beta at `depth` must score the opening within
/// `max_cp` centipawns (either way) for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balance {
    pub depth: u32,
    pub max_cp: i32,
}

impl Balance {
    /// Whether `game`'s position is balanced (a deterministic search: no time limit, seed 0).
    pub fn holds(&self, game: &Game) -> bool {
        let limits = search::Limits { depth: Some(self.depth), nodes: None, movetime: None, clock: None };
        let cfg = search::alphabeta::SearchConfig { tt_mb: 16, ..Default::default() };
        let r = search::alphabeta::AlphaBeta::new(limits, cfg, 0).search(game, &mut |_| {});
        r.score.abs() <= self.max_cp
    }
}

/// Why an arena could not run.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("{0}")]
    Config(String),
    #[error("cannot write {path}: {err}")]
    Io { path: String, err: std::io::Error },
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// 0-based game number.
    pub index: u32,
    pub a_is_black: bool,
    /// A's score: 1, ½ or 0.
    pub a_score: f64,
    pub termination: String,
    pub record: GameRecord,
}

/// The result of a match.
#[derive(Clone, Debug, Default)]
pub struct ArenaReport {
    pub total: Wdl,
    pub a_as_black: Wdl,
    pub a_as_white: Wdl,
    /// How games ended (termination kind → count).
    pub terminations: BTreeMap<String, u64>,
    /// The SPRT's decision when it stopped the run: (decision, games counted then, LLR).
    pub sprt_stop: Option<(SprtDecision, u64, f64)>,
    pub sprt: Option<Sprt>,
}

fn with_seed(spec: &EngineSpec, seed: u64) -> EngineSpec {
    let mut s = spec.clone();
    s.params.push(("seed".into(), seed.to_string()));
    s
}

/// A spec checked to build, and whether it takes a per-game seed.
struct Engine {
    spec: EngineSpec,
    seeded: bool,
}

impl Engine {
    fn check(spec: &EngineSpec, rules: &Rules, factory: &Factory) -> Result<Engine, SpecError> {
        factory(spec, rules)?;
        let seeded = spec.get("seed").is_none() && factory(&with_seed(spec, 1), rules).is_ok();
        Ok(Engine { spec: spec.clone(), seeded })
    }
}

impl ArenaConfig {
    /// The report header: engines, rules, openings, adjudication, SPRT.
    pub fn header(&self) -> String {
        let mut s = format!("arena: A = {}  vs  B = {}\n", self.a, self.b);
        let openings = if self.opening_fens.is_empty() {
            "the start position".to_string()
        } else {
            format!("{} FENs from the openings file", self.opening_fens.len())
        };
        let balanced = match self.balance {
            Some(b) => format!(", balanced (alpha-beta depth {} within {} cp)", b.depth, b.max_cp),
            None => String::new(),
        };
        s.push_str(&format!(
            "rules {}; {} games in pairs with colours swapped; openings: {openings} + {} random plies (seed {}){balanced}; concurrency {}\n",
            self.rules_tag, self.games, self.opening_plies, self.seed, self.concurrency
        ));
        s.push_str(&format!("adjudication: {}\n", self.adjudication.describe()));
        if let Some(sp) = &self.sprt {
            let (lo, hi) = sp.bounds();
            s.push_str(&format!(
                "SPRT: H0 elo {} vs H1 elo {}, alpha {}, beta {}; LLR bounds [{lo:.2}, {hi:.2}]\n",
                sp.elo0, sp.elo1, sp.alpha, sp.beta
            ));
        }
        s
    }

    /// The opening game of pair `pair`: base position plus the seeded random plies.
    fn opening(&self, pair: u32, table: &Arc<MoveTable>) -> Game {
        let base = if self.opening_fens.is_empty() {
            Position::start()
        } else {
            self.opening_fens[pair as usize % self.opening_fens.len()]
        };
        random_opening(
            table,
            base,
            self.opening_plies,
            |attempt| mix_seed(self.seed, ((pair as u64) << 8) | attempt),
            |g| self.balance.is_none_or(|b| b.holds(g)),
        )
    }

    /// One game of the pair, refereed move by move (illegal moves, engine panics, adjudication,
    /// the ply cap) and recorded; the referee's checks read in the order they apply to a move.
    fn play_game(&self, index: u32, engines: &[Engine; 2], factory: &Factory, table: &Arc<MoveTable>) -> GameResult {
        let a_is_black = index.is_multiple_of(2);
        let (bi, wi) = if a_is_black { (0, 1) } else { (1, 0) };
        let mut game = self.opening(index / 2, table);
        let mut seeds = [None, None];
        let mut players: Vec<Result<Box<dyn Player>, SpecError>> = Vec::new();
        for (side, &ei) in [bi, wi].iter().enumerate() {
            let e = &engines[ei];
            let spec = if e.seeded {
                let s = mix_seed(self.seed ^ 0x5EED, (index as u64) * 2 + side as u64) >> 1;
                seeds[side] = Some(s);
                with_seed(&e.spec, s)
            } else {
                e.spec.clone()
            };
            players.push(factory(&spec, &self.rules));
        }
        let name = |c: Color| if c == Color::Black { "Black" } else { "White" };
        let mut termination: Option<String> = None;
        for (side, p) in players.iter().enumerate() {
            if let Err(e) = p {
                let loser = if side == 0 { Color::Black } else { Color::White };
                game.set_outcome(Outcome::Win { winner: loser.other(), reason: WinReason::Adjudication });
                termination =
                    Some(format!("{} wins: {}'s engine could not be built: {e}", name(loser.other()), name(loser)));
            }
        }
        let mut lead =
            self.adjudication.material.map(|(cp, plies)| MaterialLead::new(cp, plies, self.adjudication.values));
        while !game.is_over() {
            let adj = &self.adjudication;
            if adj.max_plies > 0 && game.ply_count() as u32 >= adj.max_plies {
                game.set_outcome(Outcome::Draw(DrawReason::PlyCap));
                termination = Some(format!("draw: adjudicated at the cap of {} plies", adj.max_plies));
                break;
            }
            let us = game.side_to_move();
            let player = players[(us == Color::White) as usize].as_mut().expect("built");
            let legal = game.legal_moves();
            let choice = catch_unwind(AssertUnwindSafe(|| player.choose(&game, &mut |_| {})));
            let fault = match choice {
                Err(panic) => {
                    let msg = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "panic".into());
                    Some(format!("crashed ({})", msg.replace('\n', " ")))
                }
                Ok(m) if !legal.contains(&m) => Some(format!("played the illegal move '{}'", notation::to_cecp(m))),
                Ok(m) => game.play(m).err().map(|e| format!("played a move the game refused ({e})")),
            };
            if let Some(f) = fault {
                game.set_outcome(Outcome::Win { winner: us.other(), reason: WinReason::Adjudication });
                termination = Some(format!("{} wins: {}'s engine {f}", name(us.other()), name(us)));
                break;
            }
            if let (Some(lead), Some((cp, plies)), false) = (lead.as_mut(), adj.material, game.is_over()) {
                if let Some(w) = lead.update(game.position()) {
                    game.set_outcome(Outcome::Win { winner: w, reason: WinReason::Adjudication });
                    termination = Some(format!(
                        "{} wins: adjudicated, ahead by >= {cp} cp of material for {plies} plies",
                        name(w)
                    ));
                }
            }
        }
        let outcome = game.outcome().expect("the loop ends with the game over");
        let termination = termination.unwrap_or_else(|| outcome.describe());
        let mut rec = GameRecord::from_game(&game, &self.rules_tag);
        rec.set_tag("Event", "tenjiku arena");
        rec.set_tag("Date", &nn::files::record_date_now());
        rec.set_tag("Round", &(index + 1).to_string());
        rec.set_tag("Black", &engines[bi].spec.to_string());
        rec.set_tag("White", &engines[wi].spec.to_string());
        rec.set_tag("Termination", &termination);
        rec.set_tag("Adjudication", &self.adjudication.describe());
        for (side, tag) in [(0, "BlackSeed"), (1, "WhiteSeed")] {
            if let Some(s) = seeds[side] {
                rec.set_tag(tag, &s.to_string());
            }
        }
        let black = outcome.black_score() as f64;
        GameResult {
            index,
            a_is_black,
            a_score: if a_is_black { black } else { 1.0 - black },
            termination,
            record: rec,
        }
    }
}

/// Short kind of a termination text for the summary table, from A's side: `White wins: X`
/// → `A wins: X` or `B wins: X`, with any quoted move cut off so equal reasons group.
fn termination_kind(t: &str, a_score: f64) -> String {
    let t = match t.split_once(" wins: ") {
        Some((_, why)) => {
            let (winner, loser) = if a_score > 0.5 { ("A", "B") } else { ("B", "A") };
            let why =
                why.replace("Black's engine ", &format!("{loser} ")).replace("White's engine ", &format!("{loser} "));
            format!("{winner} wins: {why}")
        }
        None => t.to_string(),
    };
    match t.find(" '") {
        Some(i) => t[..i].to_string(),
        None => t,
    }
}

impl ArenaReport {
    fn count(&mut self, g: &GameResult) {
        self.total.add(g.a_score);
        if g.a_is_black {
            self.a_as_black.add(g.a_score);
        } else {
            self.a_as_white.add(g.a_score);
        }
        *self.terminations.entry(termination_kind(&g.termination, g.a_score)).or_default() += 1;
    }

    /// One line for the progress bar.
    pub fn brief(&self) -> String {
        let r = &self.total;
        let mut s = format!("+{} ={} -{}", r.wins, r.draws, r.losses);
        if let (Some(sc), Some(e)) = (r.score(), r.elo()) {
            s.push_str(&format!("  score {sc:.3}  elo {}", fmt_elo(e)));
        }
        if let Some(sp) = &self.sprt {
            s.push_str(&format!("  LLR {:.2}", sp.llr(r)));
        }
        s
    }

    /// The summary printed after the games.
    pub fn text(&self) -> String {
        let r = &self.total;
        let mut s = format!("games {}: A wins {}, draws {}, losses {}\n", r.games(), r.wins, r.draws, r.losses);
        for (what, x) in [("A as Black", &self.a_as_black), ("A as White", &self.a_as_white)] {
            s.push_str(&format!("  {what}: +{} ={} -{}\n", x.wins, x.draws, x.losses));
        }
        match (r.score(), r.elo(), r.elo_ci95()) {
            (Some(sc), Some(e), Some((lo, hi))) => {
                s.push_str(&format!("score {sc:.4} (A's side)\n"));
                s.push_str(&format!(
                    "elo difference {} (95% interval {} .. {})\n",
                    fmt_elo(e),
                    fmt_elo(lo),
                    fmt_elo(hi)
                ));
            }
            _ => s.push_str("score: no games played\n"),
        }
        if let Some(sp) = &self.sprt {
            let (lo, hi) = sp.bounds();
            let llr = sp.llr(r);
            let verdict = match &self.sprt_stop {
                Some((SprtDecision::AcceptH1, n, l)) => {
                    format!("H1 accepted (elo >= {}) after {n} games, LLR {l:.2}; stopped early", sp.elo1)
                }
                Some((SprtDecision::AcceptH0, n, l)) => {
                    format!("H0 accepted (elo <= {}) after {n} games, LLR {l:.2}; stopped early", sp.elo0)
                }
                _ => match sp.decision(r) {
                    SprtDecision::AcceptH1 => format!("H1 accepted (elo >= {})", sp.elo1),
                    SprtDecision::AcceptH0 => format!("H0 accepted (elo <= {})", sp.elo0),
                    SprtDecision::Continue => "no decision yet".to_string(),
                },
            };
            s.push_str(&format!("SPRT: LLR {llr:.2} in [{lo:.2}, {hi:.2}]: {verdict}\n"));
        }
        s.push_str("terminations:\n");
        for (k, n) in &self.terminations {
            s.push_str(&format!("  {n:>5}  {k}\n"));
        }
        s
    }

    /// The JSON summary: exactly `games, wins, draws, losses, score, elo, elo_ci95` (A's
    /// side; score in 0..1). An infinite Elo is written as the string `"+inf"` / `"-inf"`
    /// (JSON has no infinity); with no games, score, elo and interval are `null`.
    pub fn json(&self) -> String {
        use serde_json::{json, Value};
        let num = |x: f64| if x.is_finite() { json!(x) } else { Value::String(fmt_elo(x)) };
        let r = &self.total;
        let v = json!({
            "games": r.games(),
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
            "score": r.score(),
            "elo": r.elo().map(num),
            "elo_ci95": r.elo_ci95().map(|(lo, hi)| json!([num(lo), num(hi)])),
        });
        format!("{}\n", serde_json::to_string_pretty(&v).expect("a JSON value serialises"))
    }
}

/// Check the settings and that both specs build, before anything is printed or written.
pub fn check(cfg: &ArenaConfig, factory: &Factory) -> Result<(), ArenaError> {
    check_engines(cfg, factory).map(|_| ())
}

fn check_engines(cfg: &ArenaConfig, factory: &Factory) -> Result<[Engine; 2], ArenaError> {
    if cfg.games == 0 {
        return Err(ArenaError::Config("--games must be at least 1".into()));
    }
    if cfg.concurrency == 0 {
        return Err(ArenaError::Config("--concurrency must be at least 1".into()));
    }
    if let Some((cp, plies)) = cfg.adjudication.material {
        if cp <= 0 || plies == 0 {
            return Err(ArenaError::Config(format!(
                "material adjudication needs a positive margin and ply count (got {cp} cp, {plies} plies)"
            )));
        }
    }
    Ok([Engine::check(&cfg.a, &cfg.rules, factory)?, Engine::check(&cfg.b, &cfg.rules, factory)?])
}

/// Play the match. Errors only for bad settings, a spec that does not build, or a record
/// file that cannot be written; engines misbehaving lose games instead.
pub fn run(cfg: &ArenaConfig, factory: Factory) -> Result<ArenaReport, ArenaError> {
    let engines = check_engines(cfg, &factory)?;
    let io_err = |path: &PathBuf| {
        let path = path.display().to_string();
        move |err| ArenaError::Io { path: path.clone(), err }
    };
    if let Some(p) = &cfg.pgn {
        nn::files::write_atomic(p, b"").map_err(io_err(p))?;
    }
    let table = Arc::new(MoveTable::new(&cfg.rules));
    let bar = if cfg.progress { ProgressBar::new(cfg.games as u64) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games [{elapsed_precise} < {eta}] {msg}")
            .expect("a valid template"),
    );
    let mut report = ArenaReport { sprt: cfg.sprt, ..ArenaReport::default() };
    let next = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<GameResult>();
    let mut write_error = None;
    let threads = cfg.concurrency.min(cfg.games as usize);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, engines, factory, table) = (&next, &stop, &engines, &factory, &table);
            scope.spawn(move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= cfg.games {
                    break;
                }
                if tx.send(cfg.play_game(i, engines, factory, table)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for g in rx {
            report.count(&g);
            if let (Some(p), None) = (&cfg.pgn, &write_error) {
                if let Err(e) = append_record(p, &g.record) {
                    write_error = Some(io_err(p)(e));
                    stop.store(true, Ordering::Relaxed);
                }
            }
            if let (Some(sp), None) = (&cfg.sprt, &report.sprt_stop) {
                let d = sp.decision(&report.total);
                if d != SprtDecision::Continue {
                    report.sprt_stop = Some((d, report.total.games(), sp.llr(&report.total)));
                    stop.store(true, Ordering::Relaxed);
                }
            }
            bar.set_message(report.brief());
            bar.inc(1);
        }
    });
    bar.finish_and_clear();
    match write_error {
        Some(e) => Err(e),
        None => Ok(report),
    }
}

/// `plies` uniformly random legal moves from `base`: up to 100 tries, try `k` drawing from a
/// generator seeded with `seed_of(k)`, until one neither ends the game nor fails `accept`;
/// if none does (only in odd start positions), the game at `base` itself. Shared by the
/// arena's openings and self-play's opponent games.
pub fn random_opening(
    table: &Arc<MoveTable>,
    base: Position,
    plies: u32,
    seed_of: impl Fn(u64) -> u64,
    accept: impl Fn(&Game) -> bool,
) -> Game {
    for attempt in 0..100u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed_of(attempt));
        let mut g = Game::new(table.clone(), base);
        while !g.is_over() && (g.ply_count() as u32) < plies {
            let m = *g.legal_moves().choose(&mut rng).expect("a game that is not over has a legal move");
            g.play(m).expect("a legal move plays");
        }
        if !g.is_over() && accept(&g) {
            return g;
        }
    }
    Game::new(table.clone(), base)
}

/// Append one game to a record file with a single write, so a process killed between games
/// leaves every finished game whole. A blank line separates it from the previous game.
pub fn append_record(path: &Path, rec: &GameRecord) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    let empty = f.metadata()?.len() == 0;
    let text = if empty { rec.to_text() } else { format!("\n{}", rec.to_text()) };
    f.write_all(text.as_bytes())?;
    f.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Move;
    use search::Thinking;

    fn config(games: u32) -> ArenaConfig {
        ArenaConfig {
            a: EngineSpec::parse("random").unwrap(),
            b: EngineSpec::parse("random").unwrap(),
            rules: Rules::standard(),
            rules_tag: "standard".into(),
            games,
            opening_plies: 2,
            opening_fens: vec![],
            balance: None,
            concurrency: 2,
            seed: 1,
            adjudication: Adjudication { material: None, max_plies: 30, ..Adjudication::default() },
            sprt: None,
            pgn: None,
            progress: false,
        }
    }

    /// Plays the first legal move, or a fixed illegal one, or panics: to test the referee.
    struct Faulty(&'static str);
    impl Player for Faulty {
        fn name(&self) -> String {
            self.0.into()
        }
        fn choose(&mut self, game: &Game, _: &mut dyn FnMut(&Thinking)) -> Move {
            match self.0 {
                // A pass of a piece standing on an empty square: never legal.
                "illegal" => {
                    let empty = engine::Square::all().find(|&s| game.position().piece_at(s).is_none()).unwrap();
                    Move::new(empty, empty, false)
                }
                "panic" => panic!("engine bug"),
                _ => game.legal_moves()[0],
            }
        }
    }

    fn faulty_factory() -> Factory {
        Arc::new(|spec: &EngineSpec, rules: &Rules| match spec.kind.as_str() {
            "illegal" => Ok(Box::new(Faulty("illegal")) as Box<dyn Player>),
            "panic" => Ok(Box::new(Faulty("panic"))),
            "first" => Ok(Box::new(Faulty("first"))),
            _ => crate::registry::build(spec, rules),
        })
    }

    #[test]
    fn pairs_share_openings_with_colours_swapped_and_records_replay() {
        let cfg = config(4);
        let f: Factory = Arc::new(crate::registry::build);
        let engines = [Engine::check(&cfg.a, &cfg.rules, &f).unwrap(), Engine::check(&cfg.b, &cfg.rules, &f).unwrap()];
        assert!(engines[0].seeded, "random takes a seed");
        let t = Arc::new(MoveTable::new(&cfg.rules));
        let g: Vec<GameResult> = (0..4).map(|i| cfg.play_game(i, &engines, &f, &t)).collect();
        for pair in [0, 2] {
            let (x, y) = (&g[pair].record, &g[pair + 1].record);
            assert_eq!(x.moves[..2], y.moves[..2], "same opening plies");
            assert!(g[pair].a_is_black && !g[pair + 1].a_is_black);
            assert_ne!(x.tag("BlackSeed"), y.tag("BlackSeed"));
        }
        assert_ne!(g[0].record.moves[..2], g[2].record.moves[..2], "pairs differ");
        for r in &g {
            let game = r.record.replay().unwrap();
            assert!(game.ply_count() <= 30);
            assert!(r.termination.contains("cap of 30 plies") || game.is_over(), "{}", r.termination);
            assert!(r.record.tag("Adjudication").unwrap().contains("draw at 30 plies"));
        }
        // Deterministic: the same seed gives the same games.
        assert_eq!(cfg.play_game(1, &engines, &f, &t).record.moves, g[1].record.moves);
    }

    #[test]
    fn illegal_moves_and_panics_lose_without_crashing_the_arena() {
        for bad in ["illegal", "panic"] {
            let mut cfg = config(2);
            cfg.a = EngineSpec::parse(bad).unwrap();
            cfg.b = EngineSpec::parse("first").unwrap();
            cfg.opening_plies = 0;
            let rep = run(&cfg, faulty_factory()).unwrap();
            assert_eq!(rep.total, Wdl::new(0, 0, 2), "{bad}");
            let txt = rep.text();
            assert!(
                txt.contains(if bad == "illegal" { "played the illegal move" } else { "crashed (engine bug)" }),
                "{txt}"
            );
        }
    }

    #[test]
    fn material_adjudication_decides_and_says_so() {
        let mut cfg = config(2);
        cfg.opening_plies = 0;
        // Black has an extra Gold: ahead from the first ply on.
        cfg.opening_fens = vec![Position::from_fen("16/16/16/16/16/16/16/16/16/16/16/16/16/16/7G8/7K1k6 b").unwrap()];
        cfg.adjudication = Adjudication { material: Some((300, 4)), max_plies: 100, ..Adjudication::default() };
        cfg.a = EngineSpec::parse("first").unwrap();
        cfg.b = EngineSpec::parse("first").unwrap();
        let rep = run(&cfg, faulty_factory()).unwrap();
        let t = rep.text();
        // Game 1: A Black wins; game 2: A White loses (unless a king fell first).
        assert_eq!(rep.total.games(), 2);
        assert!(t.contains("adjudicated, ahead by >= 300 cp of material for 4 plies") || t.contains("royal"), "{t}");
        assert!(cfg
            .header()
            .contains("material: a side ahead by >= 300 cp for 4 consecutive plies wins; draw at 100 plies"));
    }

    #[test]
    fn sprt_stops_early_and_records_are_written() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut cfg = config(200);
        cfg.a = EngineSpec::parse("first").unwrap();
        cfg.b = EngineSpec::parse("illegal").unwrap();
        cfg.concurrency = 1;
        cfg.sprt = Some(Sprt::new(0.0, 50.0, 0.05, 0.05).unwrap());
        cfg.pgn = Some(dir.join("g.pgn"));
        let rep = run(&cfg, faulty_factory()).unwrap();
        let (d, n, _) = rep.sprt_stop.unwrap();
        assert_eq!(d, SprtDecision::AcceptH1);
        // Games that finished before the worker saw the stop are counted too (a few here,
        // where games take microseconds; at most `concurrency` in real matches).
        assert!(n < 60 && rep.total.games() >= n && rep.total.games() < 200, "{n}");
        assert!(rep.text().contains("H1 accepted"));
        let recs = engine::record::parse_records(&std::fs::read_to_string(dir.join("g.pgn")).unwrap()).unwrap();
        assert_eq!(recs.len() as u64, rep.total.games());
        let json: serde_json::Value = serde_json::from_str(&rep.json()).unwrap();
        assert_eq!(json["elo"], "+inf");
        assert_eq!(json["score"], 1.0);
    }

    /// Balanced openings: each is the seeded random plies, drawn again until the check holds;
    /// the same pair gets the same opening, and some uniformly random openings are redrawn.
    #[test]
    fn balanced_openings_pass_the_check_and_repeat() {
        let mut cfg = config(2);
        cfg.opening_plies = 6;
        let t = Arc::new(MoveTable::new(&cfg.rules));
        let plain: Vec<u64> = (0..8).map(|p| cfg.opening(p, &t).position().hash()).collect();
        let b = Balance { depth: 2, max_cp: 150 };
        cfg.balance = Some(b);
        assert!(cfg.header().contains("balanced (alpha-beta depth 2 within 150 cp)"), "{}", cfg.header());
        let mut redrawn = 0;
        for pair in 0..8 {
            let g = cfg.opening(pair, &t);
            assert_eq!(g.ply_count(), 6, "pair {pair}");
            assert!(!g.is_over() && b.holds(&g), "pair {pair}");
            assert_eq!(g.position().hash(), cfg.opening(pair, &t).position().hash(), "pair {pair} repeats");
            redrawn += (g.position().hash() != plain[pair as usize]) as u32;
        }
        assert!(redrawn > 0, "some of 8 uniformly random openings are unbalanced");
    }

    #[test]
    fn bad_settings_are_errors() {
        let mut cfg = config(0);
        assert!(run(&cfg, Arc::new(crate::registry::build)).unwrap_err().to_string().contains("--games"));
        cfg.games = 2;
        cfg.a = EngineSpec::parse("nosuch").unwrap();
        assert!(run(&cfg, Arc::new(crate::registry::build))
            .unwrap_err()
            .to_string()
            .contains("unknown engine 'nosuch'"));
        assert_eq!(
            termination_kind("White wins: Black's engine played the illegal move 'a5a9'", 0.0),
            "B wins: A played the illegal move"
        );
        assert_eq!(termination_kind("draw: fourfold repetition", 0.5), "draw: fourfold repetition");
    }
}
