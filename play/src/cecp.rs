//! CECP (XBoard/WinBoard protocol version 2) engine mode.
//!
//! A line-driven state machine over any [`BufRead`] input and [`Write`] output, so tests drive
//! it in-process as well as through the binary's standard input. The engine thinks
//! synchronously: on `go`, or when a `usermove` leaves the engine's side to move, it searches
//! and prints `move X` before reading the next line (no pondering, so `?` is not needed).
//!
//! XBoard 4.9 knows no Tenjiku rules (it ignores the name `tenjiku`), so the game is declared as
//! an *engine-defined variant*: `feature variants="tenjiku"`, and on `variant tenjiku` a
//! `setup (PIECETOCHAR) 16x16+0_chu FEN` line (the Chu Shogi parent gives shogi-style
//! promotion) plus `piece` lines in Betza notation for the pieces whose moves that notation can
//! state exactly. Legality in the GUI comes from the engine: `feature highlight=1` makes XBoard
//! send `lift`/`put`/`hover`, answered with `highlight` colour boards (yellow moves, red
//! captures and burning moves, magenta optional promotions, cyan first legs of multi-leg moves,
//! green burn victims). The GUI needs `-testLegality false`; what XBoard 4.9.1 itself cannot do
//! (moves from its 16th rank, burns) is in docs/xboard.md.
//!
//! Conventions (RULES.md §16): moves are CECP coordinate text; a multi-leg move arrives as one
//! `usermove h8g9,g9g10` and leaves as one `move` line per leg, every leg but the last ending
//! in a comma (the protocol's rule for engine moves). XBoard's FEN calls the first player
//! (our Black, Sente) `w`: the side letter is swapped on `setboard` and in `setup`.
//! Results are `1-0` when the first player (Black) wins, as in the game records.

use engine::notation::{self, parse_cecp_syntax, MoveError};
use engine::rules::Rules;
use engine::Game;
use engine::Move;
use engine::MoveTable;
use engine::Position;
use engine::{parse_fen, FenError};
use engine::{Color, Square};
use engine::{Kind, NUM_START_KINDS};
use search::alphabeta::MAX_DEPTH;
use search::MAX_MOVE_TIME;
use search::{Clock, EngineSpec, Limits, Player, SpecError, Thinking};
use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

/// The most time on a clock that `time`, `otim` and `level` may set: a year, in centiseconds.
pub const MAX_CLOCK_CS: i64 = 365 * 24 * 3600 * 100;

/// The variant name announced to the GUI.
pub const VARIANT: &str = "tenjiku";

/// XBoard 4.9 has 64 piece types per side, the King last. Each slot names the FEN letter shown
/// with that type's image; `^X` is the promoted form of `X` (FEN `+X`). Tenjiku needs 36 start
/// types and 30 promoted forms, two more than fit: the promoted Rook and Bishop Generals
/// (`+R!`, `+B!`, the rarest promotions) have no slot, so a GUI cannot show them (the engine
/// still plays them correctly). The slots' order picks images that resemble the pieces.
const XBOARD_SLOTS: [&str; 64] = [
    "P", "N", "B", "R", "Q", "S", "E", "Q!", "^P", "G", "C", "V!", "^N", "H", "D", "^X", "^L", "Q'", "L", "A", "O",
    "L!", "^G", "^V'", "^V", "C!", "D'", "D!", "^A", "^L!", "^S'", "W!", "H!", "^T", "^D'", "^C!", "V", "I", "M", "^M",
    "^S", "^C", "F", "^I", "^W!", "^F!", "^B", "^R", "V'", "S'", "^Q", "^D", "^H", "^F", "^E!", "T", "E!", "F!", "R!",
    "B!", "X", "^E", "^O", "K",
];

/// Betza notation (XBetza, from the first player's side) of the types whose moves it states
/// exactly, for `piece` lines (RULES.md §5.0). Lions, eagles, generals, the Fire Demon and the
/// Tetrarch have moves Betza cannot express (or XBoard 4.9 cannot parse): the GUI learns
/// those from `highlight` alone.
fn betza(k: Kind) -> Option<&'static str> {
    use Kind::*;
    Some(match k {
        King | Prince => "K",
        Queen => "Q",
        WaterBuffalo => "BsRvR2",
        ChariotSoldier => "BvRsR2",
        DragonKing => "RF",
        DragonHorse => "BW",
        Rook => "R",
        Bishop => "B",
        Kirin => "FD",
        Phoenix => "WA",
        DrunkElephant => "FfsW",
        BlindTiger => "FsWbW",
        FerociousLeopard => "FvW",
        Gold => "WfF",
        Silver => "FfW",
        Copper => "vWfF",
        VerticalMover => "vRsW",
        SideMover => "sRvW",
        ReverseChariot => "vR",
        VerticalSoldier => "fRbWsR2",
        SideSoldier => "sRfR2bW",
        Lance => "fR",
        Knight => "ffN",
        Iron => "fWfF",
        Dog => "fWbF",
        Pawn => "fW",
        FlyingStag => "KvR",
        FreeBoar => "BsR",
        FlyingOx => "BvR",
        WhiteHorse => "vRfB",
        Whale => "vRbB",
        MultiGeneral => "fRbB",
        _ => return None,
    })
}

