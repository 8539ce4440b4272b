//! The project's piece values: two named tables, one per purpose, each number with its source.
//!
//! - [`search_value`]: the alpha-beta engine's material evaluation and move ordering, the MCTS
//!   material evaluator's capture priors, and the encoding's cheaper-capturer planes. Tuned for
//!   play: the alpha-beta engine's self-play matches chose the terms around it (BENCHMARKS.md,
//!   "Alpha-beta baseline"), and it is the evaluation of the yardstick every strength figure of
//!   the project is measured against.
//! - [`material_value`]: plain material for arena adjudication ([`material_balance`]) and the
//!   network's material target (the game's final balance). Its job is to be a stable unit: every
//!   adjudicated arena record, every run config's `eval_adjudicate_cp`, the ladder's protocol
//!   (`--adjudicate-material 2500`) and the shipped network's material head are in it.
//!
//! Why not one table: measured in the redesign (BENCHMARKS.md, "Piece values"), the two
//! tables adjudicate equally well. Over 7,795 arena games that ended by the rules, material
//! adjudication after 16 plies would have decided 27.5% of its games (`material_value`, 2,000
//! cp) and 24.1% (`search_value`, 3,000 cp) for the side that went on to lose, at the same
//! coverage; and 100 games of the ladder protocol (MCTS 64 visits against depth 2) adjudicated
//! at `material_value` 2,500 cp and at the `search_value` margin exceeded as often (3,850 cp)
//! gave the same 9 adjudications and the same result in every game. Merging them would change
//! the unit of every recorded margin and of the network's material target for no measured
//! gain, and would tie adjudication to whatever the search's tuning needs next.
//!
//! # Search values
//!
//! The seed's German Chu Shogi Association averages were lost from the seed text, so the only
//! numeric source is HaChu 0.21's table (Pawn = 40), quoted in the project's
//! `reference/piece-values.md`. Every HaChu number below is that value × 2.5 (marked **H**).
//! HaChu's Tenjiku-only pieces carry placeholder values there; their numbers here are our own
//! estimates (marked **E**), following the reference's advice: average mobility on a board of
//! typical density, compared with the nearest piece HaChu does value, without any share of the
//! promoted form (the promotion-potential term adds that share when promotion is near).
//!
//! | type | cp | source |
//! |---|---|---|
//! | King | 700 | H 280 (royal; the last royal's loss is scored as mate by the search) |
//! | Prince | 675 | H 270 (a second royal) |
//! | Great General | 3750 | H 1500 |
//! | Vice General | 3500 | H 1400 |
//! | Rook General | 3000 | H 1200 |
//! | Bishop General | 2750 | H 1100 |
//! | Fire Demon | 4000 | E: HaChu's 5000 is a marker (×2.5 = 12500, far too high); Free Boar slides (1000) + 3-step area move (about a Lion, 2500) + burning; set just above the Great General, the strongest piece HaChu values |
//! | Lion Hawk | 3000 | E: Lion (2500) + Bishop slides (625), a little less than the sum (the 24-square area overlaps the near diagonal squares) |
//! | Lion | 2500 | H 1000 |
//! | Free Eagle | 2000 | E: Queen (1500) + 8 distance-2 jumps + diagonal lion power |
//! | Queen | 1500 | H 600 |
//! | Heavenly Tetrarch | 1400 | E: skip-first slides on 6 lines + sideways 2–3 + igui on 8 squares; between Free Boar/Flying Ox (1000) and Queen (1500) |
//! | Soaring Eagle | 1250 | E: Dragon King (1000) with forward-diagonal lion power instead of diagonal steps, plus backward diagonal slides |
//! | Horned Falcon | 1200 | E: Dragon Horse (875) with forward lion power, plus sideways/backward slides |
//! | Chariot Soldier | 1150 | E: Flying Ox (1000) + two-square sideways moves |
//! | Water Buffalo | 1100 | E: Free Boar (1000) + two-square vertical moves |
//! | Dragon King | 1000 | H 400 |
//! | Flying Ox, Free Boar | 1000 | H 400 |
//! | Dragon Horse, White Horse | 875 | H 350 |
//! | Rook, Flying Stag | 750 | H 300 |
//! | Bishop, Whale | 625 | H 250 |
//! | Multi General | 550 | E: forward slide + backward diagonal slides, between Lance (375) and Whale (625) |
//! | Drunk Elephant | 503 | H 201 |
//! | Vertical Mover, Side Mover | 500 | H 200 |
//! | Vertical Soldier, Side Soldier | 450 | E: a Lance/Side Mover-like slide plus short moves; a little under the Movers |
//! | Kirin | 385 | H 154 |
//! | Phoenix | 383 | H 153 |
//! | Blind Tiger | 380 | H 152 |
//! | Gold | 378 | H 151 |
//! | Ferocious Leopard, Reverse Chariot, Lance | 375 | H 150 |
//! | Silver, Copper | 250 | H 100 |
//! | Iron General | 200 | E: three forward steps (a Silver without the backward steps) |
//! | Knight | 175 | E: two forward jumps only |
//! | Dog | 150 | E: three steps, one forward |
//! | Pawn | 100 | H 40 |
//!
use engine::{Color, Kind, Position};

