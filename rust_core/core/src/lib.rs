//! Rust core of contract v1: `normalize_fact_text`, `decide_write`, `build_dedup_context`. Pure logic:
//! no Python, no JavaScript.
//!
//! Bindings call the ops in [`host`] with each argument as a [`host::HostValue`]; the rules for host
//! values (types, ranges, defaults, error codes) live there, once. Every argument is converted to an
//! [`Arg`] without failing early, and the ops here validate in signature order, so the first failing
//! argument decides the code.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::arithmetic_side_effects,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod dedup_context;
pub mod error;
pub mod host;
pub mod json;
pub mod normalize;
pub mod trace;
pub mod write_gate;

pub use error::{Arg, Error, ErrorCode};

use trace::{Observer, Quiet};

/// `normalize_fact_text(text)`: contract steps 1–7. The result may be "".
pub fn normalize_fact_text(text: Arg<&str>) -> Result<String, Error> {
    normalize_fact_text_observed(text, &mut Quiet)
}

/// `normalize_fact_text` with each step's result shown to `obs` (`norm.text` .. `norm.edges`).
pub fn normalize_fact_text_observed<O: Observer>(
    text: Arg<&str>,
    obs: &mut O,
) -> Result<String, Error> {
    let text = text.map_err(error::at("norm.text"))?;
    obs.note("norm.text", || serde_json::json!(text));
    Ok(normalize::normalize_observed(text, obs))
}

/// `decide_write(...)`: compact JSON `{"action","reason","match"}`.
pub use write_gate::{decide_write, decide_write_observed};

/// `build_dedup_context(...)`: the context text, or "" when no line survives.
pub use dedup_context::{build_dedup_context, build_dedup_context_observed};

/// `unicode_nfc(text)`: canonical composition (NFC) alone, with the normalization tables
/// `unicode_versions()` reports. A diagnostic op, not part of contract v1: it lets the harness check
/// the NFC step against Unicode's NormalizationTest.txt.
pub fn unicode_nfc(text: Arg<&str>) -> Result<String, Error> {
    unicode_nfc_observed(text, &mut Quiet)
}

/// `unicode_nfc` with its steps shown to `obs` (`nfc.text`, `nfc.nfc`).
pub fn unicode_nfc_observed<O: Observer>(text: Arg<&str>, obs: &mut O) -> Result<String, Error> {
    use unicode_normalization::UnicodeNormalization;
    let text = text.map_err(error::at("nfc.text"))?;
    obs.note("nfc.text", || serde_json::json!(text));
    let composed: String = text.nfc().collect();
    obs.note("nfc.nfc", || serde_json::json!(composed));
    Ok(composed)
}

/// Compact JSON naming the Unicode version of each Unicode-dependent step.
pub fn unicode_versions() -> String {
    let (cm, cn, cp) = char::UNICODE_VERSION;
    let (nm, nn, np) = unicode_normalization::UNICODE_VERSION;
    format!(
        "{{\"case_mapping\":\"{cm}.{cn}.{cp}\",\"normalization\":\"{nm}.{nn}.{np}\",\"white_space\":\"contract-v1\"}}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        let v: serde_json::Value = serde_json::from_str(&unicode_versions()).unwrap();
        assert_eq!(v["white_space"], "contract-v1");
        assert_eq!(v["normalization"], "18.0.0");
        assert_eq!(v.as_object().unwrap().len(), 3);
    }

    #[test]
    fn normalize_errors() {
        let e = normalize_fact_text(Err(Error::new(ErrorCode::InvalidText, "x")));
        assert_eq!(e.unwrap_err().code, ErrorCode::InvalidText);
        assert_eq!(normalize_fact_text(Ok("  ")), Ok(String::new()));
    }
}
