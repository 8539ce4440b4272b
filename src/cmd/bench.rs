use anyhow::{bail, Result};
use engine::{MoveTable, Position, Rules};
use play::bench::{copy_make_speed, make_unmake_speed, perft_speed, Measurement};

#[derive(clap::Args)]
pub struct Args {
    /// What to measure: movegen (move generation, make/unmake) or mcts (search with a network).
    #[arg(default_value = "movegen")]
    what: String,
    /// Perft depth for the leaf-throughput runs.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=6))]
    depth: u32,
    /// mcts: the network config (a random network of it is used).
    #[arg(long, default_value = "configs/net-cpu.toml")]
    config: String,
    /// mcts: concurrent games, comma-separated settings (each 1 to 4096).
    #[arg(long, default_value = "1,64", value_delimiter = ',', value_parser = clap::value_parser!(u16).range(1..=4096))]
    games: Vec<u16>,
    /// mcts: visits per search (1 to 100,000).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    visits: u32,
    /// mcts: Gumbel considered moves (0 = PUCT, else 2 to 256).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(0..=256))]
    gumbel: u16,
    /// mcts: leaves per tree per network call (PUCT only; one game needs several); 1 to 4096.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=4096))]
    batch: u16,
    /// mcts: driver threads, comma-separated settings (each 1 to 1024).
    #[arg(long, default_value = "1,2", value_delimiter = ',', value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Vec<u16>,
    /// mcts: Burn backend: cpu, flex, ndarray, wgpu, cuda as compiled in, or `default` (the best one).
    #[arg(long, default_value = "cpu")]
    backend: String,
}

pub fn run(a: Args) -> Result<()> {
    match a.what.as_str() {
        "movegen" => movegen(a),
        "mcts" => mcts(a),
        other => bail!("unknown benchmark '{other}': expected movegen or mcts"),
    }
}

fn mcts(a: Args) -> Result<()> {
    if a.gumbel == 1 {
        bail!("--gumbel 1: expected 0 (PUCT) or 2 to 256 considered moves");
    }
    let cfg = nn::NetConfig::load(&a.config)?;
    let device = nn::backend::device_by_name(&a.backend).map_err(anyhow::Error::msg)?;
    println!(
        "network {} ({}×{}, {:.1} MFLOP/position) on {}, {} visits, {}",
        a.config,
        cfg.blocks,
        cfg.channels,
        cfg.flops_per_position() as f64 / 1e6,
        a.backend,
        a.visits,
        if a.gumbel > 0 { format!("Gumbel ({} considered)", a.gumbel) } else { format!("PUCT ×{}/tree", a.batch) }
    );
    println!("| position | games | threads | simulations/s | mean batch | network pos/s | outside network |");
    println!("|---|---|---|---|---|---|---|");
    for (name, fen) in engine::perft::bench_positions().into_iter().filter(|(n, _)| n == "start" || n == "midgame-2") {
        let pos = Position::from_fen(&fen)?;
        for &games in &a.games {
            for &threads in &a.threads {
                let b = play::bench::MctsBench {
                    games: games as usize,
                    visits: a.visits,
                    gumbel: (a.gumbel > 0).then_some(a.gumbel as usize),
                    batch_per_tree: if a.gumbel > 0 { 1 } else { a.batch as usize },
                    threads: threads as usize,
                };
                let r = play::bench::mcts_speed(&cfg, &device, &pos, &b);
                println!(
                    "| {name} | {games} | {threads} | {:.0} | {:.1} | {:.0} | {:.1}% |",
                    r.simulations_per_s(),
                    r.mean_batch,
                    r.net_positions_per_s,
                    100.0 * r.outside
                );
            }
        }
    }
    Ok(())
}

fn movegen(a: Args) -> Result<()> {
    let t = MoveTable::new(&Rules::standard());
    println!(
        "Position size: {} bytes; Move size: {} bytes",
        std::mem::size_of::<Position>(),
        std::mem::size_of::<engine::Move>()
    );
    println!("{:<10} {:<14} {:>5} {:>12} {:>9} {:>12}", "position", "measure", "depth", "count", "secs", "million/s");
    let print = |m: &Measurement| {
        println!(
            "{:<10} {:<14} {:>5} {:>12} {:>9.3} {:>12.2}",
            m.name,
            m.what,
            m.depth,
            m.count,
            m.secs,
            m.per_sec() / 1e6
        )
    };
    for (name, fen) in engine::perft::bench_positions() {
        let pos = Position::from_fen(&fen)?;
        let depth = if name == "start" { a.depth } else { a.depth.saturating_sub(1).max(1) };
        print(&perft_speed(&name, &pos, &t, depth));
        print(&make_unmake_speed(&name, &pos, &t, 3));
        print(&copy_make_speed(&name, &pos, &t, 3));
    }
    Ok(())
}
