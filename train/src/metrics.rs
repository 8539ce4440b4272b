//! What a run reports: `RUN/metrics.csv` (one row per step that reported: every
//! `report_every_steps` steps, evaluated checkpoints and the end of a session; flushed row by
//! row, appended to on resume, the rows of steps a resume redoes removed) and `RUN/train.log` (timestamped
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
//!   does against `opponent_engine`, measured on the games it trains on;
//! - `net_mean_batch`, `net_busy`: the in-process self-play's network calls since the previous
//!   row: positions per call, and the share of the wall-clock time spent in them (the device
//!   computing and the copies to and from it; on a GPU, how busy self-play keeps it);
//! - `loss_capture`: the capture head's loss (binary cross-entropy per occupied square), in runs
//!   that train one (`capture_weight` > 0). A file written before this column gets it added.

use serde::{Deserialize, Serialize, Serializer};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

/// One row of metrics.csv; the struct's fields are the columns, in order (the header is written
/// and checked from this one definition, and `tenjiku plot` reads the columns by these names).
/// `None` cells are written empty; numbers with at most six decimals.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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
    #[serde(serialize_with = "opt_six_decimals")]
    pub net_mean_batch: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub net_busy: Option<f64>,
    #[serde(serialize_with = "opt_six_decimals")]
    pub loss_capture: Option<f64>,
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

/// metrics.csv, open for appending: one row per step. A row written for a step that already
/// has one (an evaluation after the report row of its checkpoint step, the last row of a run
/// stopped right after a report) is merged into it: the new row's cells, and the old row's
/// where the new one has none.
pub struct MetricsFile {
    file: File,
    /// The last row in the file and the byte offset where its line starts.
    last: Option<(Row, u64)>,
    /// `time_s` of the last row already in the file (a resumed run continues from it).
    pub last_time_s: f64,
}

impl MetricsFile {
    /// Open (or create with its header) `path` for a run at `step`. A last line cut short by a
    /// kill is removed, and so are the rows of steps after `step`: a run killed after them
    /// resumes from its last checkpoint and does those steps again (written atomically).
    pub fn open(path: &Path, step: u64) -> std::io::Result<MetricsFile> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e),
        };
        // Whole lines only (a kill can cut the last one short).
        let whole = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        let header = header();
        let old = whole.lines().next().unwrap_or("");
        if !whole.is_empty() && old != header && !header.starts_with(&format!("{old},")) {
            // A file from an earlier build has a prefix of today's columns; anything else is
            // not ours to rewrite.
            return Err(std::io::Error::other(format!(
                "{}: unexpected header '{old}' (expected '{header}')",
                path.display()
            )));
        }
        let bad = |e: csv::Error| std::io::Error::other(format!("{}: {e}", path.display()));
        let mut rows: Vec<Row> = Vec::new();
        if !whole.is_empty() {
            let mut r = csv::ReaderBuilder::new().flexible(true).from_reader(whole.as_bytes());
            for row in r.deserialize::<Row>() {
                rows.push(row.map_err(bad)?);
            }
        }
        let kept = rows.iter().take_while(|r| r.step <= step).count();
        let mut body = format!("{header}\n");
        for r in &rows[..kept] {
            body.push_str(&r.to_csv());
            body.push('\n');
        }
        if body != text {
            nn::files::write_atomic(path, body.as_bytes())?;
        }
        let file = OpenOptions::new().append(true).open(path)?;
        let last = rows[..kept].last().map(|r| {
            let line = r.to_csv().len() as u64 + 1;
            (r.clone(), body.len() as u64 - line)
        });
        let last_time_s = last.as_ref().map_or(0.0, |(r, _)| r.time_s);
        Ok(MetricsFile { file, last, last_time_s })
    }

    /// Write one row and flush it; a row of the step of the last row is merged into it.
    pub fn write(&mut self, row: &Row) -> std::io::Result<()> {
        let (row, at) = match self.last.take() {
            Some((old, at)) if old.step == row.step => {
                self.file.set_len(at)?;
                (row.clone().or(&old), at)
            }
            _ => (row.clone(), self.file.metadata()?.len()),
        };
        self.file.write_all(format!("{}\n", row.to_csv()).as_bytes())?;
        self.file.flush()?;
        self.last = Some((row, at));
        Ok(())
    }
}

