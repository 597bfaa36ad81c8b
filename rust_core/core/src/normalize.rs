//! `normalize_fact_text` steps 2–7 of contract v1.

use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

use crate::trace::{Observer, Quiet};

/// White_Space as contract v1 lists it (the Unicode property).
pub fn is_white_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}'..='\u{D}'
            | '\u{20}'
            | '\u{85}'
            | '\u{A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}'
    )
}

/// Edge punctuation stripped by step 7 (besides White_Space).
pub fn is_edge_punctuation(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '"'
            | '\''
            | '\u{2026}'
            | '\u{A1}'
            | '\u{BF}'
            | '\u{3001}'
            | '\u{3002}'
            | '\u{FF01}'
            | '\u{FF0C}'
            | '\u{FF0E}'
            | '\u{FF1A}'
            | '\u{FF1B}'
            | '\u{FF1F}'
    )
}

/// Step 3: typographic quotes and dashes to ASCII.
fn map_quote_dash(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{2039}'
        | '\u{203A}' | '\u{FF07}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{AB}' | '\u{BB}'
        | '\u{FF02}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => '-',
        other => other,
    }
}

/// Step 2: canonical composition.
fn nfc_step(text: &str) -> impl Iterator<Item = char> + '_ {
    text.nfc()
}

/// Step 6: each maximal run of White_Space becomes one U+0020.
fn collapse_white_space(text: &str) -> String {
    let mut collapsed = String::with_capacity(text.len());
    let mut in_run = false;
    for c in text.chars() {
        if is_white_space(c) {
            if !in_run {
                collapsed.push(' ');
                in_run = true;
            }
        } else {
            collapsed.push(c);
            in_run = false;
        }
    }
    collapsed
}

/// Step 7: strip White_Space and edge punctuation from both ends, repeatedly.
fn strip_edges(text: &str) -> &str {
    text.trim_matches(|c: char| is_white_space(c) || is_edge_punctuation(c))
}

/// Steps 2–7 of `normalize_fact_text` (the text is already known to be scalar values).
pub fn normalize(text: &str) -> String {
    normalize_observed(text, &mut Quiet)
}

/// Steps 2–7, each step's result shown to `obs` (`norm.nfc` .. `norm.edges`).
pub fn normalize_observed<O: Observer>(text: &str, obs: &mut O) -> String {
    // 2. NFC, 3. quotes/dashes, fused in one pass; the observer sees NFC's result on its own, from the
    // same step function (a bug in this line itself shows at norm.quote_dash).
    obs.note("norm.nfc", || Value::String(nfc_step(text).collect()));
    let mapped: String = nfc_step(text).map(map_quote_dash).collect();
    obs.note("norm.quote_dash", || Value::String(mapped.clone()));
    // 4. Full default lowercase; std handles final sigma as the contract describes.
    let lowered = mapped.to_lowercase();
    obs.note("norm.lowercase", || Value::String(lowered.clone()));
    // 5. NFC again.
    let nfc: String = lowered.nfc().collect();
    obs.note("norm.nfc_again", || Value::String(nfc.clone()));
    // 6. Each maximal run of White_Space -> one U+0020.
    let collapsed = collapse_white_space(&nfc);
    obs.note("norm.white_space", || Value::String(collapsed.clone()));
    // 7. Strip White_Space and edge punctuation from both ends, repeatedly.
    let stripped = strip_edges(&collapsed).to_string();
    obs.note("norm.edges", || Value::String(stripped.clone()));
    stripped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basics() {
        assert_eq!(normalize("  Hello,   World!  "), "hello, world");
        assert_eq!(normalize("\u{201C}Quoted\u{201D}"), "quoted");
        assert_eq!(normalize("a\u{2014}b"), "a-b");
        assert_eq!(normalize("...!?"), "");
        assert_eq!(normalize(""), "");
        assert_eq!(normalize("-x-"), "-x-");
        assert_eq!(normalize("#tag%"), "#tag%");
        assert_eq!(normalize("(x)"), "(x)");
        assert_eq!(normalize(". \" ' x ' \" ."), "x");
    }

    #[test]
    fn final_sigma() {
        assert_eq!(normalize("ΑΣʰ"), "αςʰ");
        assert_eq!(normalize("ΟΔΟΣ"), "οδος");
        assert_eq!(normalize("ΣΑ"), "σα");
        assert_eq!(normalize("Σ"), "σ");
        // Quote mapped before lowercasing: U+2032 and ' behave alike.
        assert_eq!(normalize("ΑΣ\u{2032}Β"), normalize("ΑΣ'Β"));
    }

    #[test]
    fn white_space_set() {
        assert_eq!(normalize("a\u{1c}b"), "a\u{1c}b");
        assert_eq!(normalize("\u{1f}a\u{1f}"), "\u{1f}a\u{1f}");
        assert_eq!(
            normalize("a\u{feff}b\u{200b}c\u{180e}"),
            "a\u{feff}b\u{200b}c\u{180e}"
        );
        assert_eq!(normalize("a\u{85}\u{a0}\u{3000}\u{2029}b"), "a b");
        assert_eq!(normalize("\u{3000}x\u{202f}"), "x");
        assert_eq!(normalize("a\t\n\u{b}\u{c}\rb"), "a b");
    }

    #[test]
    fn nfc_and_idempotent() {
        assert_eq!(normalize("e\u{301}"), "\u{e9}");
        assert_eq!(normalize("\u{212B}"), "\u{e5}");
        for s in ["ΑΣʰ", " A\u{301}  b. ", "İstanbul", "ﬃ", "\u{1E9E}"] {
            let once = normalize(s);
            assert_eq!(normalize(&once), once, "{s:?}");
        }
    }

    #[test]
    fn edge_punctuation_repeated() {
        assert_eq!(normalize("\u{bf}\u{a1}hola!\u{2026} \u{3002}"), "hola");
        assert_eq!(normalize("\u{ff01}x\u{ff1f}\u{ff0c}"), "x");
    }
}
