//! `tenjiku plot --yardstick TABLE`: the arena matches that measure a run (issue 23's 200-game
//! matches against alpha-beta on balanced openings) as score-over-training-hours charts, one
//! chart per opponent and one line per series (a run, a search setting), with 95% intervals.
//!
//! The table is a CSV file with a header row (lines starting with `#` are comments):
//!
//! | column | meaning |
//! |---|---|
//! | `chart` | which chart the point goes on (the opponent, e.g. `alphabeta:depth=1`); the file is `yardstick-<chart>.png` |
//! | `series` | the line's label |
//! | `hours` | the run's training time at the checkpoint, in hours |
//! | `record` | an arena record `RECORD.json` (`tenjiku arena --json`) beside the table, read for its wins, draws and losses... |
//! | `wins`, `draws`, `losses` | ...or the counts themselves (a record without one, e.g. an in-loop evaluation) |
//!
//! Other columns (`step`, `note`) are for the reader. The score is the A side's, in percent; its
//! interval is the normal approximation over the games' outcomes (1.96 standard errors).

use std::path::{Path, PathBuf};

use crate::plot::{draw, Axes, Legend, Line};

/// One point: a match result at a run's training time.
#[derive(Debug, Clone, PartialEq)]
pub struct YardstickPoint {
    pub chart: String,
    pub series: String,
    pub hours: f64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl YardstickPoint {
    /// Score in percent and the half-width of its 95% interval (the arena's per-game variance).
    pub fn score(&self) -> (f64, f64) {
        let w = play::Wdl::new(self.wins, self.draws, self.losses);
        let (s, var) = (w.score().unwrap_or(0.0), w.variance().unwrap_or(0.0));
        (100.0 * s, 100.0 * 1.96 * (var / w.games() as f64).sqrt())
    }
}

/// Read a yardstick table (see the module's doc); arena records are found beside it.
pub fn read_yardstick(table: &Path) -> Result<Vec<YardstickPoint>, String> {
    let what = table.display();
    let mut r = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .from_path(table)
        .map_err(|e| format!("cannot read yardstick table {what}: {e}"))?;
    let header: Vec<String> = r
        .headers()
        .map_err(|e| format!("yardstick table {what} has no header row: {e}"))?
        .iter()
        .map(String::from)
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name);
    let need = |name: &str| {
        col(name).ok_or_else(|| {
            format!("yardstick table {what} has no `{name}` column (expected: chart, series, hours, and record or wins, draws, losses)")
        })
    };
    let (chart, series, hours) = (need("chart")?, need("series")?, need("hours")?);
    let (record, counts) = (col("record"), [col("wins"), col("draws"), col("losses")]);
    if record.is_none() && counts.iter().any(Option::is_none) {
        return Err(format!("yardstick table {what} needs a `record` column or `wins`, `draws` and `losses` columns"));
    }
    let dir = table.parent().unwrap_or(Path::new("."));
    let mut points = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| format!("yardstick table {what}: {e}"))?;
        let row = rec.position().map_or(i + 2, |p| p.line() as usize);
        let bad = |why: String| format!("yardstick table {what} line {row}: {why}");
        let cell = |c: usize| rec.get(c).unwrap_or("");
        let text = |c: usize, name: &str| {
            let v = cell(c);
            if v.is_empty() {
                Err(bad(format!("`{name}` is empty")))
            } else {
                Ok(v.to_string())
            }
        };
        let h: f64 = cell(hours)
            .parse()
            .ok()
            .filter(|h: &f64| h.is_finite() && *h >= 0.0)
            .ok_or_else(|| bad(format!("hours '{}' is not a number of hours (0 or more)", cell(hours))))?;
        let name = record.map(cell).unwrap_or("");
        let (wins, draws, losses) = if !name.is_empty() {
            read_record(&dir.join(format!("{name}.json"))).map_err(&bad)?
        } else {
            let count = |k: usize, label: &str| -> Result<u64, String> {
                let c = counts[k].map(cell).unwrap_or("");
                c.parse().map_err(|_| bad(format!("{label} '{c}' is not a count of games (and `record` is empty)")))
            };
            (count(0, "wins")?, count(1, "draws")?, count(2, "losses")?)
        };
        if wins + draws + losses == 0 {
            return Err(bad("no games".into()));
        }
        points.push(YardstickPoint {
            chart: text(chart, "chart")?,
            series: text(series, "series")?,
            hours: h,
            wins,
            draws,
            losses,
        });
    }
    if points.is_empty() {
        return Err(format!("yardstick table {what} has no rows: nothing to plot"));
    }
    Ok(points)
}

