//! Calendar dates from the system clock (UTC), without a date library.

use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC date and time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    /// Gregorian year.
    pub year: i64,
    /// Month, 1 to 12.
    pub month: u32,
    /// Day of the month, 1 to 31.
    pub day: u32,
    /// Seconds since midnight.
    pub seconds: u32,
}

/// The current time as git writes it in a commit: seconds since the epoch
/// and the local offset from UTC (`1700000000 +0100`).
pub fn git_now() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let offset = local_offset(seconds);
    let sign = if offset < 0 { '-' } else { '+' };
    let minutes = offset.unsigned_abs() / 60;
    format!("{seconds} {sign}{:02}{:02}", minutes / 60, minutes % 60)
}

/// The current year (UTC), for copyright lines.
pub fn current_year() -> i64 {
    DateTime::now().year
}

/// The local offset from UTC at `seconds` after the epoch, in seconds.
#[cfg(unix)]
fn local_offset(seconds: u64) -> i64 {
    let time = libc::time_t::try_from(seconds).unwrap_or(0);
    // SAFETY: an all-zero `tm` is valid, and both pointers outlive the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let converted = unsafe { libc::localtime_r(&time, &mut tm) };
    if converted.is_null() { 0 } else { tm.tm_gmtoff }
}

/// The local offset from UTC: taken as none here.
#[cfg(not(unix))]
fn local_offset(_seconds: u64) -> i64 {
    0
}

impl DateTime {
    /// The current date and time (UTC).
    pub fn now() -> Self {
        let seconds = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Self::from_unix(seconds)
    }

    /// The date and time `seconds` after 1970-01-01T00:00:00Z.
    pub fn from_unix(seconds: u64) -> Self {
        let days = i64::try_from(seconds / 86_400).unwrap_or(0);
        let (year, month, day) = civil_date(days);
        Self {
            year,
            month,
            day,
            seconds: u32::try_from(seconds % 86_400).unwrap_or(0),
        }
    }

    /// `YYYYMMDD-HHMMSS`, for names of files and directories.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}-{:02}{:02}{:02}",
            self.year,
            self.month,
            self.day,
            self.seconds / 3600,
            self.seconds / 60 % 60,
            self.seconds % 60
        )
    }
}

/// The Gregorian (year, month, day) of a day counted from 1970-01-01.
fn civil_date(days: i64) -> (i64, u32, u32) {
    // Shift to an era starting on 0000-03-01, where leap days fall at the end.
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153; // 0 = March … 11 = February
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_days() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(365), (1971, 1, 1));
        assert_eq!(civil_date(20_453), (2025, 12, 31));
        assert_eq!(civil_date(20_454), (2026, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
    }

    #[test]
    fn compact_form() {
        // 2026-11-21T13:05:09Z
        let at = DateTime::from_unix(20_778 * 86_400 + 13 * 3600 + 5 * 60 + 9);
        assert_eq!(at.compact(), "20261121-130509");
    }
}
