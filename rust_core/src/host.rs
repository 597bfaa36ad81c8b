//! Boundary helpers shared by every binding (PyO3, later WebAssembly) and the fixture tests.
//!
//! A binding converts each host value to an [`Arg`] (the value, or the error of that parameter's
//! code) without failing early, then calls the core, which picks the first failing argument.

use crate::error::{Arg, Error, ErrorCode};

/// Default `threshold` of `decide_write` (binary64 0.85).
pub const DEFAULT_THRESHOLD: f64 = 0.85;
/// Default `mode` of `decide_write`.
pub const DEFAULT_MODE: &str = "auto";
/// Default `force` of `decide_write`.
pub const DEFAULT_FORCE: bool = false;
/// Default `cap` of `build_dedup_context`.
pub const DEFAULT_CAP: u32 = 30;

/// The error for a host value of the wrong type, e.g. `invalid_cap: cap must be ..., got bool`.
pub fn wrong_type(code: ErrorCode, param: &str, expected: &str, got: &str) -> Error {
    Error::new(code, format!("{param} must be {expected}, got {got}"))
}

/// A host string given as UTF-16 code units. A lone surrogate is an error with `code`
/// (never replaced by U+FFFD).
pub fn text_from_utf16(units: &[u16], code: ErrorCode) -> Arg<String> {
    let mut out = String::with_capacity(units.len());
    for (i, r) in char::decode_utf16(units.iter().copied()).enumerate() {
        match r {
            Ok(c) => out.push(c),
            Err(e) => {
                return Err(Error::new(
                    code,
                    format!(
                        "string contains a lone surrogate U+{:04X} (code point {i})",
                        e.unpaired_surrogate()
                    ),
                ))
            }
        }
    }
    Ok(out)
}

fn cap_error(got: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorCode::InvalidCap,
        format!("cap must be an integer in [0, 4294967295], got {got}"),
    )
}

/// `cap` from a host float: finite, integral, in [0, 2^32 − 1] (-0.0 is 0), else `invalid_cap`.
pub fn cap_from_f64(v: f64) -> Arg<u32> {
    if v.is_finite() && v.fract() == 0.0 && (0.0..=4_294_967_295.0).contains(&v) {
        // In range and integral, so the conversion is exact.
        Ok(v as u32)
    } else {
        Err(cap_error(v))
    }
}

/// `cap` from a host integer: in [0, 2^32 − 1], else `invalid_cap` (never wrapped).
pub fn cap_from_i128(v: i128) -> Arg<u32> {
    u32::try_from(v).map_err(|_| cap_error(v))
}

/// `threshold` from a host integer: its value as binary64 if it fits an i64, else
/// `invalid_threshold` (the core then checks the [0, 1] range).
pub fn threshold_from_i128(v: i128) -> Arg<f64> {
    match i64::try_from(v) {
        Ok(i) => Ok(i as f64),
        Err(_) => Err(Error::new(
            ErrorCode::InvalidThreshold,
            format!("threshold must be a number in [0, 1], got {v}"),
        )),
    }
}

/// Borrow the text of an owned host argument (`Arg<String>` → `Arg<&str>`).
pub fn as_str_arg(arg: &Arg<String>) -> Arg<&str> {
    match arg {
        Ok(s) => Ok(s.as_str()),
        Err(e) => Err(e.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16() {
        assert_eq!(
            text_from_utf16(&[0x61, 0xD83D, 0xDE00], ErrorCode::InvalidText),
            Ok("a\u{1F600}".to_string())
        );
        let e = text_from_utf16(&[0xD800, 0x61], ErrorCode::InvalidJson).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        let e = text_from_utf16(&[0x61, 0xDC00], ErrorCode::InvalidText).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidText);
        assert!(text_from_utf16(&[0xDC00, 0xD800], ErrorCode::InvalidMode).is_err());
    }

    #[test]
    fn caps() {
        assert_eq!(cap_from_f64(30.0), Ok(30));
        assert_eq!(cap_from_f64(-0.0), Ok(0));
        assert_eq!(cap_from_f64(4_294_967_295.0), Ok(u32::MAX));
        for v in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            30.5,
            -1.0,
            4_294_967_296.0,
            1e300,
        ] {
            assert_eq!(
                cap_from_f64(v).unwrap_err().code,
                ErrorCode::InvalidCap,
                "{v}"
            );
        }
        assert_eq!(cap_from_i128(0), Ok(0));
        assert_eq!(cap_from_i128(4_294_967_295), Ok(u32::MAX));
        assert!(cap_from_i128(-1).is_err());
        assert!(cap_from_i128(4_294_967_296).is_err());
        assert_eq!(
            cap_from_i128(-1).unwrap_err().to_string(),
            "invalid_cap: cap must be an integer in [0, 4294967295], got -1"
        );
    }

    #[test]
    fn thresholds() {
        assert_eq!(threshold_from_i128(1), Ok(1.0));
        assert_eq!(threshold_from_i128(-5), Ok(-5.0));
        assert!(threshold_from_i128(i128::from(i64::MAX) + 1).is_err());
    }
}
