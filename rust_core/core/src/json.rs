//! Strict RFC 8259 JSON parser of contract v1.
//!
//! Rejects (all as `invalid_json`): any syntax error (a leading BOM included, whitespace other than
//! space/tab/LF/CR), `NaN`/`Infinity` literals, duplicate object keys (compared after unescaping),
//! escapes that decode to lone surrogates, numbers whose correctly rounded binary64 value is
//! infinite, and more than [`MAX_DEPTH`] levels of nested arrays/objects. Every number is kept as
//! its correctly rounded binary64 value. Recursion is bounded by the depth limit.

use std::collections::HashSet;

use crate::error::{Error, ErrorCode};

/// Deepest nesting of arrays/objects accepted; the outermost array/object is level 1.
pub const MAX_DEPTH: usize = 100;

/// A parsed JSON value. Object members keep document order (keys are unique).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object (None for a missing key or a non-object).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A short name of the value's JSON type, for error details.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

/// Parse `text` as one strict JSON document.
pub fn parse(text: &str) -> Result<Value, Error> {
    let mut p = Parser {
        src: text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    p.skip_ws();
    let value = p.value(0)?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.err("unexpected data after the JSON value"));
    }
    Ok(value)
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> Error {
        Error::new(
            ErrorCode::InvalidJson,
            format!("{what} at byte {}", self.pos),
        )
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) {
        self.pos = self.pos.saturating_add(1);
    }

    fn next_byte(&mut self) -> Option<u8> {
        let b = self.peek();
        if b.is_some() {
            self.bump();
        }
        b
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.bump();
        }
    }

    fn expect_literal(&mut self, lit: &str) -> Result<(), Error> {
        let end = self.pos.saturating_add(lit.len());
        if self.bytes.get(self.pos..end) == Some(lit.as_bytes()) {
            self.pos = end;
            Ok(())
        } else {
            Err(self.err("invalid literal"))
        }
    }

    /// Parse one value; `depth` is the number of arrays/objects enclosing it.
    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        match self.peek() {
            None => Err(self.err("unexpected end of input")),
            Some(b'n') => self.expect_literal("null").map(|()| Value::Null),
            Some(b't') => self.expect_literal("true").map(|()| Value::Bool(true)),
            Some(b'f') => self.expect_literal("false").map(|()| Value::Bool(false)),
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number().map(Value::Number),
            Some(b'[') => self.array(depth),
            Some(b'{') => self.object(depth),
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    fn enter(&self, depth: usize) -> Result<usize, Error> {
        let inner = depth.saturating_add(1);
        if inner > MAX_DEPTH {
            Err(self.err("more than 100 levels of nesting"))
        } else {
            Ok(inner)
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, Error> {
        let inner = self.enter(depth)?;
        self.bump(); // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(inner)?);
            self.skip_ws();
            match self.next_byte() {
                Some(b',') => continue,
                Some(b']') => return Ok(Value::Array(items)),
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Error> {
        let inner = self.enter(depth)?;
        self.bump(); // '{'
        let mut members: Vec<(String, Value)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(Value::Object(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a string key"));
            }
            let key_pos = self.pos;
            let key = self.string()?;
            if !seen.insert(key.clone()) {
                return Err(Error::new(
                    ErrorCode::InvalidJson,
                    format!("duplicate object key {key:?} at byte {key_pos}"),
                ));
            }
            self.skip_ws();
            if self.next_byte() != Some(b':') {
                return Err(self.err("expected ':'"));
            }
            self.skip_ws();
            let value = self.value(inner)?;
            members.push((key, value));
            self.skip_ws();
            match self.next_byte() {
                Some(b',') => continue,
                Some(b'}') => return Ok(Value::Object(members)),
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u16, Error> {
        let mut v: u16 = 0;
        for _ in 0..4 {
            let d = match self.next_byte() {
                Some(b @ b'0'..=b'9') => b.wrapping_sub(b'0'),
                Some(b @ b'a'..=b'f') => b.wrapping_sub(b'a').wrapping_add(10),
                Some(b @ b'A'..=b'F') => b.wrapping_sub(b'A').wrapping_add(10),
                _ => return Err(self.err("invalid \\u escape")),
            };
            v = (v << 4) | u16::from(d);
        }
        Ok(v)
    }

    /// Parse a string starting at its opening quote.
    fn string(&mut self) -> Result<String, Error> {
        self.bump(); // '"'
        let mut out = String::new();
        let mut run_start = self.pos;
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.push_run(&mut out, run_start)?;
                    self.bump();
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.push_run(&mut out, run_start)?;
                    self.bump();
                    self.escape(&mut out)?;
                    run_start = self.pos;
                }
                Some(b) if b < 0x20 => {
                    return Err(self.err("unescaped control character in string"))
                }
                Some(_) => self.bump(),
            }
        }
    }

    /// Append the raw (unescaped) bytes from `start` to the current position.
    fn push_run(&self, out: &mut String, start: usize) -> Result<(), Error> {
        // Runs end at an ASCII '"' or '\\', so they are char boundaries of valid UTF-8.
        match self.src.get(start..self.pos) {
            Some(run) => {
                out.push_str(run);
                Ok(())
            }
            None => Err(self.err("internal: string run not on a char boundary")),
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), Error> {
        let c = match self.next_byte() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let first = self.hex4()?;
                match first {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(self.pos..self.pos.saturating_add(2)) != Some(b"\\u") {
                            return Err(self.err("escape decodes to a lone surrogate"));
                        }
                        self.pos = self.pos.saturating_add(2);
                        let second = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(self.err("escape decodes to a lone surrogate"));
                        }
                        let mut it = char::decode_utf16([first, second]);
                        match it.next() {
                            Some(Ok(c)) => c,
                            _ => return Err(self.err("escape decodes to a lone surrogate")),
                        }
                    }
                    0xDC00..=0xDFFF => return Err(self.err("escape decodes to a lone surrogate")),
                    _ => match char::from_u32(u32::from(first)) {
                        Some(c) => c,
                        None => return Err(self.err("invalid \\u escape")),
                    },
                }
            }
            _ => return Err(self.err("invalid escape")),
        };
        out.push(c);
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.bump();
        }
        self.pos.saturating_sub(start)
    }

    fn number(&mut self) -> Result<f64, Error> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.bump();
        }
        match self.peek() {
            Some(b'0') => self.bump(),
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.bump();
            if self.digits() == 0 {
                return Err(self.err("invalid number: no digits after '.'"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.bump();
            if let Some(b'+' | b'-') = self.peek() {
                self.bump();
            }
            if self.digits() == 0 {
                return Err(self.err("invalid number: no exponent digits"));
            }
        }
        let lexeme = self
            .src
            .get(start..self.pos)
            .ok_or_else(|| self.err("invalid number"))?;
        // Rust's float parsing is correctly rounded (round to nearest, ties to even).
        let v: f64 = lexeme.parse().map_err(|_| self.err("invalid number"))?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(Error::new(
                ErrorCode::InvalidJson,
                format!("number {lexeme} is out of binary64 range at byte {start}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(s: &str) {
        match parse(s) {
            Err(e) => assert_eq!(e.code, ErrorCode::InvalidJson, "{s:?}"),
            Ok(v) => panic!("accepted {s:?} as {v:?}"),
        }
    }

    fn ok(s: &str) -> Value {
        match parse(s) {
            Ok(v) => v,
            Err(e) => panic!("rejected {s:?}: {e}"),
        }
    }

    #[test]
    fn scalars_and_containers() {
        assert_eq!(ok("null"), Value::Null);
        assert_eq!(ok(" true "), Value::Bool(true));
        assert_eq!(ok("\t\r\n false"), Value::Bool(false));
        assert_eq!(ok("\"a\\u00e9\\n\""), Value::String("a\u{e9}\n".into()));
        assert_eq!(ok("-0").clone(), Value::Number(-0.0));
        assert_eq!(
            ok("[1, 2.5e1 ,{\"a\":[]}]"),
            Value::Array(vec![
                Value::Number(1.0),
                Value::Number(25.0),
                Value::Object(vec![("a".into(), Value::Array(vec![]))])
            ])
        );
        assert_eq!(
            ok("18446744073709551616"),
            Value::Number(18446744073709551616.0)
        );
    }

    #[test]
    fn syntax_errors() {
        for s in [
            "",
            " ",
            "[",
            "]",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "'a'",
            "01",
            "1.",
            ".5",
            "+1",
            "1e",
            "1e+",
            "-",
            "--1",
            "0x10",
            "[1 2]",
            "{\"a\" 1}",
            "nul",
            "True",
            "\"\t\"",
            "\"a",
            "\"\\x\"",
            "\"\\u12\"",
            "1 2",
            "[]]",
            "\u{a0}1",
            "\u{feff}1",
            "\u{b}1",
            "\u{c}1",
        ] {
            bad(s);
        }
    }

    #[test]
    fn bom_nan_infinity() {
        bad("\u{feff}{}");
        bad("NaN");
        bad("[NaN]");
        bad("Infinity");
        bad("-Infinity");
        bad("[1, -Infinity]");
    }

    #[test]
    fn duplicate_keys_after_unescaping() {
        bad("{\"a\":1,\"a\":2}");
        bad("{\"a\":1,\"\\u0061\":2}");
        bad("[{\"x\":{\"k\":1,\"k\":1}}]");
        ok("{\"a\":1,\"A\":2}");
        ok("[{\"a\":1},{\"a\":2}]");
    }

    #[test]
    fn surrogate_escapes() {
        bad("\"\\ud800\"");
        bad("\"\\udc00\\ud800\"");
        bad("\"\\ud800x\"");
        bad("\"\\ud800\\u0041\"");
        bad("{\"\\udfff\":1}");
        assert_eq!(ok("\"\\ud83d\\ude00\""), Value::String("\u{1F600}".into()));
        assert_eq!(ok("\"\\uD83D\\uDE00\""), Value::String("\u{1F600}".into()));
    }

    #[test]
    fn number_range() {
        bad("1e400");
        bad("-1e400");
        bad("[1.8e308]");
        assert_eq!(ok("1e-400"), Value::Number(0.0));
        assert_eq!(ok("1.7976931348623157e308"), Value::Number(f64::MAX));
        assert_eq!(ok("0e999999999999999999999"), Value::Number(0.0));
        bad("1e999999999999999999999");
        assert_eq!(ok("1e-999999999999999999999"), Value::Number(0.0));
        // Correctly rounded: 0.1 and a halfway case.
        assert_eq!(ok("0.1"), Value::Number(0.1));
        assert_eq!(ok("9007199254740993"), Value::Number(9007199254740992.0));
    }

    #[test]
    fn depth_limit() {
        let at = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        ok(&at(100));
        bad(&at(101));
        let objs = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        ok(&objs(100));
        bad(&objs(101));
        ok(&format!("{}1{}", "[".repeat(99), "]".repeat(99)));
    }

    #[test]
    fn million_brackets_do_not_overflow() {
        bad(&"[".repeat(1_000_000));
        bad(&"{\"a\":".repeat(1_000_000));
    }

    #[test]
    fn raw_non_ascii_kept() {
        assert_eq!(
            ok("\"\\u001cé\u{2028}\""),
            Value::String("\u{1c}é\u{2028}".into())
        );
        // A raw control character (U+0000–U+001F) must be escaped.
        bad("\"\u{1c}\"");
        bad("\"\u{0}\"");
        ok("\"\u{7f}\"");
    }
}
