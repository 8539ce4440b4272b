//! Facing people and other engines: the one engine registry (every spec), the arena (paired
//! games, openings, adjudication, Elo and SPRT), `go`, the CECP engine for XBoard, the
//! terminal game and its board drawing, the web board (`serve`), and the speed benchmarks.
//!
//! Stands on `engine`, `search` and `nn`; never on the trainer, so `tenjiku play`, `xboard`
//! and `arena` do not link it.

pub mod arena;
pub mod bench;
pub mod cecp;
mod display;
mod go;
mod registry;
pub mod serve;
mod session;
mod stats;

pub use display::{render, RenderOptions, Style};
pub use go::{go, mcts_summary, thinking_line};
pub use registry::{
    build, check, default_engine_spec, mcts_player, set_cpu_threads, shipped_checkpoint, NetPlayer, DEFAULT_VISITS,
    ENGINES, MCTS_NET_KEYS, SHIPPED_CHECKPOINT,
};
pub use session::{Session, SessionOptions};
pub use stats::{fmt_elo, Sprt, SprtDecision, Wdl};
