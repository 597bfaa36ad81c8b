//! WebAssembly binding of memgate-core (wasm-bindgen): `normalizeFactText`, `decideWrite`,
//! `buildDedupContext`, `unicodeVersions`, and the diagnostic `unicodeNfc`.
//!
//! Thin: every parameter is taken as a raw `JsValue`, so `undefined` (an omitted argument), `null`
//! and values of the wrong JavaScript type all reach this code, which only translates each one into
//! a [`HostValue`](memgate_core::host::HostValue); memgate-core decides what each parameter accepts
//! and which error wins. `undefined` is `Omitted` (a parameter with a default takes it); `null` is a
//! value of another type. Strings are read as UTF-16 code units when they are not well formed, so a
//! lone surrogate is an error (never replaced by U+FFFD); every number is a binary64 float (never
//! wrapped or truncated by the glue). Errors are thrown as a JavaScript `Error` whose message is
//! `"code: detail"`.

use std::borrow::Cow;

use memgate_core::host::{self, HostValue};
use memgate_core::Error;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// A JavaScript primitive string, viewed through `String.prototype` (only used after
    /// `is_string()` said so).
    #[wasm_bindgen(js_name = String)]
    type HostString;

    /// The length in UTF-16 code units.
    #[wasm_bindgen(method, getter, structural)]
    fn length(this: &HostString) -> u32;

    /// The UTF-16 code unit at `index` (an integer in [0, 65535] for an index below `length`).
    #[wasm_bindgen(method, structural, js_name = charCodeAt)]
    fn char_code_at(this: &HostString, index: u32) -> f64;
}

/// The UTF-16 code units of a JavaScript string.
fn code_units(value: &JsValue) -> Vec<u16> {
    let s: &HostString = value.unchecked_ref();
    (0..s.length())
        // charCodeAt of an index below the length is an integer in [0, 65535]: the cast is exact.
        .map(|i| s.char_code_at(i) as u16)
        .collect()
}

/// A JavaScript value as a host value.
fn host_value(value: &JsValue) -> HostValue<'static> {
    if value.is_undefined() {
        return HostValue::Omitted;
    }
    if value.is_string() {
        // Fast path: the UTF-8 copy is exact iff converting it back gives the same JS string (a lone
        // surrogate would have become U+FFFD, which compares unequal).
        if let Some(s) = value.as_string() {
            if JsValue::from_str(&s) == *value {
                return HostValue::Str(Cow::Owned(s));
            }
        }
        return HostValue::Utf16(Cow::Owned(code_units(value)));
    }
    if let Some(b) = value.as_bool() {
        return HostValue::Bool(b);
    }
    if let Some(v) = value.as_f64() {
        return HostValue::Float(v);
    }
    let name = if value.is_null() {
        Some("null".to_string())
    } else {
        value.js_typeof().as_string()
    };
    HostValue::Other(Cow::Owned(
        name.unwrap_or_else(|| "<unknown type>".to_string()),
    ))
}

fn throw(r: Result<String, Error>) -> Result<String, JsError> {
    r.map_err(|e| JsError::new(&e.to_string()))
}

// Each op's arguments as host values, in signature order: one function per op, used by the op and by
// `trace`, so a trace shows what this binding handed the core.

fn text_values(text: &JsValue) -> [HostValue<'static>; 1] {
    [host_value(text)]
}

fn decide_write_values(
    text: &JsValue,
    embedding_json: &JsValue,
    candidates_json: &JsValue,
    threshold: &JsValue,
    mode: &JsValue,
    force: &JsValue,
) -> [HostValue<'static>; 6] {
    [
        host_value(text),
        host_value(embedding_json),
        host_value(candidates_json),
        host_value(threshold),
        host_value(mode),
        host_value(force),
    ]
}

fn build_dedup_context_values(
    topical_json: &JsValue,
    pinned_json: &JsValue,
    recent_json: &JsValue,
    cap: &JsValue,
) -> [HostValue<'static>; 4] {
    [
        host_value(topical_json),
        host_value(pinned_json),
        host_value(recent_json),
        host_value(cap),
    ]
}

/// normalizeFactText(text) -> string
#[wasm_bindgen(js_name = normalizeFactText)]
pub fn normalize_fact_text(text: JsValue) -> Result<String, JsError> {
    let [text] = text_values(&text);
    throw(host::normalize_fact_text(text))
}

/// unicodeNfc(text) -> string (diagnostic: NFC alone)
#[wasm_bindgen(js_name = unicodeNfc)]
pub fn unicode_nfc(text: JsValue) -> Result<String, JsError> {
    let [text] = text_values(&text);
    throw(host::unicode_nfc(text))
}

/// decideWrite(text, embeddingJson, candidatesJson, threshold = 0.85, mode = "auto", force = false)
/// -> string (JSON)
#[wasm_bindgen(js_name = decideWrite)]
pub fn decide_write(
    text: JsValue,
    #[wasm_bindgen(js_name = embeddingJson)] embedding_json: JsValue,
    #[wasm_bindgen(js_name = candidatesJson)] candidates_json: JsValue,
    threshold: JsValue,
    mode: JsValue,
    force: JsValue,
) -> Result<String, JsError> {
    let [a, b, c, d, e, f] = decide_write_values(
        &text,
        &embedding_json,
        &candidates_json,
        &threshold,
        &mode,
        &force,
    );
    throw(host::decide_write(a, b, c, d, e, f))
}

/// buildDedupContext(topicalJson, pinnedJson, recentJson, cap = 30) -> string
#[wasm_bindgen(js_name = buildDedupContext)]
pub fn build_dedup_context(
    #[wasm_bindgen(js_name = topicalJson)] topical_json: JsValue,
    #[wasm_bindgen(js_name = pinnedJson)] pinned_json: JsValue,
    #[wasm_bindgen(js_name = recentJson)] recent_json: JsValue,
    cap: JsValue,
) -> Result<String, JsError> {
    let [a, b, c, d] = build_dedup_context_values(&topical_json, &pinned_json, &recent_json, &cap);
    throw(host::build_dedup_context(a, b, c, d))
}

/// unicodeVersions() -> string (JSON)
#[wasm_bindgen(js_name = unicodeVersions)]
pub fn unicode_versions() -> String {
    memgate_core::unicode_versions()
}

/// trace(op, ...args) -> string (JSON): the trace of one call (schemas/trace-v1.schema.json), `op`
/// by its contract (Python) name, its arguments positional as the op takes them (`undefined` for an
/// omitted one). Diagnostic, not in the contract: the op's own code in the core, with a recording
/// observer, after this binding's own conversion of its arguments.
#[wasm_bindgen]
pub fn trace(
    op: JsValue,
    a: JsValue,
    b: JsValue,
    c: JsValue,
    d: JsValue,
    e: JsValue,
    f: JsValue,
) -> Result<String, JsError> {
    let name = op.as_string().unwrap_or_default();
    let values: Vec<HostValue<'static>> = match name.as_str() {
        "normalize_fact_text" | "unicode_nfc" => text_values(&a).into(),
        "decide_write" => decide_write_values(&a, &b, &c, &d, &e, &f).into(),
        "build_dedup_context" => build_dedup_context_values(&a, &b, &c, &d).into(),
        _ => Vec::new(),
    };
    host::trace(&name, values).ok_or_else(|| {
        JsError::new(&format!(
            "memgate-wasm traces {}, not {name:?}",
            host::TRACED.join(", ")
        ))
    })
}
