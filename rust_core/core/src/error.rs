//! Error codes of contract v1.

use std::fmt;

/// The error codes of contract v1. `as_str` gives the code as the contract spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    InvalidText,
    EmptyText,
    InvalidJson,
    InvalidShape,
    InvalidEmbedding,
    InvalidThreshold,
    InvalidMode,
    InvalidForce,
    InvalidCap,
}

impl ErrorCode {
    /// Every code, in the order the contract lists them.
    pub const ALL: [ErrorCode; 9] = [
        ErrorCode::InvalidText,
        ErrorCode::EmptyText,
        ErrorCode::InvalidJson,
        ErrorCode::InvalidShape,
        ErrorCode::InvalidEmbedding,
        ErrorCode::InvalidThreshold,
        ErrorCode::InvalidMode,
        ErrorCode::InvalidForce,
        ErrorCode::InvalidCap,
    ];

    /// The snake_case code of the contract, e.g. `invalid_text`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidText => "invalid_text",
            ErrorCode::EmptyText => "empty_text",
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidShape => "invalid_shape",
            ErrorCode::InvalidEmbedding => "invalid_embedding",
            ErrorCode::InvalidThreshold => "invalid_threshold",
            ErrorCode::InvalidMode => "invalid_mode",
            ErrorCode::InvalidForce => "invalid_force",
            ErrorCode::InvalidCap => "invalid_cap",
        }
    }

    /// The code for its contract spelling, if it is one.
    pub fn from_code(code: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error: a contract code plus a free-form detail, and the step of the specification that raised
/// it (`gate.embedding`, ...: docs/contract.md, harness/model/registry.py), which a trace reports.
/// Displays as `"{code}: {detail}"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub detail: String,
    pub step: Option<&'static str>,
}

impl Error {
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Error {
        Error {
            code,
            detail: detail.into(),
            step: None,
        }
    }

    /// The error, raised by `step` unless an inner step already claimed it.
    pub fn at(mut self, step: &'static str) -> Error {
        self.step.get_or_insert(step);
        self
    }
}

/// `map_err(at("gate.text"))`: the error of a check, claimed by its step.
pub fn at(step: &'static str) -> impl Fn(Error) -> Error {
    move |e| e.at(step)
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.detail)
    }
}

impl std::error::Error for Error {}

/// A host-converted argument: the value, or the error its conversion produced.
/// The core, not the binding, decides which argument's error wins.
pub type Arg<T> = Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_starts_with_code_and_colon() {
        let e = Error::new(ErrorCode::InvalidCap, "cap must be an integer");
        assert_eq!(e.to_string(), "invalid_cap: cap must be an integer");
    }

    #[test]
    fn codes_round_trip() {
        for c in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_code(c.as_str()), Some(c));
        }
        assert_eq!(ErrorCode::from_code("nope"), None);
    }
}
