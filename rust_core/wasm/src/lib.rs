//! WebAssembly binding of memgate-core (wasm-bindgen): one function per op of the core's op table
//! (`normalizeFactText`, `decideWrite`, `buildDedupContext`, `unicodeVersions`, and the diagnostic
//! `unicodeNfc`), and the diagnostic `trace` with the list of the ops it serves, `traced`.
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

/// One exported function per op of the core's op table (`memgate_core::memgate_ops!`), under its
/// JavaScript name and with its JavaScript parameter names. Each hands its arguments, as host values in
/// signature order, to the core's function of the same name.
macro_rules! wasm_ops {
    ($(
        $name:ident / $js:ident
        ($($req:ident : $req_js:ident),*) ($($opt:ident : $opt_js:ident),*)
        $py_signature:literal traced = $traced:literal, $entry:ident;
    )*) => {
        $(
            #[wasm_bindgen(js_name = $js)]
            pub fn $name(
                $(#[wasm_bindgen(js_name = $req_js)] $req: JsValue,)*
                $(#[wasm_bindgen(js_name = $opt_js)] $opt: JsValue),*
            ) -> Result<String, JsError> {
                throw(host::$name($(host_value(&$req),)* $(host_value(&$opt)),*))
            }
        )*
    };
}

memgate_core::memgate_ops!(wasm_ops);

/// traced() -> string[]: the ops `trace` serves (the core's `host::TRACED`, as the PyO3 module's
/// `TRACED`), which wasm_host/testee.js announces in its answer to `start`.
#[wasm_bindgen]
pub fn traced() -> Vec<String> {
    host::TRACED.iter().map(|op| (*op).to_string()).collect()
}

// `trace` takes an op's arguments after its name, positional: as many as the op with the most.
const _: () = assert!(
    host::MAX_PARAMS <= 6,
    "trace takes 6 arguments after the op: give it as many as host::MAX_PARAMS"
);

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
    let count = host::op(&name).map_or(0, |signature| signature.params.len());
    let values: Vec<HostValue<'static>> = [a, b, c, d, e, f]
        .iter()
        .take(count)
        .map(host_value)
        .collect();
    host::trace(&name, values).ok_or_else(|| {
        JsError::new(&format!(
            "memgate-wasm traces {}, not {name:?}",
            host::TRACED.join(", ")
        ))
    })
}
