//! Game records: a PGN-like text format that the arena writes and `tenjiku show --game` reads.
//!
//! # Format
//!
//! ```text
//! [Event "tenjiku arena"]
//! [Date "2025.01.31"]
//! [Round "3"]
//! [Black "alphabeta:depth=3"]
//! [White "random"]
//! [Result "1-0"]
//! [Termination "Black wins: the last royal was taken"]
//! [FEN "lnficsgekgscifnl/... b"]
//! [Rules "standard"]
//! [Variant "tenjiku"]
//! [Format "1"]
//!
//! 1. h3h4 i14i13 2. h4h5 @@@@ 3. g3g3 h8g9,g9g10+
//! 1-0
//! ```
//!
//! - **Tags**: one per line, `[Name "value"]`; `\"` and `\\` escape a quote and a backslash in
//!   the value. `Black` and `White` name the players (engine specs in the arena); Black moves
//!   first from the start position. `Result` is `1-0` (Black won), `0-1` (White won),
//!   `1/2-1/2` or `*` (unfinished). `Termination` says why the game ended, in words
//!   ([`crate::game::Outcome::describe`], or the adjudication that decided it). `FEN` is the
//!   position the moves start from (RULES.md §16.2; absent = the start position). `Rules` is a
//!   preset name (`standard`, `house`, `hachu`) or the path of a rules TOML file
//!   ([`crate::rules::Rules::load`]; absent = `standard`). `Variant`, when present, must be
//!   `tenjiku`. `Format` is the record format's version ([`RECORD_FORMAT`]; records written
//!   before the tag existed have none and read as format 1; a record of another format is
//!   refused when replayed). Other tags (the arena adds `Adjudication`) are kept as they are.
//! - **Movetext** after the tags: whitespace-separated tokens. `N.` is the number of Black's
//!   N-th move and `N...` marks a White move that starts the movetext; both are only for the
//!   reader and ignored. Moves are CECP coordinate text ([`crate::notation`]): `h3h4`,
//!   `h8g9,g9g10+`, `@@@@`, `g3g3`. `{...}` is a comment (may span lines). The movetext ends
//!   with the result token, which must equal the `Result` tag.
//! - **Several games** in one file follow each other, separated by a blank line; a tag line
//!   after a game's result starts the next game.
//!
//! Reading checks the syntax only ([`parse_records`]); [`GameRecord::replay`] plays the moves
//! into a [`Game`], each one checked legal under the record's rules, and names the line of the
//! first move that is not.

use crate::fen::FenError;
use crate::game::{Game, Outcome, PlayError};
use crate::moves::Move;
use crate::notation::{self, parse_cecp_syntax};
use crate::position::Position;
use crate::powers::MoveTable;
use crate::rules::Rules;
use crate::square::Color;
use std::sync::Arc;

/// A record that could not be read or replayed: the line (when known) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{msg}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct RecordError {
    pub line: Option<usize>,
    pub msg: String,
}

impl RecordError {
    fn at(line: usize, msg: impl Into<String>) -> RecordError {
        RecordError { line: Some(line), msg: msg.into() }
    }
}

/// The result of a recorded game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordResult {
    BlackWins,
    WhiteWins,
    Draw,
    /// `*`: unfinished or unknown.
    Unfinished,
}

impl RecordResult {
    pub fn text(self) -> &'static str {
        match self {
            RecordResult::BlackWins => "1-0",
            RecordResult::WhiteWins => "0-1",
            RecordResult::Draw => "1/2-1/2",
            RecordResult::Unfinished => "*",
        }
    }
    pub fn parse(t: &str) -> Option<RecordResult> {
        Some(match t {
            "1-0" => RecordResult::BlackWins,
            "0-1" => RecordResult::WhiteWins,
            "1/2-1/2" => RecordResult::Draw,
            "*" => RecordResult::Unfinished,
            _ => return None,
        })
    }
    pub fn from_outcome(o: Option<Outcome>) -> RecordResult {
        match o.map(|o| o.winner()) {
            None => RecordResult::Unfinished,
            Some(Some(Color::Black)) => RecordResult::BlackWins,
            Some(Some(Color::White)) => RecordResult::WhiteWins,
            Some(None) => RecordResult::Draw,
        }
    }
}

/// One recorded game: tags in order, the moves as CECP text, the result.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    pub result: RecordResult,
    /// Line of each move in the text it was read from (empty for a record built in memory).
    pub move_lines: Vec<usize>,
    /// Line of the record's first tag or move (0 for a record built in memory).
    pub first_line: usize,
}