/// The `setup` line: piece table, board size, parent variant and the start position.
pub fn setup_line() -> String {
    let white: String = XBOARD_SLOTS.concat();
    format!("setup ({white}{}) 16x16+0_chu {}", white.to_ascii_lowercase(), to_xboard_fen(&Position::start()))
}

/// The `piece` lines: one per start type and per promoted form with an exact Betza string.
pub fn piece_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for &k in &Kind::ALL[..NUM_START_KINDS] {
        let info = k.info();
        if let Some(b) = betza(k) {
            lines.push(format!("piece {}& {b}", info.fen));
        }
        if let Some(b) = info.promotes_to.and_then(betza) {
            lines.push(format!("piece +{}& {b}", info.fen));
        }
    }
    lines
}

/// A position in XBoard's FEN convention (first player `w`), with its move counters.
pub fn to_xboard_fen(pos: &Position) -> String {
    let fen = pos.to_fen();
    let (board, side) = fen.rsplit_once(' ').unwrap_or((&fen, "b"));
    format!("{board} {} 0 1", if side == "b" { "w" } else { "b" })
}

/// Read a FEN in XBoard's convention (`w` = the first player, Black); fields after the side to
/// move (castling, counters) are ignored.
pub fn from_xboard_fen(text: &str) -> Result<Position, FenError> {
    let mut fields = text.split_whitespace();
    let board = fields.next().ok_or(FenError::Empty)?;
    let side = match fields.next() {
        None | Some("w") => "b",
        Some("b") => "w",
        Some(s) => return Err(FenError::BadSide { found: s.to_string() }),
    };
    parse_fen(&format!("{board} {side}"))
}

/// Collapse repeated squares in a move text's path (`h8g9,g9g9` → `h8g9`): a GUI finishing a
/// multi-leg entry on the square it stopped at sends a zero-length last leg.
fn normalize_move_text(text: &str) -> String {
    let Ok(p) = parse_cecp_syntax(text) else { return text.trim().to_string() };
    if p.null_pass {
        return "@@@@".into();
    }
    let mut path: Vec<Square> = Vec::new();
    for s in p.from.into_iter().chain(p.via.iter().copied()).chain(p.to) {
        if path.last() != Some(&s) {
            path.push(s);
        }
    }
    if path.len() == 1 {
        path.push(path[0]); // a pass written as g3g3
    }
    let legs: Vec<String> = path.windows(2).map(|w| format!("{}{}", w[0].cecp(), w[1].cecp())).collect();
    format!("{}{}", legs.join(","), if p.promote { "+" } else { "" })
}

/// XBoard 4.9 stores a rank as the character `'1' + rank`, so its 16th rank becomes `@`, and
/// it then sends a move from that rank as a drop: `e16e15` arrives as `E@e15` (the "piece" is
/// the origin's file letter). Turn such text back into the move it was.
fn undo_rank16_drop(text: &str) -> String {
    let t = text.trim();
    let b = t.as_bytes();
    if b.len() > 2 && (b'A'..=b'P').contains(&b[0]) && b[1] == b'@' {
        format!("{}16{}", (b[0] as char).to_ascii_lowercase(), &t[2..])
    } else {
        t.to_string()
    }
}

/// The squares a move visits after its origin: its capture legs, then its destination.
fn legs(m: Move) -> Vec<Square> {
    m.via().chain(m.to()).collect()
}

/// Time control as the GUI set it. `None` = not given; then the engine spec's limits apply.
#[derive(Clone, Copy, Debug, Default)]
struct TimeControl {
    /// `level MPS BASE INC`: moves per period (0 = all), base time, increment.
    level: Option<(u32, Duration, Duration)>,
    /// `st`: fixed time per move.
    movetime: Option<Duration>,
    /// `sd`: depth limit.
    depth: Option<u32>,
    /// `time`: the engine's clock.
    remaining: Option<Duration>,
}

