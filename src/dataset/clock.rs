//! The clock the tests see: the real one, or a pinned one (`--clock created_at|DATE|real`).
//!
//! Some tests depend on the date they run on (a dayjs week-of-year test fails only from Nov 27
//! to Nov 30), so FAIL_TO_PASS lists derived on one day may not hold on another. A pinned clock
//! makes validation and evaluation see the same date: the eval script starts the test command
//! under libfaketime (Debian's `faketime` package, in every language's base layer) with the
//! offset from the container's real time to the pinned instant, so the clock starts at that
//! instant and then runs at its normal rate, the same for every process of the run. `timeout`
//! itself runs outside it on the real clock, and the monotonic clocks timers use keep running
//! normally, so test timeouts and verdict's own timeout are unaffected. libfaketime reaches
//! programs through the C library (Python, Node.js, the JVM); a statically linked test binary
//! that reads the clock without it (Go) sees the real time.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::dataset::Instance;

/// What `--clock` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClockSetting {
    /// The container's own clock.
    #[default]
    Real,
    /// Each instance's `created_at`.
    CreatedAt,
    /// One instant for every instance.
    Fixed(jiff::Timestamp),
}

impl FromStr for ClockSetting {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "real" => Ok(ClockSetting::Real),
            "created_at" => Ok(ClockSetting::CreatedAt),
            other => parse_instant(other).map(ClockSetting::Fixed).map_err(|e| {
                format!("--clock takes `real`, `created_at` or a date such as 2019-11-28 or 2019-11-28T12:00:00Z ({e})")
            }),
        }
    }
}

/// An instant from a date (`2019-11-28`, noon UTC), a date and time without an offset (UTC), or
/// an RFC 3339 timestamp (`2019-11-28T10:01:02Z`, `…+02:00`).
pub fn parse_instant(text: &str) -> Result<jiff::Timestamp, String> {
    let text = text.trim();
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Ok(ts);
    }
    let utc = |dt: jiff::civil::DateTime| jiff::tz::TimeZone::UTC.to_timestamp(dt).map_err(|e| e.to_string());
    let has_time = text.contains(['T', 't', ' ']);
    let parsed = if has_time {
        text.parse::<jiff::civil::DateTime>().map_err(|e| e.to_string()).and_then(utc)
    } else {
        text.parse::<jiff::civil::Date>().map_err(|e| e.to_string()).and_then(|d| utc(d.at(12, 0, 0, 0)))
    };
    parsed.map_err(|e| format!("{text:?} is not a date: {e}"))
}

/// Where a run's clock came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockSource {
    #[default]
    Real,
    CreatedAt,
    Given,
}

/// The clock one evaluation ran with, as its report records it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Clock {
    pub source: ClockSource,
    /// The pinned instant (RFC 3339, UTC), when not real.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

impl Clock {
    /// Seconds since the epoch of the pinned instant.
    pub fn epoch(&self) -> Option<i64> {
        self.at.as_deref().and_then(|at| at.parse::<jiff::Timestamp>().ok()).map(|t| t.as_second())
    }

    fn pinned(source: ClockSource, ts: jiff::Timestamp) -> Self {
        Clock { source, at: Some(ts.to_string()) }
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.source, &self.at) {
            (ClockSource::Real, _) | (_, None) => f.write_str("real"),
            (ClockSource::CreatedAt, Some(at)) => write!(f, "{at} (created_at)"),
            (ClockSource::Given, Some(at)) => write!(f, "{at}"),
        }
    }
}

impl ClockSetting {
    /// The clock for `instance`; with `created_at`, an instance without a usable one is an
    /// error naming it.
    pub fn for_instance(&self, instance: &Instance) -> Result<Clock, String> {
        match self {
            ClockSetting::Real => Ok(Clock::default()),
            ClockSetting::Fixed(ts) => Ok(Clock::pinned(ClockSource::Given, *ts)),
            ClockSetting::CreatedAt => {
                let Some(value) = instance.extra.get("created_at") else {
                    return Err(format!("instance {} has no created_at for --clock created_at", instance.instance_id));
                };
                let text = value.as_str().ok_or_else(|| {
                    format!("instance {}: created_at is not a string ({value})", instance.instance_id)
                })?;
                parse_instant(text)
                    .map(|ts| Clock::pinned(ClockSource::CreatedAt, ts))
                    .map_err(|e| format!("instance {}: created_at {e}", instance.instance_id))
            }
        }
    }

    /// Checks every instance up front, so a bad `created_at` is reported before anything runs.
    pub fn check(&self, instances: &[Instance]) -> Result<(), String> {
        let bad: Vec<String> = instances.iter().filter_map(|i| self.for_instance(i).err()).collect();
        match bad.as_slice() {
            [] => Ok(()),
            [one] => Err(format!("{one}; give --clock DATE or --clock real")),
            [first, ..] => Err(format!(
                "{} instances have no usable created_at for --clock created_at (first: {first}); give --clock DATE or --clock real",
                bad.len()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(created_at: Option<&str>) -> Instance {
        let mut value = serde_json::json!({
            "instance_id": "o__r-1", "repo": "o/r", "base_commit": "abc", "patch": "", "test_patch": ""
        });
        if let Some(c) = created_at {
            value["created_at"] = c.into();
        }
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn settings_and_instants() {
        assert_eq!("real".parse::<ClockSetting>(), Ok(ClockSetting::Real));
        assert_eq!("created_at".parse::<ClockSetting>(), Ok(ClockSetting::CreatedAt));
        let date: ClockSetting = "2019-11-28".parse().unwrap();
        assert_eq!(date, ClockSetting::Fixed("2019-11-28T12:00:00Z".parse().unwrap()));
        assert_eq!(parse_instant("2019-11-28T10:01:02+02:00").unwrap().to_string(), "2019-11-28T08:01:02Z");
        assert_eq!(parse_instant("2019-11-28 10:01:02").unwrap().to_string(), "2019-11-28T10:01:02Z");
        assert_eq!(parse_instant("2019-11-28T10:01:02.345Z").unwrap().as_second(), 1574935262);
        let err = "yesterday".parse::<ClockSetting>().unwrap_err();
        assert!(err.contains("--clock takes `real`, `created_at` or a date"), "{err}");
    }

    #[test]
    fn clock_per_instance() {
        let pinned = ClockSetting::CreatedAt.for_instance(&instance(Some("2019-11-28T10:00:00Z"))).unwrap();
        assert_eq!(pinned, Clock { source: ClockSource::CreatedAt, at: Some("2019-11-28T10:00:00Z".into()) });
        assert_eq!(pinned.epoch(), Some(1574935200));
        assert_eq!(pinned.to_string(), "2019-11-28T10:00:00Z (created_at)");
        let real = ClockSetting::Real.for_instance(&instance(None)).unwrap();
        assert_eq!(real.epoch(), None);
        assert_eq!(real.to_string(), "real");
        let err = ClockSetting::CreatedAt.check(&[instance(None), instance(Some("soon"))]).unwrap_err();
        assert!(err.starts_with("2 instances have no usable created_at"), "{err}");
        let err = ClockSetting::CreatedAt.check(&[instance(Some("soon"))]).unwrap_err();
        assert!(err.contains("o__r-1: created_at \"soon\" is not a date"), "{err}");
    }
}
