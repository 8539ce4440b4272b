//! Checkpoints: the network's weights (and optionally the optimiser state) plus a small header,
//! in one file.
//!
//! # File format (version 1)
//!
//! All integers little-endian.
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `TNJKNET\0` |
//! | 4 | format version (u32) |
//! | 4 | header length `H` (u32) |
//! | 8 | checksum: XXH64 (seed 0) of every byte after this field |
//! | `H` | header, UTF-8 TOML (see [`Header`]) |
//! | 8 | model length `M` (u64) |
//! | `M` | model record (Burn burnpack: parameter paths, ids, shapes, data) |
//! | 8 | optimiser length `O` (u64), 0 when there is none |
//! | `O` | optimiser record (Burn burnpack, AdamW moments keyed by parameter id) |
//!
//! Loading checks, in order: magic, format version, length (truncation), checksum, header,
//! encoding version, input planes and policy size, then the weights' shapes against the header's
//! network config. Each failure is a one-line [`CheckpointError`] naming the mismatch. A
//! checkpoint of encoding version 1 (115 input planes) loads as a version-2 network with zero
//! weights on the attack planes and no optimiser state (see [`load`]). Writes
//! go to a temporary file in the same directory, which is synced and then renamed over `path`,
//! so a reader never sees half a checkpoint.

use std::fmt;
use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::ModuleRecord;
use burn::tensor::{Bytes, Device};
use serde::{Deserialize, Serialize};

use crate::encoding::{ENCODING_VERSION, NUM_PLANES, V1_PLANES};
use crate::network::{NetConfig, Network};
use crate::policy::POLICY_SIZE;
use xxhash_rust::xxh64::Xxh64;

/// Version of the file layout above.
pub const FORMAT_VERSION: u32 = 1;
/// First bytes of every checkpoint.
pub const MAGIC: &[u8; 8] = b"TNJKNET\0";
const PREFIX: usize = 8 + 4 + 4 + 8;

/// What a checkpoint says about itself. Stored as TOML; `tenjiku checkpoint info` prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// File format version (also in the binary prefix).
    pub format_version: u32,
    /// [`ENCODING_VERSION`] of the input planes the network was built for.
    pub encoding_version: u32,
    /// [`NUM_PLANES`] input planes.
    pub num_planes: usize,
    /// [`POLICY_SIZE`] policy outputs.
    pub policy_size: usize,
    /// Rules preset (or rules file) the network plays.
    pub rules: String,
    /// Training steps taken so far.
    pub step: u64,
    /// The checkpoint this one was trained from (a path or name), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Creation time, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub created: String,
    /// XXH64 content checksum, from the binary prefix (filled by [`save`] and [`load`]; not
    /// part of the TOML).
    #[serde(skip)]
    pub checksum: u64,
    /// The network's shape.
    pub network: NetConfig,
}

impl Header {
    /// A header for a network of shape `network`, playing `rules`, now, at step 0, no parent.
    pub fn new(network: NetConfig, rules: &str) -> Self {
        Self {
            format_version: FORMAT_VERSION,
            encoding_version: ENCODING_VERSION,
            num_planes: NUM_PLANES,
            policy_size: POLICY_SIZE,
            rules: rules.to_string(),
            step: 0,
            parent: None,
            created: crate::files::utc_now(),
            checksum: 0,
            network,
        }
    }

    /// The header as TOML text (without the checksum).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("Header serialises")
    }
}

impl fmt::Display for Header {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The checksum line goes before the `[network]` table so the text stays valid TOML.
        let text = self.to_toml();
        let line = format!("checksum = \"xxh64:{:016x}\"\n", self.checksum);
        match text.find("[network]") {
            Some(at) => write!(f, "{}{line}\n{}", text[..at].trim_end_matches('\n').to_string() + "\n", &text[at..]),
            None => write!(f, "{text}{line}"),
        }
    }
}

