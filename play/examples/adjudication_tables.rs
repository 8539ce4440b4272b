//! Which piece-value table makes the better adjudicator? Replays arena records of games that
//! ended by the rules (the last royal taken), and asks of each table: had material adjudication
//! (`ahead by >= CP for M consecutive plies wins`, the arena's rule) been on, how many games
//! would it have decided, and how many of those for the side that went on to lose?
//!
//! ```text
//! cargo run --release -p tenjiku-play --example adjudication_tables -- docs/ladder/*.pgn checkpoints/*/eval/*.pgn
//! ```
//!
//! The two tables have different scales, so each is read at several margins and compared at
//! equal coverage (share of games decided). Numbers go to BENCHMARKS.md ("Piece values").

use engine::record::parse_records;
use engine::{Color, Kind, Position};
use search::values::{material_value, search_value};

/// Consecutive plies the margin must hold (the arena's usual setting).
const PLIES: u32 = 16;

fn balance(pos: &Position, value: fn(Kind) -> i32) -> i32 {
    pos.pieces()
        .filter(|(_, p)| !p.kind().is_royal())
        .map(|(_, p)| if p.color() == Color::Black { value(p.kind()) } else { -value(p.kind()) })
        .sum()
}

/// The side material adjudication would have declared the winner, and at which ply.
fn adjudicate(balances: &[i32], margin: i32) -> Option<(Color, usize)> {
    let mut run = 0u32;
    let mut side = None;
    for (ply, &b) in balances.iter().enumerate() {
        let now = if b >= margin {
            Some(Color::Black)
        } else if b <= -margin {
            Some(Color::White)
        } else {
            None
        };
        run = if now.is_some() && now == side { run + 1 } else { u32::from(now.is_some()) };
        side = now;
        if run >= PLIES {
            return side.map(|s| (s, ply));
        }
    }
    None
}

fn main() {
    let tables: [(&str, fn(Kind) -> i32, [i32; 5]); 2] = [
        ("material_value", material_value, [1000, 1500, 2000, 2500, 3500]),
        ("search_value", search_value, [1500, 2000, 3000, 4000, 5000]),
    ];
    // Per game: (winner, balances after each ply by each table).
    let mut games: Vec<(Color, [Vec<i32>; 2])> = Vec::new();
    // |balance| of every position of every game (adjudicated ones too), by each table.
    let mut all: [Vec<i32>; 2] = [Vec::new(), Vec::new()];
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let Ok(records) = parse_records(&text) else { continue };
        for r in records {
            let Some(t) = r.tag("Termination") else { continue };
            let Ok(game) = r.replay() else { continue };
            for p in game.plies().iter().map(|p| p.before).chain([*game.position()]) {
                for (i, table) in tables.iter().enumerate() {
                    all[i].push(balance(&p, table.1).abs());
                }
            }
            if !t.ends_with("the last royal was taken") {
                continue;
            }
            let winner = if t.starts_with("Black") { Color::Black } else { Color::White };
            let positions: Vec<Position> =
                game.plies().iter().skip(1).map(|p| p.before).chain([*game.position()]).collect();
            let b = [0, 1].map(|i| positions.iter().map(|p| balance(p, tables[i].1)).collect::<Vec<i32>>());
            games.push((winner, b));
        }
    }
    for a in all.iter_mut() {
        a.sort_unstable();
    }
    println!(
        "Positions of all games: {}; the search_value margin as often exceeded as each material_value margin:",
        all[0].len()
    );
    for m in [1000, 1500, 2000, 2500, 3500] {
        let share = all[0].iter().filter(|&&b| b >= m).count() as f64 / all[0].len() as f64;
        let k = ((1.0 - share) * all[1].len() as f64) as usize;
        println!(
            "  material_value {m} cp ({:.2}% of positions) ~ search_value {} cp",
            100.0 * share,
            all[1][k.min(all[1].len() - 1)]
        );
    }
    println!("{} games that ended by the rules; adjudication after {PLIES} plies at the margin", games.len());
    println!("| table | margin (cp) | games decided | share | decided for the loser | wrong % |");
    println!("|---|---|---|---|---|---|");
    for (i, (name, _, margins)) in tables.iter().enumerate() {
        for &m in margins {
            let (mut decided, mut wrong) = (0u32, 0u32);
            for (winner, b) in &games {
                if let Some((side, _)) = adjudicate(&b[i], m) {
                    decided += 1;
                    wrong += u32::from(side != *winner);
                }
            }
            println!(
                "| {name} | {m} | {decided} | {:.1}% | {wrong} | {:.1}% |",
                100.0 * decided as f64 / games.len().max(1) as f64,
                100.0 * wrong as f64 / decided.max(1) as f64
            );
        }
    }
}
