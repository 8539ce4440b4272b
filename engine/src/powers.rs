//! What each piece type can do, as data (RULES.md §4–§5), and the per-rules compiled table
//! that move generation reads.
//!
//! [`powers_of`] lists a type's movement *powers* relative to its forward direction; rule
//! options (§12/§15) change the lists of the disputed pieces only. [`MoveTable::new`] turns the
//! lists into one flat record per board-cell code (type × promoted × colour) with absolute
//! directions, so the generator never branches on the piece type.

use crate::piece::{Kind, Piece};
use crate::rules::{AreaMove, FireDemonOrthogonal, FreeEagle, HeavenlyTetrarch, JumpOver, LionHawk, Rules};
use crate::square::dir::{self, *};

/// One movement power, with directions relative to the piece's forward (§4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Power {
    /// Along each direction, to squares `1..=max` away (`max = 15` is a slide); every square
    /// before the destination must be empty.
    Ride { dirs: u8, max: u8 },
    /// Skip-first ride (Heavenly Tetrarch): the adjacent square is ignored, then squares
    /// `2..=max` as a ride.
    SkipRide { dirs: u8, max: u8 },
    /// Jump to the 2nd square along each direction, whatever stands on the 1st.
    Jump2 { dirs: u8 },
    /// Shogi knight: two forward and one sideways.
    Knight,
    /// Capture an enemy on an adjacent square without moving.
    Igui { dirs: u8 },
    /// Full lion power (§5.1).
    Lion,
    /// Lion power restricted to single lines (Soaring Eagle, Horned Falcon, §5.2).
    LinearLion { dirs: u8 },
    /// Free Eagle: capture on an adjacent square in `first`, then one step in `second` (§5.4).
    BentLion { first: u8, second: u8 },
    /// Two Ferz steps, the first onto an empty square (literal Edo Free Eagle reading).
    FerzTwice,
    /// Range-jumping capture along `dirs` with the given jump power (§5.6).
    RangeJump { dirs: u8, power: u8 },
    /// Area move of up to `k` king steps (§4): through empty squares, stopping at a capture.
    Area { k: u8 },
    /// Lion-like area move of up to `k` king steps (house rules §13).
    LionArea { k: u8 },
    /// Burns adjacent enemies (Fire Demon, §6).
    Burn,
    /// Enemies adjacent to it cannot move (house-rules Heavenly Tetrarch).
    Freeze,
}

use Power::*;

const SLIDE: u8 = 15;

fn slide(dirs: u8) -> Power {
    Ride { dirs, max: SLIDE }
}
fn step(dirs: u8) -> Power {
    Ride { dirs, max: 1 }
}
fn range2(dirs: u8) -> Power {
    Ride { dirs, max: 2 }
}
fn area(a: AreaMove) -> Option<Power> {
    match a {
        AreaMove::StopOnCapture => Some(Area { k: 3 }),
        AreaMove::None => None,
        AreaMove::LionLike => Some(LionArea { k: 3 }),
    }
}

