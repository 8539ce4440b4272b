//! Piece types (RULES.md §2) and the board-cell encoding of a piece.
//!
//! A piece on the board is its *start type* (one of the 36 types that begin the game), whether
//! it has promoted, and its colour. The type it *moves as* follows from those: a promoted Pawn
//! moves as a Gold but, unlike a Gold that started as one, can never promote again (§2).

use crate::square::Color;

/// The 44 movement types of RULES.md §2, in the table's order. The first 36 are the start
/// types; the last 8 exist only as promoted pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    King,
    GreatGeneral,
    ViceGeneral,
    RookGeneral,
    BishopGeneral,
    FreeEagle,
    Queen,
    SoaringEagle,
    HornedFalcon,
    WaterBuffalo,
    ChariotSoldier,
    FireDemon,
    LionHawk,
    Lion,
    DragonKing,
    DragonHorse,
    Rook,
    Bishop,
    Kirin,
    Phoenix,
    DrunkElephant,
    BlindTiger,
    FerociousLeopard,
    Gold,
    Silver,
    Copper,
    VerticalMover,
    SideMover,
    ReverseChariot,
    VerticalSoldier,
    SideSoldier,
    Lance,
    Knight,
    Iron,
    Dog,
    Pawn,
    Prince,
    FlyingStag,
    FreeBoar,
    FlyingOx,
    WhiteHorse,
    Whale,
    MultiGeneral,
    HeavenlyTetrarch,
}

/// Number of movement types.
pub const NUM_KINDS: usize = 44;
/// Number of start types (the first 36 kinds).
pub const NUM_START_KINDS: usize = 36;

/// Declarative facts about one type: names and promotion (the moves live in `moves.rs`).
pub struct KindInfo {
    pub name: &'static str,
    /// Hodges-style abbreviation (RULES.md §2 "Spec").
    pub abbr: &'static str,
    /// Kanji name, shortened to two characters for the board diagram.
    pub kanji: &'static str,
    /// HaChu/XBoard dressed FEN letter (start types only; promoted-only types are `+` + origin).
    pub fen: &'static str,
    /// Type it promotes to when it starts the game as this type.
    pub promotes_to: Option<Kind>,
    /// Pieces per side at the start.
    pub count: u8,
}

use Kind::*;

const fn k(
    name: &'static str,
    abbr: &'static str,
    kanji: &'static str,
    fen: &'static str,
    promotes_to: Option<Kind>,
    count: u8,
) -> KindInfo {
    KindInfo { name, abbr, kanji, fen, promotes_to, count }
}

