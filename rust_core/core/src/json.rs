//! Strict RFC 8259 JSON of contract v1, on serde_json.
//!
//! Rejects (all as `invalid_json`): any syntax error (a leading BOM included, whitespace other than
//! space/tab/LF/CR), `NaN`/`Infinity` literals, escapes that decode to lone surrogates, numbers whose
//! correctly rounded binary64 value is infinite (serde_json, with `float_roundtrip` for correct
//! rounding, refuses each of these); and, added here while the document is built, duplicate object
//! keys (compared after unescaping) and more than [`MAX_DEPTH`] levels of nested arrays/objects.
//! Every number is kept as its correctly rounded binary64 value. Recursion is bounded by the depth
//! limit, which is checked before serde_json's own (128) is reached.
//!
//! Built with serde_json's default number handling: its `arbitrary_precision` feature would hand
//! numbers to the visitor as maps, so nothing in this crate's build may turn it on (see the workspace
//! manifest).

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, ErrorCode};

/// Deepest nesting of arrays/objects accepted; the outermost array/object is level 1.
pub const MAX_DEPTH: usize = 100;

/// Objects up to this many members look for a duplicate key by scanning; larger ones use a set.
const SCAN_KEYS: usize = 16;

/// A parsed JSON value. Object members keep document order (keys are unique).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object (None for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A short name of the value's JSON type, for error details.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

/// Parse `text` as one strict JSON document.
pub fn parse(text: &str) -> Result<Value, Error> {
    let invalid = |e: serde_json::Error| Error::new(ErrorCode::InvalidJson, e.to_string());
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = Level(0).deserialize(&mut reader).map_err(invalid)?;
    reader.end().map_err(invalid)?;
    Ok(value)
}

/// Builds the value found at nesting level `.0` (0: the document itself).
#[derive(Clone, Copy)]
struct Level(usize);

impl Level {
    /// The level of a container's members, or an error past [`MAX_DEPTH`].
    fn inner<E: de::Error>(self) -> Result<Level, E> {
        let inner = self.0.saturating_add(1);
        if inner > MAX_DEPTH {
            Err(E::custom(format_args!(
                "more than {MAX_DEPTH} levels of nesting"
            )))
        } else {
            Ok(Level(inner))
        }
    }
}

