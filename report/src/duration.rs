//! Durations on the command line: `90s`, `30m`, `8h`, `7d` (digits, then one unit).

/// Milliseconds of `text`, or `None` if it is not digits followed by `s`, `m`, `h` or `d`, or
/// does not fit.
pub fn duration_ms(text: &str) -> Option<i64> {
    let (at, unit) = text.char_indices().last()?;
    let digits = text.get(..at).filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))?;
    let unit_ms: i64 = match unit {
        's' => 1_000,
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        _ => return None,
    };
    digits.parse::<i64>().ok()?.checked_mul(unit_ms)
}

#[cfg(test)]
mod tests {
    use super::duration_ms;

    #[test]
    fn units_and_refusals() {
        let rows = [
            ("90s", Some(90_000)),
            ("30m", Some(1_800_000)),
            ("2h", Some(7_200_000)),
            ("7d", Some(604_800_000)),
            ("0m", Some(0)),
            ("", None),
            ("h", None),
            ("10", None),
            ("-1h", None),
            ("1.5h", None),
            ("3w", None),
            ("99999999999999999999d", None),
        ];
        for (text, expected) in rows {
            assert_eq!(duration_ms(text), expected, "{text}");
        }
    }
}