/// The powers of a movement type under `rules` (RULES.md §5 tables, §12 options).
pub fn powers_of(kind: Kind, rules: &Rules) -> Vec<Power> {
    use Kind::*;
    match kind {
        King | Prince => vec![step(ALL)],
        GreatGeneral => vec![slide(ALL), RangeJump { dirs: ALL, power: general_rank(kind, rules) }],
        ViceGeneral => {
            let mut v = vec![slide(DIAGONAL), RangeJump { dirs: DIAGONAL, power: general_rank(kind, rules) }];
            v.extend(area(rules.vice_general_area));
            v
        }
        RookGeneral => vec![slide(ORTHOGONAL), RangeJump { dirs: ORTHOGONAL, power: general_rank(kind, rules) }],
        BishopGeneral => vec![slide(DIAGONAL), RangeJump { dirs: DIAGONAL, power: general_rank(kind, rules) }],
        FreeEagle => match rules.free_eagle {
            self::FreeEagle::Standard => {
                vec![slide(ALL), Jump2 { dirs: ALL }, BentLion { first: DIAGONAL, second: DIAGONAL }]
            }
            self::FreeEagle::AnySecondStep => {
                vec![slide(ALL), Jump2 { dirs: ALL }, BentLion { first: DIAGONAL, second: ALL }]
            }
            self::FreeEagle::QueenDabbaba => vec![slide(ALL), Jump2 { dirs: ORTHOGONAL }],
            self::FreeEagle::QueenRangeJump => vec![slide(ALL), RangeJump { dirs: ORTHOGONAL, power: 1 }],
            self::FreeEagle::FerzTwice => vec![slide(ALL), FerzTwice],
            self::FreeEagle::DiagonalLion => {
                vec![slide(ALL), Jump2 { dirs: DIAGONAL }, BentLion { first: DIAGONAL, second: DIAGONAL }]
            }
            self::FreeEagle::Queen => vec![slide(ALL)],
        },
        Queen => vec![slide(ALL)],
        SoaringEagle => vec![slide(ORTHOGONAL | BACKWARD_DIAGONAL), LinearLion { dirs: FORWARD_DIAGONAL }],
        HornedFalcon => vec![slide(DIAGONAL | SIDEWAYS | BACKWARD), LinearLion { dirs: FORWARD }],
        WaterBuffalo => vec![slide(DIAGONAL | SIDEWAYS), range2(VERTICAL)],
        ChariotSoldier => vec![slide(DIAGONAL | VERTICAL), range2(SIDEWAYS)],
        FireDemon => {
            let orth = match rules.fire_demon_orthogonal {
                FireDemonOrthogonal::Sideways => SIDEWAYS,
                FireDemonOrthogonal::Vertical => VERTICAL,
            };
            let mut v = vec![slide(DIAGONAL | orth), Burn];
            v.extend(area(rules.fire_demon_area));
            v
        }
        LionHawk => match rules.lion_hawk {
            self::LionHawk::LionBishop => vec![Power::Lion, slide(DIAGONAL)],
            self::LionHawk::BishopArea2 => vec![slide(DIAGONAL), Area { k: 2 }],
        },
        Lion => vec![Power::Lion],
        DragonKing => vec![slide(ORTHOGONAL), step(DIAGONAL)],
        DragonHorse => vec![slide(DIAGONAL), step(ORTHOGONAL)],
        Rook => vec![slide(ORTHOGONAL)],
        Bishop => vec![slide(DIAGONAL)],
        Kirin => vec![step(DIAGONAL), Jump2 { dirs: ORTHOGONAL }],
        Phoenix => vec![step(ORTHOGONAL), Jump2 { dirs: DIAGONAL }],
        DrunkElephant => vec![step(ALL & !BACKWARD)],
        BlindTiger => vec![step(ALL & !FORWARD)],
        FerociousLeopard => vec![step(ALL & !SIDEWAYS)],
        Gold => vec![step(ORTHOGONAL | FORWARD_DIAGONAL)],
        Silver => vec![step(DIAGONAL | FORWARD)],
        Copper => vec![step(VERTICAL | FORWARD_DIAGONAL)],
        VerticalMover => vec![slide(VERTICAL), step(SIDEWAYS)],
        SideMover => vec![slide(SIDEWAYS), step(VERTICAL)],
        ReverseChariot => vec![slide(VERTICAL)],
        VerticalSoldier => vec![slide(FORWARD), step(BACKWARD), range2(SIDEWAYS)],
        SideSoldier => vec![slide(SIDEWAYS), range2(FORWARD), step(BACKWARD)],
        Lance => vec![slide(FORWARD)],
        Knight => vec![Power::Knight],
        Iron => vec![step(FORWARD | FORWARD_DIAGONAL)],
        Dog => vec![step(FORWARD | BACKWARD_DIAGONAL)],
        Pawn => vec![step(FORWARD)],
        FlyingStag => vec![step(ALL), slide(VERTICAL)],
        FreeBoar => vec![slide(DIAGONAL | SIDEWAYS)],
        FlyingOx => vec![slide(DIAGONAL | VERTICAL)],
        WhiteHorse => vec![slide(VERTICAL | FORWARD_DIAGONAL)],
        Whale => vec![slide(VERTICAL | BACKWARD_DIAGONAL)],
        MultiGeneral => vec![slide(FORWARD | BACKWARD_DIAGONAL)],
        HeavenlyTetrarch => {
            let skip_slides = SkipRide { dirs: VERTICAL | DIAGONAL, max: SLIDE };
            let sideways = SkipRide { dirs: SIDEWAYS, max: 3 };
            let igui = Igui { dirs: ALL };
            match rules.heavenly_tetrarch {
                self::HeavenlyTetrarch::Standard => vec![skip_slides, sideways, igui],
                self::HeavenlyTetrarch::NoSideways => vec![skip_slides, igui],
                self::HeavenlyTetrarch::NoOrthogonal => vec![SkipRide { dirs: DIAGONAL, max: SLIDE }, igui],
                self::HeavenlyTetrarch::NoIgui => vec![skip_slides, sideways],
                self::HeavenlyTetrarch::ChariotSoldier => powers_of(ChariotSoldier, rules),
                self::HeavenlyTetrarch::ChariotSoldierFreezing => {
                    let mut v = powers_of(ChariotSoldier, rules);
                    v.push(Freeze);
                    v
                }
            }
        }
    }
}

