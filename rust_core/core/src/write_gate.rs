//! `decide_write` of contract v1.

use serde::Serialize;
use serde_json::{json, Value as TraceValue};

use crate::error::{at, Arg, Error, ErrorCode};
use crate::json::{self, Value};
use crate::normalize::normalize_observed;
use crate::trace::{f64_value, f64s_value, json_value, Observer, Quiet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Auto,
    Explicit,
    Mirror,
    Reconcile,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Explicit => "explicit",
            Mode::Mirror => "mirror",
            Mode::Reconcile => "reconcile",
        }
    }

    fn parse(s: &str) -> Result<Mode, Error> {
        match s {
            "auto" => Ok(Mode::Auto),
            "explicit" => Ok(Mode::Explicit),
            "mirror" => Ok(Mode::Mirror),
            "reconcile" => Ok(Mode::Reconcile),
            other => Err(Error::new(
                ErrorCode::InvalidMode,
                format!("mode must be one of auto, explicit, mirror, reconcile, got {other:?}"),
            )),
        }
    }
}

struct Candidate<'a> {
    id: &'a str,
    text: &'a str,
    pinned: bool,
    embedding: Option<Vec<f64>>,
}

/// An embedding: JSON `null` (None) or a non-empty array of numbers (else an error of `step`), each
/// rounded to binary32 (which must stay finite: `gate.binary32`) and widened back to binary64.
fn embedding_from(
    value: &Value,
    what: &str,
    step: &'static str,
) -> Result<Option<Vec<f64>>, Error> {
    let bad =
        |why: String| Error::new(ErrorCode::InvalidEmbedding, format!("{what}: {why}")).at(step);
    let items = match value {
        Value::Null => return Ok(None),
        Value::Array(items) if items.is_empty() => {
            return Err(bad(
                "must be null or a non-empty array of numbers, got []".into()
            ))
        }
        Value::Array(items) => items,
        other => {
            return Err(bad(format!(
                "must be null or a non-empty array of numbers, got {}",
                other.kind()
            )))
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match item {
            Value::Number(x) => {
                // Round to nearest, ties to even; out-of-range finite values become ±inf.
                let f = *x as f32;
                if !f.is_finite() {
                    return Err(Error::new(
                        ErrorCode::InvalidEmbedding,
                        format!("{what}: element {i} ({x}) does not fit a finite binary32"),
                    )
                    .at("gate.binary32"));
                }
                out.push(f64::from(f));
            }
            other => {
                return Err(bad(format!(
                    "element {i} must be a number, got {}",
                    other.kind()
                )))
            }
        }
    }
    Ok(Some(out))
}

fn candidates_from<'v, O: Observer>(
    value: &'v Value,
    obs: &mut O,
) -> Result<Vec<Candidate<'v>>, Error> {
    let shape = |why: String| Error::new(ErrorCode::InvalidShape, why);
    let items = match value {
        Value::Null => {
            obs.note("gate.candidates", || TraceValue::Array(Vec::new()));
            return Ok(Vec::new());
        }
        Value::Array(items) => items,
        other => {
            return Err(shape(format!(
                "candidates_json must be null or an array, got {}",
                other.kind()
            ))
            .at("gate.candidates"))
        }
    };
    obs.note("gate.candidates", || json_value(value));
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if !matches!(item, Value::Object(_)) {
            return Err(shape(format!(
                "candidate {i} must be an object, got {}",
                item.kind()
            ))
            .at("gate.candidate.object"));
        }
        obs.note("gate.candidate.object", || json!(i));
        let shape = |why: String| shape(why).at("gate.candidate.id");
        let id = match item.get("id") {
            Some(Value::String(s)) if !s.is_empty() => s.as_str(),
            Some(Value::String(_)) => {
                return Err(shape(format!(
                    "candidate {i}: id must be a non-empty string"
                )))
            }
            Some(other) => {
                return Err(shape(format!(
                    "candidate {i}: id must be a non-empty string, got {}",
                    other.kind()
                )))
            }
            None => return Err(shape(format!("candidate {i}: id is missing"))),
        };
        obs.note("gate.candidate.id", || json!(id));
        let shape =
            |why: String| Error::new(ErrorCode::InvalidShape, why).at("gate.candidate.text");
        let text = match item.get("text") {
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(shape(format!(
                    "candidate {i}: text must be a string, got {}",
                    other.kind()
                )))
            }
            None => return Err(shape(format!("candidate {i}: text is missing"))),
        };
        obs.note("gate.candidate.text", || json!(text));
        let shape =
            |why: String| Error::new(ErrorCode::InvalidShape, why).at("gate.candidate.pinned");
        let pinned = match item.get("pinned") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(shape(format!(
                    "candidate {i}: pinned must be a boolean or null, got {}",
                    other.kind()
                )))
            }
        };
        obs.note("gate.candidate.pinned", || json!(pinned));
        let embedding = match item.get("embedding") {
            None => None,
            Some(v) => embedding_from(
                v,
                &format!("candidate {i} embedding"),
                "gate.candidate.embedding",
            )?,
        };
        obs.note("gate.candidate.embedding", || {
            f64s_value(embedding.as_deref())
        });
        out.push(Candidate {
            id,
            text,
            pinned,
            embedding,
        });
    }
    Ok(out)
}

