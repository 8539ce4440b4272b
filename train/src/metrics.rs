//! What a run reports: `RUN/metrics.csv` (one row per `report_every_steps` steps and per
//! evaluation, flushed row by row, appended to on resume) and `RUN/train.log` (timestamped
//! human-readable lines).
//!
//! # Columns of metrics.csv (an empty cell: not measured in that row)
//! - `time_s`: seconds of running time of the run (summed over resumes);
//! - `step`, `games`, `positions`: totals of the run (games and positions on disk);
//! - `loss_*`: means over the steps since the previous row. `loss_policy` is the cross-entropy
//!   per position *with* a policy target (cheap-search positions have none, and the training
//!   step's mean over the whole batch is rescaled by batch / policy positions); `loss_total` is
//!   the optimised weighted sum as the step computed it;
//! - `policy_entropy`: mean entropy (nats) of the network's policy over the legal moves at the
//!   self-play roots since the previous row;
//! - `game_length`: mean plies of the games finished since the previous row; `resign_rate`: the
//!   share of them that ended by resignation; `false_resign_rate`: among the played-out games
//!   (resignation off) finished since the previous row in which a side would have resigned, the
//!   share where that side did not lose;
//! - `selfplay_positions_per_s`, `train_steps_per_s`: since the previous row, per second of
//!   wall-clock time of the whole loop (self-play and training share the machine);
//! - `elo_vs_previous`, `elo_vs_baseline` with `_ci` = half the width of the 95% interval
//!   (`inf` when unbounded), and `baseline` (the baseline's engine spec), in evaluation rows;
//! - `elo_equal_time`, `elo_equal_time_ci`: against plain alpha-beta at `eval_movetime_ms` per
//!   move for both sides (evaluation rows of runs with that set). A file written before these two
//!   columns existed gets the new header when a run reopens it;
//! - `opponent_games`, `opponent_score`: the opponent games (`opponent_fraction`) finished since
//!   the previous row, and the network's score in them (win 1, draw ½): how the network now
//!   does against `opponent_engine`, measured on the games it trains on.

use serde::{Deserialize, Serialize, Serializer};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// One row of metrics.csv; the struct's fields are the columns, in order (the header is written
/// and checked from this one definition, and `tenjiku plot` reads the columns by these names).
/// `None` cells are written empty; numbers with at most six decimals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    #[serde(serialize_with = "six_decimals")]
    pub time_s: f64,
    pub step: u64,
    pub games: u64,
    pub positions: u64,
    #[serde(serialize_with = "opt_six_decimals")]
    pub loss_total: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub loss_policy: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub loss_value: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub loss_moves_left: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub loss_material: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub policy_entropy: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub game_length: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub resign_rate: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub false_resign_rate: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub selfplay_positions_per_s: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub train_steps_per_s: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub elo_vs_previous: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub elo_vs_previous_ci: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub elo_vs_baseline: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub elo_vs_baseline_ci: Option<f64>,
    pub baseline: Option<String>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub elo_equal_time: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub elo_equal_time_ci: Option<f64>,
    pub opponent_games: Option<u64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub opponent_score: Option<f64>,
}

/// A number with at most six decimals (`inf`/`-inf` for the infinities, empty for NaN).
fn six_decimals<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    opt_six_decimals(&Some(*x), s)
}

fn opt_six_decimals<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    let text = match *x {
        None => String::new(),
        Some(v) if v.is_nan() => String::new(),
        Some(v) if v == f64::INFINITY => "inf".into(),
        Some(v) if v == f64::NEG_INFINITY => "-inf".into(),
        Some(v) => {
            let t = format!("{v:.6}");
            match t.trim_end_matches('0').trim_end_matches('.') {
                "" | "-0" => "0".into(),
                t => t.to_string(),
            }
        }
    };
    s.serialize_str(&text)
}

/// The header row of metrics.csv (the names of [`Row`]'s fields, in order).
pub fn header() -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.serialize(Row::default()).expect("a row serialises");
    let text = String::from_utf8(w.into_inner().expect("in memory")).expect("UTF-8");
    text.lines().next().expect("a header line").to_string()
}

impl Row {
    /// The row as one CSV line (no newline).
    pub fn to_csv(&self) -> String {
        let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        w.serialize(self).expect("a row serialises");
        let text = String::from_utf8(w.into_inner().expect("in memory")).expect("UTF-8");
        text.trim_end_matches('\n').to_string()
    }
}

/// metrics.csv, open for appending.
pub struct MetricsFile {
    file: File,
    /// `time_s` of the last row already in the file (a resumed run continues from it).
    pub last_time_s: f64,
}

