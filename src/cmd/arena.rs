use anyhow::{bail, Context, Result};
use engine::{record, Position, Rules};
use play::arena::{self, Adjudication, ArenaConfig, Balance};
use play::Sprt;
use search::values::ValueTable;
use search::EngineSpec;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct Args {
    /// Engine A (the one rated): random, random:seed=N, alphabeta:depth=3, alphabeta:time=1s, ...
    #[arg(long = "a", value_name = "SPEC")]
    a: String,
    /// Engine B (the opponent).
    #[arg(long = "b", value_name = "SPEC")]
    b: String,
    /// Number of games (played in pairs from one opening, colours swapped); 1 to 1,000,000.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    games: u32,
    /// Random plies from the start position (or the openings file's position) per opening;
    /// 0 to 200.
    #[arg(long, value_name = "K", default_value_t = 8, value_parser = clap::value_parser!(u32).range(0..=200))]
    openings: u32,
    /// Opening positions, one FEN per line (blank lines and '#' comments skipped), used in turn.
    #[arg(long, value_name = "FILE")]
    openings_file: Option<PathBuf>,
    /// Balanced openings: draw the random plies again until alpha-beta (at --balance-depth)
    /// scores the position within CP centipawns for the side to move.
    #[arg(long, value_name = "CP", allow_hyphen_values = true)]
    balanced: Option<u32>,
    /// Search depth of the --balanced check.
    #[arg(long, value_name = "D", default_value_t = 3, requires = "balanced")]
    balance_depth: u32,
    /// Games played at once, on threads; 1 to 256.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    concurrency: u16,
    /// Seed for openings and per-game engine seeds.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Append each finished game to this record file (PGN-like; see engine/src/record.rs).
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Write the summary as JSON: games, wins, draws, losses, score, elo, elo_ci95.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Run an SPRT of H0 elo0 against H1 elo1 and stop when it decides, e.g. 0,10.
    #[arg(long, value_name = "ELO0,ELO1", allow_hyphen_values = true)]
    sprt: Option<String>,
    /// SPRT false-positive rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// SPRT false-negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Adjudicate a win for a side ahead by at least CP centipawns of plain material (1 to
    /// 1,000,000)...
    #[arg(long, value_name = "CP", value_parser = clap::value_parser!(i32).range(1..=1_000_000))]
    adjudicate_material: Option<i32>,
    /// ...for this many consecutive plies (1 to 100,000).
    #[arg(long, value_name = "M", default_value_t = 20, requires = "adjudicate_material", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    adjudicate_plies: u32,
    /// The piece values that count material for adjudication: `material` (the adjudication
    /// table, default) or `search` (the alpha-beta table; to compare the two).
    #[arg(long, value_name = "TABLE", default_value = "material", value_parser = ["material", "search"], requires = "adjudicate_material")]
    adjudication_values: String,
    /// Adjudicate a draw at this many plies (default: the rules' ply cap); 1 to 1,000,000.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_plies: Option<u32>,
    /// Rules preset (standard, house, hachu) or a rules TOML file.
    #[arg(long, default_value = "standard")]
    rules: String,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn read_openings(path: &PathBuf) -> Result<Vec<Position>> {
    let text = engine::input::read_text(path, engine::input::MAX_RECORD_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut fens = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        fens.push(Position::from_fen(line).with_context(|| format!("{} line {}", path.display(), i + 1))?);
    }
    if fens.is_empty() {
        bail!("{}: no FEN in the openings file", path.display());
    }
    Ok(fens)
}

pub fn run(a: Args) -> Result<()> {
    let rules = Rules::load(&a.rules)?;
    let sprt = match &a.sprt {
        Some(s) => {
            let (e0, e1) = Sprt::parse_bounds(s).map_err(anyhow::Error::msg)?;
            Some(Sprt::new(e0, e1, a.alpha, a.beta).map_err(anyhow::Error::msg)?)
        }
        None => None,
    };
    let cfg = ArenaConfig {
        a: EngineSpec::parse(&a.a).context("--a")?,
        b: EngineSpec::parse(&a.b).context("--b")?,
        rules_tag: record::rules_tag(&rules, &a.rules),
        games: a.games,
        opening_plies: a.openings,
        opening_fens: match &a.openings_file {
            Some(p) => read_openings(p)?,
            None => Vec::new(),
        },
        balance: match a.balanced {
            Some(_) if a.balance_depth == 0 || a.balance_depth > 8 => {
                bail!("--balance-depth {}: expected a depth from 1 to 8", a.balance_depth)
            }
            Some(max_cp) => Some(Balance { depth: a.balance_depth, max_cp: max_cp.min(i32::MAX as u32) as i32 }),
            None => None,
        },
        concurrency: a.concurrency as usize,
        seed: a.seed,
        adjudication: Adjudication {
            material: a.adjudicate_material.map(|cp| (cp, a.adjudicate_plies)),
            max_plies: a.max_plies.unwrap_or(rules.ply_cap),
            values: if a.adjudication_values == "search" { ValueTable::Search } else { ValueTable::Material },
        },
        sprt,
        pgn: a.pgn.clone(),
        progress: !a.quiet,
        rules,
    };
    let factory: arena::Factory = Arc::new(play::build);
    arena::check(&cfg, &factory)?;
    print!("{}", cfg.header());
    let report = arena::run(&cfg, factory)?;
    print!("{}", report.text());
    if let Some(p) = &a.json {
        nn::files::write_atomic(p, report.json().as_bytes())
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}
