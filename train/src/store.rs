//! A run's store: where self-play workers put their games, the trainer its checkpoints and the
//! networks it publishes, through the `object_store` crate.
//!
//! - `file://DIR` (or a plain path): a directory, local or on a shared filesystem. A write goes
//!   to a staging file beside its target and is renamed into place (or hard-linked, for a
//!   create-if-absent write), so a reader never sees half an object.
//! - `s3://BUCKET/PREFIX`: any S3-compatible store. Credentials, region and endpoint come from
//!   the usual AWS environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//!   `AWS_REGION`, `AWS_ENDPOINT_URL` or `AWS_ENDPOINT`, `AWS_ALLOW_HTTP=true` for a plain-HTTP
//!   endpoint). Create-if-absent writes use `If-None-Match: *`, which AWS S3, MinIO, moto and
//!   s3s honour.
//!
//! Transient errors of a remote store are retried by `object_store` (exponential backoff); what
//! still fails is an error naming the operation, the key and the store.
//!
//! The store is used from plain threads: each call runs on a small tokio runtime of its own.

use futures::TryStreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path as Key;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a store could not be opened or an operation on it failed (one line).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store '{url}': {why}; expected file://DIR, a directory path, or s3://BUCKET[/PREFIX]")]
    Url { url: String, why: String },
    #[error("store {store}: cannot {op} '{key}': {message}")]
    Op { store: String, op: &'static str, key: String, message: String },
    #[error("store {store}: '{key}' is {size} bytes, more than the {limit} bytes such an object may have")]
    TooLarge { store: String, key: String, size: u64, limit: u64 },
}

/// An object in a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its key, relative to the store's root (`games/w0003/c000000012-g2-p140.chunk`).
    pub key: String,
    pub size: u64,
    /// When it was written (milliseconds since the Unix epoch, as the store says).
    pub modified_ms: i64,
}

/// A run's store (see the module documentation).
pub struct Store {
    inner: Arc<dyn ObjectStore>,
    rt: tokio::runtime::Runtime,
    url: String,
    local: Option<PathBuf>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Store({})", self.url)
    }
}

