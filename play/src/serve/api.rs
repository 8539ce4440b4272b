//! The HTTP handlers of `docs/web-api.md`.
//!
//! Bodies are read as bytes and parsed here, so a malformed body gets the same one-line JSON
//! error as any other bad request. Nothing from a request names a file: records arrive and
//! leave as content, and engine specs that name files are refused unless the server offers
//! them (`--engine`).

use super::state::{changed, kick, view_of, Event, Mode, ServerState, Settings, Slot, TIME_MS_RANGE};
use super::view::position_view;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use engine::record::{self, GameRecord};
use engine::{Color, Game, Position, Rules};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::convert::Infallible;
use std::sync::Arc;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::StreamExt;

type AppState = State<Arc<ServerState>>;

/// A failed request: its status and one line saying what was wrong and what was expected.
pub struct ApiError(pub StatusCode, pub String);

impl ApiError {
    pub fn bad(msg: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, msg.into())
    }
    fn refused(msg: impl Into<String>) -> ApiError {
        ApiError(StatusCode::UNPROCESSABLE_ENTITY, msg.into())
    }
    fn not_found(id: &str) -> ApiError {
        ApiError(
            StatusCode::NOT_FOUND,
            format!("no game '{id}' on this server (it may have been dropped: start a new one)"),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let msg = self.1.replace('\n', " ");
        (self.0, Json(serde_json::json!({ "error": msg }))).into_response()
    }
}

type ApiResult<T> = Result<T, ApiError>;

/// Parse a JSON body (an empty body reads as `{}`).
fn body<T: DeserializeOwned>(bytes: &Bytes) -> ApiResult<T> {
    let bytes: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) { b"{}" } else { bytes };
    serde_json::from_slice(bytes).map_err(|e| ApiError::bad(format!("the request body is not what was expected: {e}")))
}

fn slot(state: &ServerState, id: &str) -> ApiResult<Arc<Slot>> {
    state.game(id).ok_or_else(|| ApiError::not_found(id))
}

fn parse_color(s: &str) -> ApiResult<Color> {
    match s {
        "black" => Ok(Color::Black),
        "white" => Ok(Color::White),
        _ => Err(ApiError::bad(format!("'human' is '{s}', expected 'black' or 'white'"))),
    }
}

fn parse_mode(s: &str) -> ApiResult<Mode> {
    match s {
        "play" => Ok(Mode::Play),
        "analysis" => Ok(Mode::Analysis),
        _ => Err(ApiError::bad(format!("'mode' is '{s}', expected 'play' or 'analysis'"))),
    }
}

fn check_time(ms: u64) -> ApiResult<u64> {
    let (lo, hi) = TIME_MS_RANGE;
    if (lo..=hi).contains(&ms) {
        Ok(ms)
    } else {
        Err(ApiError::bad(format!("'time_ms' is {ms}, expected {lo} to {hi}")))
    }
}

/// Build an engine on a blocking thread (loading a network takes a moment).
async fn build_player(state: &Arc<ServerState>, spec: String) -> ApiResult<Box<dyn search::Player>> {
    let s = state.clone();
    tokio::task::spawn_blocking(move || s.build_player(&spec))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("building the engine failed: {e}")))?
        .map_err(|e| ApiError::refused(format!("cannot use this engine: {e}")))
}

pub async fn info(State(state): AppState) -> Json<serde_json::Value> {
    let engines: Vec<_> =
        state.engines.iter().map(|(spec, label)| serde_json::json!({ "spec": spec, "label": label })).collect();
    Json(serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "engines": engines,
        "default_engine": state.default_engine,
        "default_time_ms": state.default_time_ms,
        "run": state.run_dir.is_some(),
    }))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct NewGame {
    mode: Option<String>,
    human: Option<String>,
    engine: Option<String>,
    time_ms: Option<u64>,
    fen: Option<String>,
    record: Option<String>,
}

/// The game a record describes, checked by the rules. Only preset rules are accepted: a record's
/// `Rules` tag naming a file is refused (a request never becomes a path).
fn game_from_record(state: &ServerState, text: &str) -> ApiResult<(Game, String)> {
    let records = record::parse_records(text).map_err(|e| ApiError::refused(format!("cannot read the record: {e}")))?;
    let [rec] = records.as_slice() else {
        return Err(ApiError::refused(format!("the text holds {} game records, expected exactly one", records.len())));
    };
    let tag = rec.tag("Rules").unwrap_or("standard");
    let Some(rules) = Rules::preset(tag) else {
        return Err(ApiError::refused(format!(
            "the record's Rules tag is '{tag}', expected a preset name (files are not read from the page)"
        )));
    };
    if rules != state.rules {
        return Err(ApiError::refused(format!(
            "the record is played under the '{tag}' rules, but this server plays '{}' (start it with --rules {tag})",
            state.rules.preset_name().unwrap_or("custom")
        )));
    }
    let game = rec.replay().map_err(|e| ApiError::refused(format!("the record's moves do not replay: {e}")))?;
    Ok((game, tag.to_string()))
}