/// Cosine similarity over binary64 values with plain left-to-right sums from +0.0; None when the
/// lengths differ or either norm is 0.
fn similarity(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() {
        return None;
    }
    let mut dot = 0.0_f64;
    let mut na = 0.0_f64;
    let mut nb = 0.0_f64;
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        None
    } else {
        Some(dot / (na * nb).sqrt())
    }
}

#[derive(Serialize)]
struct MatchOut<'a> {
    id: &'a str,
    text: &'a str,
    similarity: Option<f64>,
    pinned: bool,
}

#[derive(Serialize)]
struct Decision<'a> {
    action: &'static str,
    reason: &'static str,
    #[serde(rename = "match")]
    matched: Option<MatchOut<'a>>,
}

impl Decision<'_> {
    /// The decision as a trace value (the similarity bit-exact).
    fn trace_value(&self) -> TraceValue {
        let matched = self.matched.as_ref().map(|m| {
            json!({"id": m.id, "text": m.text, "similarity": m.similarity.map(f64_value),
                   "pinned": m.pinned})
        });
        json!({"action": self.action, "reason": self.reason, "match": matched})
    }
}

fn check_threshold(t: f64) -> Result<f64, Error> {
    if t.is_nan() || !(0.0..=1.0).contains(&t) {
        Err(Error::new(
            ErrorCode::InvalidThreshold,
            format!("threshold must be a number in [0, 1], got {t}"),
        ))
    } else {
        Ok(t)
    }
}

/// `decide_write`: arguments are validated in signature order, `empty_text` after all of them.
pub fn decide_write(
    text: Arg<&str>,
    embedding_json: Arg<&str>,
    candidates_json: Arg<&str>,
    threshold: Arg<f64>,
    mode: Arg<&str>,
    force: Arg<bool>,
) -> Result<String, Error> {
    decide_write_observed(
        text,
        embedding_json,
        candidates_json,
        threshold,
        mode,
        force,
        &mut Quiet,
    )
}

