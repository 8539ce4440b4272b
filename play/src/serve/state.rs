//! The server's games and the engine work on them.
//!
//! Each game sits in a [`Slot`]: the game and its settings behind a mutex that no handler holds
//! across an await or a search, and a broadcast channel of events for the page's event stream.
//! Engine searches run on tokio's blocking threads, at most [`ServerState::searches`] at once
//! (a semaphore), so engine work never blocks the server. A search works on a copy of the game
//! and is tagged with the game's version; a result for a version that has since changed
//! (undo, a new position, other settings) is dropped.

use super::view::{line_hodges, position_view, PositionView};
use crate::registry;
use engine::{Color, Game, MoveTable, Rules};
use search::{EngineSpec, Limits, Player, Thinking};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, Semaphore};

/// Most games the server keeps; when full, the one unused the longest is dropped.
pub const MAX_GAMES: usize = 64;
/// Time per move the page may ask for (milliseconds).
pub const TIME_MS_RANGE: (u64, u64) = (10, 600_000);
/// Analysis of one position stops after searches of 1, 2, 4, 8 and 16 s (31 s in all).
const ANALYSIS_BUDGETS_MS: [u64; 5] = [1_000, 2_000, 4_000, 8_000, 16_000];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// The person plays one side, the engine the other.
    Play,
    /// The person moves both sides; the engine analyses the current position.
    Analysis,
}

/// What one game is set to.
#[derive(Clone, Debug)]
pub struct Settings {
    pub mode: Mode,
    pub human: Color,
    pub engine: String,
    pub time_ms: u64,
}

/// A game and what the server knows about it.
pub struct Inner {
    pub game: Game,
    pub settings: Settings,
    /// Bumped at every change of the game or its settings.
    pub version: u64,
    /// The engine, when no search holds it.
    pub player: Option<Box<dyn Player>>,
    pub player_name: String,
    /// Bumped whenever the engine is replaced, so a search of the old one does not hand it back.
    pub engine_gen: u64,
    /// A search of the current version runs.
    pub thinking: bool,
    /// The engine's latest report (of any version: the page compares it with the view's).
    pub last_thinking: Option<ThinkingView>,
    pub last_used: Instant,
    pub rules_tag: String,
}

pub struct Slot {
    pub id: u64,
    inner: Mutex<Inner>,
    pub events: broadcast::Sender<Event>,
    /// The version the newest search must still match (read by searches between iterations).
    current: AtomicU64,
}

/// What the event stream sends.
#[derive(Clone, Debug)]
pub enum Event {
    State(Box<GameView>),
    Thinking(Box<ThinkingView>),
    Error(String),
}

/// A whole game view (`docs/web-api.md`).
#[derive(Serialize, Clone, Debug)]
pub struct GameView {
    pub id: String,
    pub mode: Mode,
    pub human: &'static str,
    pub engine: String,
    pub engine_name: String,
    pub time_ms: u64,
    pub version: u64,
    pub thinking: bool,
    /// The engine's latest report, as the last `thinking` event sent (so a page that connects
    /// after a search still shows it).
    pub analysis: Option<ThinkingView>,
    #[serde(flatten)]
    pub position: PositionView,
}

#[derive(Serialize, Clone, Debug)]
pub struct TopMove {
    #[serde(rename = "move")]
    pub cecp: String,
    pub hodges: String,
    pub visits: u32,
    pub prior: f32,
    pub q: Option<f32>,
}

#[derive(Serialize, Clone, Debug)]
pub struct ThinkingView {
    pub version: u64,
    pub depth: u32,
    pub nodes: u64,
    pub time_ms: u64,
    pub score_cp: i32,
    pub wdl: Option<[f32; 3]>,
    pub pv: Vec<String>,
    pub pv_hodges: Vec<String>,
    pub top: Vec<TopMove>,
}

