//! The web board end to end in a real browser: `tenjiku serve` on a free loopback port,
//! Debian's Chromium driven headless through chromedriver (W3C WebDriver over HTTP). A person's
//! clicks: select a pawn and see its destinations, move it and see the engine's reply, a Lion
//! double move by clicking its squares, an illegal move refused with its reason, board flip,
//! a position loaded from a FEN.
//!
//! Skipped, loudly, when `chromium` or `chromedriver` is not installed (`.ci/run` installs
//! them). With `TENJIKU_SCREENSHOTS=DIR` it saves screenshots of a game in progress and of
//! analysis mode there (the ones in docs/ were made so).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn which(name: &str) -> Option<String> {
    let out = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output().ok()?;
    let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !p.is_empty()).then_some(p)
}

/// `tenjiku serve --port 0 ARGS...`, its URL (from the first line it prints) and the rest of
/// its output.
fn start_server(args: &[&str]) -> (Child, String, BufReader<std::process::ChildStdout>) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_tenjiku"))
        .args(["serve", "--port", "0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(server.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).expect("the URL").to_string();
    assert!(url.starts_with("http://127.0.0.1:") || args.contains(&"--host"), "{line}");
    (server, url, out)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A minimal W3C WebDriver client: the few commands this test needs.
struct Driver {
    base: String,
    agent: ureq::Agent,
}

impl Driver {
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let req = self.agent.request(method, &url);
        let resp = match body {
            Some(b) => req.send_json(b),
            None => req.call(),
        };
        let v: Value = match resp {
            Ok(r) => r.into_json().unwrap(),
            Err(ureq::Error::Status(code, r)) => {
                let v: Value = r.into_json().unwrap_or(Value::Null);
                panic!("WebDriver {method} {path}: HTTP {code}: {v}")
            }
            Err(e) => panic!("WebDriver {method} {path}: {e}"),
        };
        v["value"].clone()
    }
    fn js(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", Some(json!({"script": script, "args": []})))
    }
    fn find(&self, css: &str) -> Option<String> {
        let url = format!("{}/element", self.base);
        match self.agent.post(&url).send_json(json!({"using": "css selector", "value": css})) {
            Ok(r) => {
                let v: Value = r.into_json().unwrap();
                v["value"].as_object().and_then(|o| o.values().next()).and_then(|e| e.as_str()).map(str::to_string)
            }
            Err(_) => None,
        }
    }
    fn wait_find(&self, css: &str) -> String {
        let start = Instant::now();
        loop {
            if let Some(e) = self.find(css) {
                return e;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "nothing matches '{css}' on the page");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    fn click(&self, css: &str) {
        let e = self.wait_find(css);
        self.call("POST", &format!("/element/{e}/click"), Some(json!({})));
    }
    fn type_into(&self, css: &str, text: &str) {
        let e = self.wait_find(css);
        self.call("POST", &format!("/element/{e}/clear"), Some(json!({})));
        self.call("POST", &format!("/element/{e}/value"), Some(json!({"text": text})));
    }
    fn wait_js(&self, what: &str, script: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self.js(script);
            if !v.is_null() && v != json!(false) {
                return v;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    fn text(&self, css: &str) -> String {
        self.js(&format!("const e = document.querySelector({css:?}); return e ? e.textContent : null;"))
            .as_str()
            .unwrap_or("")
            .to_string()
    }
    fn screenshot(&self, path: &std::path::Path) {
        use std::io::Write;
        let b64 = self.call("GET", "/screenshot", None);
        let bytes = base64_decode(b64.as_str().unwrap());
        std::fs::File::create(path).unwrap().write_all(&bytes).unwrap();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = s.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &c)| acc | (val(c) as u32) << (18 - 6 * i));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    out
}

/// `window.onerror` and console errors, collected by the page hook installed below.
const ERRORS_JS: &str = "return (window.__errors || []).join(' | ');";
const HOOK_JS: &str = "window.__errors = window.__errors || []; \
    window.addEventListener('error', e => window.__errors.push(String(e.message))); return true;";

#[test]
fn a_person_plays_in_a_real_browser() {
    let (Some(chromium), Some(chromedriver)) = (which("chromium"), which("chromedriver")) else {
        eprintln!(
            "SKIPPED a_person_plays_in_a_real_browser: chromium and chromedriver are not installed \
             (apt-get install chromium chromium-driver; .ci/run installs them)"
        );
        return;
    };
    // The server, on a free port, with a quick engine.
    let (server, url, _out) = start_server(&["--engine", "alphabeta:depth=1"]);
    let _server = Killed(server);

    let port = free_port();
    let _driver = Killed(
        Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(120)).build();
    let base = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    while agent.get(&format!("{base}/status")).call().is_err() {
        assert!(start.elapsed() < Duration::from_secs(30), "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
        "binary": chromium,
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"]
    }}}});
    let session: Value = agent.post(&format!("{base}/session")).send_json(caps).unwrap().into_json().unwrap();
    let sid = session["value"]["sessionId"].as_str().expect("a WebDriver session").to_string();
    let d = Driver { base: format!("{base}/session/{sid}"), agent: agent.clone() };
    let shots = std::env::var_os("TENJIKU_SCREENSHOTS").map(std::path::PathBuf::from);

    d.call("POST", "/url", Some(json!({"url": url})));
    d.js(HOOK_JS);
    d.wait_js(
        "the board",
        "return document.querySelectorAll('rect.sq').length === 256 && document.body.dataset.status === 'ready';",
    );
    assert_eq!(d.js("return document.querySelectorAll('g.piece').length;"), json!(156));

    // Click a pawn: its destination is highlighted. Click it: the engine replies.
    d.click("rect.sq[data-sq='h5']");
    d.wait_find(".dest[data-sq='h6']");
    d.click("rect.sq[data-sq='h6']");
    d.wait_js(
        "the engine's reply",
        "return document.body.dataset.ply === '2' && document.body.dataset.status === 'ready';",
    );
    assert!(d.find("g.piece[data-sq='h6'][data-abbr='P'][data-color='black']").is_some());
    assert!(d.text("#moves").contains("P-9k"), "{}", d.text("#moves"));
    assert_eq!(d.js("return document.querySelectorAll('#moves li').length;"), json!(2));
    if let Some(dir) = &shots {
        d.screenshot(&dir.join("web-game.png"));
    }

    // An illegal move typed in is refused with the server's reason; the game stays.
    d.type_into("#move-input", "h6h9");
    d.click("#move-submit");
    let msg = d.wait_js(
        "the refusal",
        "const t = document.querySelector('#message').textContent; return t.includes('h6h9') ? t : null;",
    );
    assert!(msg.as_str().unwrap().contains("not"), "{msg}");
    assert_eq!(d.js("return document.body.dataset.ply;"), json!("2"));

    // Flip the board.
    d.click("#flip");
    d.wait_js("the flip", "return document.querySelector('#board').dataset.flipped === 'true';");
    d.click("#flip");

    // Load a position with a Lion facing two pawns, and take both by clicking the squares.
    let fen = {
        use engine::{Color, Kind, Piece, Position, Square};
        let mut pos = Position::empty();
        for (s, k, c) in [
            ("h8", Kind::Lion, Color::Black),
            ("h9", Kind::Pawn, Color::White),
            ("h10", Kind::Pawn, Color::White),
            ("b1", Kind::King, Color::Black),
            ("o16", Kind::King, Color::White),
        ] {
            pos.put(Square::parse_cecp(s).unwrap(), Piece::of_kind(k, c));
        }
        pos.to_fen()
    };
    d.js("document.querySelector('#mode').value = 'analysis'; return true;");
    d.type_into("#fen-input", &fen);
    d.click("#load-fen");
    d.wait_js(
        "the FEN's position",
        "return document.querySelectorAll('g.piece').length === 5 && document.body.dataset.ply === '0';",
    );
    d.click("rect.sq[data-sq='h8']");
    d.wait_find(".dest[data-sq='h9']");
    d.click("rect.sq[data-sq='h9']");
    d.wait_find(".dest[data-sq='h10']");
    d.click("rect.sq[data-sq='h10']");
    d.wait_js("the double capture", "return document.body.dataset.ply === '1';");
    assert!(d.find("g.piece[data-sq='h10'][data-abbr='Ln']").is_some(), "the Lion ends on h10");
    assert!(d.find("g.piece[data-sq='h9']").is_none(), "h9 was captured on the way");
    assert_eq!(d.js("return document.querySelectorAll('g.piece').length;"), json!(3));
    if let Some(dir) = &shots {
        d.js("document.querySelector('#threats').click(); return true;");
        std::thread::sleep(Duration::from_secs(3));
        d.screenshot(&dir.join("web-analysis.png"));
    }
    let errors = d.js(ERRORS_JS);
    assert_eq!(errors, json!(""), "JavaScript errors on the page");
    let _ = d.agent.delete(&d.base).call();
}

/// Ctrl-C stops the server promptly even while a page holds an event stream open, and a
/// non-loopback address is announced as open to its network.
#[test]
fn the_server_stops_on_ctrl_c_with_a_page_connected() {
    let (mut server, url, mut out) = start_server(&["--engine", "random"]);
    let agent = ureq::AgentBuilder::new().timeout(Duration::from_secs(30)).build();
    let game: Value =
        agent.post(&format!("{url}api/games")).send_json(json!({"mode": "analysis"})).unwrap().into_json().unwrap();
    let id = game["id"].as_str().unwrap().to_string();
    // An open event stream, read in the background as a page would.
    let events = agent.get(&format!("{url}api/games/{id}/events")).call().unwrap();
    let reader = std::thread::spawn(move || {
        let mut r = BufReader::new(events.into_reader());
        let mut l = String::new();
        while r.read_line(&mut l).map(|n| n > 0).unwrap_or(false) {
            l.clear();
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: sending SIGINT to a child process we started.
    unsafe {
        libc::kill(server.id() as i32, libc::SIGINT);
    }
    let start = Instant::now();
    let status = loop {
        if let Some(s) = server.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "the server did not stop within 10 s of Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut out, &mut rest).unwrap();
    assert!(rest.contains("Stopped."), "{rest}");
    reader.join().unwrap();

    // Any address but loopback: a warning on start.
    let (open, _, mut out) = start_server(&["--host", "0.0.0.0", "--engine", "random"]);
    let _open = Killed(open);
    let mut second = String::new();
    out.read_line(&mut second).unwrap();
    assert!(second.contains("anyone who can reach this machine"), "{second}");
}
