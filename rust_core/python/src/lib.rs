//! PyO3 binding of memgate-core: module `memgate_rs`.
//!
//! Thin: each argument is taken as a generic Python object and translated into a
//! [`HostValue`](memgate_core::host::HostValue); memgate-core decides what each parameter accepts
//! and which error wins. Errors are raised as `ValueError("code: detail")`.

use std::borrow::Cow;

use memgate_core::host::{self, HostValue};
use memgate_core::Error;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyString};

/// A parameter with a default: the object the caller passed (Python `None` included, which is a
/// wrong value, not the default), or nothing.
pub enum HostArg<'py> {
    Given(Bound<'py, PyAny>),
    Omitted,
}

impl<'a, 'py> FromPyObject<'a, 'py> for HostArg<'py> {
    type Error = std::convert::Infallible;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> Result<Self, Self::Error> {
        Ok(HostArg::Given(obj.to_owned()))
    }
}

/// The code points of a `str` that is not well formed (it holds a surrogate). UTF-32, not UTF-16:
/// a Python `str` is a sequence of code points, and in UTF-16 a high surrogate followed by a low
/// one would become one valid character (the sweep found `"\ud800\udc00"` accepted as U+10000).
fn code_points(s: &Bound<'_, PyString>) -> Option<Vec<u32>> {
    let encoded = s
        .call_method1("encode", ("utf-32-le", "surrogatepass"))
        .ok()?;
    let bytes = encoded.cast::<PyBytes>().ok()?.as_bytes();
    bytes
        .chunks_exact(4)
        .map(|b| {
            Some(u32::from_le_bytes([
                *b.first()?,
                *b.get(1)?,
                *b.get(2)?,
                *b.get(3)?,
            ]))
        })
        .collect()
}

/// A Python object as a host value: bool before int (bool is an int subclass), str as text.
fn host_value<'a>(obj: &'a Bound<'_, PyAny>) -> HostValue<'a> {
    if let Ok(s) = obj.cast::<PyString>() {
        return match s.to_str() {
            Ok(text) => HostValue::Str(Cow::Borrowed(text)),
            Err(_) => match code_points(s) {
                Some(points) => HostValue::CodePoints(Cow::Owned(points)),
                // Never read as some other text: an error of the parameter's code.
                None => HostValue::Other(Cow::Borrowed("a str whose code points cannot be read")),
            },
        };
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return HostValue::Bool(b.is_true());
    }
    if obj.is_instance_of::<PyInt>() {
        return HostValue::Int(obj.extract::<i128>().ok());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return HostValue::Float(f.value());
    }
    let name = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "<unknown type>".to_string());
    HostValue::Other(Cow::Owned(name))
}

fn optional<'a>(arg: &'a HostArg<'_>) -> HostValue<'a> {
    match arg {
        HostArg::Given(obj) => host_value(obj),
        HostArg::Omitted => HostValue::Omitted,
    }
}

fn raise<T>(r: Result<T, Error>) -> PyResult<T> {
    r.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// normalize_fact_text(text) -> str
#[pyfunction]
#[pyo3(signature = (text))]
fn normalize_fact_text(text: &Bound<'_, PyAny>) -> PyResult<String> {
    raise(host::normalize_fact_text(host_value(text)))
}

/// unicode_nfc(text) -> str (diagnostic: NFC alone)
#[pyfunction]
#[pyo3(signature = (text))]
fn unicode_nfc(text: &Bound<'_, PyAny>) -> PyResult<String> {
    raise(host::unicode_nfc(host_value(text)))
}

/// decide_write(text, embedding_json, candidates_json, threshold=0.85, mode="auto", force=False) -> str
#[pyfunction]
#[pyo3(
    signature = (text, embedding_json, candidates_json, threshold = HostArg::Omitted, mode = HostArg::Omitted, force = HostArg::Omitted),
    text_signature = "(text, embedding_json, candidates_json, threshold=0.85, mode='auto', force=False)"
)]
fn decide_write<'py>(
    text: &Bound<'py, PyAny>,
    embedding_json: &Bound<'py, PyAny>,
    candidates_json: &Bound<'py, PyAny>,
    threshold: HostArg<'py>,
    mode: HostArg<'py>,
    force: HostArg<'py>,
) -> PyResult<String> {
    raise(host::decide_write(
        host_value(text),
        host_value(embedding_json),
        host_value(candidates_json),
        optional(&threshold),
        optional(&mode),
        optional(&force),
    ))
}

/// build_dedup_context(topical_json, pinned_json, recent_json, cap=30) -> str
#[pyfunction]
#[pyo3(
    signature = (topical_json, pinned_json, recent_json, cap = HostArg::Omitted),
    text_signature = "(topical_json, pinned_json, recent_json, cap=30)"
)]
fn build_dedup_context<'py>(
    topical_json: &Bound<'py, PyAny>,
    pinned_json: &Bound<'py, PyAny>,
    recent_json: &Bound<'py, PyAny>,
    cap: HostArg<'py>,
) -> PyResult<String> {
    raise(host::build_dedup_context(
        host_value(topical_json),
        host_value(pinned_json),
        host_value(recent_json),
        optional(&cap),
    ))
}

/// unicode_versions() -> str (JSON)
#[pyfunction]
fn unicode_versions() -> String {
    memgate_core::unicode_versions()
}

#[pymodule]
#[pyo3(name = "memgate_rs")]
fn memgate_rs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(normalize_fact_text, m)?)?;
    m.add_function(wrap_pyfunction!(decide_write, m)?)?;
    m.add_function(wrap_pyfunction!(build_dedup_context, m)?)?;
    m.add_function(wrap_pyfunction!(unicode_versions, m)?)?;
    m.add_function(wrap_pyfunction!(unicode_nfc, m)?)?;
    Ok(())
}
