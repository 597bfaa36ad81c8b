//! WebAssembly binding (wasm-bindgen): `normalizeFactText`, `decideWrite`, `buildDedupContext`,
//! `unicodeVersions`, and the diagnostic `unicodeNfc`.
//!
//! Every parameter is taken as a raw `JsValue`, so `undefined` (an omitted argument), `null` and
//! values of the wrong JavaScript type are all seen here, and converted to an [`Arg`] with its
//! parameter's code; the core decides which error wins. `undefined` takes the default for
//! `threshold`, `mode`, `force` and `cap`; `null` is a wrong value. Strings are read as UTF-16 code
//! units, so a lone surrogate is an error (never replaced by U+FFFD); numbers are read as binary64
//! and checked here or by the core (never wrapped or truncated by the glue). Errors are thrown as a
//! JavaScript `Error` whose message is `"code: detail"`.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{Arg, Error, ErrorCode};
use crate::host;

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

/// A short description of a JavaScript value's type for error messages.
fn type_name(value: &JsValue) -> String {
    if value.is_null() {
        return "null".to_string();
    }
    value
        .js_typeof()
        .as_string()
        .unwrap_or_else(|| "<unknown type>".to_string())
}

/// The UTF-16 code units of a JavaScript string.
fn code_units(value: &JsValue) -> Vec<u16> {
    let s: &HostString = value.unchecked_ref();
    let len = s.length();
    let mut units = Vec::with_capacity(len as usize);
    for i in 0..len {
        // charCodeAt of an index below the length is an integer in [0, 65535]: the cast is exact.
        units.push(s.char_code_at(i) as u16);
    }
    units
}

/// A JavaScript string of Unicode scalar values, else `code` (a lone surrogate is never replaced).
fn str_arg(value: &JsValue, code: ErrorCode, param: &str) -> Arg<String> {
    if !value.is_string() {
        return Err(host::wrong_type(code, param, "a string", &type_name(value)));
    }
    // Fast path: the UTF-8 copy is exact iff converting it back gives the same JS string (a lone
    // surrogate would have become U+FFFD, which compares unequal).
    if let Some(s) = value.as_string() {
        if JsValue::from_str(&s) == *value {
            return Ok(s);
        }
    }
    // Slow path, only for strings that are not well formed: find the lone surrogate for the message.
    host::text_from_utf16(&code_units(value), code)
        .map_err(|e| Error::new(code, format!("{param}: {}", e.detail)))
}

/// A parameter with a default: `undefined` takes it, anything else (`null` included) is converted.
fn or_default<T>(value: &JsValue, default: T, convert: impl FnOnce(&JsValue) -> Arg<T>) -> Arg<T> {
    if value.is_undefined() {
        Ok(default)
    } else {
        convert(value)
    }
}

/// `threshold`: a JavaScript number (not a boolean, BigInt or string); the core checks the range.
fn threshold_arg(value: &JsValue) -> Arg<f64> {
    value.as_f64().ok_or_else(|| {
        host::wrong_type(
            ErrorCode::InvalidThreshold,
            "threshold",
            "a number in [0, 1]",
            &type_name(value),
        )
    })
}

/// `force`: a JavaScript boolean.
fn force_arg(value: &JsValue) -> Arg<bool> {
    value.as_bool().ok_or_else(|| {
        host::wrong_type(
            ErrorCode::InvalidForce,
            "force",
            "a boolean",
            &type_name(value),
        )
    })
}

/// `cap`: a JavaScript number that is an integer in [0, 2^32 − 1] (never wrapped or truncated).
fn cap_arg(value: &JsValue) -> Arg<u32> {
    match value.as_f64() {
        Some(v) => host::cap_from_f64(v),
        None => Err(host::wrong_type(
            ErrorCode::InvalidCap,
            "cap",
            "an integer in [0, 4294967295]",
            &type_name(value),
        )),
    }
}

fn throw(r: Result<String, Error>) -> Result<String, JsError> {
    r.map_err(|e| JsError::new(&e.to_string()))
}

/// normalizeFactText(text) -> string
#[wasm_bindgen(js_name = normalizeFactText)]
pub fn normalize_fact_text(text: JsValue) -> Result<String, JsError> {
    let text = str_arg(&text, ErrorCode::InvalidText, "text");
    throw(crate::normalize_fact_text(host::as_str_arg(&text)))
}

/// unicodeNfc(text) -> string (diagnostic: NFC alone)
#[wasm_bindgen(js_name = unicodeNfc)]
pub fn unicode_nfc(text: JsValue) -> Result<String, JsError> {
    let text = str_arg(&text, ErrorCode::InvalidText, "text");
    throw(crate::unicode_nfc(host::as_str_arg(&text)))
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
    let text = str_arg(&text, ErrorCode::InvalidText, "text");
    let embedding_json = str_arg(&embedding_json, ErrorCode::InvalidJson, "embeddingJson");
    let candidates_json = str_arg(&candidates_json, ErrorCode::InvalidJson, "candidatesJson");
    let threshold = or_default(&threshold, host::DEFAULT_THRESHOLD, threshold_arg);
    let mode = or_default(&mode, host::DEFAULT_MODE.to_string(), |v| {
        str_arg(v, ErrorCode::InvalidMode, "mode")
    });
    let force = or_default(&force, host::DEFAULT_FORCE, force_arg);
    throw(crate::decide_write(
        host::as_str_arg(&text),
        host::as_str_arg(&embedding_json),
        host::as_str_arg(&candidates_json),
        threshold,
        host::as_str_arg(&mode),
        force,
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
    let topical = str_arg(&topical_json, ErrorCode::InvalidJson, "topicalJson");
    let pinned = str_arg(&pinned_json, ErrorCode::InvalidJson, "pinnedJson");
    let recent = str_arg(&recent_json, ErrorCode::InvalidJson, "recentJson");
    let cap = or_default(&cap, host::DEFAULT_CAP, cap_arg);
    throw(crate::build_dedup_context(
        host::as_str_arg(&topical),
        host::as_str_arg(&pinned),
        host::as_str_arg(&recent),
        cap,
    ))
}

/// unicodeVersions() -> string (JSON)
#[wasm_bindgen(js_name = unicodeVersions)]
pub fn unicode_versions() -> String {
    crate::unicode_versions()
}
