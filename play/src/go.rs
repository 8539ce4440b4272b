//! `go`: one engine's choice for one position, with its thinking lines.

use engine::record::play_text;
use engine::Game;
use engine::{notation, MoveTable, Position, Rules};
use search::mcts::SearchResult;
use search::{EngineSpec, Thinking};
use std::sync::Arc;

/// One thinking line: `depth D score S nodes N time MS pv M1 M2 ...` (time in milliseconds;
/// `wdl W D L` added when the engine has win/draw/loss probabilities). MCTS-like engines
/// report their visits as the depth field, as [`Thinking::depth`] says.
pub fn thinking_line(t: &Thinking) -> String {
    let mut s = format!("depth {} score {} nodes {} time {}", t.depth, t.score_cp, t.nodes, t.time.as_millis());
    if let Some([w, d, l]) = t.wdl {
        s.push_str(&format!(" wdl {w:.3} {d:.3} {l:.3}"));
    }
    s.push_str(" pv");
    for m in &t.pv {
        s.push(' ');
        s.push_str(&notation::to_cecp(*m));
    }
    s
}

/// Play `moves` (CECP text) from `start`, then ask the engine `spec` for its move. Each
/// thinking line goes to `line` as it comes; the result is the chosen move's CECP text,
/// checked legal. Errors are one line naming the bad move, spec or state.
pub fn go(
    start: Position,
    rules: &Rules,
    moves: &[String],
    spec: &str,
    line: &mut dyn FnMut(String),
) -> Result<String, String> {
    let spec = EngineSpec::parse(spec).map_err(|e| e.to_string())?;
    let mut player = crate::registry::build(&spec, rules).map_err(|e| e.to_string())?;
    let mut game = Game::new(Arc::new(MoveTable::new(rules)), start);
    for (i, text) in moves.iter().enumerate() {
        play_text(&mut game, text).map_err(|e| format!("--moves: move {} '{text}': {e}", i + 1))?;
    }
    if let Some(o) = game.outcome() {
        return Err(format!("no move to choose: the game is over ({})", o.describe()));
    }
    let m = player.choose(&game, &mut |t| line(thinking_line(t)));
    if let Some(r) = player.last_search() {
        // MCTS: after the thinking lines, the search summary (visits, value, PV, top moves).
        for l in mcts_summary(r, 10) {
            line(l);
        }
    }
    if !game.legal_moves().contains(&m) {
        return Err(format!("engine '{spec}' chose the illegal move '{}'", notation::to_cecp(m)));
    }
    Ok(notation::to_cecp(m))
}

/// The summary `go` prints after an MCTS search: `visits N value V wdl W D L nodes N`, the PV,
/// then the `top` most visited root moves with visits, prior, value (Q) and policy target.
pub fn mcts_summary(r: &SearchResult, top: usize) -> Vec<String> {
    let [w, d, l] = r.wdl;
    let mut out = vec![format!(
        "visits {} value {:.3} wdl {w:.3} {d:.3} {l:.3} nodes {}{}",
        r.visits,
        r.value,
        r.nodes,
        if r.gumbel { " (gumbel)" } else { "" }
    )];
    let pv: Vec<String> = r.pv.iter().map(|m| notation::to_cecp(*m)).collect();
    out.push(format!("pv {}", pv.join(" ")));
    out.push(format!("{:<10} {:>7} {:>7} {:>7} {:>7}", "move", "visits", "prior", "q", "target"));
    let mut moves: Vec<_> = r.root_moves.iter().collect();
    moves.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
    for m in moves.into_iter().take(top) {
        let q = m.q.map(|q| format!("{q:+.3}")).unwrap_or_else(|| "-".into());
        out.push(format!(
            "{:<10} {:>7} {:>7.4} {:>7} {:>7.4}",
            notation::to_cecp(m.mv),
            m.visits,
            m.prior,
            q,
            m.policy_target
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn go_plays_the_moves_and_returns_a_legal_choice() {
        let mut lines = Vec::new();
        let m = go(Position::start(), &Rules::standard(), &["a5a6".into()], "random:seed=3", &mut |l| lines.push(l))
            .unwrap();
        let mut g = Game::new(Arc::new(MoveTable::new(&Rules::standard())), Position::start());
        play_text(&mut g, "a5a6").unwrap();
        assert!(play_text(&mut g, &m).is_ok(), "{m}");
        let e = go(Position::start(), &Rules::standard(), &["a5a6".into(), "a6a9".into()], "random", &mut |_| {})
            .unwrap_err();
        assert!(e.starts_with("--moves: move 2 'a6a9': illegal move"), "{e}");
        let e = go(Position::start(), &Rules::standard(), &[], "nosuch:x=1", &mut |_| {}).unwrap_err();
        assert!(e.contains("unknown engine 'nosuch'"), "{e}");
        assert!(go(Position::start(), &Rules::standard(), &[], "random:", &mut |_| {}).is_err());
    }

    #[test]
    fn thinking_lines_name_every_field() {
        let t = Thinking {
            depth: 3,
            score_cp: -25,
            wdl: Some([0.2, 0.5, 0.3]),
            nodes: 1234,
            time: Duration::from_millis(56),
            pv: vec![engine::Move::NULL_PASS],
        };
        assert_eq!(thinking_line(&t), "depth 3 score -25 nodes 1234 time 56 wdl 0.200 0.500 0.300 pv @@@@");
    }
}