/// A loaded (or to-be-saved) checkpoint.
#[derive(Debug)]
pub struct Checkpoint {
    /// The header.
    pub header: Header,
    /// The network, on the device it was loaded to.
    pub network: Network,
    /// Optimiser state (burnpack bytes from [`crate::train::Trainer::optimizer_state`]), if any.
    pub optimizer: Option<Vec<u8>>,
}

impl Checkpoint {
    /// A freshly initialised network from `seed` (reproducible on one backend), at step 0.
    pub fn random(config: &NetConfig, rules: &str, seed: u64, device: &Device) -> Self {
        Self {
            header: Header::new(config.clone(), rules),
            network: Network::seeded(config, seed, device),
            optimizer: None,
        }
    }
}

/// Why a checkpoint could not be read or written. `Display` is one line naming the problem.
#[derive(Debug)]
pub enum CheckpointError {
    /// The file could not be read or written.
    Io { path: PathBuf, op: &'static str, err: std::io::Error },
    /// The file does not start with the checkpoint magic.
    NotACheckpoint { path: PathBuf },
    /// The file ends early.
    Truncated { path: PathBuf, expected: u64, found: u64 },
    /// The file is longer than its sections say.
    TrailingBytes { path: PathBuf, extra: u64 },
    /// The content does not hash to the stored checksum.
    Checksum { path: PathBuf, stored: u64, actual: u64 },
    /// A format version this build does not read.
    FormatVersion { path: PathBuf, found: u32 },
    /// The header is not valid TOML / not a header.
    BadHeader { path: PathBuf, msg: String },
    /// The network was built for another input encoding.
    EncodingVersion { path: PathBuf, found: u32 },
    /// Input planes or policy size differ from this build's.
    Shape { path: PathBuf, what: &'static str, found: usize, expected: usize },
    /// The weights do not fit the header's network config (or are not a record at all).
    Record { path: PathBuf, msg: String },
    /// Checkpoints that cannot be combined (see [`average`]): `what` differs from the first's.
    Incompatible { path: PathBuf, first: PathBuf, what: &'static str },
    /// [`average`] was given no checkpoint.
    NothingToAverage,
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use CheckpointError::*;
        match self {
            Io { path, op, err } => write!(f, "cannot {op} checkpoint {}: {err}", path.display()),
            NotACheckpoint { path } => {
                write!(f, "{} is not a network checkpoint (bad magic bytes)", path.display())
            }
            Truncated { path, expected, found } => {
                write!(f, "checkpoint {} is truncated: {found} bytes, expected at least {expected}", path.display())
            }
            TrailingBytes { path, extra } => {
                write!(f, "checkpoint {} is corrupt: {extra} unexpected bytes at the end", path.display())
            }
            Checksum { path, stored, actual } => write!(
                f,
                "checkpoint {} is corrupt: checksum mismatch (stored xxh64:{stored:016x}, content xxh64:{actual:016x})",
                path.display()
            ),
            FormatVersion { path, found } => write!(
                f,
                "checkpoint {} has format version {found}, this build reads version {FORMAT_VERSION}",
                path.display()
            ),
            BadHeader { path, msg } => write!(f, "checkpoint {} has a bad header: {msg}", path.display()),
            EncodingVersion { path, found } => write!(
                f,
                "checkpoint {} has encoding version {found}, this build encodes version {ENCODING_VERSION}",
                path.display()
            ),
            Shape { path, what, found, expected } => {
                write!(f, "checkpoint {} has {what} {found}, this build has {expected}", path.display())
            }
            Record { path, msg } => write!(f, "checkpoint {} weights do not match its config: {msg}", path.display()),
            Incompatible { path, first, what } => write!(
                f,
                "checkpoint {} cannot be averaged with {}: its {what} differs (every input needs the same network config and rules)",
                path.display(),
                first.display()
            ),
            NothingToAverage => write!(f, "no checkpoint to average: give at least one"),
        }
    }
}

impl std::error::Error for CheckpointError {}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Write `ckpt` to `path` atomically. Returns the checksum written (also what a later [`load`]
/// puts in `header.checksum`).
pub fn save(path: impl AsRef<Path>, ckpt: &Checkpoint) -> Result<u64, CheckpointError> {
    let path = path.as_ref();
    let (bytes, checksum) = to_bytes(path, ckpt)?;
    crate::files::write_atomic(path, &bytes).map_err(|err| CheckpointError::Io {
        path: path.to_path_buf(),
        op: "write",
        err,
    })?;
    Ok(checksum)
}

/// The bytes of `ckpt` as [`save`] writes them, and their checksum (`path` names it in errors).
pub fn to_bytes(path: &Path, ckpt: &Checkpoint) -> Result<(Vec<u8>, u64), CheckpointError> {
    let mut header = ckpt.header.clone();
    header.format_version = FORMAT_VERSION;
    let header_text = header.to_toml();
    let model = ckpt
        .network
        .clone()
        .into_record()
        .into_bytes()
        .map_err(|e| CheckpointError::Record { path: path.to_path_buf(), msg: one_line(&e.to_string()) })?;
    let optim: &[u8] = ckpt.optimizer.as_deref().unwrap_or(&[]);

    let mut body = Vec::with_capacity(header_text.len() + model.len() + optim.len() + 16);
    body.extend_from_slice(header_text.as_bytes());
    body.extend_from_slice(&(model.len() as u64).to_le_bytes());
    body.extend_from_slice(&model);
    body.extend_from_slice(&(optim.len() as u64).to_le_bytes());
    body.extend_from_slice(optim);
    let mut h = Xxh64::new(0);
    h.update(&body);
    let checksum = h.digest();

    let mut prefix = Vec::with_capacity(PREFIX);
    prefix.extend_from_slice(MAGIC);
    prefix.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    prefix.extend_from_slice(&(header_text.len() as u32).to_le_bytes());
    prefix.extend_from_slice(&checksum.to_le_bytes());

    let mut bytes = prefix;
    bytes.extend_from_slice(&body);
    Ok((bytes, checksum))
}

/// The element-wise mean of the networks in `paths` (weights and batch-norm statistics): a
/// snapshot average over a stretch of training, which smooths the step-to-step swings of a
/// self-play run (stochastic weight averaging, as KataGo does for the networks it releases).
/// Every input must have the same network config and rules. The result has no optimiser state,
/// the largest input step as its step, and names its inputs as its parent. Inputs are read one
/// at a time, so memory stays at two networks.
pub fn average(paths: &[PathBuf], device: &Device) -> Result<Checkpoint, CheckpointError> {
    let Some((first, rest)) = paths.split_first() else { return Err(CheckpointError::NothingToAverage) };
    let mut mean = Averager::new(first.clone(), load(first, device)?);
    for path in rest {
        mean.add(path.clone(), load(path, device)?)?;
    }
    Ok(mean.finish())
}

/// A running sum of checkpoints for [`average`] (and for a training run's averaged networks,
/// whose inputs come from a store rather than files): `add` each, then `finish`.
pub struct Averager {
    first_path: PathBuf,
    first: Checkpoint,
    sums: Vec<Vec<f64>>,
    count: usize,
    step: u64,
    names: Vec<String>,
}

impl Averager {
    /// Start from `ckpt` (read from `path`, which names it in errors and in the parent).
    pub fn new(path: PathBuf, ckpt: Checkpoint) -> Self {
        let sums = ckpt.network.parameters().into_iter().map(|(_, v)| v.into_iter().map(f64::from).collect()).collect();
        let names = vec![format!("{} (step {})", path.display(), ckpt.header.step)];
        Self { first_path: path, step: ckpt.header.step, first: ckpt, sums, count: 1, names }
    }

    /// Add `ckpt` (read from `path`); an error if its network config or rules differ from the
    /// first's.
    pub fn add(&mut self, path: PathBuf, ckpt: Checkpoint) -> Result<(), CheckpointError> {
        let incompatible =
            |what| CheckpointError::Incompatible { path: path.clone(), first: self.first_path.clone(), what };
        if ckpt.header.network != self.first.header.network {
            return Err(incompatible("network config"));
        }
        if ckpt.header.rules != self.first.header.rules {
            return Err(incompatible("rules preset"));
        }
        for (sum, (_, values)) in self.sums.iter_mut().zip(ckpt.network.parameters()) {
            for (s, v) in sum.iter_mut().zip(values) {
                *s += f64::from(v);
            }
        }
        self.step = self.step.max(ckpt.header.step);
        self.names.push(format!("{} (step {})", path.display(), ckpt.header.step));
        self.count += 1;
        Ok(())
    }

    /// The mean: the first's header with the largest step, a new creation time and the inputs
    /// as its parent; no optimiser state.
    pub fn finish(self) -> Checkpoint {
        let n = self.count as f64;
        let means = self.sums.into_iter().map(|sum| sum.into_iter().map(|s| (s / n) as f32).collect()).collect();
        let mut header = self.first.header.clone();
        header.step = self.step;
        header.parent = Some(format!("mean of {}", self.names.join(", ")));
        header.created = crate::files::utc_now();
        Checkpoint { header, network: self.first.network.with_parameters(means), optimizer: None }
    }
}

/// The parts of a verified file.
struct Parts<'a> {
    header: Header,
    model: &'a [u8],
    optim: &'a [u8],
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Check framing, checksum, header and versions.
fn parse<'a>(path: &Path, bytes: &'a [u8]) -> Result<Parts<'a>, CheckpointError> {
    let p = || path.to_path_buf();
    let len = bytes.len() as u64;
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) && !bytes.is_empty() {
            return Err(CheckpointError::Truncated { path: p(), expected: PREFIX as u64, found: len });
        }
        return Err(CheckpointError::NotACheckpoint { path: p() });
    }
    if bytes.len() < PREFIX {
        return Err(CheckpointError::Truncated { path: p(), expected: PREFIX as u64, found: len });
    }
    let version = u32_at(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(CheckpointError::FormatVersion { path: p(), found: version });
    }
    let header_len = u32_at(bytes, 12) as u64;
    let stored = u64_at(bytes, 16);

    // Walk the sections' lengths before hashing, so truncation reads as truncation.
    let mut at = PREFIX as u64 + header_len;
    let mut need = at + 8;
    if len < need {
        return Err(CheckpointError::Truncated { path: p(), expected: need, found: len });
    }
    let model_len = u64_at(bytes, at as usize);
    let model_at = at + 8;
    at = model_at.saturating_add(model_len);
    need = at.saturating_add(8);
    if len < need {
        return Err(CheckpointError::Truncated { path: p(), expected: need, found: len });
    }
    let optim_len = u64_at(bytes, at as usize);
    let optim_at = at + 8;
    need = optim_at.saturating_add(optim_len);
    if len < need {
        return Err(CheckpointError::Truncated { path: p(), expected: need, found: len });
    }
    if len > need {
        return Err(CheckpointError::TrailingBytes { path: p(), extra: len - need });
    }

    let mut h = Xxh64::new(0);
    h.update(&bytes[PREFIX..]);
    let actual = h.digest();
    if actual != stored {
        return Err(CheckpointError::Checksum { path: p(), stored, actual });
    }

    let text = std::str::from_utf8(&bytes[PREFIX..PREFIX + header_len as usize])
        .map_err(|_| CheckpointError::BadHeader { path: p(), msg: "not UTF-8".into() })?;
    let mut header: Header =
        toml::from_str(text).map_err(|e| CheckpointError::BadHeader { path: p(), msg: one_line(e.message()) })?;
    header.checksum = stored;
    if header.format_version != FORMAT_VERSION {
        return Err(CheckpointError::FormatVersion { path: p(), found: header.format_version });
    }
    header.network.validate().map_err(|e| CheckpointError::BadHeader { path: p(), msg: e.to_string() })?;

    Ok(Parts {
        header,
        model: &bytes[model_at as usize..(model_at + model_len) as usize],
        optim: &bytes[optim_at as usize..need as usize],
    })
}

