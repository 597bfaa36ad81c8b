//! No library: the fixture test is `tests/fixtures.rs`.