fn one_line(e: &dyn std::fmt::Display) -> String {
    e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Store {
    /// Open `url` (a `file://` directory is created when missing).
    pub fn open(url: &str) -> Result<Store, StoreError> {
        let bad = |why: String| StoreError::Url { url: url.to_string(), why };
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("store")
            .enable_all()
            .build()
            .map_err(|e| bad(format!("cannot start its I/O runtime: {e}")))?;
        if let Some(rest) = url.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(bad("no bucket name".into()));
            }
            let s3 = AmazonS3Builder::from_env().with_bucket_name(bucket).build().map_err(|e| bad(one_line(&e)))?;
            let prefix = prefix.trim_matches('/');
            let inner: Arc<dyn ObjectStore> =
                if prefix.is_empty() { Arc::new(s3) } else { Arc::new(PrefixStore::new(s3, prefix)) };
            return Ok(Store { inner, rt, url: url.to_string(), local: None });
        }
        let dir = match url.split_once("://") {
            Some(("file", path)) => path,
            Some((scheme, _)) => return Err(bad(format!("unknown scheme '{scheme}'"))),
            None => url,
        };
        if dir.is_empty() {
            return Err(bad("no directory".into()));
        }
        std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create the directory: {e}")))?;
        let dir = std::fs::canonicalize(dir).map_err(|e| bad(format!("cannot resolve the directory: {e}")))?;
        let fs = LocalFileSystem::new_with_prefix(&dir).map_err(|e| bad(one_line(&e)))?;
        Ok(Store { inner: Arc::new(fs.with_automatic_cleanup(true)), rt, url: url.to_string(), local: Some(dir) })
    }

    /// The store as given (for messages).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The directory of a `file://` store.
    pub fn local_dir(&self) -> Option<&Path> {
        self.local.as_deref()
    }

    /// How to name `key` to a person: its path in a `file://` store, else the URL and key.
    pub fn describe(&self, key: &str) -> String {
        match &self.local {
            Some(d) => d.join(key).display().to_string(),
            None => format!("{}/{key}", self.url.trim_end_matches('/')),
        }
    }

    fn key(&self, key: &str) -> Result<Key, StoreError> {
        Key::parse(key).map_err(|e| self.err("use", key, &e))
    }

    fn err(&self, op: &'static str, key: &str, e: &dyn std::fmt::Display) -> StoreError {
        StoreError::Op { store: self.url.clone(), op, key: key.to_string(), message: one_line(e) }
    }

    /// The object at `key`, `None` when there is none; refused beyond `limit` bytes.
    pub fn get(&self, key: &str, limit: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let k = self.key(key)?;
        self.rt.block_on(async {
            let r = match self.inner.get(&k).await {
                Ok(r) => r,
                Err(object_store::Error::NotFound { .. }) => return Ok(None),
                Err(e) => return Err(self.err("read", key, &e)),
            };
            if r.meta.size > limit {
                return Err(StoreError::TooLarge {
                    store: self.url.clone(),
                    key: key.to_string(),
                    size: r.meta.size,
                    limit,
                });
            }
            let b = r.bytes().await.map_err(|e| self.err("read", key, &e))?;
            Ok(Some(b.to_vec()))
        })
    }

    /// Write `bytes` at `key`, replacing what is there (atomically: readers see the old object
    /// or the new one).
    pub fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        let k = self.key(key)?;
        self.rt.block_on(async {
            self.inner.put(&k, PutPayload::from(bytes)).await.map_err(|e| self.err("write", key, &e))?;
            Ok(())
        })
    }

    /// Write `bytes` at `key` only if nothing is there: `Ok(true)` when written, `Ok(false)`
    /// when an object was there already (left as it was).
    pub fn create(&self, key: &str, bytes: Vec<u8>) -> Result<bool, StoreError> {
        let k = self.key(key)?;
        self.rt.block_on(async {
            let opts = PutOptions { mode: PutMode::Create, ..PutOptions::default() };
            match self.inner.put_opts(&k, PutPayload::from(bytes), opts).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::AlreadyExists { .. }) | Err(object_store::Error::Precondition { .. }) => {
                    Ok(false)
                }
                Err(e) => Err(self.err("create", key, &e)),
            }
        })
    }

    /// Whether an object is at `key`.
    pub fn exists(&self, key: &str) -> Result<bool, StoreError> {
        let k = self.key(key)?;
        self.rt.block_on(async {
            match self.inner.head(&k).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::NotFound { .. }) => Ok(false),
                Err(e) => Err(self.err("look up", key, &e)),
            }
        })
    }

    /// Delete the object at `key` (no error when there is none).
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let k = self.key(key)?;
        self.rt.block_on(async {
            match self.inner.delete(&k).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(self.err("delete", key, &e)),
            }
        })
    }

    /// Every object under `prefix` (a folder: `games`, `checkpoints`), sorted by key.
    pub fn list(&self, prefix: &str) -> Result<Vec<Entry>, StoreError> {
        let p = self.key(prefix)?;
        self.rt.block_on(async {
            let metas: Vec<_> =
                self.inner.list(Some(&p)).try_collect().await.map_err(|e| self.err("list", prefix, &e))?;
            let mut v: Vec<Entry> = metas
                .into_iter()
                .map(|m| Entry {
                    key: m.location.to_string(),
                    size: m.size,
                    modified_ms: m.last_modified.timestamp_millis(),
                })
                .collect();
            v.sort_by(|a, b| a.key.cmp(&b.key));
            Ok(v)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_store_writes_creates_lists_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&format!("file://{}", dir.path().join("store").display())).unwrap();
        assert_eq!(s.get("a/b", 100).unwrap(), None);
        assert!(s.create("a/b", b"one".to_vec()).unwrap());
        assert!(!s.create("a/b", b"two".to_vec()).unwrap(), "create-if-absent refuses a second write");
        assert_eq!(s.get("a/b", 100).unwrap().unwrap(), b"one");
        s.put("a/b", b"three".to_vec()).unwrap();
        assert_eq!(s.get("a/b", 100).unwrap().unwrap(), b"three");
        assert!(matches!(s.get("a/b", 2), Err(StoreError::TooLarge { .. })));
        s.put("a/c/d", vec![1]).unwrap();
        s.put("z", vec![1]).unwrap();
        let keys: Vec<String> = s.list("a").unwrap().into_iter().map(|e| e.key).collect();
        assert_eq!(keys, ["a/b", "a/c/d"]);
        assert!(s.exists("z").unwrap());
        s.delete("z").unwrap();
        s.delete("z").unwrap();
        assert!(!s.exists("z").unwrap());
        assert!(dir.path().join("store/a/c/d").is_file(), "a file store's keys are plain files");
    }

    #[test]
    fn bad_urls_are_one_line_errors() {
        for url in ["ftp://x", "s3://", "file://"] {
            let e = Store::open(url).unwrap_err().to_string();
            assert!(e.contains("expected file://DIR") && !e.contains('\n'), "{url}: {e}");
        }
    }
}
