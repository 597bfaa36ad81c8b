//! Runs every fixture file (`*-v<N>.json`, not `*.schema.json`) of the project's fixtures
//! directory against the Rust core. `FIXTURES_DIR` overrides the directory
//! (default: `$CARGO_MANIFEST_DIR/../fixtures`).
//!
//! Each argument is a host value converted to an `Arg` with the same rules as the Python binding.
//! Every failing case is reported; the test fails once at the end.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use memgate_core::host;
use memgate_core::{Arg, Error, ErrorCode};
use serde_json::Value;

/// A host value as the fixture encodes it.
enum Host {
    None,
    Bool(bool),
    Int(i128),
    /// An integer beyond i128 (no parameter accepts one).
    BigInt,
    Float(f64),
    Str(String),
    Utf16(Vec<u16>),
    Other(&'static str),
}

fn host_value(v: &Value) -> Result<Host, String> {
    Ok(match v {
        Value::Null => Host::None,
        Value::Bool(b) => Host::Bool(*b),
        Value::Number(n) => {
            // The literal as written (serde_json's arbitrary_precision): an integer literal is a
            // host int of any size, anything else a host float (overflow to ±inf, as Python's
            // json module reads it).
            let lit = n.to_string();
            if lit.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
                match lit.parse::<i128>() {
                    Ok(i) => Host::Int(i),
                    Err(_) => Host::BigInt,
                }
            } else {
                Host::Float(
                    lit.parse::<f64>()
                        .map_err(|e| format!("bad number {lit}: {e}"))?,
                )
            }
        }
        Value::String(s) => Host::Str(s.clone()),
        Value::Array(_) => Host::Other("list"),
        Value::Object(m) => {
            if m.len() == 1 {
                if let Some(Value::String(tag)) = m.get("$float") {
                    return match tag.as_str() {
                        "NaN" => Ok(Host::Float(f64::NAN)),
                        "Infinity" => Ok(Host::Float(f64::INFINITY)),
                        "-Infinity" => Ok(Host::Float(f64::NEG_INFINITY)),
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
                    return Ok(Host::Utf16(out));
                }
            }
            Host::Other("dict")
        }
    })
}

fn kind(h: &Host) -> &'static str {
    match h {
        Host::None => "NoneType",
        Host::Bool(_) => "bool",
        Host::Int(_) | Host::BigInt => "int",
        Host::Float(_) => "float",
        Host::Str(_) | Host::Utf16(_) => "str",
        Host::Other(k) => k,
    }
}

fn wrong(code: ErrorCode, param: &str, h: &Host) -> Error {
    host::wrong_type(code, param, "another type", kind(h))
}

fn str_arg(h: &Host, code: ErrorCode, param: &str) -> Arg<String> {
    match h {
        Host::Str(s) => Ok(s.clone()),
        Host::Utf16(units) => host::text_from_utf16(units, code),
        other => Err(wrong(code, param, other)),
    }
}

fn threshold_arg(h: &Host) -> Arg<f64> {
    match h {
        Host::Int(i) => host::threshold_from_i128(*i),
        Host::Float(f) => Ok(*f),
        other => Err(wrong(ErrorCode::InvalidThreshold, "threshold", other)),
    }
}

fn force_arg(h: &Host) -> Arg<bool> {
    match h {
        Host::Bool(b) => Ok(*b),
        other => Err(wrong(ErrorCode::InvalidForce, "force", other)),
    }
}

fn cap_arg(h: &Host) -> Arg<u32> {
    match h {
        Host::Int(i) => host::cap_from_i128(*i),
        Host::Float(f) => host::cap_from_f64(*f),
        other => Err(wrong(ErrorCode::InvalidCap, "cap", other)),
    }
}

struct Args<'a> {
    map: &'a serde_json::Map<String, Value>,
    allowed: &'static [&'static str],
}

