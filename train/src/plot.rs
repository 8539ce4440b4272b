//! `tenjiku plot RUN`: charts of a training run's `metrics.csv` as PNG files in the run
//! directory: `losses.png`, `entropy.png`, `game_length.png`, `elo.png`, and `opponent.png` for a
//! run with opponent games.
//!
//! Columns are found by name in the header row (see `metrics.rs` for what they mean); a
//! missing column or an empty cell just leaves that series out, so a run without evaluations
//! still gets its loss charts. The font is built in (DejaVu Sans Mono, `train/assets/`), so
//! charts render the same on a machine without system fonts.

use std::path::{Path, PathBuf};

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

const FONT: &[u8] = include_bytes!("../assets/DejaVuSansMono.ttf");
const SIZE: (u32, u32) = (1000, 600);
/// Height of one entry of a legend drawn below a chart, in pixels.
const LEGEND_ROW: u32 = 22;

/// The numeric columns of a metrics file, by header name; `NaN` where a cell is empty.
#[derive(Debug, Default)]
pub struct Metrics {
    pub header: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

impl Metrics {
    /// Read `metrics.csv`. Unparseable cells (text columns) read as `NaN`.
    pub fn load(path: &Path) -> Result<Metrics, String> {
        let mut r = csv::ReaderBuilder::new()
            .flexible(true)
            .from_path(path)
            .map_err(|e| format!("cannot read metrics {}: {e}", path.display()))?;
        let header: Vec<String> = r
            .headers()
            .map_err(|e| format!("metrics {} has no header row: {e}", path.display()))?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        let mut rows = Vec::new();
        for (i, rec) in r.records().enumerate() {
            let rec = rec.map_err(|e| format!("metrics {} row {}: {e}", path.display(), i + 2))?;
            rows.push(
                (0..header.len())
                    .map(|c| rec.get(c).and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(f64::NAN))
                    .collect(),
            );
        }
        Ok(Metrics { header, rows })
    }

    /// `(x, y)` points of column `y` against column `x`, skipping empty cells.
    pub fn series(&self, x: &str, y: &str) -> Vec<(f64, f64)> {
        let (Some(xi), Some(yi)) = (self.col(x), self.col(y)) else { return Vec::new() };
        self.rows.iter().filter(|r| r[xi].is_finite() && r[yi].is_finite()).map(|r| (r[xi], r[yi])).collect()
    }

    fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// One line of a chart.
pub(crate) struct Line {
    pub(crate) label: String,
    pub(crate) points: Vec<(f64, f64)>,
    /// Half-width of a 95% interval per point (error bars), if any.
    pub(crate) errors: Vec<f64>,
}

/// A chart's axes: what x is, what y is, fixed x and y ranges (else the data's, padded; error bars
/// are cut to a fixed range), and a labelled horizontal reference line (a goal).
pub(crate) struct Axes<'a> {
    pub(crate) x: &'a str,
    pub(crate) y: &'a str,
    pub(crate) x_range: Option<(f64, f64)>,
    pub(crate) y_range: Option<(f64, f64)>,
    pub(crate) reference: Option<(f64, &'a str)>,
    /// Where the legend goes.
    pub(crate) legend: Legend,
}

/// The colour of a chart's `k`-th line, in the chart and in a legend drawn below it.
fn series_color(k: usize) -> RGBAColor {
    Palette99::pick(k).to_rgba()
}

/// Where a chart's legend goes.
pub(crate) enum Legend {
    /// In the chart, at this position (plotters' default: the middle of the right edge).
    Inside(SeriesLabelPosition),
    /// Under the chart, one entry a row (charts with many lines, whose legend would hide the
    /// points).
    Below,
}

impl<'a> Axes<'a> {
    /// Against the training step.
    fn steps(y: &'a str) -> Self {
        Axes {
            x: "training step",
            y,
            x_range: None,
            y_range: None,
            reference: None,
            legend: Legend::Inside(SeriesLabelPosition::MiddleRight),
        }
    }
}

/// Write the charts of `run_dir/metrics.csv` into `run_dir`; returns the files written.
pub fn plot_run(run_dir: &Path) -> Result<Vec<PathBuf>, String> {
    let metrics = Metrics::load(&run_dir.join("metrics.csv"))?;
    if metrics.rows.is_empty() {
        return Err(format!("{} has no rows yet: nothing to plot", run_dir.join("metrics.csv").display()));
    }
    let line =
        |label: &str, col: &str| Line { label: label.into(), points: metrics.series("step", col), errors: Vec::new() };
    let mut written = Vec::new();
    let mut chart = |file: &str, title: &str, y: &str, lines: Vec<Line>| -> Result<(), String> {
        let lines: Vec<Line> = lines.into_iter().filter(|l| !l.points.is_empty()).collect();
        if lines.is_empty() {
            return Ok(());
        }
        let path = run_dir.join(file);
        draw(&path, title, &Axes::steps(y), &lines).map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
        written.push(path);
        Ok(())
    };
    chart(
        "losses.png",
        "Training losses",
        "loss",
        vec![
            line("total", "loss_total"),
            line("policy", "loss_policy"),
            line("value", "loss_value"),
            line("moves left", "loss_moves_left"),
            line("material", "loss_material"),
            line("captures", "loss_capture"),
        ],
    )?;
    chart("entropy.png", "Policy entropy of the network (nats)", "entropy", vec![line("entropy", "policy_entropy")])?;
    chart("game_length.png", "Self-play game length (plies)", "plies", vec![line("mean game length", "game_length")])?;
    chart("elo.png", "Elo over training (95% intervals)", "Elo", elo_lines(&metrics))?;
    chart(
        "opponent.png",
        &format!("Network's score in the opponent games (last {OPPONENT_WINDOW} games, 95% intervals)"),
        "score (%)",
        vec![opponent_line(&metrics, OPPONENT_WINDOW)],
    )?;
    Ok(written)
}

/// Opponent games per point of `opponent.png`: a row holds only the few games finished since the
/// previous one, so the chart shows a trailing window.
const OPPONENT_WINDOW: u64 = 200;

/// The network's score (%) in the last `window` opponent games at each row's step, with the
/// binomial 95% half-width; points start once a quarter of a window has been played.
fn opponent_line(m: &Metrics, window: u64) -> Line {
    let mut line = Line { label: "score against opponent_engine".into(), points: Vec::new(), errors: Vec::new() };
    let (Some(si), Some(gi), Some(ci)) = (m.col("step"), m.col("opponent_games"), m.col("opponent_score")) else {
        return line;
    };
    let mut recent = std::collections::VecDeque::new();
    let (mut games, mut points) = (0.0, 0.0);
    for r in m.rows.iter().filter(|r| r[si].is_finite() && r[gi] > 0.0 && r[ci].is_finite()) {
        recent.push_back((r[gi], r[gi] * r[ci]));
        games += r[gi];
        points += r[gi] * r[ci];
        while recent.len() > 1 && games - recent[0].0 >= window as f64 {
            let (g, p) = recent.pop_front().expect("not empty");
            games -= g;
            points -= p;
        }
        if games >= window as f64 / 4.0 {
            let p = points / games;
            line.points.push((r[si], 100.0 * p));
            line.errors.push(100.0 * 1.96 * (p * (1.0 - p) / games).sqrt());
        }
    }
    line
}

/// Charts comparing runs (e.g. pure self-play against `--bootstrap alphabeta`) in `out`:
/// `compare-score.png` (each run's evaluation score against its fixed-depth baseline and, where
/// measured, against alpha-beta at equal time) and `compare-policy-loss.png`, against the
/// training step. Runs are labelled by directory name.
pub fn plot_compare(runs: &[PathBuf], out: &Path) -> Result<Vec<PathBuf>, String> {
    let mut all = Vec::new();
    for r in runs {
        let m = Metrics::load(&r.join("metrics.csv"))?;
        let name = r.file_name().map_or_else(|| r.display().to_string(), |n| n.to_string_lossy().into_owned());
        all.push((name, m));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut written = Vec::new();
    // Scores, not Elo: a 0-10 or 10-0 evaluation has an infinite Elo but a plain score.
    let score = |m: &Metrics, col: &str| -> Vec<(f64, f64)> {
        let (Some(si), Some(ei)) = (m.col("step"), m.col(col)) else { return Vec::new() };
        m.rows
            .iter()
            .filter(|r| r[si].is_finite() && !r[ei].is_nan())
            .map(|r| (r[si], 100.0 / (1.0 + 10f64.powf(-r[ei] / 400.0))))
            .collect()
    };
    let scores: Vec<Line> = all
        .iter()
        .flat_map(|(name, m)| {
            [("elo_vs_baseline", "fixed-depth baseline"), ("elo_equal_time", "alpha-beta at equal time")].map(
                |(col, what)| Line { label: format!("{name}: vs {what}"), points: score(m, col), errors: Vec::new() },
            )
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    let loss: Vec<Line> = all
        .iter()
        .map(|(name, m)| Line {
            label: format!("{name}: policy loss"),
            points: m.series("step", "loss_policy"),
            errors: Vec::new(),
        })
        .filter(|l| !l.points.is_empty())
        .collect();
    for (file, title, y, lines) in [
        ("compare-score.png", "Evaluation score against alpha-beta", "score (%)", scores),
        ("compare-policy-loss.png", "Policy loss", "loss (nats)", loss),
    ] {
        if lines.is_empty() {
            continue;
        }
        let path = out.join(file);
        draw(&path, title, &Axes::steps(y), &lines).map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Elo lines: the chained rating (each evaluation's Elo against the previous checkpoint added
/// up, starting at 0), the Elo against the fixed baseline and (when measured) against
/// alpha-beta at equal time, with their intervals.
fn elo_lines(m: &Metrics) -> Vec<Line> {
    // Row by row: an Elo with an unbounded interval (a 10-0 score) keeps its point without a
    // bar; an infinite Elo has no point.
    let with_ci = |elo: &str, ci: &str| -> (Vec<(f64, f64)>, Vec<f64>) {
        let (Some(si), Some(ei), ci) = (m.col("step"), m.col(elo), m.col(ci)) else { return (Vec::new(), Vec::new()) };
        m.rows
            .iter()
            .filter(|r| r[si].is_finite() && r[ei].is_finite())
            .map(|r| ((r[si], r[ei]), ci.map(|c| r[c]).filter(|c| c.is_finite()).unwrap_or(0.0)))
            .unzip()
    };
    let (prev, prev_err) = with_ci("elo_vs_previous", "elo_vs_previous_ci");
    let mut total = 0.0;
    let mut var = 0.0;
    let mut chain = vec![(0.0, 0.0)];
    let mut chain_err = vec![0.0];
    for ((step, e), ci) in prev.iter().zip(&prev_err) {
        total += e;
        var += ci * ci; // independent matches: the variances add
        chain.push((*step, total));
        chain_err.push(var.sqrt());
    }
    let (base, base_err) = with_ci("elo_vs_baseline", "elo_vs_baseline_ci");
    let mut lines = Vec::new();
    if !prev.is_empty() {
        lines.push(Line { label: "chained Elo (vs previous)".into(), points: chain, errors: chain_err });
    }
    lines.push(Line { label: "Elo vs baseline (fixed depth)".into(), points: base, errors: base_err });
    let (eq, eq_err) = with_ci("elo_equal_time", "elo_equal_time_ci");
    if !eq.is_empty() {
        lines.push(Line { label: "Elo vs alpha-beta at equal time".into(), points: eq, errors: eq_err });
    }
    lines
}

pub(crate) fn draw(path: &Path, title: &str, axes: &Axes, lines: &[Line]) -> Result<(), Box<dyn std::error::Error>> {
    // Registering twice (a second plot in one process) is harmless: the same bytes.
    let _ = register_font("sans-serif", FontStyle::Normal, FONT);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    if let Some((y, _)) = axes.reference {
        (y0, y1) = (y, y);
    }
    for l in lines {
        for (i, &(x, y)) in l.points.iter().enumerate() {
            let e = l.errors.get(i).copied().unwrap_or(0.0);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y - e);
            y1 = y1.max(y + e);
        }
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let (x0, x1) = axes.x_range.unwrap_or((x0, x1));
    let pad = ((y1 - y0) * 0.05).max(1e-3);
    let (y0, y1) = axes.y_range.unwrap_or((y0 - pad, y1 + pad));

    // A legend below the chart makes the image taller by a row per entry.
    let legend_rows =
        if matches!(axes.legend, Legend::Below) { lines.len() + usize::from(axes.reference.is_some()) } else { 0 };
    let height = SIZE.1 + if legend_rows > 0 { (legend_rows as u32 + 1) * LEGEND_ROW } else { 0 };
    let root = BitMapBackend::new(path, (SIZE.0, height)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot_area, legend_area) =
        if legend_rows > 0 { root.split_vertically(SIZE.1) } else { (root.clone(), root.clone()) };
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(axes.x)
        .x_label_formatter(&|x| if x1 - x0 < 20.0 { format!("{x:.1}") } else { format!("{x:.0}") })
        .y_desc(axes.y)
        .label_style(("sans-serif", 14))
        .draw()?;
    for (k, l) in lines.iter().enumerate() {
        let color = series_color(k);
        chart
            .draw_series(LineSeries::new(l.points.iter().copied(), color.stroke_width(2)))?
            .label(l.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
        chart.draw_series(l.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        for (i, &(x, y)) in l.points.iter().enumerate() {
            let e = l.errors.get(i).copied().unwrap_or(0.0);
            if e > 0.0 {
                let (lo, hi) = ((y - e).max(y0), (y + e).min(y1));
                chart.draw_series(std::iter::once(PathElement::new(vec![(x, lo), (x, hi)], color)))?;
            }
        }
    }
    if let Some((y, label)) = axes.reference {
        chart
            .draw_series(LineSeries::new([(x0, y), (x1, y)], BLACK.stroke_width(1)))?
            .label(label)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(1)));
    }
    if let Legend::Inside(position) = &axes.legend {
        chart
            .configure_series_labels()
            .position(position.clone())
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
    } else {
        // Entries in the lines' order, the reference last, lined up with the plot's left edge.
        let entries = lines
            .iter()
            .enumerate()
            .map(|(k, l)| (l.label.as_str(), series_color(k)))
            .chain(axes.reference.map(|(_, label)| (label, BLACK.to_rgba())));
        for (row, (label, color)) in entries.enumerate() {
            let y = ((row as u32 + 1) * LEGEND_ROW) as i32;
            let x = 85;
            legend_area.draw(&PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)))?;
            legend_area.draw(&Text::new(label.to_string(), (x + 28, y - 8), ("sans-serif", 14)))?;
        }
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_a_metrics_file_with_gaps() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let mut csv = String::from(
            "time_s,step,games,positions,loss_total,loss_policy,loss_value,loss_moves_left,loss_material,\
             policy_entropy,game_length,resign_rate,false_resign_rate,selfplay_positions_per_s,\
             train_steps_per_s,elo_vs_previous,elo_vs_previous_ci,elo_vs_baseline,elo_vs_baseline_ci,baseline\n",
        );
        for s in 1..=20 {
            let eval = if s % 5 == 0 {
                format!("{},{},{},{},\"alphabeta:depth=1\"", 30.0, 60.0, -200.0 + 10.0 * s as f64, 80.0)
            } else {
                ",,,,".to_string()
            };
            csv += &format!(
                "{},{},{},{},{},{},{},,,{},{},0.1,,50,2,{eval}\n",
                s * 10,
                s * 100,
                s * 3,
                s * 500,
                5.0 / s as f64,
                4.0 / s as f64,
                1.0 / s as f64,
                3.0 - s as f64 * 0.05,
                200 + s
            );
        }
        std::fs::write(dir.join("metrics.csv"), csv).unwrap();
        let files = plot_run(&dir).unwrap();
        let names: Vec<_> = files.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["losses.png", "entropy.png", "game_length.png", "elo.png"]);
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            assert_eq!(&bytes[1..4], b"PNG", "{}", f.display());
            assert!(bytes.len() > 5000, "{} is suspiciously small", f.display());
        }
        let m = Metrics::load(&dir.join("metrics.csv")).unwrap();
        assert_eq!(m.series("step", "elo_vs_baseline").len(), 4);
        assert_eq!(m.series("step", "loss_moves_left").len(), 0);

        // Two runs compared (here the same one twice): scores and policy losses.
        let cmp = dir.join("cmp");
        let files = plot_compare(&[dir.clone(), dir.clone()], &cmp).unwrap();
        assert_eq!(files, [cmp.join("compare-score.png"), cmp.join("compare-policy-loss.png")]);
        assert!(plot_compare(&[dir.join("missing")], &cmp).unwrap_err().contains("cannot read metrics"));

        // Opponent games: a trailing window of games, points once a quarter window is in.
        let mut csv = String::from("step,opponent_games,opponent_score\n");
        for s in 1..=10 {
            // Rows 1-5: 20 games at 25%; rows 6-10: 20 games at 75%; row 3 has no games.
            let (g, p) = if s == 3 {
                (String::new(), String::new())
            } else {
                ("20".into(), if s <= 5 { "0.25" } else { "0.75" }.to_string())
            };
            csv += &format!("{},{g},{p}\n", s * 10);
        }
        std::fs::write(dir.join("metrics.csv"), csv).unwrap();
        let m = Metrics::load(&dir.join("metrics.csv")).unwrap();
        let l = opponent_line(&m, 80);
        // Window 80 (4 rows of 20): first point at 20 games (row 1), the last over rows 7-10.
        assert_eq!(l.points.first(), Some(&(10.0, 25.0)));
        assert_eq!(l.points.last(), Some(&(100.0, 75.0)));
        assert_eq!(l.points.len(), 9);
        // Row 6: rows 2, 4, 5 at 25% and row 6 at 75% = 37.5%.
        assert_eq!(l.points[4], (60.0, 37.5));
        assert!((l.errors[8] - 100.0 * 1.96 * (0.75f64 * 0.25 / 80.0).sqrt()).abs() < 1e-9);
        let files = plot_run(&dir).unwrap();
        assert!(files.iter().any(|f| f.ends_with("opponent.png")), "{files:?}");

        std::fs::write(dir.join("metrics.csv"), "step,loss_total\n").unwrap();
        assert!(plot_run(&dir).unwrap_err().contains("no rows yet"));
    }
}