/// Material value of a movement type in centipawns (Pawn = 100). Sources: the table in the
/// module documentation (H = HaChu 0.21 × 2.5, E = estimate).
pub const fn search_value(kind: Kind) -> i32 {
    use Kind::*;
    match kind {
        King => 700,              // H 280
        Prince => 675,            // H 270
        GreatGeneral => 3750,     // H 1500
        ViceGeneral => 3500,      // H 1400
        RookGeneral => 3000,      // H 1200
        BishopGeneral => 2750,    // H 1100
        FireDemon => 4000,        // E (HaChu 5000 is a marker)
        LionHawk => 3000,         // E
        Lion => 2500,             // H 1000
        FreeEagle => 2000,        // E
        Queen => 1500,            // H 600
        HeavenlyTetrarch => 1400, // E
        SoaringEagle => 1250,     // E
        HornedFalcon => 1200,     // E
        ChariotSoldier => 1150,   // E
        WaterBuffalo => 1100,     // E
        DragonKing => 1000,       // H 400
        FlyingOx => 1000,         // H 400
        FreeBoar => 1000,         // H 400
        DragonHorse => 875,       // H 350
        WhiteHorse => 875,        // H 350
        Rook => 750,              // H 300
        FlyingStag => 750,        // H 300
        Bishop => 625,            // H 250
        Whale => 625,             // H 250
        MultiGeneral => 550,      // E
        DrunkElephant => 503,     // H 201
        VerticalMover => 500,     // H 200
        SideMover => 500,         // H 200
        VerticalSoldier => 450,   // E
        SideSoldier => 450,       // E
        Kirin => 385,             // H 154
        Phoenix => 383,           // H 153
        BlindTiger => 380,        // H 152
        Gold => 378,              // H 151
        FerociousLeopard => 375,  // H 150
        ReverseChariot => 375,    // H 150
        Lance => 375,             // H 150
        Silver => 250,            // H 100
        Copper => 250,            // H 100
        Iron => 200,              // E
        Knight => 175,            // E
        Dog => 150,               // E
        Pawn => 100,              // H 40
    }
}

/// Value used to order captures of a royal first (never added to a score).
pub const ROYAL_ORDER_VALUE: i32 = 50_000;

/// Plain-material values in centipawns (Pawn = 100) by the type a piece moves as, for
/// adjudication and the network's material target (not the search's evaluation). Royals (King,
/// Prince) count 0: losing them ends the game by the rules.
///
/// Source of every number: the arena's own estimate when it was built (issue 3, commit
/// 4d741fb), a ranking of the movement types rounded to 50 or 100 cp, with no outside source.
/// Against the search table it is compressed at the top (the generals, the Lion family and the
/// Fire Demon at 1,200–2,500 cp rather than 2,500–4,000) and orders a few strong pieces
/// differently (Rook General above Lion, Heavenly Tetrarch level with Lion). Kept unchanged
/// since, as the unit of every adjudicated record; the module documentation says why it stays a
/// table of its own, and what measuring the alternative showed.
pub const fn material_value(k: Kind) -> i32 {
    use Kind::*;
    match k {
        King | Prince => 0,
        Pawn => 100,
        Dog | Knight => 150,
        Iron | Copper => 200,
        Lance | ReverseChariot => 250,
        Silver | BlindTiger => 300,
        Gold | FerociousLeopard | DrunkElephant | Kirin | SideMover => 350,
        Phoenix | VerticalMover | SideSoldier => 400,
        VerticalSoldier => 450,
        Bishop => 500,
        Rook | WhiteHorse | Whale => 600,
        DragonHorse | FlyingStag | FreeBoar => 700,
        DragonKing | FlyingOx | MultiGeneral => 800,
        ChariotSoldier => 900,
        WaterBuffalo | HornedFalcon => 1000,
        SoaringEagle => 1100,
        Queen | BishopGeneral => 1200,
        Lion | HeavenlyTetrarch => 1300,
        RookGeneral => 1400,
        FreeEagle => 1500,
        LionHawk => 2000,
        ViceGeneral => 2200,
        GreatGeneral | FireDemon => 2500,
    }
}

