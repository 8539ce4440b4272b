use super::PositionArgs;
use anyhow::Result;
use engine::notation;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pos: PositionArgs,
}

pub fn run(a: Args) -> Result<()> {
    let (pos, t) = a.pos.load()?;
    let mut texts: Vec<String> = engine::legal_moves(&pos, &t).into_iter().map(notation::to_cecp).collect();
    texts.sort();
    let mut out = String::new();
    for m in texts {
        out.push_str(&m);
        out.push('\n');
    }
    print!("{out}");
    Ok(())
}
