//! Step traces: what each step of an op produced, seen from the op's own code path
//! (schemas/trace-v1.schema.json; the step ids are those of docs/contract.md and
//! harness/model/registry.py).
//!
//! Every op is one function generic over an [`Observer`]. The op that ships runs with [`Quiet`], whose
//! `note` is an empty inline function: the closure that would build a step's value is never called and
//! the whole note compiles away. `trace` runs the same function with a [`Recorder`]. Where the op
//! fuses steps (NFC and the quote map in one iterator), the closure computes the earlier step's result
//! with the same step functions, so what the op computes never changes.
//!
//! Values are written so that no host re-encodes them: a float as `{"$f64": "<hex>"}` in Python's
//! `float.hex()` form (bit-exact), every other value as plain JSON.

use serde_json::{json, Map, Value};

use crate::error::Error;
use crate::json::Value as Json;

/// Sees what each step of an op produced.
pub trait Observer {
    /// `value` builds the step's result; it is called only when the observer records.
    fn note(&mut self, step: &'static str, value: impl FnOnce() -> Value);
}

/// The observer of the ops that ship: records nothing, costs nothing.
pub struct Quiet;

impl Observer for Quiet {
    #[inline(always)]
    fn note(&mut self, _step: &'static str, _value: impl FnOnce() -> Value) {}
}

/// Keeps every note, in order.
#[derive(Default)]
pub struct Recorder {
    pub steps: Vec<(&'static str, Value)>,
}

impl Observer for Recorder {
    fn note(&mut self, step: &'static str, value: impl FnOnce() -> Value) {
        self.steps.push((step, value()));
    }
}

/// A binary64 value as Python's `float.hex()` writes it: `0x1.999999999999ap-4`, `0x0.0p+0`,
/// `-0x0.0000000000001p-1022` (subnormal), `inf`, `-inf`, `nan`.
pub fn float_hex(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    let bits = x.to_bits();
    let biased = (bits >> 52) & 0x7ff;
    let mantissa = bits & ((1_u64 << 52) - 1);
    match (biased, mantissa) {
        (0, 0) => format!("{sign}0x0.0p+0"),
        (0, m) => format!("{sign}0x0.{m:013x}p-1022"),
        (b, m) => {
            // b is in [1, 2046], so the unbiased exponent is in [-1022, 1023].
            let exponent = i64::try_from(b).unwrap_or(0).saturating_sub(1023);
            let exp_sign = if exponent < 0 { '-' } else { '+' };
            format!("{sign}0x1.{m:013x}p{exp_sign}{}", exponent.unsigned_abs())
        }
    }
}

/// A float as a trace value.
pub fn f64_value(x: f64) -> Value {
    json!({ "$f64": float_hex(x) })
}

/// Floats (or null) as a trace value.
pub fn f64s_value(xs: Option<&[f64]>) -> Value {
    match xs {
        None => Value::Null,
        Some(xs) => Value::Array(xs.iter().map(|x| f64_value(*x)).collect()),
    }
}

/// A parsed JSON document as a trace value: every number is a binary64 float.
pub fn json_value(value: &Json) -> Value {
    match value {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(x) => f64_value(*x),
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::Array(items.iter().map(json_value).collect()),
        Json::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), json_value(v)))
                .collect::<Map<String, Value>>(),
        ),
    }
}

/// Strings as a trace value.
pub fn strs_value<'a>(items: impl Iterator<Item = &'a str>) -> Value {
    Value::Array(items.map(|s| Value::String(s.to_string())).collect())
}

/// The trace document: `args` (the arguments as the core received them), then the recorded steps,
/// then the op's own outcome (its result, or its error code and the step that raised it).
pub fn document(
    op: &str,
    args: Map<String, Value>,
    recorded: Recorder,
    outcome: &Result<String, Error>,
) -> String {
    let mut steps = Vec::with_capacity(recorded.steps.len().saturating_add(1));
    steps.push(json!({"step": "args", "value": Value::Object(args)}));
    steps.extend(
        recorded
            .steps
            .into_iter()
            .map(|(step, value)| json!({"step": step, "value": value})),
    );
    let outcome = match outcome {
        Ok(result) => json!({ "result": result }),
        Err(e) => json!({"error": e.code.as_str(), "step": e.step}),
    };
    json!({"schema": "trace-v1", "op": op, "steps": steps, "outcome": outcome}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_hex_as_python_writes_it() {
        // Each pair checked against CPython's float.hex().
        for (x, text) in [
            (1.0, "0x1.0000000000000p+0"),
            (0.0, "0x0.0p+0"),
            (-0.0, "-0x0.0p+0"),
            (5e-324, "0x0.0000000000001p-1022"),
            (0.1, "0x1.999999999999ap-4"),
            (1e300, "0x1.7e43c8800759cp+996"),
            (-2.5, "-0x1.4000000000000p+1"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (2f64.powi(-1022), "0x1.0000000000000p-1022"),
            (f64::MAX, "0x1.fffffffffffffp+1023"),
        ] {
            assert_eq!(float_hex(x), text, "{x:e}");
        }
    }

    #[test]
    fn quiet_never_builds_a_value() {
        let mut quiet = Quiet;
        quiet.note("x.y", || panic!("built"));
        let mut recorder = Recorder::default();
        recorder.note("x.y", || Value::Bool(true));
        assert_eq!(recorder.steps, vec![("x.y", Value::Bool(true))]);
    }
}
