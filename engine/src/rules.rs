//! The interpretation of every disputed rule (RULES.md §12 and §15), as one value.
//!
//! [`Rules::standard`] is the default of the specification; [`Rules::house`] the seed-001 house
//! rules of §13; [`Rules::hachu`] the measured behaviour of HaChu 0.21. A rules TOML file names a
//! preset and overrides single flags (see `configs/rules/`).

use serde::{Deserialize, Serialize};
use std::path::Path;

/// Orthogonal slide axis of the Fire Demon (§12.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FireDemonOrthogonal {
    /// Slides along its rank (W, S1, J2). Default.
    Sideways,
    /// Slides along its file (two Edo sources, HaChu).
    Vertical,
}

/// The three-king-step area move of the Fire Demon and Vice General (§4, §12.2, §12.3, §13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AreaMove {
    /// Up to three king steps through empty squares, ending at the first capture. Default.
    StopOnCapture,
    /// No area move (HaChu).
    None,
    /// Lion-like: friendly pieces are jumped, enemies captured or jumped, up to three (S1).
    LionLike,
}

/// What happens when a Fire Demon ends its move next to an enemy Fire Demon (§12.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FdVsFd {
    /// The moving Fire Demon is burned and burns nothing. Default.
    MoverBurned,
    /// The mover burns its other enemy neighbours, then is burned.
    MoverBurnsOthers,
    /// The mover and every adjacent enemy Fire Demon are removed (S1).
    BothDestroyed,
}

/// Which enemies a range-jumping general may capture by jumping (§12.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JumpCapture {
    /// Any enemy, royals and equal or higher generals included (option A). Default.
    Any,
    /// Any enemy except King and Prince (option B, CVP).
    NoRoyals,
    /// Only strictly lower-ranked enemies; direct captures unrestricted (option C, HaChu).
    LowerOnly,
    /// Only strictly lower-ranked enemies, even for direct captures (option D, TSA).
    LowerOnlyEvenDirect,
    /// Not higher-ranked, and never a King or Prince (S1 house rules).
    NotHigherNoRoyals,
}

/// Which pieces a range-jumping general may jump over (§12.1, §13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JumpOver {
    /// Pieces of either side with a strictly lower jump-rank (never King or Prince). Default.
    LowerRank,
    /// Enemies of strictly lower rank and friendly pieces of any rank except King/Prince (S1).
    EnemyLowerFriendAny,
}

/// The Free Eagle readings of §12.5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreeEagle {
    /// Queen + jumps to the 8 distance-2 squares on its lines + diagonal lion power. Default.
    Standard,
    /// As standard, but the second step after a diagonal capture may go in any direction (J2).
    AnySecondStep,
    /// Queen + orthogonal jump to the 2nd square (Hodges/Evans/Adams).
    QueenDabbaba,
    /// Queen + orthogonal range-jumping capture (JW reading).
    QueenRangeJump,
    /// Queen, or two Ferz steps through an empty square (literal Edo reading).
    FerzTwice,
    /// Standard without the four orthogonal 2-square jumps (S1 house reading).
    DiagonalLion,
    /// Plain Queen (HaChu).
    Queen,
}

/// The Heavenly Tetrarch readings of §12.10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HeavenlyTetrarch {
    /// Skip-first slides vertically and diagonally, sideways to the 2nd/3rd square, igui. Default.
    Standard,
    /// Without the sideways 2–3 move (older Western sources).
    NoSideways,
    /// Without the vertical and sideways moves (the other reading of the Western sources).
    NoOrthogonal,
    /// Without igui (two Edo sources).
    NoIgui,
    /// Moves as a Chariot Soldier (HaChu).
    ChariotSoldier,
    /// Chariot Soldier moves and freezes adjacent enemies (S1).
    ChariotSoldierFreezing,
}

/// The Lion Hawk readings of §12.4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LionHawk {
    /// Full Lion plus Bishop. Default.
    LionBishop,
    /// Bishop plus a two-step area move only (TSA).
    BishopArea2,
}

/// Compulsory promotion on the last rank(s) for P, L, I (last rank) and N (last two) (§8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LastRankRule {
    /// Promotion is forced when the move is eligible. Default (= HaChu).
    ForcedWhenEligible,
    /// Also eligible (and forced) on a non-capturing move onto the last rank(s) inside the zone.
    SecondChance,
    /// Never compulsory; dead pieces allowed.
    None,
}

/// Repetition rule (§9, §12.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Repetition {
    /// JCSA-style: 4th occurrence; perpetual checker/chaser/first passer must deviate, else draw.
    Jcsa,
    /// No move may recreate an earlier position with the same side to move (HaChu).
    Forbidden,
    /// Repeating loses, unless the repeating side is in check, then it wins (HaChu option).
    LossForRepeater,
}

