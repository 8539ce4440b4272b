//! Reading the files a user names (rules files, configs, game records, checkpoints) without
//! trusting them: only regular files (a device or a pipe such as `/dev/zero` or `/dev/stdin`
//! would never end), and never more than a limit, so a hostile path can neither hang the
//! process nor exhaust its memory. The project's one bounded reader; every crate's loaders use it.

use std::io::Read;
use std::path::Path;

/// The most bytes a text file of settings may have (rules files, network and run configs).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// The most bytes of a game-record file or an openings file.
pub const MAX_RECORD_BYTES: u64 = 1 << 30;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a regular file")]
    NotAFile,
    #[error("{size} bytes, more than the {max} this file may have")]
    TooLarge { size: u64, max: u64 },
    #[error("not UTF-8 text")]
    NotText,
}

/// The bytes of the regular file `path`, at most `max` of them.
pub fn read_bytes(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotAFile);
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge { size: meta.len(), max });
    }
    // The file may grow while it is read: never take more than the limit.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge { size: bytes.len() as u64, max });
    }
    Ok(bytes)
}

/// The text of the regular file `path`, at most `max` bytes of UTF-8.
pub fn read_text(path: &Path, max: u64) -> Result<String, ReadError> {
    String::from_utf8(read_bytes(path, max)?).map_err(|_| ReadError::NotText)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read_text(&p, 5).unwrap(), "hello");
        assert!(matches!(read_text(&p, 4), Err(ReadError::TooLarge { size: 5, max: 4 })));
        assert!(matches!(read_text(dir.path(), 100), Err(ReadError::NotAFile) | Err(ReadError::Io(_))));
        if Path::new("/dev/zero").exists() {
            assert!(matches!(read_bytes(Path::new("/dev/zero"), 100), Err(ReadError::NotAFile)));
        }
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_text(&p, 100), Err(ReadError::NotText)));
        assert!(read_text(&dir.path().join("missing"), 100).unwrap_err().to_string().contains("No such file"));
    }
}