pub async fn new_game(State(state): AppState, bytes: Bytes) -> ApiResult<Response> {
    let req: NewGame = body(&bytes)?;
    let mode = req.mode.as_deref().map(parse_mode).transpose()?.unwrap_or(Mode::Play);
    let human = req.human.as_deref().map(parse_color).transpose()?.unwrap_or(Color::Black);
    let time_ms = req.time_ms.map(check_time).transpose()?.unwrap_or(state.default_time_ms);
    let engine = req.engine.unwrap_or_else(|| state.default_engine.clone());
    let rules_name = state.rules.preset_name().unwrap_or("custom").to_string();
    let (game, rules_tag) = match (&req.fen, &req.record) {
        (Some(_), Some(_)) => return Err(ApiError::bad("give 'fen' or 'record', not both")),
        (Some(fen), None) => {
            let pos =
                Position::from_fen(fen.trim()).map_err(|e| ApiError::refused(format!("cannot read the FEN: {e}")))?;
            (Game::new(state.table.clone(), pos), rules_name)
        }
        (None, Some(text)) => game_from_record(&state, text)?,
        (None, None) => (Game::new(state.table.clone(), Position::start()), rules_name),
    };
    let player = build_player(&state, engine.clone()).await?;
    let settings = Settings { mode, human, engine, time_ms };
    let slot = state.add(game, settings, player, rules_tag);
    kick(&state, &slot);
    Ok((StatusCode::CREATED, Json(slot.view())).into_response())
}

pub async fn get_game(State(state): AppState, Path(id): Path<String>) -> ApiResult<Response> {
    Ok(Json(slot(&state, &id)?.view()).into_response())
}

#[derive(Deserialize)]
pub struct PlyQuery {
    ply: Option<String>,
}

/// A past position of the game, to browse the move list (no legal moves: read only).
pub async fn view_at(State(state): AppState, Path(id): Path<String>, Query(q): Query<PlyQuery>) -> ApiResult<Response> {
    let slot = slot(&state, &id)?;
    let g = slot.lock();
    let n = g.game.ply_count();
    let ply = match q.ply.as_deref() {
        None => n,
        Some(t) => t
            .parse::<usize>()
            .ok()
            .filter(|&p| p <= n)
            .ok_or_else(|| ApiError::bad(format!("'ply' is '{t}', expected 0 to {n}")))?,
    };
    let mut past = Game::new(g.game.table_arc(), *g.game.start_position());
    for m in g.game.moves().take(ply) {
        past.play(m).map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("replaying the game: {e}")))?;
    }
    let mut view = view_of(slot.id, &g);
    drop(g);
    view.position = position_view(&past, None);
    Ok(Json(view).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    #[serde(rename = "move")]
    text: String,
}

pub async fn play_move(State(state): AppState, Path(id): Path<String>, bytes: Bytes) -> ApiResult<Response> {
    let req: MoveRequest = body(&bytes)?;
    let slot = slot(&state, &id)?;
    {
        let mut g = slot.lock();
        if let Some(o) = g.game.outcome() {
            return Err(ApiError::refused(format!("the game is over ({}); undo, or start a new game", o.describe())));
        }
        if g.settings.mode == Mode::Play && g.game.side_to_move() != g.settings.human {
            return Err(ApiError::refused("it is the engine's turn: wait for its move"));
        }
        let text = req.text.trim();
        if text.is_empty() || text.len() > 64 {
            return Err(ApiError::bad(format!(
                "the move is {} characters long, expected a move like 'P-9k' or 'h4h5'",
                text.len()
            )));
        }
        record::play_person_text(&mut g.game, text)
            .map_err(|e| ApiError::refused(format!("cannot play '{text}': {e}")))?;
    }
    changed(&state, &slot);
    Ok(Json(slot.view()).into_response())
}

