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
    /// mcts: Burn backend: cpu, flex, ndarray, wgpu, vulkan, cuda as compiled in, or `default`
    /// (the best one); outputs: the backends to compare, comma-separated.
    #[arg(long, default_value = "cpu", value_delimiter = ',')]
    backend: Vec<String>,
    /// outputs: the checkpoint (default: the shipped network).
    #[arg(long)]
    checkpoint: Option<String>,
    /// outputs: the precisions to compare (f32, bf16, f16), comma-separated.
    #[arg(long, default_value = "f32,bf16", value_delimiter = ',')]
    precision: Vec<String>,
    /// outputs: the reference every setting is compared with: BACKEND or BACKEND:PRECISION.
    #[arg(long, default_value = "cpu:f32")]
    reference: String,
    /// outputs: positions of the corpus (seeded random games), 1 to 1,000,000.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    positions: u32,
    /// outputs: positions per network call, 1 to 65,536.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    eval_batch: u32,
    /// outputs: seed of the corpus.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(a: Args) -> Result<()> {
    match a.what.as_str() {
        "movegen" => movegen(a),
        "mcts" => mcts(a),
        "outputs" => outputs(a),
        other => bail!("unknown benchmark '{other}': expected movegen, mcts or outputs"),
    }
}

fn mcts(a: Args) -> Result<()> {
    if a.gumbel == 1 {
        bail!("--gumbel 1: expected 0 (PUCT) or 2 to 256 considered moves");
    }
    let cfg = nn::NetConfig::load(&a.config)?;
    let [backend] = &a.backend[..] else { bail!("--backend: mcts measures one backend at a time") };
    let device = nn::backend::device_by_name(backend).map_err(anyhow::Error::msg)?;
    println!(
        "network {} ({}×{}, {:.1} MFLOP/position) on {}, {} visits, {}",
        a.config,
        cfg.blocks,
        cfg.channels,
        cfg.flops_per_position() as f64 / 1e6,
        backend,
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

/// `bench outputs`: each backend × precision against the reference on the same checkpoint and
/// corpus (`nn::agreement`): top-1 agreement, value and prior differences, positions/s.
fn outputs(a: Args) -> Result<()> {
    use nn::backend::{device_by_name, Precision};
    use nn::evaluator::NetEvaluator;
    let path = match &a.checkpoint {
        Some(p) => std::path::PathBuf::from(p),
        None => play::shipped_checkpoint()
            .ok_or_else(|| anyhow::anyhow!("the shipped network is not found: give --checkpoint"))?,
    };
    let (ref_backend, ref_precision) = a.reference.split_once(':').unwrap_or((&a.reference, "f32"));
    let ref_precision: Precision = ref_precision.parse()?;
    let precisions = a.precision.iter().map(|p| p.parse::<Precision>()).collect::<Result<Vec<_>, _>>()?;
    let evaluator = |backend: &str, precision: Precision| -> Result<NetEvaluator> {
        let device = device_by_name(backend)?;
        precision.check(&device, backend)?;
        let ckpt = nn::checkpoint::load(&path, &device)?;
        let mut e = NetEvaluator::new(ckpt.network, &device);
        e.set_precision(precision)?;
        Ok(e)
    };
    let header = nn::checkpoint::load(&path, &nn::backend::cpu_device())?.header;
    let rules = Rules::load(&header.rules)?;
    let table = MoveTable::new(&rules);
    let corpus = nn::agreement::corpus(&table, a.seed, a.positions as usize, 120);
    let mut reference = evaluator(ref_backend, ref_precision)?;
    println!(
        "checkpoint {} (step {}), {} positions (seed {}), batches of {}, reference {ref_backend}:{ref_precision}",
        path.display(),
        header.step,
        corpus.len(),
        a.seed,
        a.eval_batch
    );
    println!("| backend | precision | top-1 agreement | max abs value diff | mean abs value diff | max abs prior diff | max abs draw diff | positions/s |");
    println!("|---|---|---|---|---|---|---|---|");
    for backend in &a.backend {
        for &p in &precisions {
            let mut e = match evaluator(backend, p) {
                Ok(e) => e,
                Err(err) => {
                    println!("| {backend} | {p} | not run: {err} | | | | | |");
                    continue;
                }
            };
            let ag = nn::agreement::compare(&mut reference, &mut e, &table, &corpus, a.eval_batch as usize);
            println!(
                "| {backend} | {p} | {:.2}% | {:.2e} | {:.2e} | {:.2e} | {:.2e} | {:.0} |",
                100.0 * ag.top1_agreement(),
                ag.max_value_diff,
                ag.mean_value_diff,
                ag.max_prior_diff,
                ag.max_draw_diff,
                ag.positions as f64 / ag.secs[1]
            );
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