/// Tags written first, in this order; any others follow in the order they were set.
const ROSTER: [&str; 11] =
    ["Event", "Date", "Round", "Black", "White", "Result", "Termination", "FEN", "Rules", "Variant", "Format"];

/// The record format this program writes (the `Format` tag) and reads. Records written before
/// the tag existed have none and are this format.
pub const RECORD_FORMAT: u32 = 1;

/// The value of the `Rules` tag for `rules` loaded from `given` (a preset name or a file path):
/// the preset's name when the rules equal one, else the file's absolute path so the record
/// replays from any working directory.
pub fn rules_tag(rules: &Rules, given: &str) -> String {
    if let Some(name) = rules.preset_name() {
        return name.to_string();
    }
    std::fs::canonicalize(given).map(|p| p.display().to_string()).unwrap_or_else(|_| given.to_string())
}

impl GameRecord {
    /// A record of `game` (from its start position, every move played), with `FEN`, `Rules`,
    /// `Variant`, `Result` and, when the game is over, `Termination`. The caller adds the
    /// players, event, date and round.
    pub fn from_game(game: &Game, rules_tag: &str) -> GameRecord {
        let result = RecordResult::from_outcome(game.outcome());
        let mut r = GameRecord {
            tags: Vec::new(),
            moves: game.moves().map(notation::to_cecp).collect(),
            result,
            move_lines: Vec::new(),
            first_line: 0,
        };
        r.set_tag("Result", result.text());
        if let Some(o) = game.outcome() {
            r.set_tag("Termination", &o.describe());
        }
        r.set_tag("FEN", &game.start_position().to_fen());
        r.set_tag("Rules", rules_tag);
        r.set_tag("Variant", "tenjiku");
        r.set_tag("Format", &RECORD_FORMAT.to_string());
        r
    }

    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Set a tag, replacing its value if present. Newlines become spaces (one tag, one line).
    pub fn set_tag(&mut self, name: &str, value: &str) {
        let value = value.replace(['\n', '\r'], " ");
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(t) => t.1 = value,
            None => self.tags.push((name.to_string(), value)),
        }
    }

    /// Set the result (and the `Result` tag with it).
    pub fn set_result(&mut self, r: RecordResult) {
        self.result = r;
        self.set_tag("Result", r.text());
    }

    /// The rules named by the `Rules` tag (`standard` when absent).
    pub fn rules(&self) -> Result<Rules, RecordError> {
        let name = self.tag("Rules").unwrap_or("standard");
        Rules::load(name).map_err(|e| self.err(format!("Rules tag: {e}")))
    }

    /// The position the moves start from (`FEN` tag, else the start position).
    pub fn start_position(&self) -> Result<Position, RecordError> {
        match self.tag("FEN") {
            None => Ok(Position::start()),
            Some(f) => Position::from_fen(f).map_err(|e: FenError| self.err(format!("FEN tag: {e}"))),
        }
    }

    fn err(&self, msg: String) -> RecordError {
        RecordError { line: (self.first_line > 0).then_some(self.first_line), msg }
    }

    /// Replay every move into a game, each checked legal.
    pub fn replay(&self) -> Result<Game, RecordError> {
        self.replay_to(self.moves.len())
    }

    /// Replay the first `plies` moves (at most the record's length).
    pub fn replay_to(&self, plies: usize) -> Result<Game, RecordError> {
        if let Some(f) = self.tag("Format").filter(|f| f.parse() != Ok(RECORD_FORMAT)) {
            return Err(self.err(format!("Format tag '{f}': this program reads record format {RECORD_FORMAT}")));
        }
        if let Some(v) = self.tag("Variant") {
            if !v.eq_ignore_ascii_case("tenjiku") {
                return Err(self.err(format!("Variant tag '{v}': only 'tenjiku' is supported")));
            }
        }
        let rules = self.rules()?;
        let start = self.start_position()?;
        let mut game = Game::new(Arc::new(MoveTable::new(&rules)), start);
        for (i, text) in self.moves.iter().take(plies).enumerate() {
            play_text(&mut game, text).map_err(|e| {
                let msg = format!("move {} ('{text}'): {e}", i + 1);
                match self.move_lines.get(i) {
                    Some(&l) => RecordError::at(l, msg),
                    None => self.err(msg),
                }
            })?;
        }
        Ok(game)
    }

    /// Where the rules contradict the record: `game` is this record replayed to its end; when
    /// the rules ended it, the `Result` tag must say the same (a game still going by the rules
    /// may end by resignation or adjudication, with any result). One line, or `None`.
    pub fn contradiction(&self, game: &Game) -> Option<String> {
        let o = game.outcome()?;
        let by_rules = RecordResult::from_outcome(Some(o));
        (by_rules != self.result).then(|| {
            format!(
                "the record's result is {}, but the rules end the game {} ({}) after move {}",
                self.result.text(),
                by_rules.text(),
                o.describe(),
                game.ply_count()
            )
        })
    }

    /// The record as text, tags first (the roster in its order, then the others), then the
    /// numbered movetext wrapped at 80 columns, then the result; ends with a newline.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let mut tags: Vec<&(String, String)> = Vec::new();
        for name in ROSTER {
            tags.extend(self.tags.iter().filter(|(k, _)| k == name));
        }
        tags.extend(self.tags.iter().filter(|(k, _)| !ROSTER.contains(&k.as_str())));
        for (k, v) in tags {
            s.push_str(&format!("[{k} \"{}\"]\n", v.replace('\\', "\\\\").replace('"', "\\\"")));
        }
        s.push('\n');
        // Move numbers count Black's moves; a record that starts with White to move opens
        // with `1...`.
        let white_first = self.start_position().map(|p| p.side_to_move() == Color::White).unwrap_or(false);
        let offset = white_first as usize;
        let mut tokens: Vec<String> = Vec::new();
        for (i, m) in self.moves.iter().enumerate() {
            let k = i + offset;
            if k.is_multiple_of(2) {
                tokens.push(format!("{}.", k / 2 + 1));
            } else if i == 0 {
                tokens.push("1...".to_string());
            }
            tokens.push(m.clone());
        }
        tokens.push(self.result.text().to_string());
        let mut line = String::new();
        for t in tokens {
            if !line.is_empty() && line.len() + 1 + t.len() > 80 {
                s.push_str(&line);
                s.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&t);
        }
        s.push_str(&line);
        s.push('\n');
        s
    }
}