/// Outcome when one move takes the opponent's last royal and loses the mover's own (§6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DoubleRoyalLoss {
    /// The mover wins (its capture happened first). Default.
    MoverWins,
    /// The mover loses.
    MoverLoses,
    /// Draw.
    Draw,
}

/// Every selectable rule interpretation. Field names are the flags of RULES.md §15.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub fire_demon_orthogonal: FireDemonOrthogonal,
    pub fire_demon_area: AreaMove,
    pub vice_general_area: AreaMove,
    pub fd_vs_fd: FdVsFd,
    pub wb_promotion_burns: bool,
    pub jump_capture_targets: JumpCapture,
    pub jump_over: JumpOver,
    pub jump_on_noncapture: bool,
    /// The Rook General outranks the Bishop General (S1: K > GG > VG > RG > BG).
    pub rook_general_outranks_bishop_general: bool,
    pub free_eagle: FreeEagle,
    pub heavenly_tetrarch: HeavenlyTetrarch,
    /// The Heavenly Tetrarch may pass (igui on an empty neighbour) (§5.5).
    pub ht_can_pass: bool,
    pub lion_hawk: LionHawk,
    pub last_rank_rule: LastRankRule,
    /// Generate the non-promoting version even when the promoted piece keeps every old move.
    pub offer_useless_deferral: bool,
    pub repetition: Repetition,
    pub double_royal_loss: DoubleRoyalLoss,
    /// Chu-style Lion-trading restrictions (§5.1, §12.11). Not available: always off.
    pub lion_trading_rules: bool,
    /// Draw after this many plies without a capture (J2 uses 100); 0 = never (default).
    pub no_capture_draw_plies: u32,
    /// The game is drawn when this many plies have been played; 0 = no cap.
    pub ply_cap: u32,
}

/// Names of the built-in presets.
pub const PRESETS: [&str; 3] = ["standard", "house", "hachu"];

impl Default for Rules {
    fn default() -> Self {
        Rules::standard()
    }
}

impl Rules {
    /// The defaults marked **[D]** in RULES.md.
    pub fn standard() -> Rules {
        Rules {
            fire_demon_orthogonal: FireDemonOrthogonal::Sideways,
            fire_demon_area: AreaMove::StopOnCapture,
            vice_general_area: AreaMove::StopOnCapture,
            fd_vs_fd: FdVsFd::MoverBurned,
            wb_promotion_burns: true,
            jump_capture_targets: JumpCapture::Any,
            jump_over: JumpOver::LowerRank,
            jump_on_noncapture: false,
            rook_general_outranks_bishop_general: false,
            free_eagle: FreeEagle::Standard,
            heavenly_tetrarch: HeavenlyTetrarch::Standard,
            ht_can_pass: false,
            lion_hawk: LionHawk::LionBishop,
            last_rank_rule: LastRankRule::ForcedWhenEligible,
            offer_useless_deferral: true,
            repetition: Repetition::Jcsa,
            double_royal_loss: DoubleRoyalLoss::MoverWins,
            lion_trading_rules: false,
            no_capture_draw_plies: 0,
            ply_cap: 1000,
        }
    }

    /// The seed-001 house rules with the readings of RULES.md §13.
    pub fn house() -> Rules {
        Rules {
            fire_demon_area: AreaMove::LionLike,
            vice_general_area: AreaMove::LionLike,
            fd_vs_fd: FdVsFd::BothDestroyed,
            jump_capture_targets: JumpCapture::NotHigherNoRoyals,
            jump_over: JumpOver::EnemyLowerFriendAny,
            jump_on_noncapture: true,
            rook_general_outranks_bishop_general: true,
            free_eagle: FreeEagle::DiagonalLion,
            heavenly_tetrarch: HeavenlyTetrarch::ChariotSoldierFreezing,
            ..Rules::standard()
        }
    }

    /// HaChu 0.21's measured profile (§15 middle column).
    pub fn hachu() -> Rules {
        Rules {
            fire_demon_orthogonal: FireDemonOrthogonal::Vertical,
            fire_demon_area: AreaMove::None,
            vice_general_area: AreaMove::None,
            wb_promotion_burns: false,
            jump_capture_targets: JumpCapture::LowerOnly,
            free_eagle: FreeEagle::Queen,
            heavenly_tetrarch: HeavenlyTetrarch::ChariotSoldier,
            offer_useless_deferral: false,
            repetition: Repetition::Forbidden,
            ..Rules::standard()
        }
    }

