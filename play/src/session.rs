//! A game between a person at a terminal and an engine (`tenjiku play`).
//!
//! Line-driven like the CECP mode, over any [`BufRead`] and [`Write`], so a script or a test
//! can play it as well as a person. Each input line is a command (`help` lists them) or a move
//! in Hodges notation (`P-9k`, `Lnx!9d`) or CECP coordinates (`h5h6`, `h8g9,g9g10`). A move
//! that cannot be played is answered with the reason in one line (for an ambiguous Hodges move,
//! with the candidates) and the game stays as it was.

use crate::cecp::read_line;
use crate::display::{render, RenderOptions, Style};
use engine::hodges::{self, HodgesBook};
use engine::Game;

use engine::notation::{self, parse_cecp_syntax};
use engine::record::GameRecord;
use engine::Move;
use engine::Piece;
use engine::{Color, Square};
use nn::files::{record_date_now, write_atomic};
use search::Player;
use std::io::{self, BufRead, Write};
use std::path::Path;

/// How the session looks and who plays what.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// The side the person plays; the engine plays the other.
    pub human: Color,
    pub style: Style,
    /// ANSI colours (the caller decides, e.g. only when stdout is a terminal).
    pub color: bool,
    /// The `Rules` tag written by `save` (a preset name or a rules file path).
    pub rules_tag: String,
}

const HELP: &str = "\
Moves: Hodges notation (P-9k, Lnx!9d, Lnx3hx2i, FiD-5f!4e, N-7d+, pass) or CECP coordinates
       (h5h6, h8g9,g9g10, k4b13+, @@@@). Squares: Hodges 9p (file 16..1, rank a..p) or CECP h1.
Commands:
  moves SQUARE   legal moves of the piece on SQUARE (e.g. moves h3, moves 9n)
  undo           take back your last move and the engine's reply
  hint           ask the engine for a move (it is not played)
  save FILE      write the game as a record (tenjiku show --game FILE replays it)
  board          draw the board again, with a legend of the marks
  resign         give up the game
  help           this text
  quit           leave";

/// A terminal game in progress.
pub struct Session<W: Write> {
    out: W,
    game: Game,
    player: Box<dyn Player>,
    opts: SessionOptions,
}

impl<W: Write> Session<W> {
    pub fn new(game: Game, player: Box<dyn Player>, opts: SessionOptions, out: W) -> Session<W> {
        Session { out, game, player, opts }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Play until `quit` or the end of the input.
    pub fn run<R: BufRead>(&mut self, input: R) -> io::Result<()> {
        writeln!(
            self.out,
            "You play {} against {}. Type 'help' for the commands.",
            self.opts.human.name(),
            self.player.name()
        )?;
        self.show_board(false)?;
        self.engine_turn()?;
        self.prompt()?;
        let mut input = input;
        while let Some(line) = read_line(&mut input)? {
            if !self.handle_line(&line)? {
                return self.out.flush();
            }
            self.prompt()?;
        }
        writeln!(self.out)?;
        self.out.flush()
    }

    fn prompt(&mut self) -> io::Result<()> {
        if self.game.is_over() {
            write!(self.out, "(game over: undo, save FILE or quit) > ")?;
        } else {
            write!(self.out, "{} to move > ", self.game.side_to_move().name())?;
        }
        self.out.flush()
    }

    /// Execute one input line. Returns `false` when the person quits.
    pub fn handle_line(&mut self, line: &str) -> io::Result<bool> {
        let line = line.trim();
        let (cmd, arg) = match line.split_once(char::is_whitespace) {
            Some((c, a)) => (c, a.trim()),
            None => (line, ""),
        };
        match cmd.to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "exit" => return Ok(false),
            "help" | "?" => writeln!(self.out, "{HELP}")?,
            "board" | "show" => self.show_board(true)?,
            "moves" => self.list_moves(arg)?,
            "undo" => self.undo()?,
            "hint" => self.hint()?,
            "save" => self.save(arg)?,
            "resign" => {
                if self.game.is_over() {
                    writeln!(self.out, "The game is already over.")?;
                } else {
                    self.game.resign(self.opts.human);
                    self.announce_result()?;
                }
            }
            _ => self.human_move(line)?,
        }
        Ok(true)
    }

