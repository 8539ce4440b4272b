//! The board as people read it: kanji or English piece names, Black at the bottom, coordinates
//! on both edges.
//!
//! Both coordinate systems of RULES.md §1 can be read off the same diagram: Hodges files
//! `16 … 1` above and below the board with rank letters `a … p` on the right (`9p`), CECP file
//! letters `a … p` below with rank numbers `16 … 1` on the left (`h1`). The promotion zones'
//! edges (after the 5th rank from each side) are dashed lines.
//!
//! Every cell has the same display width whatever stands on it, so the columns stay aligned
//! in a terminal: kanji count two columns each ([`display_width`]), and without colour the
//! markers are plain characters — `v` before a White piece (as in shogi diagrams), `+` for a
//! promoted piece, `[ ]` around highlighted squares, `!` on a square whose piece just burned.
//! English cells show [`Piece::abbr`] (the start type: `+P` is a promoted Pawn moving as a
//! Gold); kanji cells show the type the piece moves as, since that is what a player needs.

use engine::Piece;
use engine::Position;
use engine::{Color, Square};

/// Piece names in the diagram.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// Two-character kanji of the type the piece moves as (`獅子`), `+` when promoted.
    Kanji,
    /// Hodges abbreviations as [`Piece::abbr`] writes them (`Ln`, `+P`, `FiD`).
    #[default]
    English,
}

/// What [`render`] draws.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    pub style: Style,
    /// ANSI colours for sides, promoted pieces, highlights and burns. Without it the text has
    /// no escape codes at all and every mark is a plain character.
    pub color: bool,
    /// Squares to mark, e.g. the last move's origin, captures and destination.
    pub highlight: Vec<Square>,
    /// Squares whose pieces were burned by the last move.
    pub burned: Vec<Square>,
    /// Add lines explaining the marks.
    pub legend: bool,
}

const RESET: &str = "\x1b[0m";
const BLACK_PIECE: &str = "\x1b[1;34m";
const BLACK_PROMOTED: &str = "\x1b[1;36m";
const WHITE_PIECE: &str = "\x1b[1;31m";
const WHITE_PROMOTED: &str = "\x1b[1;35m";
const HIGHLIGHT_BG: &str = "\x1b[43m";
const BURNED: &str = "\x1b[1;37;41m";
const DIM: &str = "\x1b[2m";

/// Display columns of a string in a terminal: escape sequences take none, East Asian wide
/// characters (kanji, kana, full-width forms) two, everything else one.
pub fn display_width(s: &str) -> usize {
    let mut width = 0;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC '[' parameters, ended by a byte in '@'..='~'.
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        width += char_width(c);
    }
    width
}

fn char_width(c: char) -> usize {
    let u = c as u32;
    if u < 0x20 || (0x7f..0xa0).contains(&u) {
        return 0;
    }
    let wide = matches!(u,
        0x1100..=0x115F | 0x2E80..=0x303E | 0x3041..=0x33FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6 | 0x1F300..=0x1F64F | 0x1F900..=0x1F9FF | 0x20000..=0x3FFFD);
    if wide {
        2
    } else {
        1
    }
}

/// Pad `s` with spaces on the right to `width` display columns.
fn pad_to(s: &str, width: usize) -> String {
    let w = display_width(s);
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

/// Text of one cell (without highlight brackets) and the colour it is drawn in.
fn cell_text(pos: &Position, sq: Square, opts: &RenderOptions) -> (String, Option<&'static str>) {
    let kanji = opts.style == Style::Kanji;
    match pos.piece_at(sq) {
        Some(p) => {
            let side = if p.color() == Color::White { "v" } else { " " };
            let text = if kanji {
                // Side marker, promotion marker, then the kanji (4 columns).
                format!("{side}{}{}", if p.promoted() { "+" } else { " " }, pad_to(p.kind().info().kanji, 4))
            } else {
                format!("{side}{}", pad_to(&p.abbr(), 3))
            };
            (text, Some(piece_colour(p)))
        }
        None if opts.burned.contains(&sq) => {
            (if kanji { "  !!  ".to_string() } else { "  ! ".to_string() }, Some(BURNED))
        }
        None => (if kanji { "  ・  ".to_string() } else { "  . ".to_string() }, Some(DIM)),
    }
}

fn piece_colour(p: Piece) -> &'static str {
    match (p.color(), p.promoted()) {
        (Color::Black, false) => BLACK_PIECE,
        (Color::Black, true) => BLACK_PROMOTED,
        (Color::White, false) => WHITE_PIECE,
        (Color::White, true) => WHITE_PROMOTED,
    }
}

