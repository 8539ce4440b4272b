//! Where does the network side lose its material? Replays arena records and, for each move of
//! the side whose engine spec starts with `mcts` (A; then the same for its opponent B, to
//! compare), measures that side's plain material
//! (`material_value`, royals not counted) before the move and three plies later (after the
//! opponent's reply and A's answer to it). A net loss of 300 cp or more is an event; the report
//! gives their sizes, how often the opponent's reply took the piece A had just moved or burned
//! A's pieces (a Fire Demon's move), and the
//! ply of each game's first event (the arena's openings are random plies, so an early median
//! means the losses start at once).
//!
//! `--list` also prints each event of the network side (game, ply, the move and the reply).
//!
//! ```text
//! xz -dc docs/training/scratch/NAME.pgn.xz > /tmp/NAME.pgn
//! cargo run --release -p tenjiku-play --example material_swings -- /tmp/NAME.pgn
//! ```

use engine::record::parse_records;
use engine::{Color, Position};
use search::values::material_value;

/// Smallest net loss over three plies that counts as an event.
const EVENT_CP: i32 = 300;

fn balance(pos: &Position, side: Color) -> i32 {
    pos.pieces()
        .filter(|(_, p)| !p.kind().is_royal())
        .map(|(_, p)| if p.color() == side { material_value(p.kind()) } else { -material_value(p.kind()) })
        .sum()
}

fn main() {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    let list = paths.iter().any(|p| p == "--list");
    paths.retain(|p| p != "--list");
    if paths.is_empty() {
        eprintln!("usage: material_swings RECORD.pgn...");
        std::process::exit(2);
    }
    for (path, side) in paths.iter().flat_map(|p| [(p, 'A'), (p, 'B')]) {
        let records = match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_records(&t).map_err(|e| e.to_string()))
        {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let (mut events, mut moved_taken, mut burned, mut lost_cp) = (0u32, 0u32, 0u32, 0i64);
        let mut by_size = [0u32; 4];
        let mut first_event = Vec::new();
        for (gi, r) in records.iter().enumerate() {
            let a_color =
                if r.tag("Black").is_some_and(|n| n.starts_with("mcts")) { Color::Black } else { Color::White };
            let a = if side == 'A' { a_color } else { a_color.other() };
            let Ok(game) = r.replay() else { continue };
            let plies = game.plies();
            let before = |i: usize| plies.get(i).map_or_else(|| balance(game.position(), a), |p| balance(&p.before, a));
            let mut first = None;
            for (i, p) in plies.iter().enumerate() {
                if p.before.side_to_move() != a || i + 1 >= plies.len() {
                    continue;
                }
                let swing = before(i) - before(i + 3);
                if swing < EVENT_CP {
                    continue;
                }
                events += 1;
                lost_cp += swing as i64;
                by_size[match swing {
                    ..700 => 0,
                    700..1500 => 1,
                    1500..3000 => 2,
                    _ => 3,
                }] += 1;
                if plies[i + 1].effect.captured().any(|(s, _)| Some(s) == p.mv.to()) {
                    moved_taken += 1;
                }
                if plies[i + 1].effect.burned().any(|(_, piece)| piece.color() == a) {
                    burned += 1;
                }
                first.get_or_insert(i);
                if list && side == 'A' {
                    println!("game {} ply {i}: {} then {} ({swing} cp)", gi + 1, p.mv, plies[i + 1].mv);
                }
            }
            first_event.extend(first);
        }
        first_event.sort_unstable();
        let median = first_event.get(first_event.len() / 2).copied().unwrap_or(0);
        println!(
            "{path}: {} games; {side}'s moves followed by a net loss of >= {EVENT_CP} cp over three plies: {events} \
             (300-699: {}, 700-1499: {}, 1500-2999: {}, >= 3000: {}; {lost_cp} cp in all); the reply took the \
             piece just moved in {moved_taken}, burned some of the side's pieces in {burned}; games with one: {}, median first at ply {median}",
            records.len(),
            by_size[0],
            by_size[1],
            by_size[2],
            by_size[3],
            first_event.len()
        );
    }
}
