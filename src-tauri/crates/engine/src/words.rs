//! serde's words in a person's: what a deserializer expected or found ("u32",
//! "struct ToolsFile", "a map") said without a Rust type ("a whole number (0 or
//! more)", "a mapping"), for crew files, scripts and request bodies alike.

/// serde's name for what it expected, in a person's words: never a Rust type.
pub fn plain_expected(expected: &str) -> String {
    let expected = expected.trim();
    let words = match expected {
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number (0 or more)",
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number",
        "f32" | "f64" => "a number",
        "a string" | "string" | "a borrowed string" => "text",
        "a boolean" | "bool" => "true or false",
        "a sequence" | "sequence" => "a list",
        "a map" | "map" => "a mapping",
        "a character" | "char" => "one character",
        _ if expected.starts_with("struct ") || expected.starts_with("map ") => "a mapping",
        _ if expected.starts_with("tuple struct ") || expected.starts_with("a tuple") => "a list",
        _ if expected.starts_with("enum ") || expected.starts_with("variant ") => "one of its allowed forms",
        _ if expected.starts_with("unit ") => "empty",
        _ => return expected.replace('`', "'"),
    };
    words.to_owned()
}

/// serde's name for what it found (`string "x"`, `integer -1`, `map`), in words.
fn describe_found(found: &str) -> String {
    match found {
        "map" => "a mapping".into(),
        "sequence" => "a list".into(),
        "unit value" => "nothing".into(),
        other => other
            .replace("string ", "the text ")
            .replace("integer `", "")
            .replace("floating point `", "")
            .replace("boolean `", "")
            .replace('`', "")
            .replace("integer ", "")
            .replace("floating point ", ""),
    }
}

/// What a serde message says, read once for every caller to put in its own words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Said {
    /// `invalid type` / `invalid value`: what was wanted and what came, both plain.
    Wrong { expected: String, found: String },
    /// `unknown variant`: the value given and the allowed ones (`a, b`).
    NotOneOf { given: String, allowed: String },
    /// An untagged enum that none of its forms matched.
    NoForm,
    /// `invalid length`: the length wanted (plain) and the one found.
    Length { expected: String, found: String },
    /// Anything else, as serde said it.
    Other(String),
}

/// Reads a serde message (without its ` at line L column C` tail).
pub fn read(message: &str) -> Said {
    let wrong = |rest: &str| {
        rest.split_once(", expected ")
            .map(|(found, expected)| Said::Wrong { expected: plain_expected(expected), found: describe_found(found) })
    };
    if let Some(said) = message.strip_prefix("invalid type: ").and_then(wrong) {
        said
    } else if let Some(said) = message.strip_prefix("invalid value: ").and_then(wrong) {
        said
    } else if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (given, allowed) = rest.split_once("`, expected ").unwrap_or((rest.trim_end_matches('`'), ""));
        Said::NotOneOf { given: given.to_owned(), allowed: allowed.trim_start_matches("one of ").replace('`', "") }
    } else if message.contains("did not match any variant") {
        Said::NoForm
    } else if let Some(rest) = message.strip_prefix("invalid length ") {
        let (found, expected) = rest.split_once(", expected ").unwrap_or((rest, "another length"));
        Said::Length { expected: plain_expected(expected), found: found.to_owned() }
    } else {
        Said::Other(message.to_owned())
    }
}

/// A whole serde message (`invalid type: null, expected struct X at line 1 column
/// 4`) in a person's words; what it does not know is kept, with Rust names replaced.
pub fn plain_message(message: &str) -> String {
    let (core, place) = match message.rfind(" at line ") {
        Some(at) => (&message[..at], &message[at..]),
        None => (message, ""),
    };
    let said = match read(core) {
        Said::Wrong { expected, found } => format!("expected {expected}, not {found}"),
        Said::NotOneOf { given, allowed } => format!("'{given}' is not one of: {allowed}"),
        Said::NoForm => "it has a form this field does not take".to_owned(),
        Said::Length { .. } | Said::Other(_) => core.replace('`', "'"),
    };
    format!("{said}{place}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_rust_type_reaches_a_person() {
        assert_eq!(
            plain_message("invalid type: null, expected struct SignalNameBody at line 1 column 4"),
            "expected a mapping, not null at line 1 column 4"
        );
        assert_eq!(plain_message("invalid value: integer `-1`, expected u32"), "expected a whole number (0 or more), not -1");
        assert_eq!(plain_message("invalid type: string \"x\", expected a map"), "expected a mapping, not the text \"x\"");
        assert_eq!(plain_message("unknown variant `x`, expected one of `a`, `b`"), "'x' is not one of: a, b");
        assert_eq!(plain_message("missing field `signal`"), "missing field 'signal'");
    }
}