pub async fn undo(State(state): AppState, Path(id): Path<String>) -> ApiResult<Response> {
    let slot = slot(&state, &id)?;
    {
        let mut g = slot.lock();
        if g.game.ply_count() == 0 {
            return Err(ApiError::refused("there is no move to take back"));
        }
        let human = g.settings.human;
        g.game.undo();
        // In play mode, back to the person's turn (their move and the engine's reply).
        if g.settings.mode == Mode::Play && g.game.side_to_move() != human && g.game.ply_count() > 0 {
            g.game.undo();
        }
    }
    changed(&state, &slot);
    Ok(Json(slot.view()).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Truncate {
    ply: usize,
}

pub async fn truncate(State(state): AppState, Path(id): Path<String>, bytes: Bytes) -> ApiResult<Response> {
    let req: Truncate = body(&bytes)?;
    let slot = slot(&state, &id)?;
    {
        let mut g = slot.lock();
        let n = g.game.ply_count();
        if req.ply > n {
            return Err(ApiError::bad(format!("'ply' is {}, expected 0 to {n}", req.ply)));
        }
        while g.game.ply_count() > req.ply {
            g.game.undo();
        }
    }
    changed(&state, &slot);
    Ok(Json(slot.view()).into_response())
}

pub async fn resign(State(state): AppState, Path(id): Path<String>) -> ApiResult<Response> {
    let slot = slot(&state, &id)?;
    {
        let mut g = slot.lock();
        if g.game.is_over() {
            return Err(ApiError::refused("the game is already over"));
        }
        let side = match g.settings.mode {
            Mode::Play => g.settings.human,
            Mode::Analysis => g.game.side_to_move(),
        };
        g.game.resign(side);
    }
    changed(&state, &slot);
    Ok(Json(slot.view()).into_response())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SettingsRequest {
    engine: Option<String>,
    time_ms: Option<u64>,
    mode: Option<String>,
    human: Option<String>,
}

pub async fn settings(State(state): AppState, Path(id): Path<String>, bytes: Bytes) -> ApiResult<Response> {
    let req: SettingsRequest = body(&bytes)?;
    let slot = slot(&state, &id)?;
    let mode = req.mode.as_deref().map(parse_mode).transpose()?;
    let human = req.human.as_deref().map(parse_color).transpose()?;
    let time_ms = req.time_ms.map(check_time).transpose()?;
    let player = match &req.engine {
        Some(spec) if *spec != slot.lock().settings.engine => Some(build_player(&state, spec.clone()).await?),
        _ => None,
    };
    {
        let mut g = slot.lock();
        if let Some(m) = mode {
            g.settings.mode = m;
        }
        if let Some(h) = human {
            g.settings.human = h;
        }
        if let Some(t) = time_ms {
            g.settings.time_ms = t;
        }
        if let (Some(p), Some(spec)) = (player, req.engine) {
            g.player_name = p.name();
            g.player = Some(p);
            g.engine_gen += 1;
            g.settings.engine = spec;
        }
    }
    changed(&state, &slot);
    Ok(Json(slot.view()).into_response())
}

/// The game as a record file (content only; the page offers it as a download).
pub async fn get_record(State(state): AppState, Path(id): Path<String>) -> ApiResult<Response> {
    let slot = slot(&state, &id)?;
    let g = slot.lock();
    let mut rec = GameRecord::from_game(&g.game, &g.rules_tag);
    let (black, white) = match (g.settings.mode, g.settings.human) {
        (Mode::Analysis, _) => ("analysis".to_string(), "analysis".to_string()),
        (Mode::Play, Color::Black) => ("person".to_string(), g.player_name.clone()),
        (Mode::Play, Color::White) => (g.player_name.clone(), "person".to_string()),
    };
    rec.set_tag("Event", "tenjiku serve");
    rec.set_tag("Black", &black);
    rec.set_tag("White", &white);
    rec.set_tag("Date", &nn::files::record_date_now());
    let text = rec.to_text();
    let headers = [
        (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_string()),
        (header::CONTENT_DISPOSITION, format!("attachment; filename=\"tenjiku-game-{}.txt\"", slot.id)),
    ];
    Ok((headers, text).into_response())
}

/// Server-sent events of one game: its view now, then every change and the engine's thinking.
pub async fn events(
    State(state): AppState,
    Path(id): Path<String>,
) -> ApiResult<Sse<impl tokio_stream::Stream<Item = Result<SseEvent, Infallible>>>> {
    let slot = slot(&state, &id)?;
    let rx = slot.events.subscribe();
    let first = Event::State(Box::new(slot.view()));
    let stream = tokio_stream::once(Ok(first))
        .chain(BroadcastStream::new(rx))
        // A lagging page misses some thinking updates; the next state event brings it back.
        .filter_map(|e| e.ok())
        .map(|e| Ok(sse_event(&e)));
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

fn sse_event(e: &Event) -> SseEvent {
    let (name, data) = match e {
        Event::State(v) => ("state", serde_json::to_string(v)),
        Event::Thinking(t) => ("thinking", serde_json::to_string(t)),
        Event::Error(msg) => ("error", serde_json::to_string(&serde_json::json!({ "error": msg }))),
    };
    SseEvent::default().event(name).data(data.unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}")))
}

/// The training run's metrics as columns and rows (numbers where they parse).
pub async fn run_metrics(State(state): AppState) -> ApiResult<Response> {
    let Some(dir) = state.run_dir.clone() else {
        return Err(ApiError(
            StatusCode::NOT_FOUND,
            "this server shows no training run (start it with --run-dir DIR)".into(),
        ));
    };
    let text = tokio::task::spawn_blocking(move || engine::input::read_text(&dir.join("metrics.csv"), 256 << 20))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
        .map_err(|e| ApiError(StatusCode::NOT_FOUND, format!("cannot read the run's metrics: {e}")))?;
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let columns: Vec<String> = reader
        .headers()
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the run's metrics.csv: {e}")))?
        .iter()
        .map(str::to_string)
        .collect();
    let mut rows = Vec::new();
    for rec in reader.records().flatten() {
        let row: Vec<serde_json::Value> = rec
            .iter()
            .map(|f| match f.parse::<f64>() {
                Ok(x) if x.is_finite() => serde_json::json!(x),
                _ if f.is_empty() => serde_json::Value::Null,
                _ => serde_json::json!(f),
            })
            .collect();
        rows.push(row);
    }
    Ok(Json(serde_json::json!({ "columns": columns, "rows": rows })).into_response())
}
