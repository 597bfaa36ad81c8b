//! Runs every fixture file (`*-v<N>.json`, not `*.schema.json`) of the project's fixtures
//! directory against the Rust core. `FIXTURES_DIR` overrides the directory
//! (default: `$CARGO_MANIFEST_DIR/../../fixtures`).
//!
//! Each argument is the fixture's host value as a `HostValue` (what the Python binding would pass);
//! the core's own host rules and ops (`memgate_core::host`) do the rest, as for every binding.
//! Every failing case is reported; the test fails once at the end.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memgate_core::host::{self, HostValue};
use memgate_core::ErrorCode;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// A fixture's host value (harness/hostvalues.py: `{"$float": ...}`, `{"$utf16": [...]}`,
/// `{"$codepoints": [...]}`, arrays,
/// `{"$object": {...}}`) as the
/// host value a Python caller passes; the core's own rules (`memgate_core::host`) do the rest.
fn host_value(raw: &RawValue) -> Result<HostValue<'static>, String> {
    let literal = raw.get().trim();
    if literal.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        // A number as written: an integer literal is a host int of any size, anything else a host
        // float (overflow to ±inf, as Python's json module reads it).
        return Ok(
            if literal.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                HostValue::Int(literal.parse::<i128>().ok())
            } else {
                HostValue::Float(
                    literal
                        .parse::<f64>()
                        .map_err(|e| format!("bad number {literal}: {e}"))?,
                )
            },
        );
    }
    let value: Value = serde_json::from_str(literal).map_err(|e| format!("bad host value: {e}"))?;
    Ok(match value {
        Value::Null => HostValue::Other(Cow::Borrowed("NoneType")),
        Value::Bool(b) => HostValue::Bool(b),
        Value::Number(_) => return Err(format!("unexpected number {literal}")),
        Value::String(s) => HostValue::Str(Cow::Owned(s)),
        Value::Array(_) => HostValue::Other(Cow::Borrowed("list")),
        Value::Object(m) => {
            if m.len() == 1 {
                if let Some(Value::String(tag)) = m.get("$float") {
                    return match tag.as_str() {
                        "NaN" => Ok(HostValue::Float(f64::NAN)),
                        "Infinity" => Ok(HostValue::Float(f64::INFINITY)),
                        "-Infinity" => Ok(HostValue::Float(f64::NEG_INFINITY)),
                        other => Err(format!("bad $float tag {other:?}")),
                    };
                }
                if let Some(Value::Array(units)) = m.get("$utf16") {
                    let mut out = Vec::with_capacity(units.len());
                    for u in units {
                        let unit = u
                            .as_u64()
                            .and_then(|x| u16::try_from(x).ok())
                            .ok_or_else(|| format!("bad $utf16 unit {u}"))?;
                        out.push(unit);
                    }
                    return Ok(HostValue::Utf16(Cow::Owned(out)));
                }
                if let Some(Value::Array(points)) = m.get("$codepoints") {
                    let mut out = Vec::with_capacity(points.len());
                    for p in points {
                        let point = p
                            .as_u64()
                            .and_then(|x| u32::try_from(x).ok())
                            .filter(|x| *x <= 0x10FFFF)
                            .ok_or_else(|| format!("bad $codepoints entry {p}"))?;
                        out.push(point);
                    }
                    return Ok(HostValue::CodePoints(Cow::Owned(out)));
                }
                if let Some(Value::Object(_)) = m.get("$object") {
                    return Ok(HostValue::Other(Cow::Borrowed("dict")));
                }
            }
            return Err(format!("not a host value: {literal}"));
        }
    })
}

type RawArgs<'a> = BTreeMap<String, &'a RawValue>;

struct Args<'a> {
    map: &'a RawArgs<'a>,
    allowed: &'static [&'static str],
}

impl<'a> Args<'a> {
    fn new(map: &'a RawArgs<'a>, allowed: &'static [&'static str]) -> Result<Self, String> {
        if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(format!("unknown argument {k:?}"));
        }
        Ok(Args { map, allowed })
    }

    /// The host value of each allowed parameter, in signature order (`Omitted` when absent).
    fn values(&self, required: usize) -> Result<Vec<HostValue<'static>>, String> {
        self.allowed
            .iter()
            .enumerate()
            .map(|(i, name)| match self.map.get(*name) {
                Some(v) => host_value(v),
                None if i < required => Err(format!("missing required argument {name:?}")),
                None => Ok(HostValue::Omitted),
            })
            .collect()
    }
}

/// What a case produced: a result (string or parsed JSON) or an error code.
enum Outcome {
    Result(Value),
    Error(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Result(v) => write!(f, "result {v}"),
            Outcome::Error(code) => write!(f, "error {code}"),
        }
    }
}

/// Run one case through the core's op table (`memgate_core::host::OPS`): generic over the ops, so a new
/// op needs no change here. A result is compared as parsed JSON when the expectation is an object.
fn run_case(op: &str, args: &RawArgs<'_>, json_result: bool) -> Result<Outcome, String> {
    let signature = host::OPS
        .iter()
        .find(|s| s.name == op)
        .ok_or_else(|| format!("unknown op {op:?}"))?;
    let values = Args::new(args, signature.params)?.values(signature.required)?;
    match host::call(op, values).ok_or_else(|| format!("{op}: wrong arguments"))? {
        Ok(s) if json_result => serde_json::from_str(&s)
            .map(Outcome::Result)
            .map_err(|e| format!("output is not JSON ({e}): {s}")),
        Ok(s) => Ok(Outcome::Result(Value::String(s))),
        Err(e) => {
            let shown = e.to_string();
            if !shown.starts_with(&format!("{}: ", e.code.as_str())) {
                return Err(format!(
                    "error message does not start with its code: {shown}"
                ));
            }
            Ok(Outcome::Error(e.code.as_str().to_string()))
        }
    }
}

