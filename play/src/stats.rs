//! Match statistics: score, Elo difference with a 95% interval, and the SPRT.
//!
//! Formulas (x_i = 1, ½ or 0: the per-game score of engine A; N games; W/D/L counts):
//!
//! - score `s = (W + D/2) / N`;
//! - Elo difference `elo(s) = -400·log10(1/s − 1)` (logistic model); `s = 0` or `1` gives
//!   `−inf` / `+inf`, reported as text, never NaN;
//! - per-game variance `σ² = (W(1−s)² + D(½−s)² + L(0−s)²) / N`; the 95% interval is
//!   `elo(s ± 1.96·σ/√N)` with the score bounds clamped to [0, 1] (normal approximation on
//!   the per-game trinomial scores; games are counted singly, not as pentanomial pairs);
//! - SPRT of H0: elo = elo0 against H1: elo = elo1 with `s_k = 1/(1+10^(−elo_k/400))`: the
//!   generalised log-likelihood ratio in Van den Bergh's approximation (the one fishtest uses
//!   for trinomial results) `LLR = N/2 · ln(r0/r1)`, `r_k = Σ p_j (x_j − s_k)²` over the
//!   empirical distribution p of {0, ½, 1}, with an empty outcome counted as 0.001 games so a
//!   run of identical results stays finite. Stop with H1 when `LLR ≥ ln((1−β)/α)`, with H0
//!   when `LLR ≤ ln(β/(1−α))`.

/// Two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    pub fn new(wins: u64, draws: u64, losses: u64) -> Wdl {
        Wdl { wins, draws, losses }
    }
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
    /// Count one game scored 1, ½ or 0.
    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }
    /// Mean score in 0..=1 (`None` before any game).
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + 0.5 * self.draws as f64) / n as f64)
    }
    /// Variance of one game's score.
    pub fn variance(&self) -> Option<f64> {
        let s = self.score()?;
        let n = self.games() as f64;
        Some(
            (self.wins as f64 * (1.0 - s).powi(2)
                + self.draws as f64 * (0.5 - s).powi(2)
                + self.losses as f64 * s.powi(2))
                / n,
        )
    }
    /// Elo difference (may be ±infinity at 0% or 100%).
    pub fn elo(&self) -> Option<f64> {
        self.score().map(elo_from_score)
    }
    /// 95% interval of the Elo difference.
    pub fn elo_ci95(&self) -> Option<(f64, f64)> {
        let s = self.score()?;
        let se = (self.variance()? / self.games() as f64).sqrt();
        let lo = (s - Z95 * se).clamp(0.0, 1.0);
        let hi = (s + Z95 * se).clamp(0.0, 1.0);
        Some((elo_from_score(lo), elo_from_score(hi)))
    }
}

/// Elo difference of a score in 0..=1: `-400·log10(1/s − 1)`, ±infinity at the ends.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` turns the -0.0 of an even score into 0.0 (JSON would show "-0.0").
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
    }
}

/// Expected score of an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// `+70.4`, `-12.0`, `0.0`, `+inf`, `-inf`.
pub fn fmt_elo(x: f64) -> String {
    if x == f64::INFINITY {
        "+inf".into()
    } else if x == f64::NEG_INFINITY {
        "-inf".into()
    } else if x.is_nan() {
        "n/a".into()
    } else if x.abs() < 0.05 {
        "0.0".into()
    } else {
        format!("{x:+.1}")
    }
}

/// A sequential probability ratio test on the Elo difference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    Continue,
    /// H0 accepted: A is not elo1 stronger (elo ≤ elo0).
    AcceptH0,
    /// H1 accepted: A is at least elo1 stronger.
    AcceptH1,
}

