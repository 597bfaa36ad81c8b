//! Host values and the contract's rules for them, decided once for every host.
//!
//! A binding (PyO3, wasm-bindgen) or the fixture test only translates each value its host passed into
//! a [`HostValue`]; which values a parameter accepts (types, ranges, integrality), its default, and the
//! code of each error are decided here. Every argument is converted to an [`Arg`] without failing
//! early; the core then picks the first failing argument in signature order.

use std::borrow::Cow;

use serde_json::{json, Map, Value as TraceValue};

use crate::error::{Arg, Error, ErrorCode};
use crate::trace::{document, f64_value, Observer, Quiet, Recorder};

/// A value a host passed for one parameter, in host-neutral terms.
#[derive(Debug, Clone, PartialEq)]
pub enum HostValue<'a> {
    /// Not passed (JavaScript `undefined` too): a parameter with a default takes it.
    Omitted,
    /// A host boolean (never a number, even where the host treats it as one).
    Bool(bool),
    /// A host integer type (Python `int`); `None` when it does not fit an i128.
    Int(Option<i128>),
    /// A host floating-point number (Python `float`, every JavaScript number).
    Float(f64),
    /// A host string of Unicode scalar values.
    Str(Cow<'a, str>),
    /// A host string that may not be well formed, as UTF-16 code units (a lone surrogate is an error,
    /// never replaced by U+FFFD).
    Utf16(Cow<'a, [u16]>),
    /// A host string as code points, surrogates included (a Python `str` that is not well formed).
    /// Every surrogate in it is lone, even a high one followed by a low one: two code points are
    /// never paired into one character.
    CodePoints(Cow<'a, [u32]>),
    /// A value of any other type, by its host's name for that type (`NoneType`, `list`, `null`, ...).
    Other(Cow<'a, str>),
}

impl HostValue<'_> {
    fn type_name(&self) -> Cow<'_, str> {
        match self {
            HostValue::Omitted => Cow::Borrowed("nothing"),
            HostValue::Bool(_) => Cow::Borrowed("a boolean"),
            HostValue::Int(_) => Cow::Borrowed("an integer"),
            HostValue::Float(_) => Cow::Borrowed("a float"),
            HostValue::Str(_) | HostValue::Utf16(_) | HostValue::CodePoints(_) => {
                Cow::Borrowed("a string")
            }
            HostValue::Other(name) => Cow::Borrowed(name),
        }
    }
}

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
    let decoded = char::decode_utf16(units.iter().copied())
        .map(|r| r.map_err(|e| u32::from(e.unpaired_surrogate())));
    scalar_values(decoded, units.len(), code)
}

/// A host string given as code points. A surrogate (or anything that is not a Unicode scalar
/// value) is an error with `code`; a high surrogate followed by a low one is two errors' worth, not
/// a pair.
pub fn text_from_code_points(points: &[u32], code: ErrorCode) -> Arg<String> {
    let decoded = points.iter().map(|&p| char::from_u32(p).ok_or(p));
    scalar_values(decoded, points.len(), code)
}