/// Parse a move's CECP text against the legal moves of `game` and play it.
pub fn play_text(game: &mut Game, text: &str) -> Result<Move, PlayError> {
    if let Some(o) = game.outcome() {
        return Err(PlayError::GameOver(o.describe()));
    }
    // Against every generated move, so that one the repetition rule forbids is refused by
    // `Game::play` with that reason rather than as a move the piece cannot make.
    let m = notation::parse_cecp_in(game.position(), &game.candidate_moves(), text)?;
    game.play(m)?;
    Ok(m)
}

/// Read a move as a person writes it, Hodges (`P-9k`, `Lnx!9d`) or CECP coordinates
/// (`h5h6`), and play it; refused with the real reason as in [`play_text`]. Hodges is tried
/// first; text shaped like coordinates is read as CECP.
pub fn play_person_text(game: &mut Game, text: &str) -> Result<Move, PlayError> {
    if let Some(o) = game.outcome() {
        return Err(PlayError::GameOver(o.describe()));
    }
    let candidates = game.candidate_moves();
    let pos = *game.position();
    let m = match crate::hodges::HodgesBook::with_moves(&pos, game.table(), &candidates).read(text) {
        Ok(m) => m,
        Err(_) if notation::parse_cecp_syntax(text).is_ok() => notation::parse_cecp_in(&pos, &candidates, text)?,
        Err(e) => return Err(e.into()),
    };
    game.play(m)?;
    Ok(m)
}