impl Sprt {
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Sprt, String> {
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(format!("SPRT bounds elo0={elo0} elo1={elo1}: need finite elo0 < elo1"));
        }
        for (name, p) in [("alpha", alpha), ("beta", beta)] {
            if !(p > 0.0 && p < 0.5) {
                return Err(format!("SPRT {name}={p}: expected a probability between 0 and 0.5"));
            }
        }
        Ok(Sprt { elo0, elo1, alpha, beta })
    }

    /// Parse `elo0,elo1` as given to `--sprt`.
    pub fn parse_bounds(text: &str) -> Result<(f64, f64), String> {
        let bad = || format!("--sprt '{text}': expected ELO0,ELO1, e.g. 0,10");
        let (a, b) = text.split_once(',').ok_or_else(bad)?;
        let a: f64 = a.trim().parse().map_err(|_| bad())?;
        let b: f64 = b.trim().parse().map_err(|_| bad())?;
        Ok((a, b))
    }

    /// (lower, upper) LLR bounds: accept H0 at or below the first, H1 at or above the second.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// Log-likelihood ratio of H1 against H0 for these results (0 before any game).
    pub fn llr(&self, r: &Wdl) -> f64 {
        if r.games() == 0 {
            return 0.0;
        }
        // Regularise: an outcome never seen counts as 0.001 games (as fishtest does), so that
        // a run of wins alone gives a finite, sensible ratio.
        let reg = |c: u64| if c == 0 { 1e-3 } else { c as f64 };
        let (w, d, l) = (reg(r.wins), reg(r.draws), reg(r.losses));
        let n = w + d + l;
        let pdf = [(1.0, w / n), (0.5, d / n), (0.0, l / n)];
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        let r_of = |s: f64| pdf.iter().map(|&(x, p)| p * (x - s).powi(2)).sum::<f64>().max(1e-300);
        r.games() as f64 / 2.0 * (r_of(s0) / r_of(s1)).ln()
    }

    pub fn decision(&self, r: &Wdl) -> SprtDecision {
        let llr = self.llr(r);
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtDecision::AcceptH1
        } else if llr <= lo {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn sixty_forty_over_a_thousand_games() {
        // 600 wins, 400 losses: s = 0.6, elo = 400·log10(1.5) = 70.437.
        // σ² = 0.6·0.4² + 0.4·0.6² = 0.24; se = √(0.24/1000) = 0.0154919;
        // s ± 1.96·se = 0.569636 .. 0.630364 → elo 48.705 .. 92.727.
        let r = Wdl::new(600, 0, 400);
        assert!((r.score().unwrap() - 0.6).abs() < 1e-12);
        assert!((r.variance().unwrap() - 0.24).abs() < 1e-12);
        assert!((r.elo().unwrap() - 70.4365).abs() < 1e-3);
        let (lo, hi) = r.elo_ci95().unwrap();
        assert!((lo - 48.705).abs() < 1e-2, "{lo}");
        assert!((hi - 92.727).abs() < 1e-2, "{hi}");
        assert_eq!(fmt_elo(r.elo().unwrap()), "+70.4");
        // The mirror image.
        let m = Wdl::new(400, 0, 600);
        assert!((m.elo().unwrap() + 70.4365).abs() < 1e-3);
    }

    #[test]
    fn all_draws_is_zero_with_an_empty_interval() {
        let r = Wdl::new(0, 50, 0);
        assert_eq!(r.elo(), Some(0.0));
        assert_eq!(r.elo_ci95(), Some((0.0, 0.0)));
        assert_eq!(fmt_elo(0.0), "0.0");
        assert_eq!(Wdl::default().elo(), None);
        assert_eq!(Wdl::default().elo_ci95(), None);
        assert_eq!(Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap().llr(&Wdl::default()), 0.0);
    }

    #[test]
    fn perfect_and_zero_scores_are_infinite_not_nan() {
        let all = Wdl::new(10, 0, 0);
        assert_eq!(all.elo(), Some(f64::INFINITY));
        assert_eq!(all.elo_ci95(), Some((f64::INFINITY, f64::INFINITY)));
        assert_eq!(fmt_elo(all.elo().unwrap()), "+inf");
        let none = Wdl::new(0, 0, 10);
        assert_eq!(none.elo(), Some(f64::NEG_INFINITY));
        assert_eq!(fmt_elo(none.elo().unwrap()), "-inf");
        // One loss in 10: a finite centre, an interval reaching +inf.
        let (lo, hi) = Wdl::new(9, 0, 1).elo_ci95().unwrap();
        assert!(lo.is_finite() && lo > 0.0 && hi == f64::INFINITY);
        let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap();
        for r in [all, none, Wdl::new(0, 10, 0)] {
            assert!(!sprt.llr(&r).is_nan());
        }
    }

    #[test]
    fn sprt_bounds_and_bad_parameters() {
        let s = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
        let (lo, hi) = s.bounds();
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3);
        assert!(Sprt::new(5.0, 0.0, 0.05, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.0, 0.05).is_err());
        assert!(Sprt::new(0.0, 5.0, 0.05, 0.7).is_err());
        assert_eq!(Sprt::parse_bounds("0, 10").unwrap(), (0.0, 10.0));
        assert!(Sprt::parse_bounds("10").is_err());
        assert!(Sprt::parse_bounds("a,b").is_err());
    }

    /// Play simulated games (win/draw/loss probabilities) until the SPRT decides.
    fn run_sprt(sprt: &Sprt, p: (f64, f64), seed: u64, max: u64) -> (SprtDecision, u64) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut r = Wdl::default();
        for n in 1..=max {
            let x: f64 = rng.gen();
            r.add(if x < p.0 {
                1.0
            } else if x < p.0 + p.1 {
                0.5
            } else {
                0.0
            });
            let d = sprt.decision(&r);
            if d != SprtDecision::Continue {
                return (d, n);
            }
        }
        (SprtDecision::Continue, max)
    }

    #[test]
    fn sprt_accepts_h1_quickly_for_a_75_percent_scorer() {
        let sprt = Sprt::new(0.0, 20.0, 0.05, 0.05).unwrap();
        for seed in 0..5 {
            let (d, n) = run_sprt(&sprt, (0.6, 0.3), seed, 10_000);
            assert_eq!(d, SprtDecision::AcceptH1, "seed {seed}");
            assert!(n < 150, "seed {seed}: {n} games");
        }
        // A scorer that only wins: each game adds ½·ln(0.25/(1 − 0.52877)²) = 0.0594 to the
        // LLR, so H1 is accepted at the 50th game (2.944 / 0.0594 = 49.6).
        let (d, n) = run_sprt(&sprt, (1.0, 0.0), 0, 10_000);
        assert_eq!((d, n), (SprtDecision::AcceptH1, 50));
    }

    #[test]
    fn sprt_accepts_h0_for_a_50_percent_scorer() {
        let sprt = Sprt::new(0.0, 20.0, 0.05, 0.05).unwrap();
        for seed in 0..5 {
            let (d, n) = run_sprt(&sprt, (0.3, 0.4), seed, 20_000);
            assert_eq!(d, SprtDecision::AcceptH0, "seed {seed} after {n} games");
        }
        // And for a clearly weaker engine, fast.
        let (d, n) = run_sprt(&sprt, (0.1, 0.3), 1, 20_000);
        assert_eq!(d, SprtDecision::AcceptH0);
        assert!(n < 150, "{n} games");
    }
}
