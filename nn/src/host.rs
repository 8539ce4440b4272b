//! What the machine can hold: the memory a new allocation can still get, so that a size a
//! user asks for is checked before it is allocated rather than aborting the process midway.

/// Bytes of memory available to new allocations: Linux's `MemAvailable` (`/proc/meminfo`);
/// `None` where the system does not say (then the checks that use it are skipped).
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// `bytes` as people read it: `1.5 GiB`, `300 MiB`.
pub fn format_bytes(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GIB {
        format!("{:.1} GiB", b / GIB)
    } else {
        format!("{:.0} MiB", (b / MIB).max(1.0))
    }
}