/// Parse every game of a record file (syntax only; see [`GameRecord::replay`]).
pub fn parse_records(text: &str) -> Result<Vec<GameRecord>, RecordError> {
    let mut games = Vec::new();
    let mut cur: Option<GameRecord> = None;
    // Inside the movetext of `cur` (a tag now would be out of place until its result).
    let mut in_moves = false;
    let mut comment_from: Option<usize> = None;
    let new_record = |line: usize| GameRecord {
        tags: Vec::new(),
        moves: Vec::new(),
        result: RecordResult::Unfinished,
        move_lines: Vec::new(),
        first_line: line,
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if comment_from.is_none() && (line.is_empty() || line.starts_with('%')) {
            continue;
        }
        if comment_from.is_none() && line.starts_with('[') {
            if in_moves {
                return Err(RecordError::at(
                    n,
                    "tag line inside the moves: the previous game has no result token (1-0, 0-1, 1/2-1/2 or *)",
                ));
            }
            let (k, v) = parse_tag(line).map_err(|e| RecordError::at(n, e))?;
            let rec = cur.get_or_insert_with(|| new_record(n));
            if rec.tag(&k).is_some() {
                return Err(RecordError::at(n, format!("tag '{k}' given twice")));
            }
            rec.tags.push((k, v));
            continue;
        }
        let mut rest = line;
        while !rest.is_empty() {
            if comment_from.is_some() {
                match rest.find('}') {
                    Some(j) => {
                        comment_from = None;
                        rest = rest[j + 1..].trim_start();
                    }
                    None => rest = "",
                }
                continue;
            }
            if let Some(r) = rest.strip_prefix('{') {
                comment_from = Some(n);
                rest = r;
                continue;
            }
            let end = rest.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(rest.len());
            let tok = &rest[..end];
            rest = rest[end..].trim_start();
            let rec = cur.get_or_insert_with(|| new_record(n));
            in_moves = true;
            if let Some(r) = RecordResult::parse(tok) {
                if let Some(t) = rec.tag("Result") {
                    if t != r.text() {
                        return Err(RecordError::at(n, format!("result '{tok}' does not match the Result tag '{t}'")));
                    }
                }
                rec.set_result(r);
                games.push(cur.take().unwrap());
                in_moves = false;
                if !rest.is_empty() && !rest.starts_with('{') {
                    return Err(RecordError::at(n, format!("'{rest}' after the result token")));
                }
                continue;
            }
            if is_move_number(tok) {
                continue;
            }
            parse_cecp_syntax(tok)
                .map_err(|e| RecordError::at(n, format!("'{tok}' is not a move number, move or result: {e}")))?;
            rec.moves.push(tok.to_string());
            rec.move_lines.push(n);
        }
    }
    if let Some(l) = comment_from {
        return Err(RecordError::at(l, "comment '{' is never closed"));
    }
    if let Some(rec) = cur {
        return Err(RecordError::at(
            rec.first_line,
            "the game starting here has no result token at its end (1-0, 0-1, 1/2-1/2 or *)",
        ));
    }
    Ok(games)
}

