//! Engine specs: `kind[:key=value,...]` text naming one engine and its settings, e.g.
//! `alphabeta:depth=3`, `random`, `mcts:checkpoint=PATH,visits=800`. The registry that builds
//! engines from specs lives in the `play` crate; this module parses specs and reads their
//! values, each checked against its documented range.

use std::fmt::Display;
use std::str::FromStr;
use std::time::Duration;

/// The longest time per move a spec or a protocol command may set (a day): a deadline this far
/// ahead still fits every clock, and nobody waits longer for a move.
pub const MAX_MOVE_TIME: Duration = Duration::from_secs(24 * 3600);

/// A parsed engine spec: `kind[:key=value,key=value...]`, e.g. `alphabeta:depth=3`,
/// `alphabeta:time=1s`, `mcts:checkpoint=PATH,visits=800`, `random`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub kind: String,
    pub params: Vec<(String, String)>,
}

/// A bad engine spec: what was wrong, and what was expected. Every variant names the spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("bad engine spec '{spec}': expected ENGINE[:key=value,...], e.g. 'alphabeta:depth=3' or 'random'")]
    Syntax { spec: String },
    #[error("bad engine spec '{spec}': parameter '{param}' is not key=value")]
    NotKeyValue { spec: String, param: String },
    #[error("bad engine spec '{spec}': parameter '{param}' needs a key and a value")]
    EmptyKeyOrValue { spec: String, param: String },
    #[error("bad engine spec '{spec}': parameter '{key}' given twice")]
    Duplicate { spec: String, key: String },
    #[error("bad engine spec '{spec}': unknown engine '{kind}' (expected {expected})")]
    UnknownEngine { spec: String, kind: String, expected: String },
    #[error("bad engine spec '{spec}': unknown parameter '{key}' for '{kind}' (expected {expected})")]
    UnknownKey { spec: String, kind: String, key: String, expected: String },
    #[error("bad engine spec '{spec}': '{key}={value}' is not a valid number")]
    BadNumber { spec: String, key: String, value: String },
    #[error("bad engine spec '{spec}': '{key}={value}' is not a duration (e.g. 1s, 500ms, 2m; at most 24h)")]
    BadDuration { spec: String, key: String, value: String },
    #[error("bad engine spec '{spec}': '{key}={value}' is out of range (expected {range})")]
    OutOfRange { spec: String, key: String, value: String, range: String },
    #[error("bad engine spec '{spec}': missing '{key}' ({hint})")]
    Missing { spec: String, key: String, hint: String },
    /// Parameters that do not go together, and the like.
    #[error("bad engine spec '{spec}': {why}")]
    Invalid { spec: String, why: String },
    /// The engine's resources could not be had (a network that does not load, a backend not
    /// compiled in); `why` is that error's own one-line text.
    #[error("bad engine spec '{spec}': {why}")]
    Unavailable { spec: String, why: String },
}

impl EngineSpec {
    pub fn parse(spec: &str) -> Result<EngineSpec, SpecError> {
        let s = spec.trim();
        let (kind, rest) = match s.split_once(':') {
            Some((k, r)) => (k, Some(r)),
            None => (s, None),
        };
        if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(SpecError::Syntax { spec: spec.to_string() });
        }
        let mut params = Vec::new();
        if let Some(rest) = rest {
            for kv in rest.split(',') {
                let param = || kv.to_string();
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| SpecError::NotKeyValue { spec: spec.to_string(), param: param() })?;
                if k.is_empty() || v.is_empty() {
                    return Err(SpecError::EmptyKeyOrValue { spec: spec.to_string(), param: param() });
                }
                if params.iter().any(|(pk, _): &(String, String)| pk == k) {
                    return Err(SpecError::Duplicate { spec: spec.to_string(), key: k.to_string() });
                }
                params.push((k.to_string(), v.to_string()));
            }
        }
        Ok(EngineSpec { kind: kind.to_string(), params })
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Reject parameters outside `allowed`.
    pub fn check_keys(&self, allowed: &[&str]) -> Result<(), SpecError> {
        match self.params.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            None => Ok(()),
            Some((k, _)) => Err(SpecError::UnknownKey {
                spec: self.to_string(),
                kind: self.kind.clone(),
                key: k.clone(),
                expected: allowed.join(", "),
            }),
        }
    }

    /// A combination of parameters that does not work, in words.
    pub fn invalid(&self, why: impl Into<String>) -> SpecError {
        SpecError::Invalid { spec: self.to_string(), why: why.into() }
    }

    /// The engine's resources could not be had (`why` is that error's one-line text).
    pub fn unavailable(&self, why: impl Display) -> SpecError {
        SpecError::Unavailable { spec: self.to_string(), why: why.to_string() }
    }

    /// A required parameter is missing; `hint` says what to give.
    pub fn missing(&self, key: &str, hint: &str) -> SpecError {
        SpecError::Missing { spec: self.to_string(), key: key.into(), hint: hint.into() }
    }

    /// A value outside its range; `range` says what was expected.
    pub fn out_of_range(&self, key: &str, value: impl Display, range: impl Into<String>) -> SpecError {
        SpecError::OutOfRange { spec: self.to_string(), key: key.into(), value: value.to_string(), range: range.into() }
    }

    /// A parameter parsed as a number (any value the type holds).
    pub fn number<T: FromStr>(&self, key: &str) -> Result<Option<T>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| SpecError::BadNumber {
                spec: self.to_string(),
                key: key.into(),
                value: v.into(),
            }),
        }
    }

    /// A parameter parsed as a number in `lo..=hi` (a NaN is out of every range).
    pub fn number_in<T: FromStr + PartialOrd + Display>(
        &self,
        key: &str,
        lo: T,
        hi: T,
    ) -> Result<Option<T>, SpecError> {
        match self.number::<T>(key)? {
            None => Ok(None),
            Some(x) if x >= lo && x <= hi => Ok(Some(x)),
            Some(x) => Err(self.out_of_range(key, x, format!("{lo} to {hi}"))),
        }
    }

    /// A duration parameter: `1s`, `500ms`, `0.5s`, `2m`, or plain seconds; at most
    /// [`MAX_MOVE_TIME`].
    pub fn duration(&self, key: &str) -> Result<Option<Duration>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => parse_duration(v).map(Some).ok_or_else(|| SpecError::BadDuration {
                spec: self.to_string(),
                key: key.into(),
                value: v.into(),
            }),
        }
    }
}