/// Whether a checkpoint is of encoding version 1, which loads by widening its input
/// convolution ([`Network::widen_input`]); the policy layout is the same in both versions.
fn is_v1(header: &Header) -> bool {
    header.encoding_version == 1 && header.num_planes == V1_PLANES
}

fn check_compatible(path: &Path, header: &Header) -> Result<(), CheckpointError> {
    let p = || path.to_path_buf();
    if header.encoding_version != ENCODING_VERSION && !is_v1(header) {
        return Err(CheckpointError::EncodingVersion { path: p(), found: header.encoding_version });
    }
    let planes = if is_v1(header) { V1_PLANES } else { NUM_PLANES };
    if header.num_planes != planes {
        return Err(CheckpointError::Shape {
            path: p(),
            what: "input planes",
            found: header.num_planes,
            expected: planes,
        });
    }
    if header.policy_size != POLICY_SIZE {
        return Err(CheckpointError::Shape {
            path: p(),
            what: "policy size",
            found: header.policy_size,
            expected: POLICY_SIZE,
        });
    }
    Ok(())
}

/// The most bytes a checkpoint file may have (the largest network, 2^28 parameters, with its
/// optimiser state is about 3 GiB).
pub const MAX_CHECKPOINT_BYTES: u64 = 4 << 30;

