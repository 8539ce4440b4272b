//! The trainer's lease: one trainer per store.
//!
//! Leases are numbered objects, `lease/NNNNNNNNN`, each created with a create-if-absent write,
//! so of two trainers that try to take the same number only one gets it. The holder rewrites
//! its object with a heartbeat every third of the lease's length (from a thread of its own, so a
//! long evaluation does not let it lapse), and before every publication checks that no higher
//! number exists. A trainer that starts takes the next number when the newest lease is
//! released, or its holder's heartbeat is older than the lease's length, or its holder is a
//! process of this machine that no longer runs (so a trainer killed with `kill -9` is replaced
//! at once by the next one started on the same machine); otherwise it is refused, naming the
//! holder. A holder that finds a higher number has lost the lease and stops.
//!
//! Heartbeats are wall-clock seconds: machines that share a store are expected to keep their
//! clocks in step (NTP) to well within the lease's length.

use crate::store::{Store, StoreError};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub const LEASES: &str = "lease";

#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("store {store} has a running trainer ({holder}, heartbeat {age} s ago); one trainer per store (its lease lapses {lease} s after its last heartbeat)")]
    Held { store: String, holder: String, age: u64, lease: u64 },
    #[error("store {store}: another trainer took lease {taken} while this one held {held}; stopping")]
    Lost { store: String, held: u64, taken: u64 },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Holder {
    host: String,
    pid: u32,
    heartbeat_unix: u64,
    released: bool,
}

fn now_unix() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// This machine's name (Linux), or "unknown".
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