impl Args<'_> {
    fn check_keys(&self) -> Result<(), String> {
        for k in self.map.keys() {
            if !self.allowed.contains(&k.as_str()) {
                return Err(format!("unknown argument {k:?}"));
            }
        }
        Ok(())
    }

    fn required(&self, name: &str) -> Result<Host, String> {
        match self.map.get(name) {
            Some(v) => host_value(v),
            None => Err(format!("missing required argument {name:?}")),
        }
    }

    fn optional(&self, name: &str) -> Result<Option<Host>, String> {
        self.map.get(name).map(host_value).transpose()
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

fn run_case(op: &str, args: &serde_json::Map<String, Value>) -> Result<Outcome, String> {
    let done = |r: Result<String, Error>, parse: bool| -> Result<Outcome, String> {
        match r {
            Ok(s) if parse => serde_json::from_str(&s)
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
    };
    match op {
        "normalize_fact_text" => {
            let a = Args {
                map: args,
                allowed: &["text"],
            };
            a.check_keys()?;
            let text = str_arg(&a.required("text")?, ErrorCode::InvalidText, "text");
            done(
                memgate_core::normalize_fact_text(host::as_str_arg(&text)),
                false,
            )
        }
        "decide_write" => {
            let a = Args {
                map: args,
                allowed: &[
                    "text",
                    "embedding_json",
                    "candidates_json",
                    "threshold",
                    "mode",
                    "force",
                ],
            };
            a.check_keys()?;
            let text = str_arg(&a.required("text")?, ErrorCode::InvalidText, "text");
            let emb = str_arg(
                &a.required("embedding_json")?,
                ErrorCode::InvalidJson,
                "embedding_json",
            );
            let cands = str_arg(
                &a.required("candidates_json")?,
                ErrorCode::InvalidJson,
                "candidates_json",
            );
            let threshold = match a.optional("threshold")? {
                Some(h) => threshold_arg(&h),
                None => Ok(host::DEFAULT_THRESHOLD),
            };
            let mode = match a.optional("mode")? {
                Some(h) => str_arg(&h, ErrorCode::InvalidMode, "mode"),
                None => Ok(host::DEFAULT_MODE.to_string()),
            };
            let force = match a.optional("force")? {
                Some(h) => force_arg(&h),
                None => Ok(host::DEFAULT_FORCE),
            };
            done(
                memgate_core::decide_write(
                    host::as_str_arg(&text),
                    host::as_str_arg(&emb),
                    host::as_str_arg(&cands),
                    threshold,
                    host::as_str_arg(&mode),
                    force,
                ),
                true,
            )
        }
        "build_dedup_context" => {
            let a = Args {
                map: args,
                allowed: &["topical_json", "pinned_json", "recent_json", "cap"],
            };
            a.check_keys()?;
            let t = str_arg(
                &a.required("topical_json")?,
                ErrorCode::InvalidJson,
                "topical_json",
            );
            let p = str_arg(
                &a.required("pinned_json")?,
                ErrorCode::InvalidJson,
                "pinned_json",
            );
            let r = str_arg(
                &a.required("recent_json")?,
                ErrorCode::InvalidJson,
                "recent_json",
            );
            let cap = match a.optional("cap")? {
                Some(h) => cap_arg(&h),
                None => Ok(host::DEFAULT_CAP),
            };
            done(
                memgate_core::build_dedup_context(
                    host::as_str_arg(&t),
                    host::as_str_arg(&p),
                    host::as_str_arg(&r),
                    cap,
                ),
                false,
            )
        }
        other => Err(format!("unknown op {other:?}")),
    }
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
    let doc: Value = match serde_json::from_str(&text) {
        Ok(d) => d,
        Err(e) => {
            let _ = writeln!(failures, "{name}: not JSON: {e}");
            return 0;
        }
    };
    let Some(tests) = doc.get("tests").and_then(Value::as_array) else {
        let _ = writeln!(failures, "{name}: no \"tests\" array");
        return 0;
    };
    if let Some(n) = doc.get("numberOfTests").and_then(Value::as_u64) {
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
    for (i, case) in tests.iter().enumerate() {
        let id = case
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("#{i}"));
        if !seen_ids.insert(id.clone()) {
            let _ = writeln!(failures, "{name}: duplicate test id {id}");
        }
        let op = case.get("op").and_then(Value::as_str).unwrap_or("");
        let empty = serde_json::Map::new();
        let args = match case.get("args") {
            Some(Value::Object(m)) => m,
            None => &empty,
            Some(_) => {
                let _ = writeln!(failures, "{name}/{id}: args is not an object");
                failed += 1;
                continue;
            }
        };
        let expected = match case.get("expect") {
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
        let got = match run_case(op, args) {
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
