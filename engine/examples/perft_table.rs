//! Prints perft 1..3 of the benchmark positions (to fill the regression table).
use engine::bench::BENCH_POSITIONS;
use engine::{perft::perft, MoveTable, Position, Rules};
fn main() {
    let t = MoveTable::new(&Rules::standard());
    for (name, fen) in BENCH_POSITIONS {
        let p = Position::from_fen(fen).unwrap();
        let v: Vec<u64> = (1..=3).map(|d| perft(&p, &t, d)).collect();
        println!("{name} {v:?}");
    }
}