impl Row {
    /// This row with `old`'s cells where it has none (time, step and the totals are this row's).
    fn or(mut self, old: &Row) -> Row {
        macro_rules! keep_old {
            ($($field:ident),*) => { $( if self.$field.is_none() { self.$field = old.$field.clone(); } )* };
        }
        keep_old!(
            loss_total,
            loss_policy,
            loss_value,
            loss_moves_left,
            loss_material,
            policy_entropy,
            game_length,
            resign_rate,
            false_resign_rate,
            selfplay_positions_per_s,
            train_steps_per_s,
            elo_vs_previous,
            elo_vs_previous_ci,
            elo_vs_baseline,
            elo_vs_baseline_ci,
            baseline,
            elo_equal_time,
            elo_equal_time_ci,
            opponent_games,
            opponent_score,
            net_mean_batch,
            net_busy,
            loss_capture
        );
        self
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
    pub loss_capture: f64,
    /// Steps that computed the capture loss (a network with the head, `capture_weight` > 0).
    pub capture_steps: u64,
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
    /// Self-play's network calls: positions evaluated, calls, seconds in them.
    pub net_positions: u64,
    pub net_calls: u64,
    pub net_secs: f64,
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
        row.loss_capture = per(self.loss_capture, self.capture_steps);
        row.policy_entropy = per(self.entropy_sum, self.entropy_n);
        row.game_length = per(self.game_plies as f64, self.games);
        row.resign_rate = per(self.resigned as f64, self.games);
        row.false_resign_rate = per(self.false_resign as f64, self.would_resign);
        if self.opponent_games > 0 {
            row.opponent_games = Some(self.opponent_games);
            row.opponent_score = per(self.opponent_points, self.opponent_games);
        }
        row.net_mean_batch = per(self.net_positions as f64, self.net_calls);
        if seconds > 0.0 {
            row.selfplay_positions_per_s = Some(self.positions as f64 / seconds);
            row.train_steps_per_s = Some(self.steps as f64 / seconds);
            row.net_busy = (self.net_calls > 0).then(|| self.net_secs / seconds);
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
        assert_eq!(csv, "1.5,3,0,0,,,,,,,,,,,,,,,,\"a,b\",,,,,,,");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.csv");
        let mut m = MetricsFile::open(&p, 0).unwrap();
        m.write(&row).unwrap();
        drop(m);
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"9.5,4,1").unwrap();
        drop(f);
        let m = MetricsFile::open(&p, 10).unwrap();
        assert_eq!(m.last_time_s, 1.5);
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(text, format!("{}\n{csv}\n", header()));
        // Written and read from the one definition: the rows read back as they were.
        let back: Vec<Row> = csv::Reader::from_path(&p).unwrap().deserialize().map(|r| r.unwrap()).collect();
        assert_eq!(back, vec![row.clone()]);

        // A file of an earlier build (fewer columns) gets today's header and keeps its rows.
        let columns: Vec<String> = header().split(',').map(String::from).collect();
        assert_eq!(columns.len(), 27);
        let old_header = columns[..20].join(",");
        std::fs::write(&p, format!("{old_header}\n7.25,10,1,2\n")).unwrap();
        let m = MetricsFile::open(&p, 10).unwrap();
        assert_eq!(m.last_time_s, 7.25);
        let old_row = Row { time_s: 7.25, step: 10, games: 1, positions: 2, ..Row::default() };
        assert_eq!(std::fs::read_to_string(&p).unwrap(), format!("{}\n{}\n", header(), old_row.to_csv()));
        // A file with foreign columns is refused (one line), not overwritten.
        std::fs::write(&p, "a,b\n1,2\n").unwrap();
        let e = MetricsFile::open(&p, 10).err().unwrap().to_string();
        assert!(e.contains("unexpected header") && !e.contains('\n'), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a,b\n1,2\n");
    }

    /// After kill -9 a run resumes from its last checkpoint and does the steps after it again:
    /// their rows go, so metrics.csv keeps one row per step; a second row of one step (an
    /// evaluation after the report) is merged into the first.
    #[test]
    fn metrics_keep_one_row_per_step_across_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("metrics.csv");
        let steps = |p: &Path| -> Vec<u64> {
            csv::Reader::from_path(p).unwrap().deserialize::<Row>().map(|r| r.unwrap().step).collect()
        };
        let mut m = MetricsFile::open(&p, 0).unwrap();
        for step in [5, 10, 15, 20, 25] {
            m.write(&Row { time_s: step as f64, step, loss_total: Some(1.0), ..Row::default() }).unwrap();
        }
        let eval = Row { time_s: 20.5, step: 25, elo_vs_baseline: Some(12.0), ..Row::default() };
        m.write(&eval).unwrap();
        drop(m);
        assert_eq!(steps(&p), [5, 10, 15, 20, 25]);
        let last: Row = csv::Reader::from_path(&p).unwrap().deserialize().last().unwrap().unwrap();
        assert_eq!((last.loss_total, last.elo_vs_baseline, last.time_s), (Some(1.0), Some(12.0), 20.5));
        // Killed after step 25; the newest checkpoint is step 20: rows 25 go.
        let mut m = MetricsFile::open(&p, 20).unwrap();
        assert_eq!(m.last_time_s, 20.0);
        assert_eq!(steps(&p), [5, 10, 15, 20]);
        m.write(&Row { time_s: 30.0, step: 25, ..Row::default() }).unwrap();
        assert_eq!(steps(&p), [5, 10, 15, 20, 25]);
    }
}