/// Jump-rank of a movement type (§5.6): King/Prince 4 > GG 3 > VG 2 > RG = BG 1 > others 0;
/// with `rook_general_outranks_bishop_general` (S1): K/CP 5 > GG 4 > VG 3 > RG 2 > BG 1.
pub fn general_rank(kind: Kind, rules: &Rules) -> u8 {
    use Kind::*;
    let house = rules.rook_general_outranks_bishop_general;
    match kind {
        King | Prince => 4 + house as u8,
        GreatGeneral => 3 + house as u8,
        ViceGeneral => 2 + house as u8,
        RookGeneral => 1 + house as u8,
        BishopGeneral => 1,
        _ => 0,
    }
}

/// Area-move style of a compiled piece.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AreaKind {
    #[default]
    None,
    /// Through empty squares, ending at the first capture.
    Stop,
    /// Lion-like (house rules).
    LionLike,
}

/// The compiled record of one board-cell code: absolute directions, ready for the generator.
#[derive(Clone, Copy, Debug, Default)]
pub struct Compiled {
    pub is_piece: bool,
    pub white: bool,
    /// Per absolute direction: the farthest ride distance (0 = none).
    pub ride_max: [u8; 8],
    /// Directions whose ride skips the adjacent square.
    pub ride_skip: u8,
    pub range_jump: u8,
    pub jump_power: u8,
    pub jump2: u8,
    pub knight: bool,
    pub igui: u8,
    pub lion: bool,
    pub linear_lion: u8,
    pub bent_lion_first: u8,
    pub bent_lion_second: u8,
    pub ferz_twice: bool,
    pub area: AreaKind,
    pub area_k: u8,
    /// Directions in which an empty neighbour allows a pass (§7.3).
    pub pass_dirs: u8,
    pub burns: bool,
    pub freezes: bool,
    pub royal: bool,
    pub is_fire_demon: bool,
    /// Jump-rank as an obstacle or target of a range jump.
    pub rank: u8,
    /// Cell code after promotion (0 = cannot promote).
    pub promote_to: u8,
    /// Last ranks on which promotion is compulsory when eligible (P/L/I 1, N 2; 0 = none).
    pub last_rank_depth: u8,
    /// The promoted type keeps every move of the unpromoted one (HaChu's deferral list, §12.8).
    pub upward_compatible: bool,
    /// Some powers may reach the same destination by two routes: de-duplicate (§7.2).
    pub dedup: bool,
    /// Directions with a ride (bit d set when `ride_max[d] > 0`).
    pub ride_dirs: u8,
}

impl Compiled {
    /// A record with no powers at all.
    pub const IDLE: Compiled = Compiled {
        is_piece: false,
        white: false,
        ride_max: [0; 8],
        ride_skip: 0,
        range_jump: 0,
        jump_power: 0,
        jump2: 0,
        knight: false,
        igui: 0,
        lion: false,
        linear_lion: 0,
        bent_lion_first: 0,
        bent_lion_second: 0,
        ferz_twice: false,
        area: AreaKind::None,
        area_k: 0,
        pass_dirs: 0,
        burns: false,
        freezes: false,
        royal: false,
        is_fire_demon: false,
        rank: 0,
        promote_to: 0,
        last_rank_depth: 0,
        upward_compatible: false,
        dedup: false,
        ride_dirs: 0,
    };
}

/// The per-rules table of every cell code, plus rule switches the generator reads.
#[derive(Clone)]
pub struct MoveTable {
    pub rules: Rules,
    pub cells: [Compiled; 256],
}

