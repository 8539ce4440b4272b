//! `nn::files`: atomic writes and timestamps.

use nn::files::*;

#[test]
fn atomic_writes_replace_whole_files_and_leave_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    write_atomic(&path, b"one").unwrap();
    write_atomic(&path, b"two").unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"two");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left behind");
    assert!(write_atomic(&dir.path().join("missing/f.txt"), b"x").is_err());
    assert!(
        is_temporary(".f.txt.a1B2c3.tmp")
            && !is_temporary("f.txt")
            && !is_temporary(".hidden")
            && is_temporary(".g.bin.tmp4242")
    );
}

#[test]
fn timestamps_have_their_formats() {
    assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
    assert_eq!(format_utc(1_700_000_000), "2023-11-14T22:13:20Z");
    assert_eq!(format_utc(u64::MAX), "1970-01-01T00:00:00Z");
    let d = record_date_now();
    assert!(d.len() == 10 && d.as_bytes()[4] == b'.' && d.as_bytes()[7] == b'.' && d.starts_with("20"), "{d}");
}
