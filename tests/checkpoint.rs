//! `tenjiku checkpoint new` and `tenjiku checkpoint info`: writing a random network, reading its
//! header back, and one-line errors for bad configs and damaged files.

mod common;

use common::{assert_one_line_error, stdout, tenjiku};

fn tmpdir(_name: &str) -> common::TempPath {
    common::temp_dir()
}

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/net-tiny.toml");

#[test]
fn new_then_info() {
    let dir = tmpdir("new");
    let out = dir.join("net.ckpt");
    let o = tenjiku(&["checkpoint", "new", "--config", TINY, "--out", out.to_str().unwrap(), "--seed", "7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).starts_with(&format!("wrote {}", out.display())), "{}", stdout(&o));

    let o = tenjiku(&["checkpoint", "info", out.to_str().unwrap()]);
    assert!(o.status.success());
    let text = stdout(&o);
    for want in [
        "format_version = 1",
        "encoding_version = ",
        "num_planes = ",
        "policy_size = ",
        "rules = \"standard\"",
        "step = 0",
        "created = \"",
        "[network]",
        "blocks = 1",
        "channels = 8",
        "moves_left_head = true",
        "checksum = \"xxh64:",
    ] {
        assert!(text.contains(want), "info lacks {want:?}:\n{text}");
    }

    // A second file with the same seed has the same header but for its creation time and
    // checksum (parameter ids are random, so the bytes differ; equal weights for equal seeds
    // are tested in nn/tests).
    let again = dir.join("again.ckpt");
    let o = tenjiku(&["checkpoint", "new", "--config", TINY, "--out", again.to_str().unwrap(), "--seed", "7"]);
    assert!(o.status.success());
    let info2 = stdout(&tenjiku(&["checkpoint", "info", again.to_str().unwrap()]));
    let strip = |t: &str| -> Vec<String> {
        t.lines().filter(|l| !l.starts_with("created") && !l.starts_with("checksum")).map(String::from).collect()
    };
    assert_eq!(strip(&text), strip(&info2));
    assert_eq!(std::fs::metadata(&out).unwrap().len(), std::fs::metadata(&again).unwrap().len());
}

#[test]
fn errors_are_one_line() {
    let dir = tmpdir("errors");
    let out = dir.join("net.ckpt");
    let o = tenjiku(&["checkpoint", "info", dir.join("missing.ckpt").to_str().unwrap()]);
    assert_one_line_error(&o, "cannot read checkpoint");

    std::fs::write(&out, b"not a checkpoint at all").unwrap();
    assert_one_line_error(&tenjiku(&["checkpoint", "info", out.to_str().unwrap()]), "not a network checkpoint");

    let o = tenjiku(&["checkpoint", "new", "--config", TINY, "--out", out.to_str().unwrap()]);
    assert!(o.status.success());
    let mut bytes = std::fs::read(&out).unwrap();
    let n = bytes.len();
    bytes[n - 10] ^= 1;
    std::fs::write(&out, &bytes).unwrap();
    assert_one_line_error(&tenjiku(&["checkpoint", "info", out.to_str().unwrap()]), "checksum mismatch");
    std::fs::write(&out, &bytes[..n / 2]).unwrap();
    assert_one_line_error(&tenjiku(&["checkpoint", "info", out.to_str().unwrap()]), "is truncated");

    let bad = dir.join("bad.toml");
    std::fs::write(&bad, std::fs::read_to_string(TINY).unwrap() + "\nwidth = 3\n").unwrap();
    let o = tenjiku(&["checkpoint", "new", "--config", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_one_line_error(&o, "unknown field `width`");
    let o = tenjiku(&["checkpoint", "new", "--config", TINY, "--out", out.to_str().unwrap(), "--rules", "nosuch"]);
    assert_one_line_error(&o, "unknown rules 'nosuch'");
    let o =
        tenjiku(&["checkpoint", "new", "--config", TINY, "--out", dir.join("no/such/dir/x.ckpt").to_str().unwrap()]);
    assert_one_line_error(&o, "cannot write checkpoint");
}

/// `checkpoint average`: two networks in, their mean out (its header names both and takes the
/// larger step); one input, mismatched configs or a missing file are one-line errors.
#[test]
fn average_writes_the_mean_of_its_inputs() {
    let dir = tmpdir("average");
    let path = |n: &str| dir.join(n).to_str().unwrap().to_string();
    for (name, seed) in [("a.ckpt", "1"), ("b.ckpt", "2")] {
        let o = tenjiku(&["checkpoint", "new", "--config", TINY, "--out", &path(name), "--seed", seed]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let o = tenjiku(&["checkpoint", "average", "--out", &path("mean.ckpt"), &path("a.ckpt"), &path("b.ckpt")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        stdout(&o).starts_with(&format!("wrote {} (mean of 2 checkpoints, step 0", path("mean.ckpt"))),
        "{}",
        stdout(&o)
    );
    let info = stdout(&tenjiku(&["checkpoint", "info", &path("mean.ckpt")]));
    assert!(
        info.contains("parent = \"mean of ") && info.contains("a.ckpt (step 0)") && info.contains("b.ckpt (step 0)"),
        "{info}"
    );
    // The mean plays: it evaluates a position like any network.
    let o = tenjiku(&["go", "--engine", &format!("mcts:checkpoint={},visits=4", path("mean.ckpt"))]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let o = tenjiku(&["checkpoint", "average", "--out", &path("x.ckpt"), &path("a.ckpt")]);
    assert!(!o.status.success(), "one input is refused");
    let big = dir.join("big.toml");
    std::fs::write(&big, std::fs::read_to_string(TINY).unwrap().replace("channels = 8", "channels = 12")).unwrap();
    let o = tenjiku(&["checkpoint", "new", "--config", big.to_str().unwrap(), "--out", &path("c.ckpt")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = tenjiku(&["checkpoint", "average", "--out", &path("x.ckpt"), &path("a.ckpt"), &path("c.ckpt")]);
    assert_one_line_error(&o, "cannot be averaged with");
    let o = tenjiku(&["checkpoint", "average", "--out", &path("x.ckpt"), &path("a.ckpt"), &path("missing.ckpt")]);
    assert_one_line_error(&o, "cannot read checkpoint");
    assert!(!dir.join("x.ckpt").exists(), "nothing written on error");
}