impl MoveTable {
    pub fn new(rules: &Rules) -> MoveTable {
        let mut cells = [Compiled::default(); 256];
        for p in Piece::all() {
            cells[p.code() as usize] = compile(p, rules);
        }
        MoveTable { rules: rules.clone(), cells }
    }
    #[inline]
    pub fn get(&self, code: u8) -> &Compiled {
        &self.cells[code as usize]
    }
    /// Whether the jumping general `mover` may pass over `piece` (§5.6 / §13).
    #[inline]
    pub fn can_jump_over(&self, mover: &Compiled, piece: &Compiled) -> bool {
        match self.rules.jump_over {
            JumpOver::LowerRank => piece.rank < mover.jump_power,
            JumpOver::EnemyLowerFriendAny => {
                if piece.white == mover.white {
                    !piece.royal
                } else {
                    piece.rank < mover.jump_power
                }
            }
        }
    }
}

fn compile(p: Piece, rules: &Rules) -> Compiled {
    let kind = p.kind();
    let white = p.color() == crate::square::Color::White;
    let abs = |m: u8| dir::for_side(m, white);
    let mut c = Compiled {
        is_piece: true,
        white,
        royal: kind.is_royal(),
        is_fire_demon: kind == Kind::FireDemon,
        rank: general_rank(kind, rules),
        ..Compiled::default()
    };
    let powers = powers_of(kind, rules);
    let mut has_near_multi = false;
    for pw in &powers {
        match *pw {
            Ride { dirs, max } | SkipRide { dirs, max } => {
                for d in 0..8 {
                    if abs(dirs) & (1 << d) != 0 {
                        c.ride_max[d] = max;
                        if matches!(pw, SkipRide { .. }) {
                            c.ride_skip |= 1 << d;
                        }
                    }
                }
            }
            Jump2 { dirs } => {
                c.jump2 |= abs(dirs);
                has_near_multi = true;
            }
            Power::Knight => c.knight = true,
            Igui { dirs } => {
                c.igui |= abs(dirs);
                if rules.ht_can_pass {
                    c.pass_dirs |= abs(dirs);
                }
            }
            Power::Lion => {
                c.lion = true;
                c.pass_dirs = ALL;
                has_near_multi = true;
            }
            LinearLion { dirs } => {
                c.linear_lion |= abs(dirs);
                c.pass_dirs |= abs(dirs);
            }
            BentLion { first, second } => {
                c.bent_lion_first = abs(first);
                c.bent_lion_second = abs(second);
                c.pass_dirs |= abs(first);
                has_near_multi = true;
            }
            Power::FerzTwice => {
                c.ferz_twice = true;
                has_near_multi = true;
            }
            RangeJump { dirs, power } => {
                c.range_jump |= abs(dirs);
                c.jump_power = power;
            }
            Area { k } => {
                c.area = AreaKind::Stop;
                c.area_k = k;
                c.pass_dirs = ALL;
                has_near_multi = true;
            }
            LionArea { k } => {
                c.area = AreaKind::LionLike;
                c.area_k = k;
                c.pass_dirs = ALL;
                has_near_multi = true;
            }
            Burn => c.burns = true,
            Freeze => c.freezes = true,
        }
    }
    let has_ride = c.ride_max.iter().any(|&m| m > 0);
    c.ride_dirs = (0..8).filter(|&d| c.ride_max[d] > 0).fold(0u8, |m, d| m | 1 << d);
    let long_rides = (0..8).filter(|&d| c.ride_max[d] >= 2).fold(0u8, |m, d| m | 1 << d);
    c.dedup = ((c.lion || c.area != AreaKind::None || c.bent_lion_first != 0 || c.ferz_twice) && has_ride)
        || c.jump2 & long_rides != 0;
    let _ = has_near_multi;
    if p.can_promote() {
        c.promote_to = p.promote().code();
        use Kind::*;
        c.last_rank_depth = match kind {
            Pawn | Lance | Iron => 1,
            Knight => 2,
            _ => 0,
        };
        c.upward_compatible = matches!(
            kind,
            Pawn | Dog
                | BlindTiger
                | DrunkElephant
                | Kirin
                | Lance
                | ReverseChariot
                | Rook
                | Bishop
                | DragonKing
                | DragonHorse
                | RookGeneral
                | BishopGeneral
                | Lion
                | Queen
                | ChariotSoldier
                | VerticalSoldier
                | SideSoldier
        );
    }
    c
}