impl MetricsFile {
    /// Open (or create with its header) `path`. A last line cut short by a kill is removed.
    pub fn open(path: &Path) -> std::io::Result<MetricsFile> {
        let mut file = OpenOptions::new().read(true).append(true).create(true).open(path)?;
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        let mut last_time_s = 0.0;
        if !text.is_empty() && !text.ends_with('\n') {
            let keep = text.rfind('\n').map_or(0, |i| i + 1);
            file.set_len(keep as u64)?;
            file.seek(SeekFrom::End(0))?;
            text.truncate(keep);
        }
        let header = header();
        let old = text.lines().next().unwrap_or("");
        if !text.is_empty() && old != header {
            // A file from an earlier build: its columns must be a prefix of today's; the header
            // is rewritten (atomically) and its rows keep their cells (the new columns empty).
            if !header.starts_with(&format!("{old},")) {
                return Err(std::io::Error::other(format!(
                    "{}: unexpected header '{old}' (expected '{header}')",
                    path.display()
                )));
            }
            let rest = &text[text.find('\n').map_or(text.len(), |i| i + 1)..];
            nn::files::write_atomic(path, format!("{header}\n{rest}").as_bytes())?;
            drop(file);
            return MetricsFile::open(path);
        }
        if text.is_empty() {
            writeln!(file, "{header}")?;
            file.flush()?;
        } else if let Some(last) = text.lines().skip(1).last() {
            last_time_s = last.split(',').next().and_then(|t| t.parse().ok()).unwrap_or(0.0);
        }
        Ok(MetricsFile { file, last_time_s })
    }

    /// Append one row and flush it.
    pub fn write(&mut self, row: &Row) -> std::io::Result<()> {
        self.file.write_all(format!("{}\n", row.to_csv()).as_bytes())?;
        self.file.flush()
    }
}

/// train.log: timestamped lines, flushed one by one.
pub struct Log {
    file: Option<File>,
}

impl Log {
    pub fn open(path: &Path) -> std::io::Result<Log> {
        Ok(Log { file: Some(OpenOptions::new().append(true).create(true).open(path)?) })
    }
    pub fn line(&mut self, text: &str) {
        if let Some(f) = &mut self.file {
            let _ = writeln!(f, "{} {text}", nn::files::utc_now());
            let _ = f.flush();
        }
    }
}

/// Sums since the last row.
#[derive(Clone, Debug, Default)]
pub struct Accumulator {
    pub steps: u64,
    pub loss_total: f64,
    pub loss_policy: f64,
    pub loss_value: f64,
    pub loss_moves_left: f64,
    pub loss_material: f64,
    /// Steps whose batch had a policy target (the policy loss is averaged over these).
    pub policy_steps: u64,
    pub entropy_sum: f64,
    pub entropy_n: u64,
    pub games: u64,
    pub game_plies: u64,
    pub resigned: u64,
    pub would_resign: u64,
    pub false_resign: u64,
    pub positions: u64,
    /// Opponent games finished, and the network's points in them.
    pub opponent_games: u64,
    pub opponent_points: f64,
}

impl Accumulator {
    /// Fill the measured columns of `row` from these sums over `seconds` of wall-clock time.
    pub fn fill(&self, row: &mut Row, seconds: f64) {
        let per = |x: f64, n: u64| (n > 0).then(|| x / n as f64);
        row.loss_total = per(self.loss_total, self.steps);
        row.loss_policy = per(self.loss_policy, self.policy_steps);
        row.loss_value = per(self.loss_value, self.steps);
        row.loss_moves_left = per(self.loss_moves_left, self.steps);
        row.loss_material = per(self.loss_material, self.steps);
        row.policy_entropy = per(self.entropy_sum, self.entropy_n);
        row.game_length = per(self.game_plies as f64, self.games);
        row.resign_rate = per(self.resigned as f64, self.games);
        row.false_resign_rate = per(self.false_resign as f64, self.would_resign);
        if self.opponent_games > 0 {
            row.opponent_games = Some(self.opponent_games);
            row.opponent_score = per(self.opponent_points, self.opponent_games);
        }
        if seconds > 0.0 {
            row.selfplay_positions_per_s = Some(self.positions as f64 / seconds);
            row.train_steps_per_s = Some(self.steps as f64 / seconds);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_have_every_column_and_a_cut_line_is_dropped() {
        let row = Row { time_s: 1.5, step: 3, baseline: Some("a,b".into()), ..Row::default() };
        let csv = row.to_csv();
        assert_eq!(csv, "1.5,3,0,0,,,,,,,,,,,,,,,,\"a,b\",,,,");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.csv");
        let mut m = MetricsFile::open(&p).unwrap();
        m.write(&row).unwrap();
        drop(m);
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"9.5,4,1").unwrap();
        drop(f);
        let m = MetricsFile::open(&p).unwrap();
        assert_eq!(m.last_time_s, 1.5);
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text, format!("{}\n{csv}\n", header()));
        // Written and read from the one definition: the rows read back as they were.
        let back: Vec<Row> = csv::Reader::from_path(&p).unwrap().deserialize().map(|r| r.unwrap()).collect();
        assert_eq!(back, vec![row.clone()]);

        // A file of an earlier build (fewer columns) gets today's header and keeps its rows.
        let columns: Vec<String> = header().split(',').map(String::from).collect();
        assert_eq!(columns.len(), 24);
        let old_header = columns[..20].join(",");
        std::fs::write(&p, format!("{old_header}\n7.25,10,1,2\n")).unwrap();
        let m = MetricsFile::open(&p).unwrap();
        assert_eq!(m.last_time_s, 7.25);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), format!("{}\n7.25,10,1,2\n", header()));
        // A file with foreign columns is refused (one line), not overwritten.
        std::fs::write(&p, "a,b\n1,2\n").unwrap();
        let e = MetricsFile::open(&p).err().unwrap().to_string();
        assert!(e.contains("unexpected header") && !e.contains('\n'), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a,b\n1,2\n");
    }
}