/// The board as text, Black at the bottom, one line per rank plus headers, zone lines, the
/// side to move and (with `legend`) what the marks mean. Lines end with `\n`.
pub fn render(pos: &Position, opts: &RenderOptions) -> String {
    let kanji = opts.style == Style::Kanji;
    // Content columns of a cell; each cell also has one separator column before it.
    let cell_w = if kanji { 6 } else { 4 };
    let inner = 16 * (cell_w + 1) + 1;
    const MARGIN: usize = 7;
    let paint = |text: &str, code: Option<&str>| match (opts.color, code) {
        (true, Some(c)) => format!("{c}{text}{RESET}"),
        _ => text.to_string(),
    };
    let mut lines: Vec<String> = Vec::new();
    // File labels, centred over the piece part of each cell.
    let labels = |names: &dyn Fn(i32) -> String| {
        let mut s = String::new();
        for f in 0..16 {
            let name = names(f);
            let (lead, width) = if kanji { (2, 4) } else { (1, 3) };
            let left = (width - name.len()) / 2;
            let cell = format!("{}{name}", " ".repeat(lead + left));
            s.push(' ');
            s.push_str(&pad_to(&cell, cell_w));
        }
        s.push(' ');
        s
    };
    let hodges_files = labels(&|f| (16 - f).to_string());
    lines.push(format!("{:<MARGIN$} {hodges_files}   ", "Hodges"));
    let border = format!("{:MARGIN$}+{}+  ", "", "-".repeat(inner));
    lines.push(border.clone());
    let zone_line = {
        let dashes: String = (0..inner).map(|i| if i % 2 == 1 { '-' } else { ' ' }).collect();
        format!("{:MARGIN$}|{}|  ", "", paint(&dashes, Some(DIM)))
    };
    for rank in (0..16).rev() {
        let hl = |f: i32| Square::new(f, rank).is_some_and(|s| opts.highlight.contains(&s));
        let mut row = format!("{:>MARGIN$}|", format!("{} ", rank + 1));
        for f in 0..=16 {
            // Separator before cell f: brackets around highlighted cells, a bar between two.
            row.push(match (f > 0 && hl(f - 1), f < 16 && hl(f)) {
                (false, false) => ' ',
                (false, true) => '[',
                (true, false) => ']',
                (true, true) => '|',
            });
            if f == 16 {
                break;
            }
            let Some(sq) = Square::new(f, rank) else { continue };
            let (text, colour) = cell_text(pos, sq, opts);
            let text = pad_to(&text, cell_w);
            let painted = match (opts.color && hl(f), colour) {
                (true, Some(c)) if c != BURNED => format!("{HIGHLIGHT_BG}{c}{text}{RESET}"),
                (true, _) => format!("{HIGHLIGHT_BG}{text}{RESET}"),
                (false, c) => paint(&text, c),
            };
            row.push_str(&painted);
        }
        row.push_str(&format!("| {}", (b'a' + (15 - rank) as u8) as char));
        lines.push(row);
        // Zone edges: after Hodges rank e (CECP 12) and before rank l (CECP 5).
        if rank == 11 || rank == 5 {
            lines.push(zone_line.clone());
        }
    }
    lines.push(border);
    lines.push(format!("{:<MARGIN$} {hodges_files}   ", "Hodges"));
    let cecp_files = labels(&|f| ((b'a' + f as u8) as char).to_string());
    lines.push(format!("{:<MARGIN$} {cecp_files}   ", "CECP"));
    let mut out = String::new();
    for l in &lines {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str("Hodges square = file 16..1 (top/bottom) + rank a..p (right), e.g. 9p;\n");
    out.push_str("CECP square = file a..p (bottom) + rank 1..16 (left), e.g. h1 (= 9p).\n");
    if pos.is_finished() {
        let loser = if pos.royal_count(Color::Black) == 0 { Color::Black } else { Color::White };
        out.push_str(&format!("Game over: {} has no King or Prince left.\n", loser.name()));
    } else {
        let side = match pos.side_to_move() {
            Color::Black => "Black (Sente, bottom)",
            Color::White => "White (Gote, top)",
        };
        out.push_str(&format!("{side} to move.\n"));
    }
    if opts.legend {
        let names = if kanji {
            "kanji of the type the piece moves as; '+' before it: promoted"
        } else {
            "Hodges abbreviation of the type the piece started as; '+' before it: promoted (+P moves as G)"
        };
        out.push_str(&format!("Pieces: {names}.\n"));
        out.push_str("'v' before a piece: White (Gote); none: Black (Sente). '[ ]': highlighted squares; ");
        out.push_str("'!': burned.\nDashed lines: promotion zones (Black: ranks a-e, White: ranks l-p).\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Kind;

    fn sq(h: &str) -> Square {
        Square::parse_hodges(h).unwrap()
    }

    /// The lines that draw the board itself (headers, borders, ranks, zone lines, footers).
    fn grid(text: &str) -> Vec<&str> {
        text.lines().take(16 + 2 + 2 + 3).collect()
    }

    fn options(style: Style, color: bool) -> RenderOptions {
        RenderOptions {
            style,
            color,
            highlight: vec![sq("9l"), sq("9k"), sq("8k")],
            burned: vec![sq("5f")],
            legend: true,
        }
    }

    #[test]
    fn start_position_rows_align_in_both_styles() {
        let pos = Position::start();
        for style in [Style::English, Style::Kanji] {
            for color in [false, true] {
                let text = render(&pos, &options(style, color));
                let g = grid(&text);
                let ranks: Vec<&&str> =
                    g.iter().filter(|l| l.ends_with(|c: char| ('a'..='p').contains(&c)) && l.contains('|')).collect();
                assert_eq!(ranks.len(), 16, "{text}");
                let w = display_width(g[0]);
                for line in &g {
                    assert_eq!(display_width(line), w, "{style:?} color={color}: '{line}'\n{text}");
                }
                assert_eq!(color, text.contains('\x1b'), "{style:?} color={color}");
                assert!(text.contains("Black (Sente, bottom) to move"));
            }
        }
    }

    #[test]
    fn both_coordinate_systems_are_shown() {
        let pos = Position::start();
        let text = render(&pos, &RenderOptions::default());
        let lines: Vec<&str> = text.lines().collect();
        let header: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(header[0], "Hodges");
        let files: Vec<String> = (1..=16).rev().map(|n: i32| n.to_string()).collect();
        assert_eq!(header[1..], files[..]);
        let cecp = lines.iter().find(|l| l.starts_with("CECP")).unwrap();
        let letters: Vec<&str> = cecp.split_whitespace().skip(1).collect();
        assert_eq!(letters.concat(), "abcdefghijklmnop");
        // Top rank: CECP 16 on the left, Hodges a on the right; bottom: 1 and p.
        let top = lines[2];
        assert!(top.trim_start().starts_with("16 |") && top.ends_with("| a"), "{top}");
        let bottom = lines.iter().rev().find(|l| l.ends_with("| p")).unwrap();
        assert!(bottom.trim_start().starts_with("1 |"), "{bottom}");
        // White's pieces carry 'v'; Black's King stands on 9p (CECP h1), White's on 8a.
        assert!(top.contains("vK "), "{top}");
        let cells: Vec<&str> = bottom.split('|').nth(1).unwrap().split_whitespace().collect();
        assert_eq!(cells[7], "K");
        assert_eq!(lines.iter().filter(|l| l.contains("- - -")).count(), 2, "two zone lines");
    }

    #[test]
    fn marks_without_colour_are_plain_characters() {
        let mut pos = Position::empty();
        pos.put(sq("9p"), Piece::new(Kind::King, false, Color::Black));
        pos.put(sq("8a"), Piece::new(Kind::King, false, Color::White));
        pos.put(sq("9h"), Piece::new(Kind::Pawn, true, Color::Black));
        pos.put(sq("8h"), Piece::new(Kind::Lion, false, Color::White));
        pos.put(sq("7h"), Piece::new(Kind::Dog, false, Color::Black));
        let opts = RenderOptions { highlight: vec![sq("9h"), sq("8h")], burned: vec![sq("6h")], ..Default::default() };
        let text = render(&pos, &opts);
        let row = text.lines().find(|l| l.ends_with("| h")).unwrap();
        assert!(row.contains("[ +P |vLn ] D"), "{row}");
        assert!(row.contains("  ! "), "{row}");
        let kanji = render(&pos, &RenderOptions { style: Style::Kanji, ..opts });
        let row = kanji.lines().find(|l| l.ends_with("| h")).unwrap();
        // The promoted Pawn moves as a Gold: 金将 with '+'; White's Lion 獅子 with 'v'.
        assert!(row.contains("[ +金将|v 獅子]  犬"), "{row}");
        assert!(!kanji.contains('\x1b'));
        let w = display_width(kanji.lines().next().unwrap());
        assert!(grid(&kanji).iter().all(|l| display_width(l) == w), "{kanji}");
    }

    #[test]
    #[ignore = "prints sample diagrams; run with --ignored --nocapture"]
    fn print_samples() {
        let pos = Position::start();
        for style in [Style::English, Style::Kanji] {
            for color in [false, true] {
                println!("{}", render(&pos, &options(style, color)));
            }
        }
    }

    #[test]
    fn display_width_counts_kanji_twice_and_escapes_not_at_all() {
        assert_eq!(display_width("Ln"), 2);
        assert_eq!(display_width("獅子"), 4);
        assert_eq!(display_width("犬　"), 4);
        assert_eq!(display_width("\x1b[1;31mvLn\x1b[0m"), 3);
        for k in Kind::ALL {
            assert_eq!(display_width(k.info().kanji), 4, "{k:?}");
        }
    }
}
