//! Helpers shared by the end-to-end tests of the `tenjiku` binary (each file under `tests/` is
//! its own crate and uses the part it needs).
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

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