fn read(path: &Path) -> Result<Vec<u8>, CheckpointError> {
    engine::input::read_bytes(path, MAX_CHECKPOINT_BYTES).map_err(|e| {
        let err = match e {
            engine::input::ReadError::Io(err) => err,
            other => std::io::Error::other(other.to_string()),
        };
        CheckpointError::Io { path: path.to_path_buf(), op: "read", err }
    })
}

/// Read and verify only the header (framing and checksum included; versions not compared with
/// this build's, so `checkpoint info` can show an old file).
pub fn read_header(path: impl AsRef<Path>) -> Result<Header, CheckpointError> {
    let path = path.as_ref();
    let bytes = read(path)?;
    Ok(parse(path, &bytes)?.header)
}

/// Load a checkpoint onto `device` (a plain device; call [`crate::train::Trainer::new`] to
/// train it). Every mismatch is an error, never a panic.
pub fn load(path: impl AsRef<Path>, device: &Device) -> Result<Checkpoint, CheckpointError> {
    let path = path.as_ref();
    let bytes = read(path)?;
    from_bytes(path, &bytes, device)
}

/// A checkpoint from the bytes of a file (`path` names it in errors): the checks of [`load`],
/// in the same order.
pub fn from_bytes(path: &Path, bytes: &[u8], device: &Device) -> Result<Checkpoint, CheckpointError> {
    let parts = parse(path, bytes)?;
    check_compatible(path, &parts.header)?;
    let rec_err = |msg: String| CheckpointError::Record { path: path.to_path_buf(), msg: one_line(&msg) };
    let record =
        ModuleRecord::from_bytes(Bytes::from_bytes_vec(parts.model.to_vec())).map_err(|e| rec_err(e.to_string()))?;
    let mut header = parts.header;
    if is_v1(&header) {
        // An encoding-1 network: load it as it was, then give it zero weights on the attack
        // planes. Its optimiser moments have the old input shape, so they are dropped and
        // training resumes with fresh AdamW moments.
        let net = Network::with_input_planes(&header.network, V1_PLANES, device);
        let network = net.try_load_record(record).map_err(|e| rec_err(e.to_string()))?.widen_input();
        header.encoding_version = ENCODING_VERSION;
        header.num_planes = NUM_PLANES;
        return Ok(Checkpoint { header, network, optimizer: None });
    }
    let net = Network::new(&header.network, device);
    let network = net.try_load_record(record).map_err(|e| rec_err(e.to_string()))?;
    let optimizer = (!parts.optim.is_empty()).then(|| parts.optim.to_vec());
    Ok(Checkpoint { header, network, optimizer })
}
