//! The web board's HTTP API without a browser (`docs/web-api.md`): games, moves, the engine's
//! reply and thinking, records, and every kind of bad request getting a one-line JSON error.
//! The router is called directly (no socket), with engines that need no network file.

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::Router;
use engine::{Color, Kind, Piece, Position, Rules, Square};
use http_body_util::BodyExt;
use play::serve::{router, ServeOptions};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tower::ServiceExt;

fn app() -> Router {
    app_with_run(None)
}

fn app_with_run(run_dir: Option<std::path::PathBuf>) -> Router {
    let opts = ServeOptions {
        host: "127.0.0.1".parse().unwrap(),
        port: 0,
        rules: Rules::default(),
        engines: vec!["random:seed=3".into()],
        run_dir,
        max_searches: 2,
        open: false,
    };
    router(&opts).unwrap()
}

async fn call(app: &Router, method: &str, uri: &str, body: Option<&str>) -> (StatusCode, Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.unwrap_or("").to_string()))
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let value =
        serde_json::from_slice(&bytes).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, value)
}

async fn new_game(app: &Router, body: Value) -> Value {
    let (s, v) = call(app, "POST", "/api/games", Some(&body.to_string())).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    v
}

/// Poll a game until `done` holds (the engine works on its own threads).
async fn wait_for(app: &Router, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let (s, v) = call(app, "GET", &format!("/api/games/{id}"), None).await;
        assert_eq!(s, StatusCode::OK);
        if done(&v) {
            return v;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn error_of(v: &Value) -> &str {
    let e = v["error"].as_str().unwrap_or_else(|| panic!("no error in {v}"));
    assert!(!e.contains('\n'), "{e}");
    e
}

fn fen_of(pieces: &[(&str, Kind, Color)], side: Color) -> String {
    let mut pos = Position::empty();
    for &(s, k, c) in pieces {
        pos.put(Square::parse_cecp(s).unwrap(), Piece::of_kind(k, c));
    }
    pos.set_side_to_move(side);
    pos.to_fen()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_and_its_assets_are_served() {
    let app = app();
    for (uri, needle) in [("/", "<svg"), ("/assets/app.js", "EventSource"), ("/assets/style.css", "{")] {
        let (s, v) = call(&app, "GET", uri, None).await;
        assert_eq!(s, StatusCode::OK, "{uri}");
        assert!(v.as_str().unwrap().contains(needle), "{uri}");
    }
    let (s, v) = call(&app, "GET", "/assets/../../etc/passwd", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{v}");
    let (s, _) = call(&app, "GET", "/run", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "no run page without --run-dir");
    let (s, v) = call(&app, "GET", "/api/info", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["default_engine"], "random:seed=3");
    assert!(v["engines"].as_array().unwrap().iter().any(|e| e["spec"] == "alphabeta:depth=1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_is_answered_by_the_engine_and_listed_in_both_notations() {
    let app = app();
    let v = new_game(&app, json!({})).await;
    let id = v["id"].as_str().unwrap().to_string();
    assert_eq!(v["legal"].as_array().unwrap().len(), 74, "the start position's moves");
    assert_eq!(v["board"].as_array().unwrap().len(), 156);
    assert_eq!(v["side_to_move"], "black");
    let pawn = v["legal"].as_array().unwrap().iter().find(|m| m["move"] == "h5h6").expect("h5h6 is legal").clone();
    assert_eq!(pawn["hodges"], "P-9k");
    let (s, v) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(r#"{"move": "h5h6"}"#)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let v = wait_for(&app, &id, |v| v["ply"] == 2 && v["thinking"] == false).await;
    assert_eq!(v["moves"][0]["hodges"], "P-9k");
    assert_eq!(v["moves"][1]["color"], "white");
    assert_eq!(v["last"]["move"], v["moves"][1]["move"]);
    assert!(!v["legal"].as_array().unwrap().is_empty(), "the person's turn again");
    // Hodges text typed by a person works too; undo takes back the move and the reply.
    let (s, v) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(r#"{"move": "P-8k"}"#)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    wait_for(&app, &id, |v| v["ply"] == 4 && v["thinking"] == false).await;
    let (s, v) = call(&app, "POST", &format!("/api/games/{id}/undo"), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["ply"], 2);
    // Browsing: the start position, read only.
    let (s, v) = call(&app, "GET", &format!("/api/games/{id}/view?ply=0"), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["ply"], 0);
    assert_eq!(v["fen"], Position::start().to_fen());
    assert!(v["legal"].as_array().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_moves_say_the_real_reason() {
    let app = app();
    let v = new_game(&app, json!({"engine": "random", "human": "white"})).await;
    let id = v["id"].as_str().unwrap().to_string();
    // White: the engine (Black) moves first; until then it is not the person's turn.
    let v = wait_for(&app, &id, |v| v["ply"] == 1 && v["thinking"] == false).await;
    assert_eq!(v["side_to_move"], "white");
    for (text, why) in [("h12h9", "not"), ("Ln-9a", "own Drunk Elephant"), ("xyz", "'xyz'"), ("a1", "a1")] {
        let (s, v) =
            call(&app, "POST", &format!("/api/games/{id}/move"), Some(&json!({"move": text}).to_string())).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{text}: {v}");
        let e = error_of(&v);
        assert!(e.contains(why), "{text}: {e}");
    }
    let (s, v) = call(&app, "POST", &format!("/api/games/{id}/resign"), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["outcome"]["result"], "1-0");
    let (s, v) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(r#"{"move": "h12h11"}"#)).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error_of(&v).contains("game is over"), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_requests_get_one_line_errors() {
    let app = app();
    let v = new_game(&app, json!({"mode": "analysis"})).await;
    let id = v["id"].as_str().unwrap().to_string();
    let cases: Vec<(&str, String, String, StatusCode, &str)> = vec![
        ("POST", "/api/games".into(), "{not json".into(), StatusCode::BAD_REQUEST, "body"),
        ("POST", "/api/games".into(), r#"{"colour": "black"}"#.into(), StatusCode::BAD_REQUEST, "unknown field"),
        ("POST", "/api/games".into(), r#"{"human": "green"}"#.into(), StatusCode::BAD_REQUEST, "'black' or 'white'"),
        ("POST", "/api/games".into(), r#"{"mode": 3}"#.into(), StatusCode::BAD_REQUEST, "body"),
        ("POST", "/api/games".into(), r#"{"time_ms": 0}"#.into(), StatusCode::BAD_REQUEST, "10 to 600000"),
        ("POST", "/api/games".into(), r#"{"time_ms": 1e300}"#.into(), StatusCode::BAD_REQUEST, "body"),
        ("POST", "/api/games".into(), r#"{"fen": "not a fen"}"#.into(), StatusCode::UNPROCESSABLE_ENTITY, "FEN"),
        ("POST", "/api/games".into(), r#"{"fen": "x", "record": "y"}"#.into(), StatusCode::BAD_REQUEST, "not both"),
        (
            "POST",
            "/api/games".into(),
            json!({"record": "[Rules \"/etc/passwd\"]\n\nh5h6 *\n"}).to_string(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "preset",
        ),
        (
            "POST",
            "/api/games".into(),
            r#"{"engine": "mcts:checkpoint=/etc/passwd"}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "may not name a file",
        ),
        (
            "POST",
            "/api/games".into(),
            r#"{"engine": "alphabeta:depth=-1"}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "depth",
        ),
        (
            "POST",
            "/api/games".into(),
            r#"{"engine": "stockfish"}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "stockfish",
        ),
        ("GET", "/api/games/999999".into(), String::new(), StatusCode::NOT_FOUND, "no game"),
        ("GET", "/api/games/..%2F..%2Fetc".into(), String::new(), StatusCode::NOT_FOUND, "no game"),
        ("GET", format!("/api/games/{id}/view?ply=99"), String::new(), StatusCode::BAD_REQUEST, "expected 0 to 0"),
        ("GET", format!("/api/games/{id}/view?ply=-1"), String::new(), StatusCode::BAD_REQUEST, "expected 0 to 0"),
        ("POST", format!("/api/games/{id}/move"), r#"{"move": 5}"#.into(), StatusCode::BAD_REQUEST, "body"),
        ("POST", format!("/api/games/{id}/move"), r#"{}"#.into(), StatusCode::BAD_REQUEST, "move"),
        (
            "POST",
            format!("/api/games/{id}/move"),
            json!({"move": "x".repeat(100)}).to_string(),
            StatusCode::BAD_REQUEST,
            "100 characters",
        ),
        (
            "POST",
            format!("/api/games/{id}/move"),
            r#"{"move": "\u0000"}"#.into(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "cannot play",
        ),
        (
            "POST",
            format!("/api/games/{id}/truncate"),
            r#"{"ply": 5}"#.into(),
            StatusCode::BAD_REQUEST,
            "expected 0 to 0",
        ),
        ("POST", format!("/api/games/{id}/undo"), String::new(), StatusCode::UNPROCESSABLE_ENTITY, "no move"),
        (
            "POST",
            format!("/api/games/{id}/settings"),
            r#"{"time_ms": 99999999}"#.into(),
            StatusCode::BAD_REQUEST,
            "time_ms",
        ),
        ("GET", "/api/run/metrics".into(), String::new(), StatusCode::NOT_FOUND, "--run-dir"),
        ("GET", "/api/nothing".into(), String::new(), StatusCode::NOT_FOUND, "no such"),
    ];
    for (method, uri, body, want, needle) in cases {
        let (s, v) = call(&app, method, &uri, Some(&body)).await;
        assert_eq!(s, want, "{method} {uri} {body}: {v}");
        let e = error_of(&v);
        assert!(e.contains(needle), "{method} {uri} {body}: {e}");
    }
    // Bodies over the limit are refused before they are read whole.
    let huge = format!(r#"{{"record": "{}"}}"#, "h".repeat(2 << 20));
    let (s, _) = call(&app, "POST", "/api/games", Some(&huge)).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    // The game is unharmed.
    let (s, v) = call(&app, "GET", &format!("/api/games/{id}"), None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["ply"], 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lion_double_move_captures_twice_and_the_view_shows_it() {
    use Color::{Black, White};
    let fen = fen_of(
        &[
            ("h8", Kind::Lion, Black),
            ("h9", Kind::Pawn, White),
            ("h10", Kind::Pawn, White),
            ("b1", Kind::King, Black),
            ("o16", Kind::King, White),
        ],
        Black,
    );
    let app = app();
    let v = new_game(&app, json!({"mode": "analysis", "fen": fen, "engine": "random"})).await;
    let id = v["id"].as_str().unwrap().to_string();
    let legal = v["legal"].as_array().unwrap();
    let double = legal.iter().find(|m| m["via"] == json!(["h9"]) && m["to"] == "h10").expect("h9 then h10");
    assert_eq!(double["captures"], json!(["h9", "h10"]));
    let igui = legal.iter().find(|m| m["via"] == json!(["h9"]) && m["to"] == "h8").expect("igui on h9");
    assert_eq!(igui["captures"], json!(["h9"]));
    let mv = double["move"].as_str().unwrap().to_string();
    let (s, v) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(&json!({"move": mv}).to_string())).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["last"]["via"], json!(["h9"]));
    let captured: Vec<&str> =
        v["last"]["captured"].as_array().unwrap().iter().map(|r| r["sq"].as_str().unwrap()).collect();
    assert_eq!(captured, ["h9", "h10"]);
    assert_eq!(v["taken"]["black"], json!(["P", "P"]));
    assert!(v["board"].as_array().unwrap().iter().any(|p| p["sq"] == "h10" && p["abbr"] == "Ln"));
    // Analysis: White's moves are listed for the person too.
    assert_eq!(v["side_to_move"], "white");
    assert!(!v["legal"].as_array().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threats_show_range_jumps_and_burns_before_they_land() {
    use Color::{Black, White};
    // A Black Great General on a1 can range-jump up the file to the White King's square;
    // a White Fire Demon next to Black pieces burns them.
    let fen = fen_of(
        &[
            ("a1", Kind::GreatGeneral, Black),
            ("a5", Kind::Pawn, White),
            ("a12", Kind::King, White),
            ("h4", Kind::King, Black),
            ("j10", Kind::FireDemon, White),
            ("j8", Kind::Gold, Black),
            ("k8", Kind::Gold, Black),
        ],
        Black,
    );
    let app = app();
    let v = new_game(&app, json!({"mode": "analysis", "fen": fen, "engine": "random"})).await;
    let black = &v["threats"]["black"];
    let white = &v["threats"]["white"];
    let has = |list: &Value, s: &str| list.as_array().unwrap().iter().any(|x| x == s);
    assert!(has(&black["capturable"], "a12"), "{black}");
    assert!(has(&black["royal_attackers"], "a1"), "{black}");
    assert!(has(&white["burn_zones"], "j8") && has(&white["capturable"], "k8"), "{white}");
    // Black has no Fire Demon: its only burns are of its own pieces stepping next to White's.
    for m in v["legal"].as_array().unwrap() {
        for b in m["burns"].as_array().unwrap() {
            assert_eq!(b, &m["to"], "{m}");
            let to = Square::parse_cecp(b.as_str().unwrap()).unwrap();
            assert_eq!(to.distance(Square::parse_cecp("j10").unwrap()), 1, "{m}");
        }
    }
    assert!(v["legal"].as_array().unwrap().iter().any(|m| m["move"] == "j8j9" && m["burns"] == json!(["j9"])));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_go_out_and_come_back_as_content() {
    let app = app();
    let v = new_game(&app, json!({"mode": "analysis"})).await;
    let id = v["id"].as_str().unwrap().to_string();
    for m in ["h5h6", "h12h11", "g5g6"] {
        let (s, v) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(&json!({"move": m}).to_string())).await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    let req = Request::get(format!("/api/games/{id}/record")).body(Body::empty()).unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert!(resp.headers()["content-disposition"].to_str().unwrap().contains("attachment"));
    let text = String::from_utf8(resp.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert!(text.contains("[Format \"1\"]") && text.contains("h5h6"), "{text}");
    let back = new_game(&app, json!({"record": text, "mode": "analysis"})).await;
    assert_eq!(back["ply"], 3);
    assert_eq!(back["moves"][2]["move"], "g5g6");
    // Continue from ply 1 of the loaded game.
    let bid = back["id"].as_str().unwrap();
    let (s, v) = call(&app, "POST", &format!("/api/games/{bid}/truncate"), Some(r#"{"ply": 1}"#)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["ply"], 1);
    // Two records in one text, or moves that do not replay, are refused with the reason.
    let two = format!("{text}\n{text}");
    let (s, v) = call(&app, "POST", "/api/games", Some(&json!({"record": two}).to_string())).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error_of(&v).contains("exactly one"), "{v}");
    let bad = text.replace("g5g6", "g5g9");
    let (s, v) = call(&app, "POST", "/api/games", Some(&json!({"record": bad}).to_string())).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error_of(&v).contains("g5g9"), "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analysis_streams_the_engines_thinking() {
    let app = app();
    let v = new_game(&app, json!({"mode": "analysis", "engine": "alphabeta:depth=2"})).await;
    let id = v["id"].as_str().unwrap().to_string();
    let req = Request::get(format!("/api/games/{id}/events")).body(Body::empty()).unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut body = resp.into_body();
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(seen.contains("event: state") && seen.contains("event: thinking") && seen.contains("\"pv\"")) {
        assert!(Instant::now() < deadline, "no thinking event: {seen}");
        let frame =
            tokio::time::timeout(Duration::from_secs(60), body.frame()).await.expect("an event").unwrap().unwrap();
        if let Ok(data) = frame.into_data() {
            seen.push_str(&String::from_utf8_lossy(&data));
        }
    }
    // A move changes the position; the view says the engine is thinking about the new one.
    let (s, v) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(r#"{"move": "h5h6"}"#)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["side_to_move"], "white");
    let v = wait_for(&app, &id, |v| v["thinking"] == true).await;
    assert_eq!(v["ply"], 1, "analysis never moves by itself");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changing_the_engine_mid_search_keeps_the_new_one() {
    let app = app();
    let v = new_game(&app, json!({"human": "white", "engine": "alphabeta:depth=3", "time_ms": 2000})).await;
    let id = v["id"].as_str().unwrap().to_string();
    let (s, v) =
        call(&app, "POST", &format!("/api/games/{id}/settings"), Some(r#"{"engine": "random", "time_ms": 50}"#)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["engine_name"], "random");
    let v = wait_for(&app, &id, |v| v["ply"] == 1 && v["thinking"] == false).await;
    assert_eq!(v["engine_name"], "random");
    let (s, v) = call(&app, "POST", &format!("/api/games/{id}/move"), Some(r#"{"move": "h12h11"}"#)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let v = wait_for(&app, &id, |v| v["ply"] == 3).await;
    assert_eq!(v["engine_name"], "random");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_page_reads_the_runs_metrics_as_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let app = app_with_run(Some(dir.path().to_path_buf()));
    let (s, v) = call(&app, "GET", "/api/run/metrics", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "no metrics.csv yet");
    assert!(error_of(&v).contains("metrics"), "{v}");
    std::fs::write(dir.path().join("metrics.csv"), "step,loss,note\n1,0.5,\n2,0.25,warm\n").unwrap();
    let (s, v) = call(&app, "GET", "/api/run/metrics", None).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["columns"], json!(["step", "loss", "note"]));
    assert_eq!(v["rows"], json!([[1.0, 0.5, null], [2.0, 0.25, "warm"]]));
    let (s, v) = call(&app, "GET", "/run", None).await;
    assert_eq!(s, StatusCode::OK);
    assert!(v.as_str().unwrap().contains("run.js"));
    let (s, v) = call(&app, "GET", "/api/info", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["run"], true);
}
