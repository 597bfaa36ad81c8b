//! PyO3 binding: module `memgate_rs`. Every argument is taken as a generic Python object and
//! converted to an [`Arg`] with its parameter's code; the core decides which error wins.
//! Errors are raised as `ValueError("code: detail")`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

use crate::error::{Arg, Error, ErrorCode};
use crate::host;

/// A parameter with a default: the object the caller passed (Python `None` included, which is a
/// wrong value, not the default), or `Omitted`.
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

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "<unknown type>".to_string())
}

/// A Python `str` of Unicode scalar values, else `code` (a lone surrogate is never replaced).
fn str_arg(obj: &Bound<'_, PyAny>, code: ErrorCode, param: &str) -> Arg<String> {
    match obj.cast::<PyString>() {
        Ok(s) => match s.to_str() {
            Ok(v) => Ok(v.to_string()),
            Err(_) => Err(Error::new(
                code,
                format!("{param} contains a lone surrogate (not valid Unicode text)"),
            )),
        },
        Err(_) => Err(host::wrong_type(code, param, "a str", &type_name(obj))),
    }
}

fn threshold_arg(obj: &Bound<'_, PyAny>) -> Arg<f64> {
    let code = ErrorCode::InvalidThreshold;
    if obj.is_instance_of::<PyBool>() {
        return Err(host::wrong_type(
            code,
            "threshold",
            "a number in [0, 1]",
            "bool",
        ));
    }
    if obj.is_instance_of::<PyInt>() {
        return match obj.extract::<i128>() {
            Ok(v) => host::threshold_from_i128(v),
            Err(_) => Err(Error::new(
                code,
                "threshold must be a number in [0, 1], got an int out of range",
            )),
        };
    }
    match obj.cast::<PyFloat>() {
        Ok(f) => Ok(f.value()),
        Err(_) => Err(host::wrong_type(
            code,
            "threshold",
            "a number in [0, 1]",
            &type_name(obj),
        )),
    }
}

fn force_arg(obj: &Bound<'_, PyAny>) -> Arg<bool> {
    match obj.cast::<PyBool>() {
        Ok(b) => Ok(b.is_true()),
        Err(_) => Err(host::wrong_type(
            ErrorCode::InvalidForce,
            "force",
            "a bool",
            &type_name(obj),
        )),
    }
}

fn cap_arg(obj: &Bound<'_, PyAny>) -> Arg<u32> {
    let code = ErrorCode::InvalidCap;
    let expected = "an integer in [0, 4294967295]";
    if obj.is_instance_of::<PyBool>() {
        return Err(host::wrong_type(code, "cap", expected, "bool"));
    }
    if obj.is_instance_of::<PyInt>() {
        return match obj.extract::<i128>() {
            Ok(v) => host::cap_from_i128(v),
            Err(_) => Err(host::wrong_type(
                code,
                "cap",
                expected,
                "an int out of range",
            )),
        };
    }
    match obj.cast::<PyFloat>() {
        Ok(f) => host::cap_from_f64(f.value()),
        Err(_) => Err(host::wrong_type(code, "cap", expected, &type_name(obj))),
    }
}

fn raise<T>(r: Result<T, Error>) -> PyResult<T> {
    r.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// normalize_fact_text(text) -> str
#[pyfunction]
#[pyo3(signature = (text))]
fn normalize_fact_text(text: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = str_arg(text, ErrorCode::InvalidText, "text");
    raise(crate::normalize_fact_text(host::as_str_arg(&text)))
}

/// unicode_nfc(text) -> str (diagnostic: NFC alone)
#[pyfunction]
#[pyo3(signature = (text))]
fn unicode_nfc(text: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = str_arg(text, ErrorCode::InvalidText, "text");
    raise(crate::unicode_nfc(host::as_str_arg(&text)))
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
    let text = str_arg(text, ErrorCode::InvalidText, "text");
    let embedding_json = str_arg(embedding_json, ErrorCode::InvalidJson, "embedding_json");
    let candidates_json = str_arg(candidates_json, ErrorCode::InvalidJson, "candidates_json");
    let threshold = match &threshold {
        HostArg::Given(obj) => threshold_arg(obj),
        HostArg::Omitted => Ok(host::DEFAULT_THRESHOLD),
    };
    let mode = match &mode {
        HostArg::Given(obj) => str_arg(obj, ErrorCode::InvalidMode, "mode"),
        HostArg::Omitted => Ok(host::DEFAULT_MODE.to_string()),
    };
    let force = match &force {
        HostArg::Given(obj) => force_arg(obj),
        HostArg::Omitted => Ok(host::DEFAULT_FORCE),
    };
    raise(crate::decide_write(
        host::as_str_arg(&text),
        host::as_str_arg(&embedding_json),
        host::as_str_arg(&candidates_json),
        threshold,
        host::as_str_arg(&mode),
        force,
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
    let topical = str_arg(topical_json, ErrorCode::InvalidJson, "topical_json");
    let pinned = str_arg(pinned_json, ErrorCode::InvalidJson, "pinned_json");
    let recent = str_arg(recent_json, ErrorCode::InvalidJson, "recent_json");
    let cap = match &cap {
        HostArg::Given(obj) => cap_arg(obj),
        HostArg::Omitted => Ok(host::DEFAULT_CAP),
    };
    raise(crate::build_dedup_context(
        host::as_str_arg(&topical),
        host::as_str_arg(&pinned),
        host::as_str_arg(&recent),
        cap,
    ))
}

/// unicode_versions() -> str (JSON)
#[pyfunction]
fn unicode_versions() -> String {
    crate::unicode_versions()
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
