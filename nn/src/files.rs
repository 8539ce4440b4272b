//! Writing the files that matter, and the UTC timestamps stamped into them: the project's one
//! atomic-write helper (checkpoints, game files, game records, run configs and metrics all go
//! through it) and its two date formats.
//!
//! It sits in `nn` because `nn` is the lowest crate that writes files (checkpoints); `play` and
//! `train` use it from here.

use std::io::{self, Write};
use std::path::Path;

/// Write a whole file atomically: a temporary file in the same directory (named
/// `.NAME.XXXXXX.tmp`, so a run can recognise and remove what a crash left behind), synced,
/// then renamed over `path`. A reader, or a crash at any instant, sees the old file or the new
/// one, never half of either.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".into());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(TMP_SUFFIX);
    // Files get the permissions a plain create gives (0666 less the umask), not the temporary
    // file's private 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The suffix of [`write_atomic`]'s temporary files.
pub const TMP_SUFFIX: &str = ".tmp";

/// Whether a file name is a temporary file that a crash can leave behind: a hidden name with
/// `.tmp` in it ([`write_atomic`]'s, and the `.NAME.tmpPID` files of earlier versions).
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.contains(TMP_SUFFIX)
}

/// Current UTC time as `YYYY-MM-DDTHH:MM:SSZ` (checkpoint headers, logs).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    format_utc(secs)
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_utc(secs: u64) -> String {
    let t = utc(secs);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// Today's date (UTC) as game records write it, `YYYY.MM.DD`.
pub fn record_date_now() -> String {
    let t = time::OffsetDateTime::now_utc();
    format!("{:04}.{:02}.{:02}", t.year(), u8::from(t.month()), t.day())
}

fn utc(secs: u64) -> time::OffsetDateTime {
    i64::try_from(secs)
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
}
