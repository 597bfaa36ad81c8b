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

/// normalizeFactText(text) -> string
#[wasm_bindgen(js_name = normalizeFactText)]
pub fn normalize_fact_text(text: JsValue) -> Result<String, JsError> {
    throw(host::normalize_fact_text(host_value(&text)))
}

/// unicodeNfc(text) -> string (diagnostic: NFC alone)
#[wasm_bindgen(js_name = unicodeNfc)]
pub fn unicode_nfc(text: JsValue) -> Result<String, JsError> {
    throw(host::unicode_nfc(host_value(&text)))
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
    throw(host::decide_write(
        host_value(&text),
        host_value(&embedding_json),
        host_value(&candidates_json),
        host_value(&threshold),
        host_value(&mode),
        host_value(&force),
    ))
}

/// buildDedupContext(topicalJson, pinnedJson, recentJson, cap = 30) -> string
#[wasm_bindgen(js_name = buildDedupContext)]
pub fn build_dedup_context(
    #[wasm_bindgen(js_name = topicalJson)] topical_json: JsValue,
    #[wasm_bindgen(js_name = pinnedJson)] pinned_json: JsValue,
    #[wasm_bindgen(js_name = recentJson)] recent_json: JsValue,
    cap: JsValue,
) -> Result<String, JsError> {
    throw(host::build_dedup_context(
        host_value(&topical_json),
        host_value(&pinned_json),
        host_value(&recent_json),
        host_value(&cap),
    ))
}

/// unicodeVersions() -> string (JSON)
#[wasm_bindgen(js_name = unicodeVersions)]
pub fn unicode_versions() -> String {
    memgate_core::unicode_versions()
}