/// The decoded characters as a string; the first code point that is not a scalar value (a lone
/// surrogate) is an error with `code`.
fn scalar_values(
    decoded: impl Iterator<Item = Result<char, u32>>,
    capacity: usize,
    code: ErrorCode,
) -> Arg<String> {
    let mut out = String::with_capacity(capacity);
    for (i, r) in decoded.enumerate() {
        match r {
            Ok(c) => out.push(c),
            Err(p) => {
                return Err(Error::new(
                    code,
                    format!("string contains a lone surrogate U+{p:04X} (code point {i})"),
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

/// Borrow the text of a converted host argument (`Arg<Cow<str>>` → `Arg<&str>`).
fn as_str_arg<'a>(arg: &'a Arg<Cow<'_, str>>) -> Arg<&'a str> {
    match arg {
        Ok(s) => Ok(s.as_ref()),
        Err(e) => Err(e.clone()),
    }
}

// --- the rules of each parameter kind ----------------------------------------------------------------

/// A text parameter: a string of Unicode scalar values, else `code`.
pub fn text<'a>(value: HostValue<'a>, code: ErrorCode, param: &str) -> Arg<Cow<'a, str>> {
    match value {
        HostValue::Str(s) => Ok(s),
        HostValue::Utf16(units) => text_from_utf16(&units, code)
            .map(Cow::Owned)
            .map_err(|e| Error::new(code, format!("{param}: {}", e.detail))),
        HostValue::CodePoints(points) => text_from_code_points(&points, code)
            .map(Cow::Owned)
            .map_err(|e| Error::new(code, format!("{param}: {}", e.detail))),
        HostValue::Omitted => Err(Error::new(code, format!("{param} is required"))),
        other => Err(wrong_type(code, param, "a string", &other.type_name())),
    }
}

/// `threshold`: a host integer (its value, if it fits an i64) or float; the core checks [0, 1].
pub fn threshold(value: HostValue<'_>) -> Arg<f64> {
    match value {
        HostValue::Omitted => Ok(DEFAULT_THRESHOLD),
        HostValue::Int(Some(v)) => threshold_from_i128(v),
        HostValue::Float(v) => Ok(v),
        other => Err(wrong_type(
            ErrorCode::InvalidThreshold,
            "threshold",
            "a number in [0, 1]",
            &other.type_name(),
        )),
    }
}

/// `mode`: a string (the core checks its value).
pub fn mode(value: HostValue<'_>) -> Arg<Cow<'_, str>> {
    match value {
        HostValue::Omitted => Ok(Cow::Borrowed(DEFAULT_MODE)),
        other => text(other, ErrorCode::InvalidMode, "mode"),
    }
}

/// `force`: a host boolean.
pub fn force(value: HostValue<'_>) -> Arg<bool> {
    match value {
        HostValue::Omitted => Ok(DEFAULT_FORCE),
        HostValue::Bool(b) => Ok(b),
        other => Err(wrong_type(
            ErrorCode::InvalidForce,
            "force",
            "a boolean",
            &other.type_name(),
        )),
    }
}

/// `cap`: an integer in [0, 2^32 − 1], from a host integer or an integral float (never wrapped).
pub fn cap(value: HostValue<'_>) -> Arg<u32> {
    match value {
        HostValue::Omitted => Ok(DEFAULT_CAP),
        HostValue::Int(Some(v)) => cap_from_i128(v),
        HostValue::Float(v) => cap_from_f64(v),
        other => Err(wrong_type(
            ErrorCode::InvalidCap,
            "cap",
            "an integer in [0, 4294967295]",
            &other.type_name(),
        )),
    }
}

// --- the ops: one table ----------------------------------------------------------------------------

/// Every op of contract v1 (and the diagnostic `unicode_nfc`), once, in the order of
/// harness/model/registry.py (families/memgate.json): its contract (Python) name and its JavaScript
/// name, its required and then its optional parameters (Python name: JavaScript name), the signature the
/// Python binding shows (with the defaults the core takes for an omitted value), whether `trace` serves
/// it, and its entry point below (`fn([HostValue; N], &mut impl Observer) -> Result<String, Error>`).
///
/// Everything that lists ops is made from this one table: [`OPS`] (dispatch by name, for `call`, `trace`
/// and the fixture tests) and [`TRACED`] here, one typed function per op here, and each binding's exported
/// functions (`memgate_core::memgate_ops!(a_macro_of_the_binding)`: rust_core/python and rust_core/wasm).
/// A new op is its line here and its entry point; the tests below hold the table to the family file.
#[macro_export]
macro_rules! memgate_ops {
    ($then:ident) => {
        $then! {
            normalize_fact_text / normalizeFactText
                (text: text) ()
                "(text)" traced = true, normalize_fact_text_observed;
            decide_write / decideWrite
                (text: text, embedding_json: embeddingJson, candidates_json: candidatesJson)
                (threshold: threshold, mode: mode, force: force)
                "(text, embedding_json, candidates_json, threshold=0.85, mode='auto', force=False)"
                traced = true, decide_write_observed;
            build_dedup_context / buildDedupContext
                (topical_json: topicalJson, pinned_json: pinnedJson, recent_json: recentJson) (cap: cap)
                "(topical_json, pinned_json, recent_json, cap=30)" traced = true, build_dedup_context_observed;
            unicode_versions / unicodeVersions
                () ()
                "()" traced = false, unicode_versions_observed;
            unicode_nfc / unicodeNfc
                (text: text) ()
                "(text)" traced = true, unicode_nfc_observed;
        }
    };
}

/// An op's entry point called by name, with one host value per parameter (`None`: not as many as its
/// signature has), without recording.
type Quietly = fn(Vec<HostValue<'_>>) -> Option<Result<String, Error>>;
/// The same entry point, recording each step for `trace`.
type Recording = fn(Vec<HostValue<'_>>, &mut Recorder) -> Option<Result<String, Error>>;

/// One op as a caller that dispatches by name sees it: its contract (Python) name, its parameter names
/// in signature order, how many of them are required, whether `trace` serves it, and its entry point.
pub struct OpSignature {
    pub name: &'static str,
    pub js_name: &'static str,
    pub params: &'static [&'static str],
    pub js_params: &'static [&'static str],
    pub required: usize,
    pub traced: bool,
    quietly: Quietly,
    recording: Recording,
}

/// [`OPS`], the typed function of each op, from the table.
macro_rules! op_table {
    ($(
        $name:ident / $js:ident
        ($($req:ident : $req_js:ident),*) ($($opt:ident : $opt_js:ident),*)
        $py_signature:literal traced = $traced:literal, $entry:ident;
    )*) => {
        $(
            #[doc = concat!("`", stringify!($name), "` from one host value per parameter, in signature order.")]
            pub fn $name($($req: HostValue<'_>,)* $($opt: HostValue<'_>),*) -> Result<String, Error> {
                $entry([$($req,)* $($opt),*], &mut Quiet)
            }
        )*

        /// Every op, in the order of the table ([`memgate_ops!`]).
        pub const OPS: &[OpSignature] = &[$(
            OpSignature {
                name: stringify!($name),
                js_name: stringify!($js),
                params: &[$(stringify!($req),)* $(stringify!($opt)),*],
                js_params: &[$(stringify!($req_js),)* $(stringify!($opt_js)),*],
                required: <[&str]>::len(&[$(stringify!($req)),*]),
                traced: $traced,
                quietly: |args| Some($entry(args.try_into().ok()?, &mut Quiet)),
                recording: |args, recorder| Some($entry(args.try_into().ok()?, recorder)),
            },
        )*];
    };
}

memgate_ops!(op_table);

/// The ops `trace` serves: those of [`OPS`] marked traced, in its order (the PyO3 module's `TRACED`,
/// the WASM package's `traced()`).
pub const TRACED: &[&str] = &traced_names::<{ count_traced(OPS) }>(OPS);

/// The most parameters an op has (the WASM binding's `trace` takes that many after the op's name).
pub const MAX_PARAMS: usize = max_params(OPS);

// Evaluated at compile time (an index out of range fails the build): counts and indexes stay below
// `ops.len()`.
#[allow(clippy::arithmetic_side_effects)]
const fn count_traced(mut ops: &[OpSignature]) -> usize {
    let mut count = 0;
    while let [op, rest @ ..] = ops {
        if op.traced {
            count += 1;
        }
        ops = rest;
    }
    count
}

#[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
const fn traced_names<const N: usize>(mut ops: &[OpSignature]) -> [&'static str; N] {
    let mut names = [""; N];
    let mut i = 0;
    while let [op, rest @ ..] = ops {
        if op.traced {
            names[i] = op.name;
            i += 1;
        }
        ops = rest;
    }
    names
}

const fn max_params(mut ops: &[OpSignature]) -> usize {
    let mut most = 0;
    while let [op, rest @ ..] = ops {
        if op.params.len() > most {
            most = op.params.len();
        }
        ops = rest;
    }
    most
}

/// The op `name` of [`OPS`].
pub fn op(name: &str) -> Option<&'static OpSignature> {
    OPS.iter().find(|op| op.name == name)
}

/// Call the op `name` with one host value per parameter of its signature, in order (`Omitted` for an
/// optional one not given). `None` for an unknown op or a wrong number of values.
pub fn call(name: &str, args: Vec<HostValue<'_>>) -> Option<Result<String, Error>> {
    (op(name)?.quietly)(args)
}

// --- the entry points: each op from host values --------------------------------------------------------

fn normalize_fact_text_observed<O: Observer>(
    [text_value]: [HostValue<'_>; 1],
    obs: &mut O,
) -> Result<String, Error> {
    let fact = text(text_value, ErrorCode::InvalidText, "text");
    crate::normalize_fact_text_observed(as_str_arg(&fact), obs)
}

fn unicode_nfc_observed<O: Observer>(
    [text_value]: [HostValue<'_>; 1],
    obs: &mut O,
) -> Result<String, Error> {
    let chars = text(text_value, ErrorCode::InvalidText, "text");
    crate::unicode_nfc_observed(as_str_arg(&chars), obs)
}

fn unicode_versions_observed<O: Observer>(
    []: [HostValue<'_>; 0],
    _obs: &mut O,
) -> Result<String, Error> {
    Ok(crate::unicode_versions())
}

fn decide_write_observed<O: Observer>(
    [text_value, embedding_json, candidates_json, threshold_value, mode_value, force_value]: [HostValue<'_>;
        6],
    obs: &mut O,
) -> Result<String, Error> {
    let fact = text(text_value, ErrorCode::InvalidText, "text");
    let embedding = text(embedding_json, ErrorCode::InvalidJson, "embedding_json");
    let candidates = text(candidates_json, ErrorCode::InvalidJson, "candidates_json");
    let mode_arg = mode(mode_value);
    crate::decide_write_observed(
        as_str_arg(&fact),
        as_str_arg(&embedding),
        as_str_arg(&candidates),
        threshold(threshold_value),
        as_str_arg(&mode_arg),
        force(force_value),
        obs,
    )
}

fn build_dedup_context_observed<O: Observer>(
    [topical_json, pinned_json, recent_json, cap_value]: [HostValue<'_>; 4],
    obs: &mut O,
) -> Result<String, Error> {
    let topical = text(topical_json, ErrorCode::InvalidJson, "topical_json");
    let pinned = text(pinned_json, ErrorCode::InvalidJson, "pinned_json");
    let recent = text(recent_json, ErrorCode::InvalidJson, "recent_json");
    crate::build_dedup_context_observed(
        as_str_arg(&topical),
        as_str_arg(&pinned),
        as_str_arg(&recent),
        cap(cap_value),
        obs,
    )
}

// --- traces ----------------------------------------------------------------------------------------

/// A host value as the `args` step of a trace shows it (schemas/trace-v1.schema.json, the host view):
/// a string as itself, or as its code points when it is not well formed (UTF-16 pairs combined, a
/// lone surrogate kept); a float bit-exact; an integer as itself within i64, as `{"$int": "<decimal>"}`
/// beyond, `{"$type": "int"}` past what the host handed over; a value of any other type as
/// `{"$type": <its host's name>}`. `None` for an omitted value.
pub fn host_view(value: &HostValue<'_>) -> Option<TraceValue> {
    let text_of = |points: Vec<u32>| match points
        .iter()
        .map(|&p| char::from_u32(p))
        .collect::<Option<String>>()
    {
        Some(s) => TraceValue::String(s),
        None => json!({ "$codepoints": points }),
    };
    Some(match value {
        HostValue::Omitted => return None,
        HostValue::Bool(b) => TraceValue::Bool(*b),
        HostValue::Int(Some(v)) => match i64::try_from(*v) {
            Ok(small) => json!(small),
            Err(_) => json!({ "$int": v.to_string() }),
        },
        HostValue::Int(None) => json!({ "$type": "int" }),
        HostValue::Float(v) => f64_value(*v),
        HostValue::Str(s) => TraceValue::String(s.to_string()),
        HostValue::Utf16(units) => text_of(
            char::decode_utf16(units.iter().copied())
                .map(|r| r.map_or_else(|e| u32::from(e.unpaired_surrogate()), u32::from))
                .collect(),
        ),
        HostValue::CodePoints(points) => text_of(points.to_vec()),
        HostValue::Other(name) => json!({ "$type": name }),
    })
}

/// The trace (schemas/trace-v1.schema.json) of the op `name` called with one host value per parameter
/// of its signature, as [`call`] takes them: the same function, run with a recording observer. `None`
/// for an op that is not traced or a wrong number of values.
pub fn trace(name: &str, args: Vec<HostValue<'_>>) -> Option<String> {
    let signature = op(name)?;
    if !signature.traced || args.len() != signature.params.len() {
        return None;
    }
    let shown = signature
        .params
        .iter()
        .zip(&args)
        .filter_map(|(param, value)| Some(((*param).to_string(), host_view(value)?)))
        .collect::<Map<String, TraceValue>>();
    let mut recorder = Recorder::default();
    let outcome = (signature.recording)(args, &mut recorder)?;
    Some(document(name, shown, recorder, &outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_points_never_pair() {
        let e = text_from_code_points(&[0x61, 0xD800, 0xDC00], ErrorCode::InvalidText).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidText);
        assert!(e.detail.contains("U+D800"), "{}", e.detail);
        assert_eq!(
            text_from_code_points(&[0x61, 0x1F600], ErrorCode::InvalidText).unwrap(),
            "a\u{1F600}"
        );
        assert!(text_from_code_points(&[0x110000], ErrorCode::InvalidText).is_err());
    }

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

    fn code(r: Result<String, Error>) -> Option<ErrorCode> {
        r.err().map(|e| e.code)
    }

    #[test]
    fn parameter_rules() {
        use HostValue::*;
        let s = |t: &'static str| Str(Cow::Borrowed(t));
        let other = |t: &'static str| Other(Cow::Borrowed(t));
        // Defaults only for an omitted value; a host's null/None is a value of another type.
        assert_eq!(threshold(Omitted), Ok(DEFAULT_THRESHOLD));
        assert_eq!(cap(Omitted), Ok(DEFAULT_CAP));
        assert_eq!(force(Omitted), Ok(DEFAULT_FORCE));
        assert_eq!(mode(Omitted).as_deref(), Ok(DEFAULT_MODE));
        assert!(cap(other("null")).is_err() && force(other("NoneType")).is_err());
        // A boolean is never a number; an integral float is a cap; huge integers are errors.
        assert!(threshold(Bool(true)).is_err() && cap(Bool(false)).is_err());
        assert_eq!(cap(Float(30.0)), Ok(30));
        assert!(
            cap(Float(30.5)).is_err() && cap(Int(None)).is_err() && cap(Int(Some(-1))).is_err()
        );
        assert!(threshold(Int(None)).is_err());
        assert_eq!(threshold(Int(Some(1))), Ok(1.0));
        // Text: a required parameter has no default; UTF-16 is decoded, a lone surrogate refused.
        let units = |u: &'static [u16]| Utf16(Cow::Borrowed(u));
        assert_eq!(
            text(
                units(&[0x61, 0xD83D, 0xDE00]),
                ErrorCode::InvalidText,
                "text"
            )
            .as_deref(),
            Ok("a\u{1F600}")
        );
        for bad in [units(&[0xD800]), Omitted, Int(Some(1)), other("list")] {
            assert_eq!(
                text(bad, ErrorCode::InvalidJson, "x").unwrap_err().code,
                ErrorCode::InvalidJson
            );
        }
        // The first failing argument in signature order decides the code.
        assert_eq!(
            code(decide_write(
                s("t"),
                s("[1]"),
                s("[]"),
                Omitted,
                Omitted,
                Omitted
            )),
            None
        );
        assert_eq!(
            code(decide_write(
                other("NoneType"),
                s("x"),
                Omitted,
                Bool(true),
                s("?"),
                Int(Some(1))
            )),
            Some(ErrorCode::InvalidText)
        );
        assert_eq!(
            code(build_dedup_context(s("[]"), s("[]"), s("[]"), Float(-1.0))),
            Some(ErrorCode::InvalidCap)
        );
        assert_eq!(
            normalize_fact_text(units(&[0x41, 0x20])),
            Ok("a".to_string())
        );
    }

    #[test]
    fn every_op_of_the_table_is_callable_by_name() {
        for op in OPS {
            let args = op.params.iter().map(|_| HostValue::Omitted).collect();
            assert!(call(op.name, args).is_some(), "{}", op.name);
            assert!(op.required <= op.params.len());
        }
        assert!(call("nope", vec![]).is_none());
        assert!(call("normalize_fact_text", vec![]).is_none());
        assert!(call("unicode_versions", vec![HostValue::Omitted]).is_none());
    }

    /// The op table against the family file (families/memgate.json, which harness/model/registry.py
    /// reads): the same ops in the same order, with the same names, parameters and required count, and
    /// traced exactly when the differential suites compare the op (its divergences get their cause from
    /// traces; unicode_versions differs by design). An op declared in the family file and left out of the
    /// table, or a traced flag forgotten, fails here rather than losing its calls or traces.
    #[test]
    fn the_table_is_the_family_files() {
        let family: TraceValue =
            serde_json::from_str(include_str!("../../../families/memgate.json")).unwrap();
        let declared = family["ops"].as_array().unwrap();
        let names = |ops: Vec<&str>| ops.join(", ");
        assert_eq!(
            names(OPS.iter().map(|op| op.name).collect()),
            names(
                declared
                    .iter()
                    .map(|op| op["name"].as_str().unwrap())
                    .collect()
            ),
            "host::OPS (memgate_ops!) and families/memgate.json list different ops"
        );
        for (op, spec) in OPS.iter().zip(declared) {
            let params = spec["params"].as_array().unwrap();
            let field = |key: &str| -> Vec<&str> {
                params.iter().map(|p| p[key].as_str().unwrap()).collect()
            };
            assert_eq!(op.js_name, spec["js_name"], "{}", op.name);
            assert_eq!(op.params, field("name"), "{}", op.name);
            assert_eq!(op.js_params, field("js_name"), "{}", op.name);
            let required = params.iter().take_while(|p| p.get("default").is_none());
            assert_eq!(op.required, required.count(), "{}", op.name);
            let compared = spec.get("differential") != Some(&TraceValue::Bool(false));
            assert_eq!(op.traced, compared, "{}: traced in host::OPS", op.name);
        }
        let traced: Vec<&str> = OPS
            .iter()
            .filter(|op| op.traced)
            .map(|op| op.name)
            .collect();
        assert_eq!(TRACED, traced.as_slice());
        assert_eq!(
            MAX_PARAMS,
            OPS.iter().map(|op| op.params.len()).max().unwrap()
        );
    }

    #[test]
    fn tested_with_the_serde_json_features_it_ships_with() {
        // Under serde_json's `arbitrary_precision` (a dev-dependency feature of fixture-tests, unified
        // into this crate only when both are built by one cargo command) this number parses; as shipped
        // it is out of range. Run `cargo test -p memgate-core` on its own.
        assert!(serde_json::from_str::<serde_json::Value>("1e400").is_err());
    }

    #[test]
    fn a_trace_runs_the_op_itself_and_ends_in_its_outcome() {
        use HostValue::*;
        let s = |t: &'static str| Str(Cow::Borrowed(t));
        let calls: Vec<(&str, Vec<HostValue<'static>>)> = vec![
            ("normalize_fact_text", vec![s("  It\u{2019}s TEA. ")]),
            ("normalize_fact_text", vec![Int(Some(1))]),
            ("unicode_nfc", vec![s("e\u{301}")]),
            (
                "decide_write",
                vec![
                    s("tea"),
                    s("[1,0]"),
                    s(r#"[{"id":"a","text":"x","embedding":[1,0.5]}]"#),
                    Float(0.5),
                    Omitted,
                    Omitted,
                ],
            ),
            (
                "decide_write",
                vec![s("tea"), s("null"), s("[]"), Float(2.0), Omitted, Omitted],
            ),
            (
                "build_dedup_context",
                vec![
                    s(r#"[{"id":"a","text":"t"},{"id":"[b]","text":"u"}]"#),
                    s("null"),
                    s("null"),
                    Int(Some(1)),
                ],
            ),
        ];
        for (op, args) in calls {
            let outcome = call(op, args.clone()).unwrap();
            let doc: TraceValue = serde_json::from_str(&trace(op, args).unwrap()).unwrap();
            assert_eq!(doc["schema"], "trace-v1");
            let steps = doc["steps"].as_array().unwrap();
            assert_eq!(steps[0]["step"], "args", "{op}");
            match outcome {
                Ok(result) => {
                    assert!(steps.len() > 2, "{op}");
                    assert_eq!(doc["outcome"]["result"], result.as_str(), "{op}");
                }
                Err(e) => {
                    assert_eq!(doc["outcome"]["error"], e.code.as_str(), "{op}");
                    assert_eq!(doc["outcome"]["step"], e.step.unwrap(), "{op}");
                }
            }
        }
        let doc: TraceValue = serde_json::from_str(
            &trace(
                "decide_write",
                vec![s("t"), s("null"), s("[]"), Float(2.0), Omitted, Omitted],
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(doc["outcome"]["step"], "gate.threshold");
        assert_eq!(
            doc["steps"][0]["value"]["threshold"]["$f64"],
            "0x1.0000000000000p+1"
        );
        assert!(trace("unicode_versions", vec![]).is_none());
        assert!(trace("normalize_fact_text", vec![]).is_none());
    }

    #[test]
    fn host_view_of_each_host_value() {
        use HostValue::*;
        assert_eq!(host_view(&Omitted), None);
        assert_eq!(host_view(&Int(Some(5))), Some(json!(5)));
        assert_eq!(
            host_view(&Int(Some(1 << 70))),
            Some(json!({"$int": "1180591620717411303424"}))
        );
        assert_eq!(host_view(&Int(None)), Some(json!({"$type": "int"})));
        assert_eq!(
            host_view(&Utf16(Cow::Borrowed(&[0x61, 0xD83D, 0xDE00]))),
            Some(json!("a\u{1F600}"))
        );
        assert_eq!(
            host_view(&Utf16(Cow::Borrowed(&[0xD800, 0x61]))),
            Some(json!({"$codepoints": [0xD800, 0x61]}))
        );
        assert_eq!(
            host_view(&CodePoints(Cow::Borrowed(&[0xD800, 0xDC00]))),
            Some(json!({"$codepoints": [0xD800, 0xDC00]}))
        );
        assert_eq!(
            host_view(&Other(Cow::Borrowed("NoneType"))),
            Some(json!({"$type": "NoneType"}))
        );
    }

    #[test]
    fn thresholds() {
        assert_eq!(threshold_from_i128(1), Ok(1.0));
        assert_eq!(threshold_from_i128(-5), Ok(-5.0));
        assert!(threshold_from_i128(i128::from(i64::MAX) + 1).is_err());
    }
}
