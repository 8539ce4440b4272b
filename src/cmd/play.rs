use super::show::StyleArg;
use anyhow::{bail, Context, Result};
use engine::record::rules_tag;
use engine::Game;
use engine::{Color, MoveTable, Position, Rules};
use play::Style;
use play::{Session, SessionOptions};
use search::EngineSpec;
use std::io::{stdin, stdout, IsTerminal};
use std::sync::Arc;

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum SideArg {
    Black,
    White,
}

#[derive(clap::Args)]
pub struct Args {
    /// The engine to play against (default: MCTS with the shipped network in checkpoints/, or
    /// `alphabeta:time=1s` without one), e.g. `mcts:checkpoint=PATH,visits=800`,
    /// `alphabeta:depth=3`, `random`.
    #[arg(long)]
    engine: Option<String>,
    /// The side you play (Black moves first).
    #[arg(long, value_enum, default_value = "black")]
    color: SideArg,
    /// Piece names: kanji or English abbreviations.
    #[arg(long, value_enum, default_value = "english")]
    style: StyleArg,
    /// Terminal colours: auto (when stdout is a terminal), always, never.
    #[arg(long, default_value = "auto")]
    term_color: String,
    /// Rules preset (standard, house, hachu) or a rules TOML file (see configs/rules/).
    #[arg(long, default_value = "standard")]
    rules: String,
    /// Start from this position (FEN of RULES.md §16.2) instead of the start position.
    #[arg(long)]
    fen: Option<String>,
}

pub fn run(a: Args) -> Result<()> {
    let rules = Rules::load(&a.rules)?;
    let spec = EngineSpec::parse(&a.engine.clone().unwrap_or_else(play::default_engine_spec))?;
    let player = play::build(&spec, &rules)?;
    let start = match &a.fen {
        None => Position::start(),
        Some(f) => Position::from_fen(f).context("--fen")?,
    };
    let color = match a.term_color.as_str() {
        "auto" => stdout().is_terminal(),
        "always" => true,
        "never" => false,
        other => bail!("--term-color '{other}': expected auto, always or never"),
    };
    let opts = SessionOptions {
        human: match a.color {
            SideArg::Black => Color::Black,
            SideArg::White => Color::White,
        },
        style: match a.style {
            StyleArg::Kanji => Style::Kanji,
            StyleArg::English => Style::English,
        },
        color,
        rules_tag: rules_tag(&rules, &a.rules),
    };
    let game = Game::new(Arc::new(MoveTable::new(&rules)), start);
    Session::new(game, player, opts, stdout().lock()).run(stdin().lock())?;
    Ok(())
}