/// Plain material of Black minus that of White, in centipawns of [`material_value`] (royals
/// count 0).
pub fn material_balance(pos: &Position) -> i32 {
    ValueTable::Material.balance(pos)
}

/// Which table counts material where either could: adjudication can be measured with both
/// (`tenjiku arena --adjudication-values`); the material table is the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ValueTable {
    /// [`material_value`].
    #[default]
    Material,
    /// [`search_value`], royals counted 0.
    Search,
}

impl ValueTable {
    /// The value of a piece moving as `kind`; royals count 0 in both tables.
    pub fn value(self, kind: Kind) -> i32 {
        match self {
            _ if kind.is_royal() => 0,
            ValueTable::Material => material_value(kind),
            ValueTable::Search => search_value(kind),
        }
    }

    /// Material of Black minus that of White by this table.
    pub fn balance(self, pos: &Position) -> i32 {
        pos.pieces()
            .map(|(_, p)| if p.color() == Color::Black { self.value(p.kind()) } else { -self.value(p.kind()) })
            .sum()
    }

    pub fn name(self) -> &'static str {
        match self {
            ValueTable::Material => "material",
            ValueTable::Search => "search",
        }
    }
}

/// Material adjudication, ply by ply: a side ahead by at least `margin` centipawns (by `table`)
/// after each of `plies` consecutive plies wins. The arena's `--adjudicate-material` and
/// self-play's `selfplay_adjudicate_cp` both count with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaterialLead {
    margin: i32,
    plies: u32,
    table: ValueTable,
    lead: Option<Color>,
    count: u32,
}

impl MaterialLead {
    /// `margin` and `plies` at least 1 (callers check their inputs; smaller values are
    /// raised to 1).
    pub fn new(margin: i32, plies: u32, table: ValueTable) -> MaterialLead {
        MaterialLead { margin: margin.max(1), plies: plies.max(1), table, lead: None, count: 0 }
    }

    /// Count the position after a ply; returns the side that has now been ahead for the
    /// required plies, if any.
    pub fn update(&mut self, pos: &Position) -> Option<Color> {
        let diff = self.table.balance(pos);
        let ahead = if diff >= self.margin {
            Some(Color::Black)
        } else if diff <= -self.margin {
            Some(Color::White)
        } else {
            None
        };
        self.count = match ahead {
            None => 0,
            Some(_) if ahead == self.lead => self.count + 1,
            Some(_) => 1,
        };
        self.lead = ahead;
        self.lead.filter(|_| self.count >= self.plies)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_lead_needs_the_margin_for_consecutive_plies() {
        let start = Position::start();
        assert_eq!(material_balance(&start), 0);
        // White without its most valuable non-royal piece.
        let (sq, piece) = start
            .pieces()
            .filter(|(_, p)| p.color() == Color::White)
            .max_by_key(|(_, p)| material_value(p.kind()))
            .unwrap();
        let mut down = start.clone();
        down.remove(sq);
        let v = material_value(piece.kind());
        assert_eq!(material_balance(&down), v);

        let mut lead = MaterialLead::new(v, 3, ValueTable::Material);
        assert_eq!(lead.update(&down), None);
        assert_eq!(lead.update(&down), None);
        assert_eq!(lead.update(&start), None, "an even ply starts the count again");
        assert_eq!(lead.update(&down), None);
        assert_eq!(lead.update(&down), None);
        assert_eq!(lead.update(&down), Some(Color::Black));
        // A lead of one centipawn less than the margin never decides.
        let mut strict = MaterialLead::new(v + 1, 1, ValueTable::Material);
        assert_eq!(strict.update(&down), None);
        // White ahead: the mirror.
        let (bsq, _) =
            start.pieces().filter(|(_, p)| p.color() == Color::Black && p.kind() == piece.kind()).next().unwrap();
        let mut up = start.clone();
        up.remove(bsq);
        let mut lead = MaterialLead::new(v, 1, ValueTable::Material);
        assert_eq!(lead.update(&up), Some(Color::White));
    }
}