    /// The board with the last move marked, what it captured or burned, and the material each
    /// side has taken.
    fn show_board(&mut self, legend: bool) -> io::Result<()> {
        let mut highlight = Vec::new();
        let mut burned = Vec::new();
        if let Some(p) = self.game.plies().last() {
            highlight.extend(p.mv.from());
            highlight.extend(p.mv.via());
            highlight.extend(p.mv.to());
            burned.extend(p.effect.burned().map(|(s, _)| s));
        }
        let opts = RenderOptions { style: self.opts.style, color: self.opts.color, highlight, burned, legend };
        write!(self.out, "{}", render(self.game.position(), &opts))?;
        for side in [Color::Black, Color::White] {
            writeln!(self.out, "Taken by {}: {}", side.name(), self.taken_by(side))?;
        }
        Ok(())
    }

    /// Pieces `side` has captured or burned, most valuable types first: `Ln, 2 P, +P`.
    fn taken_by(&self, side: Color) -> String {
        let mut lost: Vec<Piece> = Vec::new();
        for p in self.game.plies() {
            lost.extend(p.effect.captured().chain(p.effect.burned()).map(|(_, pc)| pc).filter(|pc| pc.color() != side));
        }
        if lost.is_empty() {
            return "-".into();
        }
        lost.sort_by_key(|pc| (pc.start_kind() as usize, pc.promoted()));
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < lost.len() {
            let n = lost[i..].iter().take_while(|pc| pc.abbr() == lost[i].abbr()).count();
            parts.push(if n > 1 { format!("{n} {}", lost[i].abbr()) } else { lost[i].abbr() });
            i += n;
        }
        parts.join(", ")
    }

    /// A move as people read it, in both notations: `Lnx9m (h3h4)`.
    fn describe(&self, m: Move) -> String {
        let h = hodges::to_hodges(self.game.position(), self.game.table(), m);
        format!("{h} ({})", notation::to_cecp(m))
    }

    fn human_move(&mut self, text: &str) -> io::Result<()> {
        if let Some(o) = self.game.outcome() {
            return writeln!(self.out, "The game is over ({}). Type undo, save FILE or quit.", o.describe());
        }
        if self.game.side_to_move() != self.opts.human {
            return writeln!(self.out, "It is not your turn.");
        }
        // Hodges first (what people write); text shaped like coordinates is read as CECP.
        let pos = *self.game.position();
        let parsed = match hodges::parse_hodges(&pos, self.game.table(), text) {
            Ok(m) => Ok(m),
            Err(_) if parse_cecp_syntax(text).is_ok() => notation::parse_cecp(&pos, self.game.table(), text),
            Err(e) => Err(e),
        };
        let m = match parsed {
            Ok(m) => m,
            Err(e) => return writeln!(self.out, "{}. Type 'help' for the notation.", capitalize(&e.to_string())),
        };
        let desc = self.describe(m);
        if let Err(why) = self.game.play(m) {
            return writeln!(self.out, "Cannot play {desc}: {why}.");
        }
        writeln!(self.out, "You play {desc}.")?;
        self.show_board(false)?;
        if !self.announce_result()? {
            self.engine_turn()?;
        }
        Ok(())
    }

    /// Print the result if the game has ended. Returns whether it has.
    fn announce_result(&mut self) -> io::Result<bool> {
        let Some(o) = self.game.outcome() else { return Ok(false) };
        let verdict = match o.winner() {
            Some(w) if w == self.opts.human => "you win",
            Some(_) => "the engine wins",
            None => "a draw",
        };
        writeln!(self.out, "Game over: {} ({}) - {verdict}.", o.result_text(), o.describe())?;
        Ok(true)
    }