impl Slot {
    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the game half-changed (every change is one
        // call into the rules core), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The view of the game as it stands.
    pub fn view(&self) -> GameView {
        let g = self.lock();
        view_of(self.id, &g)
    }

    /// Send the current view to every open event stream.
    pub fn publish(&self) {
        // A view is a few move generations per ply shown; build it only for pages listening.
        if self.events.receiver_count() > 0 {
            let _ = self.events.send(Event::State(Box::new(self.view())));
        }
    }
}

pub fn view_of(id: u64, g: &Inner) -> GameView {
    let legal_for = match g.settings.mode {
        Mode::Play => Some(g.settings.human),
        Mode::Analysis => Some(g.game.side_to_move()),
    };
    GameView {
        id: id.to_string(),
        mode: g.settings.mode,
        human: super::view::color_name(g.settings.human),
        engine: g.settings.engine.clone(),
        engine_name: g.player_name.clone(),
        time_ms: g.settings.time_ms,
        version: g.version,
        thinking: g.thinking,
        analysis: g.last_thinking.clone(),
        position: position_view(&g.game, legal_for),
    }
}

/// Everything the handlers share.
pub struct ServerState {
    pub rules: Rules,
    pub table: Arc<MoveTable>,
    /// The engines offered on the page (`--engine` specs, then built-in ones), and the default.
    pub engines: Vec<(String, String)>,
    pub default_engine: String,
    pub default_time_ms: u64,
    pub run_dir: Option<std::path::PathBuf>,
    games: Mutex<HashMap<u64, Arc<Slot>>>,
    next_id: AtomicU64,
    /// Engine searches at once.
    pub searches: Arc<Semaphore>,
}

impl ServerState {
    pub fn new(
        rules: Rules,
        engines: Vec<(String, String)>,
        default_engine: String,
        run_dir: Option<std::path::PathBuf>,
        max_searches: usize,
    ) -> ServerState {
        ServerState {
            table: Arc::new(MoveTable::new(&rules)),
            rules,
            engines,
            default_engine,
            default_time_ms: 2_000,
            run_dir,
            games: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            searches: Arc::new(Semaphore::new(max_searches.max(1))),
        }
    }

    fn games(&self) -> MutexGuard<'_, HashMap<u64, Arc<Slot>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn game(&self, id: &str) -> Option<Arc<Slot>> {
        let id: u64 = id.parse().ok()?;
        let slot = self.games().get(&id).cloned()?;
        slot.lock().last_used = Instant::now();
        Some(slot)
    }

