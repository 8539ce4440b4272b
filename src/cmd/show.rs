use anyhow::{bail, Context, Result};
use engine::{hodges, notation, record};
use play::{render, RenderOptions, Style};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum StyleArg {
    Kanji,
    English,
}

#[derive(clap::Args)]
pub struct Args {
    /// Position in the FEN of RULES.md §16.2 (default: the start position).
    #[arg(long, conflicts_with = "game")]
    fen: Option<String>,
    /// Replay a game record file (as `arena --pgn` writes) instead of showing a FEN.
    #[arg(long, value_name = "FILE")]
    game: Option<PathBuf>,
    /// With --game: the ply to show (0 = the start; default: the end).
    #[arg(long, value_name = "N", requires = "game")]
    ply: Option<usize>,
    /// With --game: which game of the file (1 = the first).
    #[arg(long, value_name = "I", default_value_t = 1, requires = "game")]
    index: usize,
    /// Piece names: kanji or English abbreviations.
    #[arg(long, value_enum, default_value = "english")]
    style: StyleArg,
    /// Colours: auto (when stdout is a terminal), always, never.
    #[arg(long, default_value = "auto")]
    color: String,
}

pub fn run(a: Args) -> Result<()> {
    let mut pos = match &a.fen {
        None => engine::Position::start(),
        Some(f) => engine::Position::from_fen(f)?,
    };
    let mut highlight = Vec::new();
    let mut burned = Vec::new();
    // Lines printed under the board: the game, the last move in both notations, the FEN.
    let mut notes = Vec::new();
    if let Some(path) = &a.game {
        let name = path.display();
        let text = engine::input::read_text(path, engine::input::MAX_RECORD_BYTES)
            .with_context(|| format!("cannot read {name}"))?;
        let recs = record::parse_records(&text).with_context(|| format!("{name}"))?;
        if a.index == 0 || a.index > recs.len() {
            bail!("--index {}: {name} has {} game(s), numbered from 1", a.index, recs.len());
        }
        let rec = &recs[a.index - 1];
        let ply = a.ply.unwrap_or(rec.moves.len());
        if ply > rec.moves.len() {
            bail!("--ply {ply}: game {} of {name} has only {} plies", a.index, rec.moves.len());
        }
        let game = rec.replay_to(ply).with_context(|| format!("{name}"))?;
        if ply == rec.moves.len() {
            if let Some(why) = rec.contradiction(&game) {
                eprintln!("warning: game {} of {name}: {why}", a.index);
            }
        }
        let tag = |k: &str| rec.tag(k).unwrap_or("?").to_string();
        notes.push(format!(
            "game {} of {}: Black {} vs White {}, result {} ({})",
            a.index,
            recs.len(),
            tag("Black"),
            tag("White"),
            rec.result.text(),
            tag("Termination")
        ));
        notes.push(format!("ply {ply} of {}", rec.moves.len()));
        if let Some(last) = game.plies().last() {
            let m = last.mv;
            let side = last.before.side_to_move().name();
            let h = hodges::to_hodges(&last.before, game.table(), m);
            notes.push(format!("last move ({side}): {} = {h}", notation::to_cecp(m)));
            highlight.extend(m.from());
            highlight.extend(m.via());
            highlight.extend(m.to());
            burned.extend(last.effect.burned().map(|(s, _)| s));
        }
        pos = *game.position();
        notes.push(format!("fen {}", pos.to_fen()));
    }
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
    let opts = RenderOptions { style, color, highlight, burned, ..RenderOptions::default() };
    print!("{}", render(&pos, &opts));
    for n in notes {
        println!("{n}");
    }
    Ok(())
}