/// The CECP engine: game, engine, GUI settings and the state of a piece being moved in the GUI.
pub struct Cecp<W: Write> {
    out: W,
    spec: EngineSpec,
    rules: Rules,
    table: Arc<MoveTable>,
    player: Box<dyn Player>,
    game: Game,
    /// The side the engine plays; `None` in force mode.
    engine_side: Option<Color>,
    post: bool,
    tc: TimeControl,
    /// The game's end was announced (so it is announced once).
    result_sent: bool,
    /// Squares of the move being entered in the GUI: origin, then legs put down so far.
    path: Vec<Square>,
    /// Squares marked cyan (more legs to come) in the last highlight.
    cyan: Vec<Square>,
    /// The last highlight showed burn victims (to clear them when the pointer moves on).
    victims_shown: bool,
}

impl<W: Write> Cecp<W> {
    /// An engine for `spec` under `rules` (built by the registry), writing to `out`.
    pub fn new(spec: EngineSpec, rules: Rules, out: W) -> Result<Cecp<W>, SpecError> {
        let player = crate::registry::build(&spec, &rules)?;
        let table = Arc::new(MoveTable::new(&rules));
        let game = Game::new(table.clone(), Position::start());
        Ok(Cecp {
            out,
            spec,
            rules,
            table,
            player,
            game,
            engine_side: Some(Color::White),
            post: false,
            tc: TimeControl::default(),
            result_sent: false,
            path: Vec::new(),
            cyan: Vec::new(),
            victims_shown: false,
        })
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Read commands until `quit` or the end of the input.
    pub fn run<R: BufRead>(&mut self, input: R) -> io::Result<()> {
        let mut input = input;
        while let Some(line) = read_line(&mut input)? {
            if !self.handle_line(&line)? {
                break;
            }
        }
        self.out.flush()
    }

    /// Execute one command line. Returns `false` on `quit`.
    pub fn handle_line(&mut self, line: &str) -> io::Result<bool> {
        let line = line.trim();
        let (cmd, arg) = match line.split_once(char::is_whitespace) {
            Some((c, a)) => (c, a.trim()),
            None => (line, ""),
        };
        match cmd {
            "" => {}
            "quit" => {
                self.out.flush()?;
                return Ok(false);
            }
            "xboard" | "random" | "hard" | "easy" | "computer" | "name" | "rating" | "ics" | "accepted"
            | "rejected" | "draw" | "cores" | "option" | "?" | "." | "otim" | "bk" | "hint" | "exit" => {}
            "protover" => self.features()?,
            "new" => self.new_game(Position::start()),
            "variant" => {
                if arg == VARIANT {
                    writeln!(self.out, "{}", setup_line())?;
                    for l in piece_lines() {
                        writeln!(self.out, "{l}")?;
                    }
                } else {
                    writeln!(self.out, "Error (unsupported variant): {arg}")?;
                }
            }
            "setboard" => match from_xboard_fen(arg) {
                Ok(pos) => {
                    self.new_game(pos);
                    self.engine_side = None;
                }
                Err(e) => writeln!(
                    self.out,
                    "tellusererror Illegal position: {}",
                    e.to_string().trim_start_matches("bad FEN: ")
                )?,
            },
            "force" | "result" => self.engine_side = None,
            "go" => {
                self.engine_side = Some(self.game.side_to_move());
                self.engine_turn()?;
            }
            "playother" => self.engine_side = Some(self.game.side_to_move().other()),
            "usermove" => self.user_move(arg)?,
            "undo" => self.take_back(1)?,
            "remove" => self.take_back(2)?,
            "level" => self.level(line, arg)?,
            "st" => match arg.parse::<f64>() {
                Ok(s) if s > 0.0 && s <= MAX_MOVE_TIME.as_secs_f64() => {
                    self.tc.movetime = Some(Duration::from_secs_f64(s))
                }
                _ => writeln!(
                    self.out,
                    "Error (st takes seconds per move, more than 0 and at most {}): {line}",
                    MAX_MOVE_TIME.as_secs()
                )?,
            },
            "sd" => match arg.parse::<u32>() {
                Ok(d) if (1..=MAX_DEPTH).contains(&d) => self.tc.depth = Some(d),
                _ => writeln!(self.out, "Error (sd takes a depth from 1 to {MAX_DEPTH}): {line}")?,
            },
            "time" => match arg.parse::<i64>() {
                Ok(cs) if (0..=MAX_CLOCK_CS).contains(&cs) => {
                    self.tc.remaining = Some(Duration::from_millis(cs as u64 * 10))
                }
                // A clock already run out is XBoard's way of saying "hurry": treat it as zero.
                Ok(cs) if cs < 0 => self.tc.remaining = Some(Duration::ZERO),
                _ => writeln!(self.out, "Error (time takes centiseconds on the clock, 0 to {MAX_CLOCK_CS}): {line}")?,
            },
            "post" => self.post = true,
            "nopost" => self.post = false,
            "ping" => writeln!(self.out, "{}", format!("pong {arg}").trim_end())?,
            "memory" => self.memory(line, arg)?,
            "lift" => self.lift(arg)?,
            "put" => self.put(arg),
            "hover" => self.hover(arg)?,
            // A bare move when the GUI did not take `usermove=1` (protocol version 1).
            _ if parse_cecp_syntax(&undo_rank16_drop(cmd)).is_ok() => self.user_move(line)?,
            _ => writeln!(self.out, "Error (unknown command): {line}")?,
        }
        self.out.flush()?;
        Ok(true)
    }

    fn features(&mut self) -> io::Result<()> {
        writeln!(
            self.out,
            "feature myname=\"Tenjiku Zero ({})\" variants=\"{VARIANT}\" setboard=1 usermove=1 ping=1 memory=1 \
             colors=0 sigint=0 sigterm=0 analyze=0 highlight=1 debug=1 reuse=1",
            self.player.name()
        )?;
        writeln!(self.out, "feature done=1")
    }

    fn new_game(&mut self, start: Position) {
        self.game = Game::new(self.table.clone(), start);
        self.player.new_game();
        self.engine_side = Some(start.side_to_move().other());
        self.tc.depth = None;
        self.result_sent = false;
        self.path.clear();
        self.cyan.clear();
    }

    /// `level MPS BASE INC`, BASE in minutes or `min:sec`.
    fn level(&mut self, line: &str, arg: &str) -> io::Result<()> {
        let f: Vec<&str> = arg.split_whitespace().collect();
        let base = |t: &str| -> Option<f64> {
            match t.split_once(':') {
                Some((m, s)) => Some(m.parse::<f64>().ok()? * 60.0 + s.parse::<f64>().ok()?),
                None => Some(t.parse::<f64>().ok()? * 60.0),
            }
        };
        let parsed =
            (f.len() == 3).then(|| Some((f[0].parse::<u32>().ok()?, base(f[1])?, f[2].parse::<f64>().ok()?))).flatten();
        let max = MAX_CLOCK_CS as f64 / 100.0;
        let seconds = |x: f64| (0.0..=max).contains(&x).then(|| Duration::from_secs_f64(x));
        let durations = parsed.and_then(|(mps, b, inc)| Some((mps, seconds(b)?, seconds(inc)?)));
        match durations {
            Some(level) => {
                self.tc.level = Some(level);
                self.tc.movetime = None;
                Ok(())
            }
            _ => writeln!(
                self.out,
                "Error (expected 'level MPS BASE INC', BASE and INC at most {} seconds): {line}",
                MAX_CLOCK_CS / 100
            ),
        }
    }

    /// `memory N` (megabytes): rebuild the engine with a hash table of that size when its spec
    /// takes one (`tt=N`); engines without one keep going unchanged.
    fn memory(&mut self, line: &str, arg: &str) -> io::Result<()> {
        let max = search::alphabeta::MAX_TT_MB;
        let Some(mb) = arg.parse::<usize>().ok().filter(|mb| (1..=max).contains(mb)) else {
            return writeln!(self.out, "Error (memory must be 1 to {max} megabytes): {line}");
        };
        let mut spec = self.spec.clone();
        spec.params.retain(|(k, _)| k != "tt");
        spec.params.push(("tt".into(), mb.to_string()));
        if let Ok(p) = crate::registry::build(&spec, &self.rules) {
            self.player = p;
            self.spec = spec;
        }
        Ok(())
    }

    /// The limits for the engine's next move: the spec's own, overridden by what the GUI set.
    fn limits(&self) -> Limits {
        let mut l = Limits {
            depth: self.spec.number("depth").ok().flatten(),
            nodes: self.spec.number("nodes").ok().flatten().or(self.spec.number("visits").ok().flatten()),
            movetime: self.spec.duration("time").ok().flatten(),
            clock: None,
        };
        if let Some(d) = self.tc.depth {
            l.depth = Some(d);
        }
        if let Some(t) = self.tc.movetime {
            l.movetime = Some(t);
        } else if let Some((mps, base, inc)) = self.tc.level {
            let own_moves = (self.game.ply_count() / 2) as u32;
            let moves_to_go = if mps > 0 { mps - own_moves % mps } else { 0 };
            l.clock = Some(Clock { remaining: self.tc.remaining.unwrap_or(base), increment: inc, moves_to_go });
        }
        l
    }

    fn user_move(&mut self, text: &str) -> io::Result<()> {
        self.path.clear();
        self.cyan.clear();
        if let Some(o) = self.game.outcome() {
            return writeln!(self.out, "Illegal move (the game is over: {}): {text}", o.describe());
        }
        let norm = normalize_move_text(&undo_rank16_drop(text));
        let m = match notation::parse_cecp(self.game.position(), self.game.table(), &norm) {
            Ok(m) => m,
            Err(e) => {
                let why = match e {
                    MoveError::Malformed { why, .. } | MoveError::Illegal { why, .. } => why,
                    MoveError::Ambiguous { candidates, .. } => format!("ambiguous: {candidates}"),
                };
                return writeln!(self.out, "Illegal move ({}): {text}", why.replace(['(', ')'], ""));
            }
        };
        if let Err(why) = self.game.play(m) {
            return writeln!(self.out, "Illegal move ({}): {text}", why.to_string().replace(['(', ')'], ""));
        }
        if !self.announce_result()? {
            self.engine_turn()?;
        }
        Ok(())
    }

    /// Print `RESULT {comment}` once when the game has ended. Returns whether it has.
    fn announce_result(&mut self) -> io::Result<bool> {
        let Some(o) = self.game.outcome() else { return Ok(false) };
        if !self.result_sent {
            self.result_sent = true;
            writeln!(self.out, "{} {{{}}}", o.result_text(), o.describe())?;
        }
        Ok(true)
    }

    /// Search and play a move if it is the engine's turn.
    fn engine_turn(&mut self) -> io::Result<()> {
        if self.engine_side != Some(self.game.side_to_move()) || self.announce_result()? {
            return Ok(());
        }
        let limits = self.limits();
        self.player.set_limits(limits);
        let post = self.post;
        let out = &mut self.out;
        let mut failed = None;
        let chosen = self.player.choose(&self.game, &mut |t: &Thinking| {
            if post && failed.is_none() {
                let pv: Vec<String> = t.pv.iter().map(|&m| notation::to_cecp(m)).collect();
                let cs = t.time.as_millis() / 10;
                failed = writeln!(out, "{} {} {} {} {}", t.depth, t.score_cp, cs, t.nodes, pv.join(" ")).err();
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        // The Player contract says the move is legal; a broken engine must not end the session.
        let legal = self.game.legal_moves();
        let m = if legal.contains(&chosen) {
            chosen
        } else {
            writeln!(
                self.out,
                "# engine '{}' chose an illegal move {chosen}; playing {} instead",
                self.player.name(),
                legal[0]
            )?;
            legal[0]
        };
        if let Err(e) = self.game.play(m) {
            return writeln!(self.out, "# engine move {m} refused: {e}");
        }
        let text = notation::to_cecp(m);
        let parts: Vec<&str> = text.split(',').collect();
        for (i, leg) in parts.iter().enumerate() {
            writeln!(self.out, "move {leg}{}", if i + 1 < parts.len() { "," } else { "" })?;
        }
        self.announce_result()?;
        Ok(())
    }

    fn take_back(&mut self, plies: usize) -> io::Result<()> {
        if self.game.ply_count() < plies {
            return writeln!(self.out, "Error (command not legal now): {}", if plies == 1 { "undo" } else { "remove" });
        }
        for _ in 0..plies {
            self.game.undo();
        }
        self.result_sent = self.game.is_over();
        self.path.clear();
        self.cyan.clear();
        Ok(())
    }

    /// Legal moves of the piece on `path[0]` whose first legs are `path[1..]`.
    fn moves_along(&self, path: &[Square]) -> Vec<Move> {
        let Some(&origin) = path.first() else { return Vec::new() };
        let k = path.len() - 1;
        self.game
            .legal_moves()
            .into_iter()
            .filter(|m| m.from() == Some(origin) && !m.is_null_pass())
            .filter(|&m| {
                let l = legs(m);
                l.len() >= k && l[..k] == path[1..]
            })
            .collect()
    }

    /// Legal moves that go on beyond the GUI's partial entry `path`. A piece's own pass
    /// (`g3g3`) is left out: the GUI cannot enter a move onto the square it starts from.
    fn matching_moves(&self, path: &[Square]) -> Vec<Move> {
        let k = path.len().saturating_sub(1);
        self.moves_along(path).into_iter().filter(|&m| legs(m).len() > k && !(k == 0 && m.is_piece_pass())).collect()
    }

    /// The colour board for the next square of the entry `path`: yellow = move there, red =
    /// capture (or a move that burns, so that hovering it shows the victims), magenta = the
    /// move may promote or not, cyan = a capture with more legs to follow; `extra` adds marks
    /// such as burn victims. Also returns the cyan squares.
    fn highlight_board(&self, path: &[Square], extra: &[(Square, char)]) -> (String, Vec<Square>) {
        const PRIORITY: [char; 4] = ['Y', 'R', 'M', 'C'];
        let rank = |c: char| PRIORITY.iter().position(|&p| p == c);
        let along = self.moves_along(path);
        let k = path.len() - 1;
        let mut cells = [None::<char>; 256];
        let mut mark = |sq: Square, c: char| {
            let cell = &mut cells[sq.index()];
            if cell.is_none_or(|old| rank(old) < rank(c)) {
                *cell = Some(c);
            }
        };
        for &m in &along {
            let l = legs(m);
            if l.len() == k {
                // A later leg: the piece may also stop where it stands (a plain capture there).
                mark(path[k], 'R');
                continue;
            }
            if k == 0 && m.is_piece_pass() {
                continue;
            }
            let c = if l.len() > k + 1 {
                'C'
            } else if along.contains(&m.with_promotion(!m.promotes())) {
                'M'
            } else if self.removes_enemy(m) || l[k] == path[0] {
                'R'
            } else {
                'Y'
            };
            mark(l[k], c);
        }
        let cyan: Vec<Square> = Square::all().filter(|s| cells[s.index()] == Some('C')).collect();
        // Extra marks are lower case (not a destination) unless the square is one anyway.
        for &(sq, c) in extra {
            let cell = &mut cells[sq.index()];
            *cell = Some(if cell.is_some() { c.to_ascii_uppercase() } else { c.to_ascii_lowercase() });
        }
        let mut s = String::new();
        for rank in (0..16).rev() {
            let mut empty = 0;
            for file in 0..16 {
                match cells[Square::new(file, rank).unwrap().index()] {
                    Some(c) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if rank > 0 {
                s.push('/');
            }
        }
        (s, cyan)
    }

    /// Whether `m` captures on its destination or burns an enemy piece (captures on earlier
    /// legs were shown by the legs before).
    fn removes_enemy(&self, m: Move) -> bool {
        let mut p = *self.game.position();
        let us = p.side_to_move();
        let eff = p.play(self.game.table(), m);
        eff.captured().any(|(s, _)| Some(s) == m.to()) || eff.burned().any(|(_, pc)| pc.color() != us)
    }

    fn lift(&mut self, arg: &str) -> io::Result<()> {
        let Some(sq) = Square::parse_cecp(arg.trim_end_matches(',')) else {
            return writeln!(self.out, "Error (bad square): lift {arg}");
        };
        // Lifting the piece where it was put down continues a multi-leg entry.
        if !(self.path.len() >= 2 && self.path.last() == Some(&sq)) {
            self.path = vec![sq];
        }
        self.victims_shown = false;
        let (board, cyan) = self.highlight_board(&self.path, &[]);
        self.cyan = cyan;
        if board.bytes().all(|b| b.is_ascii_digit() || b == b'/') {
            return Ok(()); // nothing to show; an empty board would forbid every square
        }
        writeln!(self.out, "highlight {board}")
    }

    fn put(&mut self, arg: &str) {
        match Square::parse_cecp(arg.trim_end_matches(',')) {
            Some(sq) if self.cyan.contains(&sq) && !self.path.is_empty() => self.path.push(sq),
            _ => {
                self.path.clear();
                self.cyan.clear();
            }
        }
    }

    /// `hover SQUARE` over a red square: also mark in green the enemies the move would burn
    /// (`G` where the square is a destination too, `g` where it is not).
    fn hover(&mut self, arg: &str) -> io::Result<()> {
        let Some(sq) = Square::parse_cecp(arg.trim_end_matches(',')) else {
            return writeln!(self.out, "Error (bad square): hover {arg}");
        };
        if self.path.is_empty() {
            return Ok(());
        }
        let k = self.path.len() - 1;
        let us = self.game.side_to_move();
        let mut victims: Vec<(Square, char)> = Vec::new();
        for m in self.matching_moves(&self.path) {
            let l = legs(m);
            if l.len() != k + 1 || l[k] != sq {
                continue;
            }
            let mut p = *self.game.position();
            let eff = p.play(self.game.table(), m);
            victims.extend(eff.burned().filter(|(_, pc)| pc.color() != us).map(|(s, _)| (s, 'g')));
        }
        if victims.is_empty() && !self.victims_shown {
            return Ok(());
        }
        self.victims_shown = !victims.is_empty();
        let (board, _) = self.highlight_board(&self.path, &victims);
        writeln!(self.out, "highlight {board}")
    }
}

/// The next input line, bytes that are not UTF-8 replaced (so that garbage is answered like any
/// unknown command instead of ending the session); `None` at the end of the input.
pub fn read_line<R: BufRead>(input: &mut R) -> io::Result<Option<String>> {
    let mut buf = Vec::new();
    if input.read_until(b'\n', &mut buf)? == 0 {
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

/// Run a CECP session: commands from `input`, answers to `output`.
pub fn run<R: BufRead, W: Write>(input: R, output: W, spec: EngineSpec, rules: Rules) -> Result<(), CecpError> {
    let mut c = Cecp::new(spec, rules, output)?;
    c.run(input)?;
    Ok(())
}

/// Why a CECP session could not start or went on.
#[derive(Debug, thiserror::Error)]
pub enum CecpError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("i/o: {0}")]
    Io(#[from] io::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Cecp<Vec<u8>> {
        Cecp::new(EngineSpec::parse("random").unwrap(), Rules::standard(), Vec::new()).unwrap()
    }
    /// Send lines, return what the engine answered to them.
    fn send(c: &mut Cecp<Vec<u8>>, lines: &[&str]) -> String {
        c.out.clear();
        for l in lines {
            c.handle_line(l).unwrap();
        }
        String::from_utf8(c.out.clone()).unwrap()
    }

    #[test]
    fn xboard_slots_cover_every_start_type_and_promotion() {
        let start: Vec<&str> = Kind::ALL[..NUM_START_KINDS].iter().map(|k| k.info().fen).collect();
        assert_eq!(XBOARD_SLOTS.last(), Some(&"K"));
        for l in &start {
            assert_eq!(XBOARD_SLOTS.iter().filter(|s| *s == l).count(), 1, "{l}");
            let promoted = format!("^{l}");
            let can =
                Kind::ALL[..NUM_START_KINDS].iter().find(|k| k.info().fen == *l).unwrap().info().promotes_to.is_some();
            let want = usize::from(can && *l != "R!" && *l != "B!");
            assert_eq!(XBOARD_SLOTS.iter().filter(|s| **s == promoted).count(), want, "{promoted}");
        }
        assert!(XBOARD_SLOTS.iter().all(|s| start.contains(&s.trim_start_matches('^'))));
    }

    #[test]
    fn protover_variant_and_ping() {
        let mut c = engine();
        let out = send(&mut c, &["xboard", "protover 2"]);
        assert!(
            out.contains("variants=\"tenjiku\"") && out.contains("highlight=1") && out.ends_with("feature done=1\n"),
            "{out}"
        );
        let out = send(&mut c, &["new", "variant tenjiku", "ping 7"]);
        let first = out.lines().next().unwrap();
        assert!(
            first.starts_with("setup (PNBRQ")
                && first.contains(") 16x16+0_chu lnficsgekgscifnl/")
                && first.ends_with(" w 0 1"),
            "{first}"
        );
        assert!(out.contains("piece P& fW\n") && out.contains("piece +P& WfF\n"), "{out}");
        assert!(out.ends_with("pong 7\n"));
        assert!(send(&mut c, &["variant chess"]).starts_with("Error (unsupported variant)"));
        assert!(send(&mut c, &["frobnicate 3"]).starts_with("Error (unknown command): frobnicate 3"));
    }

    #[test]
    fn user_moves_engine_replies_and_bad_moves_are_refused() {
        let mut c = engine();
        let out = send(&mut c, &["new", "usermove h5h6"]);
        assert_eq!(c.game.ply_count(), 2, "{out}");
        assert!(out.starts_with("move "), "{out}");
        for bad in ["usermove h5h6", "usermove z9z9", "usermove a1a2"] {
            let out = send(&mut c, &[bad]);
            assert!(out.starts_with("Illegal move (") && out.trim_end().ends_with(&bad[9..]), "{out}");
        }
        assert_eq!(c.game.ply_count(), 2);
        send(&mut c, &["force", "usermove h6h7", "remove"]);
        assert_eq!(c.game.ply_count(), 1);
        assert!(send(&mut c, &["undo", "undo"]).starts_with("Error (command not legal now)"));
    }

    #[test]
    fn setboard_swaps_the_side_letter() {
        let mut c = engine();
        // XBoard's `b` is the second player: our White.
        let fen = "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/P15/15K b - - 0 1";
        assert_eq!(send(&mut c, &["setboard ".to_string() + fen].iter().map(|s| s.as_str()).collect::<Vec<_>>()), "");
        assert_eq!(c.game.side_to_move(), Color::White);
        assert_eq!(to_xboard_fen(c.game.position()), "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/P15/15K b 0 1");
        assert!(send(&mut c, &["setboard 16/16 w"]).starts_with("tellusererror Illegal position"));
        // A king capture ends the game with a result line.
        send(&mut c, &["setboard k15/P15/16/16/16/16/16/16/16/16/16/16/16/16/16/15K w"]);
        let out = send(&mut c, &["usermove a15a16+"]);
        assert!(out.starts_with("1-0 {Black wins"), "{out}");
        assert!(send(&mut c, &["usermove p1o1"]).starts_with("Illegal move (the game is over"));
    }

    #[test]
    fn lift_highlights_destinations_and_lion_legs() {
        let mut c = engine();
        // Black's pawn on h5 steps to h6.
        let out = send(&mut c, &["lift h5"]);
        assert_eq!(out, "highlight 16/16/16/16/16/16/16/16/16/16/7Y8/16/16/16/16/16\n");
        assert_eq!(send(&mut c, &["lift a8"]), "", "no moves: no highlight");
        // A Lion next to an enemy pawn: capture squares are cyan (a second leg may follow).
        send(&mut c, &["setboard k15/16/16/16/16/16/16/16/16/16/16/16/16/7p8/7L!8/K15 w"]);
        let out = send(&mut c, &["lift h2"]);
        assert!(out.starts_with("highlight ") && out.contains('C'), "{out}");
        send(&mut c, &["put h3"]);
        let out = send(&mut c, &["lift h3"]);
        // Second leg: stop on h3 (red), go on to the empty neighbours, or back home (igui).
        assert!(out.contains('R') && out.contains('Y'), "{out}");
        assert_eq!(normalize_move_text("h2h3,h3h3"), "h2h3");
        assert_eq!(undo_rank16_drop("E@e15"), "e16e15");
        assert_eq!(undo_rank16_drop("h5h6"), "h5h6");
        assert_eq!(send(&mut c, &["usermove h2h3,h3h2"]), "", "igui accepted (force mode: no reply)");
        assert_eq!(c.game.ply_count(), 1);
        // A Fire Demon's move next to two enemies: hovering it shows the victims in green.
        send(&mut c, &["setboard k15/16/16/16/16/16/16/8d!7/16/7P1P6/16/16/16/16/16/15K b"]);
        assert!(send(&mut c, &["lift i9"]).contains("5YRRRRRY4"));
        assert_eq!(send(&mut c, &["hover i16"]), "", "no burn victims: nothing to add");
        let out = send(&mut c, &["hover i8"]);
        assert!(out.contains("/5YRRRRRY4/5YRGRGRY4/"), "victims h7 and j7 in green: {out}");
        assert!(!send(&mut c, &["hover i16"]).contains('G'), "moving on clears the victims");
    }

    /// Numbers at the edges: a time or depth no clock can hold is an error line, never a panic,
    /// and the engine still moves afterwards.
    #[test]
    fn time_and_depth_commands_take_values_in_range() {
        let mut c = engine();
        for (line, want) in [
            ("st 1e30", "Error (st takes seconds per move"),
            ("st 0", "Error (st takes seconds per move"),
            ("st NaN", "Error (st takes seconds per move"),
            ("sd 0", "Error (sd takes a depth from 1 to 48)"),
            ("sd 4294967295", "Error (sd takes a depth from 1 to 48)"),
            ("time 99999999999999", "Error (time takes centiseconds on the clock"),
            ("level 40 1e30 0", "Error (expected 'level MPS BASE INC'"),
            ("level 40 5 1e300", "Error (expected 'level MPS BASE INC'"),
            ("memory 99999999999999999999", "Error (memory must be 1 to 65536 megabytes)"),
            ("memory 0", "Error (memory must be 1 to 65536 megabytes)"),
        ] {
            let out = send(&mut c, &[line]);
            assert!(out.starts_with(want), "{line}: {out}");
            assert_eq!(out.lines().count(), 1, "{line}: {out}");
        }
        assert!(send(&mut c, &["st 86400", "time -5", "otim 100", "level 0 1:30 2"]).is_empty());
        let out = send(&mut c, &["new", "go"]);
        assert!(out.contains("move "), "{out}");
    }
}