/// Wins, draws and losses of an arena record (`tenjiku arena --json`).
fn read_record(path: &Path) -> Result<(u64, u64, u64), String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read arena record {}: {e}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("arena record {} is not JSON: {e}", path.display()))?;
    let count = |k: &str| {
        v.get(k).and_then(serde_json::Value::as_u64).ok_or_else(|| {
            format!("arena record {} has no count `{k}` (expected `tenjiku arena --json` output)", path.display())
        })
    };
    Ok((count("wins")?, count("draws")?, count("losses")?))
}

/// The charts of a yardstick table, written into `out` as `yardstick-<chart>.png` (one per
/// chart, in the table's order), with a horizontal line at `goal` percent when given.
pub fn plot_yardstick(table: &Path, out: &Path, goal: Option<f64>) -> Result<Vec<PathBuf>, String> {
    if let Some(g) = goal.filter(|g| !(0.0..=100.0).contains(g)) {
        return Err(format!("goal {g} is not a score in percent (0 to 100)"));
    }
    let points = read_yardstick(table)?;
    std::fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut charts: Vec<&str> = Vec::new();
    for p in &points {
        if !charts.contains(&p.chart.as_str()) {
            charts.push(&p.chart);
        }
    }
    let goal_label = goal.map(|g| format!("goal: {g}%"));
    // From 0 to the next half hour a little after the last point.
    let last = points.iter().map(|p| p.hours).fold(0.0, f64::max);
    let x_range = (0.0, (last * 1.03 * 2.0).ceil().max(2.0) / 2.0);
    let mut written = Vec::new();
    for chart in charts {
        let mut lines: Vec<Line> = Vec::new();
        for p in points.iter().filter(|p| p.chart == chart) {
            let k = match lines.iter().position(|l| l.label == p.series) {
                Some(k) => k,
                None => {
                    lines.push(Line { label: p.series.clone(), points: Vec::new(), errors: Vec::new() });
                    lines.len() - 1
                }
            };
            let (s, e) = p.score();
            lines[k].points.push((p.hours, s));
            lines[k].errors.push(e);
        }
        for l in &mut lines {
            let mut both: Vec<_> = l.points.iter().copied().zip(l.errors.iter().copied()).collect();
            both.sort_by(|a, b| a.0 .0.total_cmp(&b.0 .0));
            (l.points, l.errors) = both.into_iter().unzip();
        }
        let path = out.join(format!("yardstick-{}.png", slug(chart)));
        let axes = Axes {
            x: "training time (hours)",
            y: "score (%)",
            x_range: Some(x_range),
            y_range: Some((0.0, 100.0)),
            reference: goal.zip(goal_label.as_deref()),
            // One line per run and setting: inside the chart the legend would hide the points.
            legend: Legend::Below,
        };
        draw(&path, &format!("Score against {chart} (95% intervals)"), &axes, &lines)
            .map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// A file-name-safe form of a chart name: letters and digits kept, runs of anything else one `-`.
fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c.to_ascii_lowercase());
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let s = s.trim_matches('-').to_string();
    if s.is_empty() {
        "chart".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charts_a_table_of_records_and_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join("a.json"), r#"{"games": 200, "wins": 100, "draws": 20, "losses": 80, "score": 0.55}"#)
            .unwrap();
        std::fs::write(dir.join("b.json"), r#"{"games": 200, "wins": 40, "draws": 0, "losses": 160}"#).unwrap();
        let table = dir.join("yardstick.csv");
        std::fs::write(
            &table,
            "# comment\nchart,series,hours,step,record,wins,draws,losses,note\n\
             alphabeta:depth=1,run 2,3.5,4000,b,,,,later\n\
             alphabeta:depth=1,run 2,2.0,2782,a,,,,\n\
             alphabeta:depth=1,old run,0.5,500,,0,0,10,in-loop\n\
             alphabeta:depth=2,run 2,2.0,2782,b,,,,\n",
        )
        .unwrap();
        let points = read_yardstick(&table).unwrap();
        assert_eq!(points.len(), 4);
        assert_eq!((points[1].wins, points[1].draws, points[1].losses), (100, 20, 80));
        assert_eq!((points[2].wins, points[2].losses), (0, 10));
        // 55%: 100 wins at 0.45 off, 20 draws at 0.05, 80 losses at 0.55 (per-game variance).
        let (s, e) = points[1].score();
        assert!((s - 55.0).abs() < 1e-9);
        let var = (100.0 * 0.45f64.powi(2) + 20.0 * 0.05f64.powi(2) + 80.0 * 0.55f64.powi(2)) / 200.0;
        assert!((e - 100.0 * 1.96 * (var / 200.0).sqrt()).abs() < 1e-9);
        // 0 of 10: a point without a bar.
        assert_eq!(points[2].score(), (0.0, 0.0));

        let out = dir.join("charts");
        let files = plot_yardstick(&table, &out, Some(55.0)).unwrap();
        assert_eq!(files, [out.join("yardstick-alphabeta-depth-1.png"), out.join("yardstick-alphabeta-depth-2.png")]);
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            assert_eq!(&bytes[1..4], b"PNG", "{}", f.display());
            assert!(bytes.len() > 5000, "{} is suspiciously small", f.display());
        }
    }

    #[test]
    fn bad_tables_say_what_is_wrong() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let table = dir.join("t.csv");
        let err = |text: &str| {
            std::fs::write(&table, text).unwrap();
            plot_yardstick(&table, dir, None).unwrap_err()
        };
        assert!(err("chart,hours,record\n").contains("no `series` column"));
        assert!(err("chart,series,hours\n").contains("`record` column or `wins`"));
        assert!(err("chart,series,hours,record\n").contains("no rows"));
        assert!(err("chart,series,hours,record\nd1,r,x,a\n").contains("line 2: hours 'x' is not a number"));
        assert!(err("chart,series,hours,record\nd1,r,-1,a\n").contains("hours '-1'"));
        assert!(err("chart,series,hours,record\nd1,r,1,missing\n").contains("cannot read arena record"));
        std::fs::write(dir.join("bad.json"), "{\"wins\": 3}").unwrap();
        assert!(err("chart,series,hours,record\nd1,r,1,bad\n").contains("has no count `draws`"));
        std::fs::write(dir.join("junk.json"), "not json").unwrap();
        assert!(err("chart,series,hours,record\nd1,r,1,junk\n").contains("is not JSON"));
        assert!(
            err("chart,series,hours,record,wins,draws,losses\nd1,r,1,,3,x,1\n").contains("draws 'x' is not a count")
        );
        assert!(err("chart,series,hours,wins,draws,losses\nd1,r,1,0,0,0\n").contains("no games"));
        assert!(err("chart,series,hours,wins,draws,losses\n,r,1,1,0,0\n").contains("`chart` is empty"));
        assert!(err("chart,series,hours,wins,draws,losses\nd1,r,1,1,0\n").contains("t.csv"));
        std::fs::write(&table, "chart,series,hours,wins,draws,losses\nd1,r,1,1,0,0\n").unwrap();
        assert!(plot_yardstick(&table, dir, Some(120.0)).unwrap_err().contains("not a score in percent"));
        assert!(plot_yardstick(&dir.join("none.csv"), dir, None).unwrap_err().contains("cannot read yardstick table"));
        assert_eq!(slug("alphabeta:depth=1"), "alphabeta-depth-1");
        assert_eq!(slug("::"), "chart");
    }
}
