//! PyO3 binding of memgate-core: module `memgate_rs`, one function per op of the core's op table, the
//! diagnostic `trace` and the list of the ops it serves, `TRACED`.
//!
//! Thin: each argument is taken as a generic Python object and translated into a
//! [`HostValue`](memgate_core::host::HostValue); memgate-core decides what each parameter accepts
//! and which error wins. Errors are raised as `ValueError("code: detail")`.

use std::borrow::Cow;

use memgate_core::host::{self, HostValue};
use memgate_core::Error;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyString};

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

/// One `#[pyfunction]` per op of the core's op table (`memgate_core::memgate_ops!`), with its Python
/// signature; `add_ops` adds them all to the module. Each hands its arguments, as host values in signature
/// order, to the core's function of the same name.
macro_rules! py_ops {
    ($(
        $name:ident / $js:ident
        ($($req:ident : $req_js:ident),*) ($($opt:ident : $opt_js:ident),*)
        $py_signature:literal traced = $traced:literal, $entry:ident;
    )*) => {
        $(
            #[pyfunction]
            #[pyo3(signature = ($($req,)* $($opt = HostArg::Omitted),*), text_signature = $py_signature)]
            fn $name($($req: HostArg<'_>,)* $($opt: HostArg<'_>),*) -> PyResult<String> {
                raise(host::$name($(optional(&$req),)* $(optional(&$opt)),*))
            }
        )*

        fn add_ops(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
}

memgate_core::memgate_ops!(py_ops);

/// trace(op, args) -> str: the trace of one call (schemas/trace-v1.schema.json) as JSON; `args` maps
/// parameter names to values, an absent optional one taking its default. Diagnostic, not in the
/// contract: the op's own code in the core, with a recording observer, after this binding's own
/// conversion of its arguments.
#[pyfunction]
fn trace(op: &str, args: &Bound<'_, PyDict>) -> PyResult<String> {
    let signature = host::OPS
        .iter()
        .find(|s| s.name == op && s.traced)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "memgate_rs traces {}, not {op:?}",
                host::TRACED.join(", ")
            ))
        })?;
    for key in args.keys() {
        let key: String = key.extract()?;
        if !signature.params.contains(&key.as_str()) {
            return Err(PyTypeError::new_err(format!(
                "{op}() got an unexpected argument {key:?}"
            )));
        }
    }
    let mut given = Vec::with_capacity(signature.params.len());
    for (i, param) in signature.params.iter().enumerate() {
        match args.get_item(param)? {
            Some(value) => given.push(HostArg::Given(value)),
            None if i < signature.required => {
                return Err(PyTypeError::new_err(format!(
                    "{op}() missing required argument {param:?}"
                )))
            }
            None => given.push(HostArg::Omitted),
        }
    }
    let values: Vec<HostValue<'_>> = given.iter().map(optional).collect();
    host::trace(op, values)
        .ok_or_else(|| PyValueError::new_err(format!("memgate_rs cannot trace {op:?}")))
}

#[pymodule]
#[pyo3(name = "memgate_rs")]
fn memgate_rs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_ops(m)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add("TRACED", host::TRACED.to_vec())?;
    Ok(())
}