/// RULES.md §2, row by row.
pub const KINDS: [KindInfo; NUM_KINDS] = [
    k("King", "K", "王将", "K", None, 1),
    k("Great General", "GG", "大将", "Q!", None, 1),
    k("Vice General", "VG", "副将", "V!", None, 1),
    k("Rook General", "RG", "飛将", "R!", Some(GreatGeneral), 2),
    k("Bishop General", "BG", "角将", "B!", Some(ViceGeneral), 2),
    k("Free Eagle", "FEg", "奔鷲", "Q'", None, 1),
    k("Queen", "Q", "奔王", "Q", Some(FreeEagle), 1),
    k("Soaring Eagle", "SE", "飛鷲", "E!", Some(RookGeneral), 2),
    k("Horned Falcon", "HF", "角鷹", "F!", Some(BishopGeneral), 2),
    k("Water Buffalo", "WB", "水牛", "W!", Some(FireDemon), 2),
    k("Chariot Soldier", "CS", "車兵", "C!", Some(HeavenlyTetrarch), 4),
    k("Fire Demon", "FiD", "火鬼", "D!", None, 2),
    k("Lion Hawk", "LH", "獅鷹", "H!", None, 1),
    k("Lion", "Ln", "獅子", "L!", Some(LionHawk), 1),
    k("Dragon King", "DK", "龍王", "D", Some(SoaringEagle), 2),
    k("Dragon Horse", "DH", "龍馬", "H", Some(HornedFalcon), 2),
    k("Rook", "R", "飛車", "R", Some(DragonKing), 2),
    k("Bishop", "B", "角行", "B", Some(DragonHorse), 2),
    k("Kirin", "Kr", "麒麟", "O", Some(Lion), 1),
    k("Phoenix", "Ph", "鳳凰", "X", Some(Queen), 1),
    k("Drunk Elephant", "DE", "酔象", "E", Some(Prince), 1),
    k("Blind Tiger", "BT", "盲虎", "T", Some(FlyingStag), 2),
    k("Ferocious Leopard", "FL", "猛豹", "F", Some(Bishop), 2),
    k("Gold General", "G", "金将", "G", Some(Rook), 2),
    k("Silver General", "S", "銀将", "S", Some(VerticalMover), 2),
    k("Copper General", "C", "銅将", "C", Some(SideMover), 2),
    k("Vertical Mover", "VM", "竪行", "V", Some(FlyingOx), 2),
    k("Side Mover", "SM", "横行", "M", Some(FreeBoar), 2),
    k("Reverse Chariot", "RC", "反車", "A", Some(Whale), 2),
    k("Vertical Soldier", "VS", "竪兵", "V'", Some(ChariotSoldier), 2),
    k("Side Soldier", "SS", "横兵", "S'", Some(WaterBuffalo), 2),
    k("Lance", "L", "香車", "L", Some(WhiteHorse), 2),
    k("Knight", "N", "桂馬", "N", Some(SideSoldier), 2),
    k("Iron General", "I", "鉄将", "I", Some(VerticalSoldier), 2),
    k("Dog", "D", "犬　", "D'", Some(MultiGeneral), 2),
    k("Pawn", "P", "歩兵", "P", Some(Gold), 16),
    k("Prince", "CP", "太子", "", None, 0),
    k("Flying Stag", "FS", "飛鹿", "", None, 0),
    k("Free Boar", "FB", "奔猪", "", None, 0),
    k("Flying Ox", "FO", "飛牛", "", None, 0),
    k("White Horse", "WH", "白駒", "", None, 0),
    k("Whale", "W", "鯨鯢", "", None, 0),
    k("Multi General", "MG", "雑将", "", None, 0),
    k("Heavenly Tetrarch", "HT", "四天", "", None, 0),
];

impl Kind {
    pub const ALL: [Kind; NUM_KINDS] = [
        King,
        GreatGeneral,
        ViceGeneral,
        RookGeneral,
        BishopGeneral,
        FreeEagle,
        Queen,
        SoaringEagle,
        HornedFalcon,
        WaterBuffalo,
        ChariotSoldier,
        FireDemon,
        LionHawk,
        Lion,
        DragonKing,
        DragonHorse,
        Rook,
        Bishop,
        Kirin,
        Phoenix,
        DrunkElephant,
        BlindTiger,
        FerociousLeopard,
        Gold,
        Silver,
        Copper,
        VerticalMover,
        SideMover,
        ReverseChariot,
        VerticalSoldier,
        SideSoldier,
        Lance,
        Knight,
        Iron,
        Dog,
        Pawn,
        Prince,
        FlyingStag,
        FreeBoar,
        FlyingOx,
        WhiteHorse,
        Whale,
        MultiGeneral,
        HeavenlyTetrarch,
    ];
    #[inline]
    pub fn info(self) -> &'static KindInfo {
        &KINDS[self as usize]
    }
    #[inline]
    pub fn from_index(i: usize) -> Kind {
        Kind::ALL[i]
    }
    pub fn is_start_kind(self) -> bool {
        (self as usize) < NUM_START_KINDS
    }
    /// King and Prince (§8/§9).
    pub fn is_royal(self) -> bool {
        matches!(self, King | Prince)
    }
    /// The start type whose promotion gives this promoted-only type.
    pub fn promoted_from(self) -> Option<Kind> {
        Kind::ALL[..NUM_START_KINDS]
            .iter()
            .copied()
            .find(|k| k.info().promotes_to == Some(self) && !self.is_start_kind())
    }
}

/// A piece: start type, promoted flag and colour, packed in one byte (the board cell code).
/// Code 0 is an empty cell and 255 a guard cell of the mailbox; pieces use `1..=144`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece(u8);

pub const EMPTY: u8 = 0;
pub const GUARD: u8 = 255;
/// Number of distinct piece codes (for tables indexed by code).
pub const NUM_CODES: usize = 1 + NUM_START_KINDS * 4;