/// `12.` or `12...`.
fn is_move_number(t: &str) -> bool {
    let digits = t.trim_end_matches('.');
    digits.len() < t.len() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `[Name "value"]` with `\"` and `\\` escapes.
fn parse_tag(line: &str) -> Result<(String, String), String> {
    let bad = |why: &str| format!("bad tag line '{line}': {why}; expected [Name \"value\"]");
    let inner = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')).ok_or_else(|| bad("no closing ']'"))?;
    let (name, rest) = inner.split_once(char::is_whitespace).ok_or_else(|| bad("no value"))?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad("the name must be letters, digits or '_'"));
    }
    let rest = rest.trim();
    let body = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| bad("the value must be in double quotes"))?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\')) => value.push(e),
                _ => return Err(bad("'\\' must be followed by '\"' or '\\'")),
            },
            '"' => return Err(bad("unescaped '\"' inside the value")),
            c => value.push(c),
        }
    }
    Ok((name.to_string(), value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    fn random_game(seed: u64, plies: usize, start: Position) -> Game {
        let mut g = Game::new(Arc::new(MoveTable::new(&Rules::standard())), start);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        while !g.is_over() && g.ply_count() < plies {
            let m = *g.legal_moves().choose(&mut rng).unwrap();
            g.play(m).unwrap();
        }
        g
    }

    #[test]
    fn records_round_trip_and_replay() {
        let g = random_game(7, 41, Position::start());
        let mut r = GameRecord::from_game(&g, "standard");
        r.set_tag("Black", "random:seed=1");
        r.set_tag("White", "a \"quoted\" \\ name");
        r.set_tag("Event", "test");
        r.set_result(RecordResult::Draw);
        let mut r2 = GameRecord::from_game(&random_game(8, 10, Position::start()), "standard");
        r2.set_tag("Round", "2");
        let text = format!("{}\n{}", r.to_text(), r2.to_text());
        assert!(text.starts_with("[Event \"test\"]\n"), "{text}");
        assert!(text.contains("\n1. "), "{text}");
        let back = parse_records(&text).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].tags.len(), r.tags.len());
        for (k, v) in &r.tags {
            assert_eq!(back[0].tag(k), Some(v.as_str()), "{k}");
        }
        assert_eq!(back[0].tag("White"), Some("a \"quoted\" \\ name"));
        assert_eq!(back[0].moves, r.moves);
        assert_eq!(back[0].result, RecordResult::Draw);
        let replayed = back[0].replay().unwrap();
        assert_eq!(replayed.position().to_fen(), g.position().to_fen());
        assert_eq!(back[1].replay_to(3).unwrap().ply_count(), 3);
        assert!(text.lines().all(|l| l.len() <= 80 || l.starts_with('[')));
    }

    #[test]
    fn white_to_move_records_number_from_one_ellipsis() {
        let mut start = Position::start();
        start.set_side_to_move(Color::White);
        let g = random_game(3, 3, start);
        let text = GameRecord::from_game(&g, "standard").to_text();
        assert!(text.contains("\n1... "), "{text}");
        assert!(text.contains(" 2. "), "{text}");
        assert_eq!(parse_records(&text).unwrap()[0].replay().unwrap().ply_count(), 3);
    }

    #[test]
    fn bad_records_name_the_line_and_problem() {
        let cases = [
            ("[Event \"x\"\n1. h3h4 *\n", "line 1: bad tag line"),
            ("[Event x]\n*\n", "line 1: bad tag line"),
            ("[Result \"1-0\"]\n\n1. h3h4 0-1\n", "line 3: result '0-1' does not match"),
            ("[Event \"x\"]\n\n1. h3h4 zz9\n*\n", "line 3: 'zz9' is not a move number"),
            ("[Event \"x\"]\n\n1. h3h4\n", "line 1: the game starting here has no result"),
            ("[Event \"x\"]\n1. h3h4\n[Event \"y\"]\n*\n", "line 3: tag line inside the moves"),
            ("[Event \"x\"]\n{ never closed\n*\n", "line 2: comment"),
            ("[Event \"x\"]\n[Event \"y\"]\n*\n", "line 2: tag 'Event' given twice"),
        ];
        for (text, want) in cases {
            let e = parse_records(text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
            assert!(!e.contains('\n'));
        }
        // Syntax is fine, legality is not: replay names the move's line.
        let recs = parse_records("[Event \"x\"]\n\n1. a5a6 {ok} a12a11\n2. a6a9 *\n").unwrap();
        let e = recs[0].replay().err().unwrap().to_string();
        assert!(e.starts_with("line 4: move 3 ('a6a9'): illegal move"), "{e}");
        let recs = parse_records("[Rules \"nope\"]\n*\n").unwrap();
        assert!(recs[0].replay().err().unwrap().to_string().starts_with("line 1: Rules tag: unknown rules 'nope'"));
        assert_eq!(parse_records("").unwrap().len(), 0);
    }

    #[test]
    fn records_carry_their_format_and_old_records_still_read() {
        let text = GameRecord::from_game(&random_game(2, 6, Position::start()), "standard").to_text();
        assert!(text.contains("[Variant \"tenjiku\"]\n[Format \"1\"]\n"), "{text}");
        // A record written before the Format tag existed (the arena's, 2026-12-01).
        let old = "[Event \"tenjiku arena\"]\n[Round \"1\"]\n[Result \"*\"]\n[Rules \"standard\"]\n[Variant \"tenjiku\"]\n\n1. a5a6 *\n";
        assert_eq!(parse_records(old).unwrap()[0].replay().unwrap().ply_count(), 1);
        let newer = old.replace("[Variant \"tenjiku\"]", "[Variant \"tenjiku\"]\n[Format \"2\"]");
        let e = parse_records(&newer).unwrap()[0].replay().err().unwrap().to_string();
        assert_eq!(e, "line 1: Format tag '2': this program reads record format 1");
    }

    #[test]
    fn a_result_tag_that_contradicts_the_rules_is_reported() {
        // Black takes White's last royal with its first move: the rules say 1-0.
        let text =
            "[FEN \"k15/R15/16/16/16/16/16/16/16/16/16/16/16/16/16/15K b\"]\n[Result \"0-1\"]\n\n1. a15a16 0-1\n";
        let rec = &parse_records(text).unwrap()[0];
        let game = rec.replay().unwrap();
        let why = rec.contradiction(&game).unwrap();
        assert_eq!(why, "the record's result is 0-1, but the rules end the game 1-0 (Black wins: the last royal was taken) after move 1");
        let fixed = parse_records(&text.replace("0-1", "1-0")).unwrap().remove(0);
        assert_eq!(fixed.contradiction(&fixed.replay().unwrap()), None);
        // A game the rules have not ended may end by resignation or adjudication, any result.
        let open = parse_records("[Result \"0-1\"]\n\n1. a5a6 0-1\n").unwrap().remove(0);
        assert_eq!(open.contradiction(&open.replay().unwrap()), None);
    }
}