/// A fixture file: its cases, each with its arguments as raw literals (fields not named are ignored).
#[derive(Deserialize)]
struct FixtureFile<'a> {
    #[serde(borrow)]
    tests: Vec<Case<'a>>,
    #[serde(rename = "numberOfTests")]
    number_of_tests: Option<u64>,
}

#[derive(Deserialize)]
struct Case<'a> {
    id: Option<String>,
    op: Option<String>,
    #[serde(borrow)]
    args: Option<RawArgs<'a>>,
    expect: Option<Value>,
}

/// JSON equality with numbers compared as binary64, bit-exactly.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn fixtures_dir() -> PathBuf {
    match std::env::var_os("FIXTURES_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("..")
            .join("fixtures"),
    }
}

/// `name-v<digits>.json`, not a schema.
fn is_fixture_file(name: &str) -> bool {
    if name.ends_with(".schema.json") {
        return false;
    }
    let Some(stem) = name.strip_suffix(".json") else {
        return false;
    };
    match stem.rsplit_once("-v") {
        Some((base, n)) => {
            !base.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

fn check_file(path: &Path, failures: &mut String) -> usize {
    // Failures are reported as "<fixture>/<case id>", the ids the Python suites print.
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .map_or_else(|| path.display().to_string(), str::to_string);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(failures, "{name}: cannot read: {e}");
            return 0;
        }
    };
    let doc: FixtureFile<'_> = match serde_json::from_str(&text) {
        Ok(d) => d,
        Err(e) => {
            let _ = writeln!(failures, "{name}: not a fixture file: {e}");
            return 0;
        }
    };
    let tests = &doc.tests;
    if let Some(n) = doc.number_of_tests {
        if usize::try_from(n).ok() != Some(tests.len()) {
            let _ = writeln!(
                failures,
                "{name}: numberOfTests {n} but {} tests",
                tests.len()
            );
        }
    }
    let mut seen_ids = std::collections::HashSet::new();
    let mut failed = 0usize;
    let empty = RawArgs::new();
    for (i, case) in tests.iter().enumerate() {
        let id = case.id.clone().unwrap_or_else(|| format!("#{i}"));
        if !seen_ids.insert(id.clone()) {
            let _ = writeln!(failures, "{name}: duplicate test id {id}");
        }
        let op = case.op.as_deref().unwrap_or("");
        let args = case.args.as_ref().unwrap_or(&empty);
        let expected = match &case.expect {
            Some(e) => match (e.get("result"), e.get("error").and_then(Value::as_str)) {
                (Some(r), None) => Outcome::Result(r.clone()),
                (None, Some(code)) => {
                    if ErrorCode::from_code(code).is_none() {
                        let _ = writeln!(failures, "{name}/{id}: unknown error code {code:?}");
                    }
                    Outcome::Error(code.to_string())
                }
                _ => {
                    let _ = writeln!(failures, "{name}/{id}: expect needs result or error");
                    failed += 1;
                    continue;
                }
            },
            None => {
                let _ = writeln!(failures, "{name}/{id}: no expect");
                failed += 1;
                continue;
            }
        };
        let json_result = matches!(&expected, Outcome::Result(Value::Object(_)));
        let got = match run_case(op, args, json_result) {
            Ok(o) => o,
            Err(why) => {
                let _ = writeln!(failures, "{name}/{id}: {why}");
                failed += 1;
                continue;
            }
        };
        let ok = match (&expected, &got) {
            (Outcome::Result(a), Outcome::Result(b)) => same(a, b),
            (Outcome::Error(a), Outcome::Error(b)) => a == b,
            _ => false,
        };
        if !ok {
            failed += 1;
            let _ = writeln!(
                failures,
                "{name}/{id} ({op}): expected {expected}, got {got}"
            );
        }
    }
    println!(
        "{name}: {} cases checked, {} passed, {failed} failed",
        tests.len(),
        tests.len().saturating_sub(failed)
    );
    tests.len()
}

#[test]
fn fixtures() {
    let dir = fixtures_dir();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(is_fixture_file)
            })
            .collect(),
        Err(e) => panic!("cannot read fixtures directory {}: {e}", dir.display()),
    };
    files.sort();
    assert!(
        !files.is_empty(),
        "no *-v<N>.json fixture files in {}",
        dir.display()
    );
    let mut failures = String::new();
    let mut total = 0usize;
    for f in &files {
        total += check_file(f, &mut failures);
    }
    assert!(total > 0, "fixture files hold no cases");
    assert!(failures.is_empty(), "fixture failures:\n{failures}");
}

#[test]
fn fixture_file_names() {
    assert!(is_fixture_file("write-gate-v1.json"));
    assert!(is_fixture_file("dedup-context-v12.json"));
    assert!(!is_fixture_file("write-gate-v1.schema.json"));
    assert!(!is_fixture_file("fixture.schema.json"));
    assert!(!is_fixture_file("README.md"));
    assert!(!is_fixture_file("write-gate-vx.json"));
    assert!(!is_fixture_file("-v1.json"));
}