impl<'de> DeserializeSeed<'de> for Level {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, reader: D) -> Result<Value, D::Error> {
        reader.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Level {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    // An integer literal that fits i64/u64: its correctly rounded binary64 value (`as` rounds to
    // nearest, ties to even). Larger ones reach visit_f64, correctly rounded by serde_json; "-0"
    // arrives as the float -0.0.
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v as f64))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v as f64))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        if v.is_finite() {
            Ok(Value::Number(v))
        } else {
            Err(E::custom("number out of binary64 range"))
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut members: Vec<(String, Value)> = Vec::new();
        let mut seen: Option<HashSet<String>> = None;
        while let Some(key) = map.next_key::<String>()? {
            let duplicate = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => members.iter().any(|(k, _)| *k == key),
            };
            if duplicate {
                return Err(de::Error::custom(format_args!(
                    "duplicate object key {key:?}"
                )));
            }
            let value = map.next_value_seed(inner)?;
            members.push((key, value));
            if seen.is_none() && members.len() >= SCAN_KEYS {
                seen = Some(members.iter().map(|(k, _)| k.clone()).collect());
            }
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(s: &str) {
        match parse(s) {
            Err(e) => assert_eq!(e.code, ErrorCode::InvalidJson, "{s:?}"),
            Ok(v) => panic!("accepted {s:?} as {v:?}"),
        }
    }

    fn ok(s: &str) -> Value {
        match parse(s) {
            Ok(v) => v,
            Err(e) => panic!("rejected {s:?}: {e}"),
        }
    }

    #[test]
    fn scalars_and_containers() {
        assert_eq!(ok("null"), Value::Null);
        assert_eq!(ok(" true "), Value::Bool(true));
        assert_eq!(ok("\t\r\n false"), Value::Bool(false));
        assert_eq!(ok("\"a\\u00e9\\n\""), Value::String("a\u{e9}\n".into()));
        assert_eq!(ok("-0").clone(), Value::Number(-0.0));
        assert_eq!(
            ok("[1, 2.5e1 ,{\"a\":[]}]"),
            Value::Array(vec![
                Value::Number(1.0),
                Value::Number(25.0),
                Value::Object(vec![("a".into(), Value::Array(vec![]))])
            ])
        );
        assert_eq!(
            ok("18446744073709551616"),
            Value::Number(18446744073709551616.0)
        );
    }

    #[test]
    fn syntax_errors() {
        for s in [
            "",
            " ",
            "[",
            "]",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "'a'",
            "01",
            "1.",
            ".5",
            "+1",
            "1e",
            "1e+",
            "-",
            "--1",
            "0x10",
            "[1 2]",
            "{\"a\" 1}",
            "nul",
            "True",
            "\"\t\"",
            "\"a",
            "\"\\x\"",
            "\"\\u12\"",
            "1 2",
            "[]]",
            "\u{a0}1",
            "\u{feff}1",
            "\u{b}1",
            "\u{c}1",
        ] {
            bad(s);
        }
    }

    #[test]
    fn bom_nan_infinity() {
        bad("\u{feff}{}");
        bad("NaN");
        bad("[NaN]");
        bad("Infinity");
        bad("-Infinity");
        bad("[1, -Infinity]");
    }

    #[test]
    fn duplicate_keys_after_unescaping() {
        bad("{\"a\":1,\"a\":2}");
        bad("{\"a\":1,\"\\u0061\":2}");
        bad("[{\"x\":{\"k\":1,\"k\":1}}]");
        ok("{\"a\":1,\"A\":2}");
        ok("[{\"a\":1},{\"a\":2}]");
    }

    #[test]
    fn surrogate_escapes() {
        bad("\"\\ud800\"");
        bad("\"\\udc00\\ud800\"");
        bad("\"\\ud800x\"");
        bad("\"\\ud800\\u0041\"");
        bad("{\"\\udfff\":1}");
        assert_eq!(ok("\"\\ud83d\\ude00\""), Value::String("\u{1F600}".into()));
        assert_eq!(ok("\"\\uD83D\\uDE00\""), Value::String("\u{1F600}".into()));
    }

    #[test]
    fn number_range() {
        bad("1e400");
        bad("-1e400");
        bad("[1.8e308]");
        assert_eq!(ok("1e-400"), Value::Number(0.0));
        assert_eq!(ok("1.7976931348623157e308"), Value::Number(f64::MAX));
        assert_eq!(ok("0e999999999999999999999"), Value::Number(0.0));
        bad("1e999999999999999999999");
        assert_eq!(ok("1e-999999999999999999999"), Value::Number(0.0));
        // Correctly rounded: 0.1 and a halfway case.
        assert_eq!(ok("0.1"), Value::Number(0.1));
        assert_eq!(ok("9007199254740993"), Value::Number(9007199254740992.0));
    }

    #[test]
    fn serde_json_edges() {
        // The sign of zero survives ("-0" is read as a float, not as the integer 0).
        for s in ["-0", "-0.0", "-0e5", "[-0]"] {
            let v = ok(s);
            let n = match &v {
                Value::Array(items) => items.first().cloned(),
                other => Some(other.clone()),
            };
            match n {
                Some(Value::Number(x)) => assert_eq!(x.to_bits(), (-0.0_f64).to_bits(), "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
        // Correct rounding (float_roundtrip) on 17 significant digits and at the halfway point.
        assert_eq!(ok("0.10000000000000001"), Value::Number(0.1));
        assert_eq!(ok("9007199254740993"), Value::Number(9007199254740992.0));
        assert_eq!(ok("1e-400"), Value::Number(0.0));
        // Lone surrogate escapes, both halves, and a reversed pair.
        for s in ["\"\\udc00\"", "\"\\ud800x\"", "\"\\udc00\\ud800\""] {
            bad(s);
        }
        // Duplicate keys in a large object (the set, not the scan).
        let mut big: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        big.push("\"k7\":0".into());
        bad(&format!("{{{}}}", big.join(",")));
    }

    #[test]
    fn depth_limit() {
        let at = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        ok(&at(100));
        bad(&at(101));
        let objs = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        ok(&objs(100));
        bad(&objs(101));
        ok(&format!("{}1{}", "[".repeat(99), "]".repeat(99)));
    }

    #[test]
    fn million_brackets_do_not_overflow() {
        bad(&"[".repeat(1_000_000));
        bad(&"{\"a\":".repeat(1_000_000));
    }

    #[test]
    fn raw_non_ascii_kept() {
        assert_eq!(
            ok("\"\\u001cé\u{2028}\""),
            Value::String("\u{1c}é\u{2028}".into())
        );
        // A raw control character (U+0000–U+001F) must be escaped.
        bad("\"\u{1c}\"");
        bad("\"\u{0}\"");
        ok("\"\u{7f}\"");
    }
}
