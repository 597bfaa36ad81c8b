//! `build_dedup_context` of contract v1.

use std::collections::HashSet;

use serde_json::{json, Value as TraceValue};

use crate::error::{at, Arg, Error, ErrorCode};
use crate::json::{self, Value};
use crate::normalize::is_white_space;
use crate::trace::{json_value, strs_value, Observer, Quiet};

/// First line of the context (U+2014 em dash, no trailing space).
pub const HEADER: &str = "Existing memories (use these for dedup \u{2014} classify as UPDATE/DELETE/NOOP if they conflict or overlap):";

/// Last line, present when at least one pinned line was emitted.
pub const PIN_NOTE: &str = "Pinned memories are read-only: never target them with UPDATE or DELETE. If a new fact adds to or changes a pinned memory, ADD it as a new memory.";

fn is_line_break(c: char) -> bool {
    matches!(c, '\u{A}'..='\u{D}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `ctx.split`: the pieces between line breaks.
fn pieces(s: &str) -> impl Iterator<Item = &str> {
    s.split(is_line_break)
}

/// `ctx.trim`: each piece without White_Space at its ends.
fn trimmed(s: &str) -> impl Iterator<Item = &str> {
    pieces(s).map(|piece| piece.trim_matches(is_white_space))
}

/// Put a value on one line: split on line breaks, trim each piece of White_Space, drop empty
/// pieces, join with one U+0020.
pub fn collapse(s: &str) -> String {
    collapse_observed(s, &mut Quiet)
}

/// `collapse`, fused in one pass; the observer sees the split and the trimmed pieces with the same
/// step functions (`ctx.split`, `ctx.trim`, `ctx.join`).
fn collapse_observed<O: Observer>(s: &str, obs: &mut O) -> String {
    obs.note("ctx.split", || strs_value(pieces(s)));
    obs.note("ctx.trim", || strs_value(trimmed(s)));
    let joined = trimmed(s)
        .filter(|piece| !piece.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    obs.note("ctx.join", || json!(joined));
    joined
}

/// One section (`step`: `ctx.topical`, ...; its JSON is checked by `json_step`): JSON null (empty)
/// or an array of objects whose `id`/`text` are strings or missing/null (""). Returns the raw
/// (id, text) pairs.
fn section<O: Observer>(
    arg: Arg<&str>,
    name: &str,
    (json_step, step): (&'static str, &'static str),
    obs: &mut O,
) -> Result<Vec<(String, String)>, Error> {
    let doc = json::parse(arg.map_err(at(json_step))?).map_err(at(json_step))?;
    obs.note(json_step, || json_value(&doc));
    let shape =
        |why: String| Error::new(ErrorCode::InvalidShape, format!("{name}_json: {why}")).at(step);
    let items = match doc {
        Value::Null => {
            obs.note(step, || TraceValue::Array(Vec::new()));
            return Ok(Vec::new());
        }
        Value::Array(items) => items,
        other => {
            return Err(shape(format!(
                "must be null or an array, got {}",
                other.kind()
            )))
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if !matches!(item, Value::Object(_)) {
            return Err(shape(format!(
                "element {i} must be an object, got {}",
                item.kind()
            )));
        }
        let field = |key: &str| -> Result<String, Error> {
            match item.get(key) {
                None | Some(Value::Null) => Ok(String::new()),
                Some(Value::String(s)) => Ok(s.clone()),
                Some(other) => Err(shape(format!(
                    "element {i}: {key} must be a string or null, got {}",
                    other.kind()
                ))),
            }
        };
        let id = field("id")?;
        let text = field("text")?;
        out.push((id, text));
    }
    obs.note(step, || {
        TraceValue::Array(out.iter().map(|(id, text)| json!([id, text])).collect())
    });
    Ok(out)
}

/// `build_dedup_context`: sections validated in the order topical, pinned, recent, then `cap`.
pub fn build_dedup_context(
    topical_json: Arg<&str>,
    pinned_json: Arg<&str>,
    recent_json: Arg<&str>,
    cap: Arg<u32>,
) -> Result<String, Error> {
    build_dedup_context_observed(topical_json, pinned_json, recent_json, cap, &mut Quiet)
}

/// `build_dedup_context` with each step's result shown to `obs` (`ctx.topical_json` ..
/// `ctx.pin_note`).
pub fn build_dedup_context_observed<O: Observer>(
    topical_json: Arg<&str>,
    pinned_json: Arg<&str>,
    recent_json: Arg<&str>,
    cap: Arg<u32>,
    obs: &mut O,
) -> Result<String, Error> {
    let topical = section(
        topical_json,
        "topical",
        ("ctx.topical_json", "ctx.topical"),
        obs,
    )?;
    let pinned = section(
        pinned_json,
        "pinned",
        ("ctx.pinned_json", "ctx.pinned"),
        obs,
    )?;
    let recent = section(
        recent_json,
        "recent",
        ("ctx.recent_json", "ctx.recent"),
        obs,
    )?;
    let cap = cap.map_err(at("ctx.cap"))?;
    obs.note("ctx.cap", || json!(cap));
    let cap = usize::try_from(cap).unwrap_or(usize::MAX);

    let mut seen: HashSet<String> = HashSet::new();
    let mut lines: Vec<String> = Vec::new();
    let mut any_pinned = false;
    let ordered = [(&pinned, true), (&topical, false), (&recent, false)];
    obs.note("ctx.order", || {
        let items = ordered.iter().flat_map(|(items, is_pinned)| {
            items
                .iter()
                .map(move |(id, text)| json!([id, text, is_pinned]))
        });
        TraceValue::Array(items.collect())
    });
    'outer: for (items, is_pinned) in ordered {
        for (raw_id, raw_text) in items {
            if lines.len() >= cap {
                obs.note("ctx.cap_limit", || json!(lines.len()));
                break 'outer;
            }
            let id = collapse_observed(raw_id, obs);
            let text = collapse_observed(raw_text, obs);
            if id.is_empty() || text.is_empty() {
                obs.note("ctx.skip_empty", || json!([id, text]));
                continue;
            }
            if id.contains(['[', ']']) {
                obs.note("ctx.skip_bracket", || json!(id));
                continue;
            }
            if seen.contains(&id) {
                obs.note("ctx.skip_duplicate", || json!(id));
                continue;
            }
            let line = if is_pinned {
                any_pinned = true;
                format!("[ID: {id}] [pinned, read-only] {text}")
            } else {
                format!("[ID: {id}] {text}")
            };
            obs.note("ctx.line", || json!(line));
            seen.insert(id);
            lines.push(line);
        }
    }
    if lines.is_empty() {
        obs.note("ctx.output", || json!(""));
        return Ok(String::new());
    }
    let mut out = String::from(HEADER);
    out.push('\n');
    out.push_str(&lines.join("\n"));
    obs.note("ctx.output", || json!(out));
    if any_pinned {
        out.push('\n');
        out.push_str(PIN_NOTE);
        obs.note("ctx.pin_note", || json!(out));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(t: &str, p: &str, r: &str, cap: u32) -> Result<String, ErrorCode> {
        build_dedup_context(Ok(t), Ok(p), Ok(r), Ok(cap)).map_err(|e| e.code)
    }

    #[test]
    fn collapse_rules() {
        assert_eq!(collapse(" a  b \n\n c\u{2028}d\t"), "a  b c d");
        assert_eq!(collapse("a\tb"), "a\tb");
        assert_eq!(collapse("\u{1c}x\u{1c}"), "\u{1c}x\u{1c}");
        assert_eq!(collapse("\r\n \u{85} "), "");
        assert_eq!(collapse("x\u{3000}\ny"), "x y");
    }

    #[test]
    fn order_dedupe_cap() {
        let t = r#"[{"id":"a","text":"topical a"},{"id":"b","text":"topical b"}]"#;
        let p = r#"[{"id":"a","text":"pinned a"}]"#;
        let r = r#"[{"id":"c","text":"recent c"},{"id":"b","text":"recent b"}]"#;
        let out = run(t, p, r, 30).unwrap();
        assert_eq!(
            out,
            format!(
                "{HEADER}\n[ID: a] [pinned, read-only] pinned a\n[ID: b] topical b\n[ID: c] recent c\n{PIN_NOTE}"
            )
        );
        assert_eq!(
            run(t, "null", r, 2).unwrap(),
            format!("{HEADER}\n[ID: a] topical a\n[ID: b] topical b")
        );
        assert_eq!(run(t, p, r, 0).unwrap(), "");
        assert_eq!(run("null", "[]", "null", 30).unwrap(), "");
    }

    #[test]
    fn skipped_items_reserve_nothing() {
        let t = r#"[{"id":"a","text":"  "},{"id":"[x]","text":"t"},{"text":"no id"},{"id":"a","text":"real"},{"id":"a]","text":"t"}]"#;
        assert_eq!(
            run(t, "null", "null", 30).unwrap(),
            format!("{HEADER}\n[ID: a] real")
        );
    }

    #[test]
    fn shapes_in_order() {
        assert_eq!(run("{}", "[", "1", 1), Err(ErrorCode::InvalidShape));
        assert_eq!(run("null", "[", "1", 1), Err(ErrorCode::InvalidJson));
        assert_eq!(run("null", "[1]", "1", 1), Err(ErrorCode::InvalidShape));
        assert_eq!(
            run("[{\"id\":1}]", "null", "null", 1),
            Err(ErrorCode::InvalidShape)
        );
        assert_eq!(
            run("[{\"id\":\"a\",\"text\":false}]", "null", "null", 1),
            Err(ErrorCode::InvalidShape)
        );
        let e = build_dedup_context(
            Ok("null"),
            Ok("null"),
            Ok("null"),
            Err(Error::new(ErrorCode::InvalidCap, "x")),
        );
        assert_eq!(e.unwrap_err().code, ErrorCode::InvalidCap);
        let e = build_dedup_context(
            Ok("5"),
            Ok("null"),
            Ok("null"),
            Err(Error::new(ErrorCode::InvalidCap, "x")),
        );
        assert_eq!(e.unwrap_err().code, ErrorCode::InvalidShape);
    }
}