fn pid_runs(pid: u32) -> bool {
    if !std::path::Path::new("/proc/self").exists() {
        return true; // no /proc: cannot tell, so assume it runs
    }
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

fn key(n: u64) -> String {
    format!("{LEASES}/{n:09}")
}

/// A held lease; its heartbeat thread stops when it is dropped (the lease is then released).
pub struct Lease {
    store: Arc<Store>,
    number: u64,
    lost: Arc<AtomicBool>,
    stop: Arc<(Mutex<bool>, std::sync::Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Lease {
    /// Take the store's lease, or say who holds it. `what` is told what happened when an old
    /// lease is taken over.
    pub fn acquire(store: Arc<Store>, lease_s: u64, what: &mut dyn FnMut(String)) -> Result<Lease, LeaseError> {
        let me = Holder { host: host_name(), pid: std::process::id(), heartbeat_unix: now_unix(), released: false };
        let newest = store
            .list(LEASES)?
            .iter()
            .filter_map(|e| e.key.strip_prefix(&format!("{LEASES}/"))?.parse::<u64>().ok())
            .max();
        let number = match newest {
            None => 1,
            Some(n) => {
                let held = store.get(&key(n), 1 << 16)?.and_then(|b| serde_json::from_slice::<Holder>(&b).ok());
                if let Some(h) = held {
                    let age = now_unix().saturating_sub(h.heartbeat_unix);
                    let dead_here = h.host == me.host && h.pid != me.pid && !pid_runs(h.pid);
                    let why = if h.released {
                        "released"
                    } else if dead_here {
                        "its process no longer runs"
                    } else if age > lease_s {
                        "its heartbeat lapsed"
                    } else {
                        return Err(LeaseError::Held {
                            store: store.url().to_string(),
                            holder: format!("host {}, pid {}", h.host, h.pid),
                            age,
                            lease: lease_s,
                        });
                    };
                    if !h.released {
                        what(format!("taking over lease {n} of host {}, pid {} ({why})", h.host, h.pid));
                    }
                }
                n + 1
            }
        };
        let bytes = serde_json::to_vec(&me).expect("serializable");
        if !store.create(&key(number), bytes)? {
            return Err(LeaseError::Held {
                store: store.url().to_string(),
                holder: "another trainer that started at the same moment".into(),
                age: 0,
                lease: lease_s,
            });
        }
        let lost = Arc::new(AtomicBool::new(false));
        let stop = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let thread = {
            let (store, lost, stop) = (store.clone(), lost.clone(), stop.clone());
            let every = Duration::from_secs((lease_s / 3).max(1));
            std::thread::Builder::new()
                .name("lease".into())
                .spawn(move || {
                    let (m, cv) = &*stop;
                    let mut stopped = m.lock().expect("lease lock");
                    loop {
                        stopped = cv.wait_timeout(stopped, every).expect("lease lock").0;
                        if *stopped {
                            break;
                        }
                        // A failed heartbeat is retried at the next beat; the lease lapses
                        // only when they fail for its whole length.
                        if let Ok(true) = store.exists(&key(number + 1)) {
                            lost.store(true, Ordering::SeqCst);
                            break;
                        }
                        let h = Holder { heartbeat_unix: now_unix(), ..me.clone() };
                        let _ = store.put(&key(number), serde_json::to_vec(&h).expect("serializable"));
                    }
                })
                .ok()
        };
        Ok(Lease { store, number, lost, stop, thread })
    }

    #[cfg(test)]
    pub fn number(&self) -> u64 {
        self.number
    }

    /// `Err` when another trainer has taken a newer lease (checked in the store).
    pub fn check(&self) -> Result<(), LeaseError> {
        let taken = self.number + 1;
        if self.lost.load(Ordering::SeqCst) || self.store.exists(&key(taken))? {
            self.lost.store(true, Ordering::SeqCst);
            return Err(LeaseError::Lost { store: self.store.url().to_string(), held: self.number, taken });
        }
        Ok(())
    }

    /// Publish checkpoint `key` (at `step`) as publication `n` ([`crate::worker::publish`]),
    /// checking the lease first; a publication number already taken means another trainer
    /// published it: the lease is lost.
    pub fn publish(&self, n: u64, key: &str, step: u64) -> Result<(), LeaseError> {
        self.check()?;
        if !crate::worker::publish(&self.store, n, key, step)? {
            self.lost.store(true, Ordering::SeqCst);
            return Err(LeaseError::Lost {
                store: self.store.url().to_string(),
                held: self.number,
                taken: self.number + 1,
            });
        }
        Ok(())
    }

    /// Whether the heartbeat thread has seen a newer lease.
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::SeqCst)
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        {
            let (m, cv) = &*self.stop;
            *m.lock().expect("lease lock") = true;
            cv.notify_all();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if !self.is_lost() {
            let h = Holder { host: host_name(), pid: std::process::id(), heartbeat_unix: now_unix(), released: true };
            let _ = self.store.put(&key(self.number), serde_json::to_vec(&h).expect("serializable"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_trainer_per_store_and_a_released_or_dead_lease_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path().to_str().unwrap()).unwrap());
        let mut said = Vec::new();
        let a = Lease::acquire(store.clone(), 60, &mut |s| said.push(s)).unwrap();
        assert_eq!(a.number(), 1);
        // A second trainer (here: the same process, which counts as running) is refused.
        let e = Lease::acquire(store.clone(), 60, &mut |s| said.push(s)).err().unwrap().to_string();
        assert!(e.contains("has a running trainer") && e.contains(&format!("pid {}", std::process::id())), "{e}");
        drop(a);
        let b = Lease::acquire(store.clone(), 60, &mut |s| said.push(s)).unwrap();
        assert_eq!(b.number(), 2);
        assert!(said.is_empty(), "a released lease is taken silently: {said:?}");
        // A holder on this machine whose process is gone: taken over at once.
        let dead = Holder { host: host_name(), pid: u32::MAX - 1, heartbeat_unix: now_unix(), released: false };
        store.put(&key(3), serde_json::to_vec(&dead).unwrap()).unwrap();
        assert!(b.check().is_err(), "b has lost its lease to number 3");
        let c = Lease::acquire(store.clone(), 60, &mut |s| said.push(s)).unwrap();
        assert_eq!(c.number(), 4);
        assert!(said[0].contains("no longer runs"), "{said:?}");
        // A holder elsewhere with an old heartbeat: taken over; a fresh one: refused.
        std::mem::forget(c); // (as if killed: no release)
        let old = Holder { host: "elsewhere".into(), pid: 1, heartbeat_unix: now_unix() - 120, released: false };
        store.put(&key(5), serde_json::to_vec(&old).unwrap()).unwrap();
        assert_eq!(Lease::acquire(store.clone(), 60, &mut |s| said.push(s)).unwrap().number(), 6);
        let fresh = Holder { host: "elsewhere".into(), pid: 1, heartbeat_unix: now_unix(), released: false };
        store.put(&key(7), serde_json::to_vec(&fresh).unwrap()).unwrap();
        let e = Lease::acquire(store, 60, &mut |s| said.push(s)).err().unwrap().to_string();
        assert!(e.contains("host elsewhere, pid 1"), "{e}");
    }
}