    /// Keep a new game (dropping the one unused the longest when [`MAX_GAMES`] are kept).
    pub fn add(&self, game: Game, settings: Settings, player: Box<dyn Player>, rules_tag: String) -> Arc<Slot> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (events, _) = broadcast::channel(64);
        let player_name = player.name();
        let slot = Arc::new(Slot {
            id,
            inner: Mutex::new(Inner {
                game,
                settings,
                version: 1,
                player: Some(player),
                player_name,
                engine_gen: 0,
                thinking: false,
                last_thinking: None,
                last_used: Instant::now(),
                rules_tag,
            }),
            events,
            current: AtomicU64::new(1),
        });
        let mut games = self.games();
        if games.len() >= MAX_GAMES {
            let oldest = games.iter().min_by_key(|(_, s)| s.lock().last_used).map(|(k, _)| *k);
            if let Some(k) = oldest {
                if let Some(old) = games.remove(&k) {
                    old.current.store(u64::MAX, Ordering::Relaxed);
                }
            }
        }
        games.insert(id, slot.clone());
        slot
    }

    /// Whether a spec from the page may be used: one of the offered engines as given, or any
    /// spec that names no file (a request never becomes a filesystem path).
    pub fn allowed_spec(&self, spec: &str) -> Result<(), String> {
        if self.engines.iter().any(|(s, _)| s == spec) {
            return Ok(());
        }
        let parsed = EngineSpec::parse(spec).map_err(|e| e.to_string())?;
        for key in ["checkpoint", "config"] {
            if let Some(v) = parsed.get(key) {
                if !(key == "checkpoint" && v == "random") {
                    return Err(format!(
                        "an engine spec from the page may not name a file ('{key}={v}'); expected one of the \
                         offered engines, or a spec without files (start the server with --engine SPEC to offer one)"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Build the engine of a spec (loading a network can take a moment: call from a blocking
    /// thread).
    pub fn build_player(&self, spec: &str) -> Result<Box<dyn Player>, String> {
        self.allowed_spec(spec)?;
        let parsed = EngineSpec::parse(spec).map_err(|e| e.to_string())?;
        registry::build(&parsed, &self.rules).map_err(|e| e.to_string())
    }
}

/// Bump the version after a change and wake the engine if it should think now. Call with the
/// game's lock released.
pub fn changed(state: &Arc<ServerState>, slot: &Arc<Slot>) {
    {
        let mut g = slot.lock();
        g.version += 1;
        g.thinking = false;
        slot.current.store(g.version, Ordering::Relaxed);
    }
    kick(state, slot);
}

/// Start a search if the engine should be thinking and is free; publishes the view either way.
pub fn kick(state: &Arc<ServerState>, slot: &Arc<Slot>) {
    let job = {
        let mut g = slot.lock();
        let engine_turn = match g.settings.mode {
            Mode::Play => g.game.side_to_move() != g.settings.human,
            Mode::Analysis => true,
        };
        if g.game.is_over() || !engine_turn || g.player.is_none() {
            None
        } else {
            let player = g.player.take();
            g.thinking = true;
            player.map(|p| (p, g.game.clone(), g.version, g.settings.clone(), g.engine_gen))
        }
    };
    slot.publish();
    let Some((player, game, version, settings, gen)) = job else { return };
    let (state, slot) = (state.clone(), slot.clone());
    tokio::spawn(async move {
        let Ok(permit) = state.searches.clone().acquire_owned().await else { return };
        let slot2 = slot.clone();
        let result = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            search(&slot2, player, &game, version, &settings)
        })
        .await;
        match result {
            Ok((player, chosen)) => finish(&state, &slot, (player, gen), chosen, version),
            Err(e) => {
                // The engine panicked: the game keeps going without it until its engine is set
                // again (settings).
                slot.lock().thinking = false;
                let _ = slot.events.send(Event::Error(format!("the engine failed: {e}")));
                slot.publish();
            }
        }
    });
}

/// Run the engine on a blocking thread: one move in play mode, growing searches in analysis
/// until the position changes or the budgets are spent.
fn search(
    slot: &Slot,
    mut player: Box<dyn Player>,
    game: &Game,
    version: u64,
    settings: &Settings,
) -> (Box<dyn Player>, Option<engine::Move>) {
    let budgets: Vec<u64> = match settings.mode {
        Mode::Play => vec![settings.time_ms],
        Mode::Analysis => ANALYSIS_BUDGETS_MS.to_vec(),
    };
    let mut chosen = None;
    let mut last_sent: Option<Instant> = None;
    for ms in budgets {
        if slot.current.load(Ordering::Relaxed) != version {
            break;
        }
        player.set_limits(Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() });
        let mut info = |t: &Thinking| {
            // At most ten updates a second reach the page.
            if last_sent.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)) {
                last_sent = Some(Instant::now());
                report(slot, thinking_view(game, version, t, None));
            }
        };
        let m = player.choose(game, &mut info);
        chosen = Some(m);
        // The final report of each search, with the root moves when the search has them.
        if let Some(r) = player.last_search() {
            let t = Thinking {
                depth: 0,
                score_cp: 0,
                wdl: Some(r.wdl),
                nodes: r.visits as u64,
                time: Duration::from_millis(ms),
                pv: r.pv.clone(),
            };
            report(slot, thinking_view(game, version, &t, Some(r)));
        }
    }
    (player, chosen)
}

/// Send a report to the page and keep it as the game's latest.
fn report(slot: &Slot, t: ThinkingView) {
    slot.lock().last_thinking = Some(t.clone());
    let _ = slot.events.send(Event::Thinking(Box::new(t)));
}

fn thinking_view(game: &Game, version: u64, t: &Thinking, result: Option<&search::mcts::SearchResult>) -> ThinkingView {
    let mut top = Vec::new();
    if let Some(r) = result {
        let mut roots: Vec<_> = r.root_moves.iter().collect();
        roots.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
        let book = engine::hodges::HodgesBook::new(game.position(), game.table());
        top = roots
            .into_iter()
            .take(8)
            .map(|rm| TopMove {
                cecp: engine::notation::to_cecp(rm.mv),
                hodges: book.write(rm.mv),
                visits: rm.visits,
                prior: rm.prior,
                q: rm.q,
            })
            .collect();
    }
    ThinkingView {
        version,
        depth: t.depth,
        nodes: t.nodes,
        time_ms: t.time.as_millis() as u64,
        score_cp: t.score_cp,
        wdl: t.wdl,
        pv: t.pv.iter().map(|&m| engine::notation::to_cecp(m)).collect(),
        pv_hodges: line_hodges(game, &t.pv),
        top,
    }
}

/// Put the engine back; in play mode, play its move if the game is still where it searched.
fn finish(
    state: &Arc<ServerState>,
    slot: &Arc<Slot>,
    (player, gen): (Box<dyn Player>, u64),
    chosen: Option<engine::Move>,
    version: u64,
) {
    let mut replay = false;
    {
        let mut g = slot.lock();
        if g.engine_gen == gen {
            g.player = Some(player);
        }
        if g.version == version {
            g.thinking = false;
            if g.settings.mode == Mode::Play {
                if let Some(m) = chosen {
                    if let Err(e) = g.game.play(m) {
                        let _ = slot.events.send(Event::Error(format!("the engine's move was refused: {e}")));
                    }
                    g.version += 1;
                    slot.current.store(g.version, Ordering::Relaxed);
                }
            }
        } else {
            // The game changed while the engine searched: think about the new position.
            replay = true;
        }
    }
    if replay {
        kick(state, slot);
    } else {
        slot.publish();
    }
}
