//! What a signal name may look like, and the two transformations matching uses:
//! Unicode case folding ([`fold`]) and normalization ([`normalize`]: NFC, case
//! folding, every run of whitespace, `_` or `-` turned into one space, trimmed).

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// True when `name` is a bracket signal: `[` + at least one character + `]`, the
/// characters being letters of any script (with their combining marks), digits,
/// `_`, `-` and spaces.
pub fn is_bracket_name(name: &str) -> bool {
    let Some(inner) = name.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')) else {
        return false;
    };
    !inner.is_empty() && inner.chars().all(is_name_char)
}

/// True when `name` may name a pattern signal: a plain identifier such as
/// `review-ready` (letters, digits, `_`, `-`; no brackets, no spaces).
pub fn is_pattern_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || is_combining_mark(c) || c == '_' || c == '-')
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c) || c == '_' || c == '-' || c == ' '
}

/// The inside of a bracket name (`[END]` → `END`); the name itself otherwise.
pub fn inner(name: &str) -> &str {
    name.strip_prefix('[').and_then(|rest| rest.strip_suffix(']')).unwrap_or(name)
}

/// Unicode default case folding (`ẾND` → `ếnd`, `STRASSE`/`Straße` → `strasse`).
/// ASCII text takes a fast path.
pub fn fold(text: &str) -> String {
    if text.is_ascii() {
        text.to_ascii_lowercase()
    } else {
        caseless::default_case_fold_str(text)
    }
}

/// Normalizes signal text for the third matching level: NFC, case-folded, each run
/// of whitespace, `_` or `-` becomes one space, trimmed. `_END_` → `end`,
/// ` Kết  Thúc ` → `kết thúc`.
pub fn normalize(text: &str) -> String {
    normalize_bounded(text, usize::MAX).unwrap_or_default()
}

/// [`normalize`], giving up (None) as soon as the result would be longer than
/// `max_len` bytes: a bracket span that cannot equal any signal is not worth finishing.
pub fn normalize_bounded(text: &str, max_len: usize) -> Option<String> {
    let mut out = String::with_capacity(text.len().min(max_len.saturating_add(4)));
    let mut pending_space = false;
    let mut push = |c: char, out: &mut String| -> bool {
        if is_separator(c) {
            pending_space = !out.is_empty();
            return true;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(c);
        out.len() <= max_len
    };
    if text.is_ascii() {
        for c in text.chars() {
            if !push(c.to_ascii_lowercase(), &mut out) {
                return None;
            }
        }
    } else {
        let composed: String = text.nfc().collect();
        for c in fold(&composed).nfc() {
            if !push(c, &mut out) {
                return None;
            }
        }
    }
    Some(out)
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == '_' || c == '-'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bracket_names_follow_design_section_3() {
        for ok in ["[END]", "[A]", "[END_EXAM]", "[KẾT_THÚC]", "[CÂU_HỎI]", "[ROUTE EXECUTOR]", "[a-b]", "[_]"] {
            assert!(is_bracket_name(ok), "{ok} should be valid");
        }
        for bad in ["[]", "END", "[END", "END]", "[A.B]", "[[A]]", "[A]]", "", "[", "]"] {
            assert!(!is_bracket_name(bad), "{bad} should be invalid");
        }
    }

    #[test]
    fn decomposed_vietnamese_is_a_valid_name() {
        let decomposed: String = "[KẾT_THÚC]".nfd().collect();
        assert_ne!(decomposed, "[KẾT_THÚC]");
        assert!(is_bracket_name(&decomposed));
    }

    #[test]
    fn pattern_names_are_plain_identifiers() {
        assert!(is_pattern_name("review-ready"));
        assert!(is_pattern_name("review_passed2"));
        assert!(!is_pattern_name("[review]"));
        assert!(!is_pattern_name("review ready"));
        assert!(!is_pattern_name(""));
    }

    #[test]
    fn normalization_collapses_separators_and_folds() {
        assert_eq!(normalize("_END_"), "end");
        assert_eq!(normalize(" Kết  Thúc "), normalize("KẾT_THÚC"));
        assert_eq!(normalize(" route   executor "), "route executor");
        assert_eq!(normalize("ROUTE_EXECUTOR"), "route executor");
        assert_eq!(normalize("a -_ b"), "a b");
        assert_eq!(normalize("Straße"), "strasse");
    }

    #[test]
    fn normalization_composes_decomposed_text() {
        let decomposed: String = "Kết Thúc".nfd().collect();
        assert_eq!(normalize(&decomposed), normalize("KẾT_THÚC"));
    }

    #[test]
    fn bounded_normalization_gives_up_on_long_text() {
        assert_eq!(normalize_bounded("abcdef", 3), None);
        assert_eq!(normalize_bounded("  a   b  ", 3).as_deref(), Some("a b"));
    }

    #[test]
    fn folding_is_unicode_not_ascii_only() {
        assert_eq!(fold("ẾND"), "ếnd");
        assert_eq!(fold("ΣΑΣ"), fold("σας"));
    }
}