    /// A preset by name.
    pub fn preset(name: &str) -> Option<Rules> {
        match name {
            "standard" | "default" => Some(Rules::standard()),
            "house" | "s1" => Some(Rules::house()),
            "hachu" => Some(Rules::hachu()),
            _ => None,
        }
    }

    /// The name of the preset these rules equal, if any.
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESETS.iter().copied().find(|n| Rules::preset(n).as_ref() == Some(self))
    }

    /// A preset name, or a path to a rules TOML file (`preset = "..."` plus single flags).
    pub fn load(spec: &str) -> Result<Rules, RulesError> {
        if let Some(r) = Rules::preset(spec) {
            return Ok(r);
        }
        let path = Path::new(spec);
        if !(spec.ends_with(".toml") || path.exists()) {
            return Err(RulesError::Unknown { spec: spec.to_string() });
        }
        let text = crate::input::read_text(path, crate::input::MAX_CONFIG_BYTES)
            .map_err(|e| RulesError::Read { path: spec.to_string(), reason: e.to_string() })?;
        Rules::from_toml(&text).map_err(|e| RulesError::InFile { path: spec.to_string(), error: Box::new(e) })
    }

    /// Parse a rules TOML text: an optional `preset` plus any flags, unknown keys rejected.
    pub fn from_toml(text: &str) -> Result<Rules, RulesError> {
        let table: toml::Table =
            text.parse().map_err(|e: toml::de::Error| RulesError::Toml { msg: one_line(&e.to_string()) })?;
        let mut base = match table.get("preset") {
            None => Rules::standard(),
            Some(toml::Value::String(p)) => {
                Rules::preset(p).ok_or_else(|| RulesError::UnknownPreset { name: p.clone() })?
            }
            Some(_) => return Err(RulesError::PresetNotString),
        };
        let mut merged = toml::Table::try_from(&base).expect("rules serialise");
        for (k, v) in table {
            if k == "preset" {
                continue;
            }
            if !merged.contains_key(&k) {
                return Err(RulesError::UnknownFlag { flag: k });
            }
            merged.insert(k, v);
        }
        base = merged.try_into().map_err(|e: toml::de::Error| RulesError::Toml { msg: one_line(&e.to_string()) })?;
        if base.lion_trading_rules {
            return Err(RulesError::LionTrading);
        }
        Ok(base)
    }

    /// These rules as a complete TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("rules serialise")
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A bad rules name, file or flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown rules '{spec}': expected a preset ({}) or a rules .toml file", PRESETS.join(", "))]
    Unknown { spec: String },
    #[error("cannot read rules file {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path}: {error}")]
    InFile { path: String, error: Box<RulesError> },
    #[error("{msg}")]
    Toml { msg: String },
    #[error("unknown preset '{name}': expected one of {}", PRESETS.join(", "))]
    UnknownPreset { name: String },
    #[error("'preset' must be a string")]
    PresetNotString,
    #[error("unknown rules flag '{flag}'")]
    UnknownFlag { flag: String },
    #[error("lion_trading_rules = true is not supported (Tenjiku has no Lion-trading rules, §12.11)")]
    LionTrading,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_15_presets_load_by_name_and_differ() {
        assert_eq!(Rules::load("standard").unwrap(), Rules::standard());
        assert_eq!(Rules::load("house").unwrap().fd_vs_fd, FdVsFd::BothDestroyed);
        assert_eq!(Rules::load("hachu").unwrap().free_eagle, FreeEagle::Queen);
        assert_eq!(Rules::standard().preset_name(), Some("standard"));
        assert!(matches!(Rules::load("nonsense"), Err(RulesError::Unknown { .. })));
    }

    #[test]
    fn rules_15_toml_overrides_single_flags() {
        let r = Rules::from_toml("preset = \"standard\"\nfire_demon_orthogonal = \"vertical\"\n").unwrap();
        assert_eq!(r.fire_demon_orthogonal, FireDemonOrthogonal::Vertical);
        assert_eq!(r.fire_demon_area, AreaMove::StopOnCapture);
        let e = Rules::from_toml("fire_demon_orthogonl = \"vertical\"").unwrap_err();
        assert!(e.to_string().contains("fire_demon_orthogonl"), "{e}");
        let e = Rules::from_toml("fire_demon_orthogonal = \"diagonal\"").unwrap_err();
        assert!(e.to_string().contains("diagonal") || e.to_string().contains("variant"), "{e}");
        assert!(!e.to_string().contains('\n'));
        assert_eq!(Rules::from_toml(&Rules::house().to_toml()).unwrap(), Rules::house());
    }
}