/// `decide_write` with each step's result shown to `obs` (`gate.text` .. `gate.decision`).
pub fn decide_write_observed<O: Observer>(
    text: Arg<&str>,
    embedding_json: Arg<&str>,
    candidates_json: Arg<&str>,
    threshold: Arg<f64>,
    mode: Arg<&str>,
    force: Arg<bool>,
    obs: &mut O,
) -> Result<String, Error> {
    let text = text.map_err(at("gate.text"))?;
    obs.note("gate.text", || json!(text));
    let embedding_doc = json::parse(embedding_json.map_err(at("gate.embedding_json"))?)
        .map_err(at("gate.embedding_json"))?;
    obs.note("gate.embedding_json", || json_value(&embedding_doc));
    let embedding = embedding_from(&embedding_doc, "embedding_json", "gate.embedding")?;
    obs.note("gate.embedding", || json_value(&embedding_doc));
    obs.note("gate.binary32", || f64s_value(embedding.as_deref()));
    let candidates_doc = json::parse(candidates_json.map_err(at("gate.candidates_json"))?)
        .map_err(at("gate.candidates_json"))?;
    obs.note("gate.candidates_json", || json_value(&candidates_doc));
    let candidates = candidates_from(&candidates_doc, obs)?;
    let threshold = threshold
        .and_then(check_threshold)
        .map_err(at("gate.threshold"))?;
    obs.note("gate.threshold", || f64_value(threshold));
    let mode = mode.and_then(Mode::parse).map_err(at("gate.mode"))?;
    obs.note("gate.mode", || json!(mode.name()));
    let force = force.map_err(at("gate.force"))?;
    obs.note("gate.force", || json!(force));

    let normalized = normalize_observed(text, obs);
    obs.note("gate.normalize", || json!(normalized));
    if normalized.is_empty() {
        return Err(
            Error::new(ErrorCode::EmptyText, "text normalizes to the empty string")
                .at("gate.empty_text"),
        );
    }
    obs.note("gate.empty_text", || json!(false));

    // Rule 1: exact match, first in array order, pinned or not.
    // A candidate is known in the trace by its index and id (ids need not be unique).
    let exact = candidates
        .iter()
        .enumerate()
        .find(|(_, c)| normalize_observed(c.text, obs) == normalized);

    // Rule 2: near match, highest similarity, ties to the earliest.
    let mut near: Option<(f64, usize, &Candidate<'_>)> = None;
    if exact.is_none() {
        obs.note("gate.exact", || TraceValue::Null);
        if let Some(new) = embedding.as_deref() {
            for (index, c) in candidates.iter().enumerate() {
                if mode == Mode::Auto && c.pinned {
                    continue;
                }
                let Some(theirs) = c.embedding.as_deref() else {
                    continue;
                };
                let compared = similarity(new, theirs);
                obs.note(
                    "gate.similarity",
                    || json!({"index": index, "id": c.id, "similarity": compared.map(f64_value)}),
                );
                let Some(sim) = compared else {
                    continue;
                };
                if near.is_none_or(|(best, _, _)| sim > best) {
                    near = Some((sim, index, c));
                }
            }
        }
        let best = near;
        near = near.filter(|(sim, _, _)| *sim >= threshold);
        obs.note("gate.near", || match best {
            None => TraceValue::Null,
            Some((sim, index, c)) => {
                json!({"index": index, "id": c.id, "similarity": f64_value(sim), "match": near.is_some()})
            }
        });
    } else if let Some((index, c)) = exact {
        obs.note("gate.exact", || json!({"index": index, "id": c.id}));
    }

    let decision = if let Some((_, c)) = exact {
        let reason = if mode == Mode::Explicit {
            "already_stored"
        } else {
            "exact_duplicate"
        };
        Decision {
            action: "skip",
            reason,
            matched: Some(MatchOut {
                id: c.id,
                text: c.text,
                similarity: None,
                pinned: c.pinned,
            }),
        }
    } else if let Some((sim, _, c)) = near {
        let (action, reason) = match mode {
            Mode::Auto => ("skip", "near_duplicate"),
            Mode::Explicit if force => ("store", "forced"),
            Mode::Explicit => ("confirm", "possible_duplicate"),
            Mode::Mirror | Mode::Reconcile => ("store", "near_duplicate_kept"),
        };
        Decision {
            action,
            reason,
            matched: Some(MatchOut {
                id: c.id,
                text: c.text,
                similarity: Some(sim),
                pinned: c.pinned,
            }),
        }
    } else {
        Decision {
            action: "store",
            reason: "new",
            matched: None,
        }
    };
    obs.note("gate.decision", || decision.trace_value());
    serde_json::to_string(&decision)
        .map_err(|e| Error::new(ErrorCode::InvalidShape, format!("internal: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        text: &str,
        emb: &str,
        cands: &str,
        threshold: f64,
        mode: &str,
        force: bool,
    ) -> Result<serde_json::Value, ErrorCode> {
        decide_write(
            Ok(text),
            Ok(emb),
            Ok(cands),
            Ok(threshold),
            Ok(mode),
            Ok(force),
        )
        .map(|s| serde_json::from_str(&s).unwrap())
        .map_err(|e| e.code)
    }

    #[test]
    fn identical_vectors_similarity_exactly_one() {
        let v = [0.1_f64, -0.7, 0.3333, 1e-20, 12345.678];
        assert_eq!(similarity(&v, &v), Some(1.0));
        let w: Vec<f64> = (1..200).map(|i| f64::from(i as f32 * 0.37)).collect();
        assert_eq!(similarity(&w, &w), Some(1.0));
        assert_eq!(similarity(&[0.0, 0.0], &[1.0, 0.0]), None);
        assert_eq!(similarity(&[1.0], &[1.0, 0.0]), None);
    }

    #[test]
    fn ties_go_to_earliest() {
        let cands = r#"[{"id":"a","text":"x","embedding":[1,0]},
                        {"id":"b","text":"y","embedding":[2,0]},
                        {"id":"c","text":"z","embedding":[0,1]}]"#;
        let r = run("new", "[1,0]", cands, 0.85, "auto", false).unwrap();
        assert_eq!(r["match"]["id"], "a");
        assert_eq!(r["match"]["similarity"], 1.0);
        assert_eq!(r["reason"], "near_duplicate");
    }

    #[test]
    fn table() {
        let c = r#"[{"id":"p","text":"Hello","pinned":true,"embedding":[1,0]},
                    {"id":"n","text":"Other","embedding":[1,0.1]}]"#;
        let r = run(" hello!", "null", c, 0.85, "auto", false).unwrap();
        assert_eq!(r["action"], "skip");
        assert_eq!(r["reason"], "exact_duplicate");
        assert_eq!(r["match"]["id"], "p");
        assert!(r["match"]["similarity"].is_null());
        assert_eq!(r["match"]["pinned"], true);
        let r = run("hello", "null", c, 0.85, "explicit", true).unwrap();
        assert_eq!(r["reason"], "already_stored");
        // auto: pinned excluded from near rule only.
        let r = run("brand new", "[1,0]", c, 0.85, "auto", false).unwrap();
        assert_eq!(r["match"]["id"], "n");
        let r = run("brand new", "[1,0]", c, 0.85, "explicit", false).unwrap();
        assert_eq!(
            (&r["action"], &r["reason"]),
            (&"confirm".into(), &"possible_duplicate".into())
        );
        assert_eq!(r["match"]["id"], "p");
        let r = run("brand new", "[1,0]", c, 0.85, "explicit", true).unwrap();
        assert_eq!(
            (&r["action"], &r["reason"]),
            (&"store".into(), &"forced".into())
        );
        let r = run("brand new", "[1,0]", c, 0.85, "mirror", false).unwrap();
        assert_eq!(r["reason"], "near_duplicate_kept");
        let r = run("brand new", "[0,1]", c, 0.85, "reconcile", false).unwrap();
        assert_eq!(r["reason"], "new");
        assert!(r["match"].is_null());
        let r = run("brand new", "[0,0]", c, 0.0, "mirror", false).unwrap();
        assert_eq!(r["reason"], "new");
    }

    #[test]
    fn errors_in_signature_order() {
        assert_eq!(
            run("", "[]", "{}", 2.0, "x", false),
            Err(ErrorCode::InvalidEmbedding)
        );
        assert_eq!(
            run("", "null", "{}", 2.0, "x", false),
            Err(ErrorCode::InvalidShape)
        );
        assert_eq!(
            run("", "null", "[]", 2.0, "x", false),
            Err(ErrorCode::InvalidThreshold)
        );
        assert_eq!(
            run("", "null", "[]", f64::NAN, "x", false),
            Err(ErrorCode::InvalidThreshold)
        );
        assert_eq!(
            run("", "null", "[]", 1.0, "x", false),
            Err(ErrorCode::InvalidMode)
        );
        assert_eq!(
            run("", "null", "[]", 0.0, "auto", false),
            Err(ErrorCode::EmptyText)
        );
        let r = decide_write(
            Ok(""),
            Ok("null"),
            Ok("[]"),
            Ok(0.5),
            Ok("auto"),
            Err(Error::new(ErrorCode::InvalidForce, "x")),
        );
        assert_eq!(r.unwrap_err().code, ErrorCode::InvalidForce);
        assert_eq!(
            run("a", "[1e39]", "[]", 0.5, "auto", false),
            Err(ErrorCode::InvalidEmbedding)
        );
        assert_eq!(
            run("a", "[true]", "[]", 0.5, "auto", false),
            Err(ErrorCode::InvalidEmbedding)
        );
        assert_eq!(
            run("a", "1e400", "[]", 0.5, "auto", false),
            Err(ErrorCode::InvalidJson)
        );
        assert_eq!(
            run(
                "a",
                "null",
                r#"[{"id":"x","text":"t","embedding":[]}]"#,
                0.5,
                "auto",
                false
            ),
            Err(ErrorCode::InvalidEmbedding)
        );
        assert_eq!(
            run(
                "a",
                "null",
                r#"[{"id":"x","text":"t","embedding":[]},5]"#,
                0.5,
                "auto",
                false
            ),
            Err(ErrorCode::InvalidEmbedding)
        );
        assert_eq!(
            run("a", "null", r#"[{"id":"","text":"t"}]"#, 0.5, "auto", false),
            Err(ErrorCode::InvalidShape)
        );
        assert_eq!(
            run(
                "a",
                "null",
                r#"[{"id":"x","text":"t","pinned":1}]"#,
                0.5,
                "auto",
                false
            ),
            Err(ErrorCode::InvalidShape)
        );
        assert!(run("a", "null", r#"[{"id":" ","text":""}]"#, 0.5, "auto", false).is_ok());
    }

    #[test]
    fn binary32_rounding() {
        // Halfway between f32::MAX and 2^128 ties to even, i.e. to infinity; just below it rounds
        // down to f32::MAX.
        let halfway = 2f64.powi(128) - 2f64.powi(103);
        let below = f64::from_bits(halfway.to_bits() - 1);
        let ok = format!("[{below:e}]");
        let bad = format!("[{halfway:e}]");
        assert!(run("a", &ok, "[]", 0.5, "auto", false).is_ok());
        assert_eq!(
            run("a", &bad, "[]", 0.5, "auto", false),
            Err(ErrorCode::InvalidEmbedding)
        );
        assert_eq!(
            embedding_from(
                &Value::Array(vec![Value::Number(below)]),
                "e",
                "gate.embedding"
            ),
            Ok(Some(vec![f64::from(f32::MAX)]))
        );
        assert_eq!(
            embedding_from(
                &Value::Array(vec![Value::Number(0.1)]),
                "e",
                "gate.embedding"
            ),
            Ok(Some(vec![f64::from(0.1f32)]))
        );
    }
}
