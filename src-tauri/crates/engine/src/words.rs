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
pub fn describe_found(found: &str) -> String {
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

/// A whole serde message (`invalid type: null, expected struct X at line 1 column
/// 4`) in a person's words; what it does not know is kept, with Rust names replaced.
pub fn plain_message(message: &str) -> String {
    let (core, place) = match message.rfind(" at line ") {
        Some(at) => (&message[..at], &message[at..]),
        None => (message, ""),
    };
    let said = if let Some((found, expected)) = core.strip_prefix("invalid type: ").and_then(|r| r.split_once(", expected ")) {
        format!("expected {}, not {}", plain_expected(expected), describe_found(found))
    } else if let Some((found, expected)) = core.strip_prefix("invalid value: ").and_then(|r| r.split_once(", expected ")) {
        format!("expected {}, not {}", plain_expected(expected), describe_found(found))
    } else if let Some(rest) = core.strip_prefix("unknown variant `") {
        let (given, allowed) = rest.split_once("`, expected ").unwrap_or((rest.trim_end_matches('`'), ""));
        format!("'{given}' is not one of: {}", allowed.trim_start_matches("one of ").replace('`', ""))
    } else if core.contains("did not match any variant") {
        "it has a form this field does not take".to_owned()
    } else {
        core.replace('`', "'")
    };
    format!("{said}{place}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_rust_type_reaches_a_person() {
        assert_eq!(plain_message("invalid type: null, expected struct SignalNameBody at line 1 column 4"), "expected a mapping, not null at line 1 column 4");
        assert_eq!(plain_message("invalid value: integer `-1`, expected u32"), "expected a whole number (0 or more), not -1");
        assert_eq!(plain_message("invalid type: string \"x\", expected a map"), "expected a mapping, not the text \"x\"");
        assert_eq!(plain_message("unknown variant `x`, expected one of `a`, `b`"), "'x' is not one of: a, b");
        assert_eq!(plain_message("missing field `signal`"), "missing field 'signal'");
    }
}
