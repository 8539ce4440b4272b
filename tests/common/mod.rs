//! Helpers shared by the end-to-end tests of the `tenjiku` binary (each file under `tests/` is
//! its own crate and uses the part it needs).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A path inside a fresh temporary directory, removed with everything in it when dropped; it
/// reads as a `Path`.
pub struct TempPath {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl std::ops::Deref for TempPath {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempPath {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

/// `NAME` inside a new temporary directory, not created (a run directory, a file to write).
pub fn temp_path(name: &str) -> TempPath {
    let dir = tempfile::Builder::new().prefix("tenjiku-test-").tempdir().expect("a temporary directory");
    let path = dir.path().join(name);
    TempPath { _dir: dir, path }
}

/// A new, empty temporary directory.
pub fn temp_dir() -> TempPath {
    let dir = tempfile::Builder::new().prefix("tenjiku-test-").tempdir().expect("a temporary directory");
    let path = dir.path().to_path_buf();
    TempPath { _dir: dir, path }
}

/// Run `tenjiku ARGS` to the end.
pub fn tenjiku(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tenjiku")).args(args).output().expect("binary runs")
}

/// Run `tenjiku ARGS` with `input` on its standard input (line by line, as a script or GUI
/// drives it).
pub fn tenjiku_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tenjiku"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The command succeeded (else fail with its output).
pub fn ok(o: &Output) {
    assert!(o.status.success(), "failed: {}\n{}", stdout(o), stderr(o));
}

/// A failing command: non-zero exit, one line on stderr naming `want`, no panic.
pub fn assert_one_line_error(o: &Output, want: &str) {
    assert!(!o.status.success(), "expected failure");
    let e = stderr(o);
    assert_eq!(e.trim_end().lines().count(), 1, "error must be one line: {e:?}");
    assert!(e.contains(want), "error {e:?} should mention {want:?}");
    assert!(!e.contains("panicked"), "{e}");
}

/// The chunks of a run's store (`games/`, a file:// store), in key order: `(key, chunk)`; a
/// chunk that does not parse panics.
#[allow(dead_code)]
pub fn chunks(store: &std::path::Path) -> Vec<(String, train::Chunk)> {
    let mut out = Vec::new();
    let games = store.join("games");
    let mut dirs: Vec<_> =
        std::fs::read_dir(&games).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    dirs.sort();
    for d in dirs.into_iter().filter(|d| d.is_dir()) {
        let mut files: Vec<_> = std::fs::read_dir(&d).unwrap().flatten().map(|e| e.path()).collect();
        files.sort();
        for f in files {
            let key = f.strip_prefix(store).unwrap().to_string_lossy().into_owned();
            let Some(name) = train::parse_chunk_key(&key) else { continue };
            let c =
                train::Chunk::from_object(&name, &std::fs::read(&f).unwrap()).unwrap_or_else(|e| panic!("{key}: {e}"));
            out.push((key, c));
        }
    }
    out
}