impl std::fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.kind)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// Parse `1s`, `500ms`, `0.5s`, `2m` or plain seconds, from 0 to [`MAX_MOVE_TIME`]; anything
/// else (negative, not finite, longer than a day) is `None`.
pub fn parse_duration(v: &str) -> Option<Duration> {
    let (num, scale) = if let Some(n) = v.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = v.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (v, 1.0)
    };
    let secs = num.parse::<f64>().ok()? * scale;
    (secs.is_finite() && secs >= 0.0 && secs <= MAX_MOVE_TIME.as_secs_f64()).then(|| Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs_parse_and_reject_bad_input() {
        let s = EngineSpec::parse("alphabeta:depth=3,time=1s").unwrap();
        assert_eq!(s.kind, "alphabeta");
        assert_eq!(s.number::<u32>("depth").unwrap(), Some(3));
        assert_eq!(s.duration("time").unwrap(), Some(Duration::from_secs(1)));
        assert_eq!(s.to_string(), "alphabeta:depth=3,time=1s");
        assert_eq!(EngineSpec::parse("random").unwrap().params.len(), 0);
        for bad in ["", ":depth=3", "alphabeta:depth", "alphabeta:depth=3,depth=4", "a b", "x:=1"] {
            assert!(EngineSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(matches!(s.check_keys(&["depth"]), Err(SpecError::UnknownKey { key, .. }) if key == "time"));
        let s = EngineSpec::parse("alphabeta:depth=x").unwrap();
        assert!(s.number::<u32>("depth").unwrap_err().to_string().contains("not a valid number"));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("2h"), Some(Duration::from_secs(7200)));
        assert_eq!(parse_duration("-1s"), None);
    }

    #[test]
    fn durations_too_long_for_a_deadline_are_refused_not_a_panic() {
        for v in ["1e30", "1e30s", "1e300ms", "inf", "NaN", "25h", "1441m", "86401"] {
            assert_eq!(parse_duration(v), None, "{v}");
            let s = EngineSpec::parse(&format!("alphabeta:time={v}")).unwrap();
            let e = s.duration("time").unwrap_err().to_string();
            assert!(e.contains("is not a duration") && e.contains("at most 24h") && !e.contains('\n'), "{e}");
        }
        assert_eq!(parse_duration("24h"), Some(MAX_MOVE_TIME));
    }

    #[test]
    fn numbers_out_of_their_range_name_key_value_and_range() {
        let s = EngineSpec::parse("mcts:visits=0,cpuct=NaN,temp=-1").unwrap();
        let e = s.number_in::<u32>("visits", 1, 1_000_000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad engine spec 'mcts:visits=0,cpuct=NaN,temp=-1': 'visits=0' is out of range (expected 1 to 1000000)"
        );
        assert!(s.number_in::<f32>("cpuct", 0.0, 100.0).is_err(), "NaN is in no range");
        assert!(s.number_in::<f32>("temp", 0.0, 10.0).is_err());
        assert_eq!(s.number_in::<f32>("fpu", 0.0, 10.0).unwrap(), None);
    }
}