impl Piece {
    /// A piece of start type `start` (must be a start type).
    pub fn new(start: Kind, promoted: bool, color: Color) -> Piece {
        assert!(start.is_start_kind(), "{start:?} is not a start type");
        Piece(1 + ((start as u8 * 2 + promoted as u8) * 2 + color as u8))
    }
    /// The piece that moves as `kind` for `color`: an unpromoted start type, or for a
    /// promoted-only type the promoted form of its origin.
    pub fn of_kind(kind: Kind, color: Color) -> Piece {
        match kind.promoted_from() {
            Some(origin) => Piece::new(origin, true, color),
            None => Piece::new(kind, false, color),
        }
    }
    #[inline]
    pub fn from_code(code: u8) -> Option<Piece> {
        if code >= 1 && (code as usize) < NUM_CODES {
            Some(Piece(code))
        } else {
            None
        }
    }
    #[inline]
    pub fn code(self) -> u8 {
        self.0
    }
    #[inline]
    pub fn color(self) -> Color {
        if (self.0 - 1) & 1 == 0 {
            Color::Black
        } else {
            Color::White
        }
    }
    #[inline]
    pub fn promoted(self) -> bool {
        (self.0 - 1) & 2 != 0
    }
    /// The type the piece started the game as.
    #[inline]
    pub fn start_kind(self) -> Kind {
        Kind::from_index(((self.0 - 1) >> 2) as usize)
    }
    /// The type the piece moves as.
    #[inline]
    pub fn kind(self) -> Kind {
        let s = self.start_kind();
        if self.promoted() {
            s.info().promotes_to.expect("promoted piece of a type that cannot promote")
        } else {
            s
        }
    }
    /// Whether the piece may still promote.
    pub fn can_promote(self) -> bool {
        !self.promoted() && self.start_kind().info().promotes_to.is_some()
    }
    pub fn promote(self) -> Piece {
        debug_assert!(self.can_promote());
        Piece(((self.0 - 1) | 2) + 1)
    }
    pub fn with_color(self, c: Color) -> Piece {
        Piece(((self.0 - 1) & !1 | c as u8) + 1)
    }
    /// Hodges abbreviation, `+` prefixed for a promoted piece (`+P` moves as a Gold).
    pub fn abbr(self) -> String {
        if self.promoted() {
            format!("+{}", self.start_kind().info().abbr)
        } else {
            self.start_kind().info().abbr.to_string()
        }
    }
    /// Every valid piece.
    pub fn all() -> impl Iterator<Item = Piece> {
        (1..NUM_CODES as u8).map(Piece).filter(|p| !p.promoted() || p.start_kind().info().promotes_to.is_some())
    }
}

impl std::fmt::Debug for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", if self.color() == Color::Black { "" } else { "v" }, self.abbr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_2_piece_table_has_36_start_types_and_78_pieces() {
        let starts: Vec<_> = Kind::ALL.iter().filter(|k| k.is_start_kind()).collect();
        assert_eq!(starts.len(), 36);
        let total: u32 = KINDS.iter().map(|i| i.count as u32).sum();
        assert_eq!(total, 78);
        for k in Kind::ALL {
            assert_eq!(k.is_start_kind(), !k.info().fen.is_empty());
            if !k.is_start_kind() {
                assert!(k.promoted_from().is_some(), "{k:?}");
                assert!(k.info().promotes_to.is_none());
            }
        }
    }

    #[test]
    fn rules_2_never_promote_list() {
        for k in [King, GreatGeneral, ViceGeneral, FreeEagle, LionHawk, FireDemon] {
            assert!(k.info().promotes_to.is_none(), "{k:?}");
        }
    }

    #[test]
    fn rules_2_promoted_piece_never_promotes_again() {
        let g = Piece::new(Pawn, false, Color::Black).promote();
        assert_eq!(g.kind(), Gold);
        assert!(!g.can_promote());
        assert!(Piece::new(Gold, false, Color::Black).can_promote());
        let r = Piece::new(Rook, false, Color::White).promote();
        assert_eq!(r.kind(), DragonKing);
        assert!(!r.can_promote());
        assert_eq!(r.color(), Color::White);
        assert_eq!(Piece::of_kind(Prince, Color::White).start_kind(), DrunkElephant);
        for p in Piece::all() {
            assert_eq!(Piece::from_code(p.code()), Some(p));
            assert_eq!(p.with_color(p.color().other()).with_color(p.color()), p);
        }
    }
}
