use anyhow::Result;
use engine::display::{render, RenderOptions, Style};
use std::io::IsTerminal;

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum StyleArg {
    Kanji,
    English,
}

#[derive(clap::Args)]
pub struct Args {
    /// Position in the FEN of RULES.md §16.2 (default: the start position).
    #[arg(long)]
    fen: Option<String>,
    /// Piece names: kanji or English abbreviations.
    #[arg(long, value_enum, default_value = "english")]
    style: StyleArg,
    /// Colours: auto (when stdout is a terminal), always, never.
    #[arg(long, default_value = "auto")]
    color: String,
}

pub fn run(a: Args) -> Result<()> {
    let pos = match &a.fen {
        None => engine::Position::start(),
        Some(f) => engine::Position::from_fen(f)?,
    };
    let color = match a.color.as_str() {
        "auto" => std::io::stdout().is_terminal(),
        "always" => true,
        "never" => false,
        other => anyhow::bail!("--color '{other}': expected auto, always or never"),
    };
    let style = match a.style {
        StyleArg::Kanji => Style::Kanji,
        StyleArg::English => Style::English,
    };
    let opts = RenderOptions { style, color, ..RenderOptions::default() };
    print!("{}", render(&pos, &opts));
    Ok(())
}