    fn engine_turn(&mut self) -> io::Result<()> {
        if self.game.is_over() || self.game.side_to_move() == self.opts.human {
            return Ok(());
        }
        let chosen = self.player.choose(&self.game, &mut |_| {});
        // The Player contract says the move is legal; a broken engine must not end the session.
        let legal = self.game.legal_moves();
        let m = if legal.contains(&chosen) { chosen } else { legal[0] };
        let desc = self.describe(m);
        if let Err(why) = self.game.play(m) {
            return writeln!(self.out, "The engine's move {desc} was refused: {why}.");
        }
        writeln!(
            self.out,
            "{} ({}) plays {desc}.",
            self.game.plies().last().unwrap().before.side_to_move().name(),
            self.player.name()
        )?;
        self.show_board(false)?;
        self.announce_result()?;
        Ok(())
    }

    /// `moves SQUARE`: the piece's legal moves (for the side not to move: those it would have
    /// if it were its turn), one per line in both notations.
    fn list_moves(&mut self, arg: &str) -> io::Result<()> {
        let Some(sq) = Square::parse_hodges(arg).or_else(|| Square::parse_cecp(arg)) else {
            return writeln!(self.out, "Usage: moves SQUARE, e.g. 'moves h3' or 'moves 9n' ('{arg}' is not a square).");
        };
        let names = format!("{} ({})", sq.hodges(), sq.cecp());
        let Some(piece) = self.game.position().piece_at(sq) else {
            return writeln!(self.out, "No piece on {names}.");
        };
        let mut pos = *self.game.position();
        let theirs = piece.color() != pos.side_to_move();
        // All the side's moves go into the book: writing a move may need another piece's moves
        // to see whether the origin must be named (R16n-16k).
        let all: Vec<Move> = if theirs {
            pos.set_side_to_move(piece.color());
            engine::legal_moves(&pos, self.game.table())
        } else {
            self.game.legal_moves()
        };
        let moves: Vec<Move> = all.iter().copied().filter(|m| m.from() == Some(sq)).collect();
        let book = HodgesBook::with_moves(&pos, self.game.table(), &all);
        let mut lines: Vec<(String, String)> = moves.iter().map(|&m| (book.write(m), notation::to_cecp(m))).collect();
        lines.sort();
        writeln!(
            self.out,
            "{} {} on {names}: {} move{}{}",
            piece.color().name(),
            piece.kind().info().name,
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            if theirs { " (if it were its turn)" } else { "" }
        )?;
        for (h, c) in lines {
            writeln!(self.out, "  {h:<16} {c}")?;
        }
        Ok(())
    }

    /// Take back the person's last move and everything after it (the engine's reply).
    fn undo(&mut self) -> io::Result<()> {
        let human = self.opts.human;
        let Some(i) = self.game.plies().iter().rposition(|p| p.before.side_to_move() == human) else {
            return writeln!(self.out, "Nothing to undo.");
        };
        let n = self.game.ply_count() - i;
        for _ in 0..n {
            self.game.undo();
        }
        writeln!(self.out, "Took back {n} move{}.", if n == 1 { "" } else { "s" })?;
        self.show_board(false)
    }

    fn hint(&mut self) -> io::Result<()> {
        if self.game.is_over() || self.game.side_to_move() != self.opts.human {
            return writeln!(self.out, "No hint: it is not your turn.");
        }
        let m = self.player.choose(&self.game, &mut |_| {});
        if !self.game.legal_moves().contains(&m) {
            return writeln!(self.out, "No hint: the engine suggested an illegal move ({m}).");
        }
        let desc = self.describe(m);
        writeln!(self.out, "Hint: {desc}")
    }

    fn save(&mut self, arg: &str) -> io::Result<()> {
        if arg.is_empty() {
            return writeln!(self.out, "Usage: save FILE");
        }
        let mut rec = GameRecord::from_game(&self.game, &self.opts.rules_tag);
        let engine = self.player.name();
        let (black, white) =
            if self.opts.human == Color::Black { ("person", engine.as_str()) } else { (engine.as_str(), "person") };
        rec.set_tag("Event", "tenjiku play");
        rec.set_tag("Date", &record_date_now());
        rec.set_tag("Black", black);
        rec.set_tag("White", white);
        match write_atomic(Path::new(arg), rec.to_text().as_bytes()) {
            Ok(()) => writeln!(self.out, "Saved {} plies to {arg}.", self.game.ply_count()),
            Err(e) => writeln!(self.out, "Cannot save to {arg}: {e}."),
        }
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
