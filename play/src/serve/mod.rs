//! `tenjiku serve`: the web board. An HTTP server (axum on tokio) with the page's assets built
//! into the binary, the JSON API of `docs/web-api.md`, and server-sent events for the engine's
//! thinking. The rules stay here: the page asks for legal moves and sends moves, and the
//! server checks everything.

mod api;
mod state;
mod view;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use engine::Rules;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

pub use state::{MAX_GAMES, TIME_MS_RANGE};

/// Largest request body accepted (a game record of thousands of moves fits many times).
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// How to run the server.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub host: IpAddr,
    /// 0: any free port (the URL printed says which).
    pub port: u16,
    pub rules: Rules,
    /// Engines offered on the page, the first one the default (specs as `--engine` takes them).
    pub engines: Vec<String>,
    /// A training run whose metrics the `/run` page charts.
    pub run_dir: Option<PathBuf>,
    /// Engine searches at once (each on its own blocking thread).
    pub max_searches: usize,
    /// Open the page in the default browser once the server listens.
    pub open: bool,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("the server stopped: {0}")]
    Io(#[from] std::io::Error),
    #[error("engine '{spec}': {why}")]
    Engine { spec: String, why: String },
}

/// Built-in engines offered besides the `--engine` ones.
const BUILT_IN: [(&str, &str); 4] = [
    ("alphabeta:time=1s", "alpha-beta, 1 s per move"),
    ("alphabeta:depth=2", "alpha-beta, depth 2 (quick)"),
    ("alphabeta:depth=1", "alpha-beta, depth 1 (weak)"),
    ("random", "random mover"),
];

/// The router, for the server and for tests (which call it without a socket).
pub fn router(opts: &ServeOptions) -> Result<Router, ServeError> {
    let mut engines: Vec<(String, String)> = Vec::new();
    for spec in &opts.engines {
        // Each offered engine is checked once here, so a bad --engine fails at start, not on the
        // page.
        crate::registry::check(spec, &opts.rules)
            .map_err(|e| ServeError::Engine { spec: spec.clone(), why: e.to_string() })?;
        engines.push((spec.clone(), label(spec)));
    }
    for (spec, label) in BUILT_IN {
        if !engines.iter().any(|(s, _)| s == spec) {
            engines.push((spec.to_string(), label.to_string()));
        }
    }
    let default_engine = engines[0].0.clone();
    let state = Arc::new(state::ServerState::new(
        opts.rules.clone(),
        engines,
        default_engine,
        opts.run_dir.clone(),
        opts.max_searches,
    ));
    let mut app = Router::new()
        .route("/", get(|| async { asset("index.html") }))
        .route("/assets/{file}", get(|axum::extract::Path(f): axum::extract::Path<String>| async move { asset(&f) }))
        .route("/api/info", get(api::info))
        .route("/api/games", post(api::new_game))
        .route("/api/games/{id}", get(api::get_game))
        .route("/api/games/{id}/view", get(api::view_at))
        .route("/api/games/{id}/move", post(api::play_move))
        .route("/api/games/{id}/undo", post(api::undo))
        .route("/api/games/{id}/truncate", post(api::truncate))
        .route("/api/games/{id}/resign", post(api::resign))
        .route("/api/games/{id}/settings", post(api::settings))
        .route("/api/games/{id}/record", get(api::get_record))
        .route("/api/games/{id}/events", get(api::events))
        .route("/api/run/metrics", get(api::run_metrics));
    if opts.run_dir.is_some() {
        app = app.route("/run", get(|| async { asset("run.html") }));
    }
    Ok(app
        .fallback(|| async { api::ApiError(StatusCode::NOT_FOUND, "no such page or API call".into()) })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state))
}

fn label(spec: &str) -> String {
    if spec.starts_with("mcts:") && spec.contains(crate::registry::SHIPPED_CHECKPOINT) {
        "the shipped network (MCTS)".to_string()
    } else {
        spec.to_string()
    }
}

/// The page's files, built into the binary.
fn asset(name: &str) -> Response {
    let (body, kind): (&'static str, &str) = match name {
        "index.html" => (include_str!("assets/index.html"), "text/html; charset=utf-8"),
        "run.html" => (include_str!("assets/run.html"), "text/html; charset=utf-8"),
        "app.js" => (include_str!("assets/app.js"), "text/javascript; charset=utf-8"),
        "run.js" => (include_str!("assets/run.js"), "text/javascript; charset=utf-8"),
        "style.css" => (include_str!("assets/style.css"), "text/css; charset=utf-8"),
        _ => return (StatusCode::NOT_FOUND, "no such file").into_response(),
    };
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// Run the server until Ctrl-C (or SIGTERM). Prints the URL once it listens.
pub fn serve(opts: ServeOptions) -> Result<(), ServeError> {
    let app = router(&opts)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let addr = SocketAddr::new(opts.host, opts.port);
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Bind { addr, source })?;
        let bound = listener.local_addr()?;
        let url = match bound.ip() {
            IpAddr::V6(ip) => format!("http://[{ip}]:{}/", bound.port()),
            IpAddr::V4(ip) => format!("http://{ip}:{}/", bound.port()),
        };
        println!("Tenjiku web board at {url}  (Ctrl-C stops it)");
        if !opts.host.is_loopback() {
            println!(
                "Warning: listening on {}, not on loopback: anyone who can reach this machine on that network can \
                 use the board and its engines.",
                opts.host
            );
        }
        if opts.run_dir.is_some() {
            println!("Training run charts at {url}run");
        }
        if opts.open {
            open_browser(&url);
        }
        use std::io::Write;
        let _ = std::io::stdout().flush();
        // Open event streams would hold a graceful shutdown forever: after the signal, requests
        // in flight get a second to finish, then the server stops.
        let stopping = Arc::new(tokio::sync::Notify::new());
        let notify = stopping.clone();
        let server = axum::serve(listener, app).with_graceful_shutdown(async move {
            shutdown().await;
            notify.notify_one();
        });
        tokio::select! {
            r = server => r?,
            _ = async {
                stopping.notified().await;
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            } => {}
        }
        Ok::<(), ServeError>(())
    })?;
    // Searches in flight are not waited for.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    println!("Stopped.");
    Ok(())
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

fn open_browser(url: &str) {
    let cmd = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(cmd).arg(url).spawn() {
        eprintln!("Could not open a browser ({cmd}: {e}); open {url} yourself.");
    }
}
