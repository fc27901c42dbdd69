//! Text for a terminal: what the CLI prints can hold words from crew files, model
//! replies and servers, and a control character among them (`ESC[2J` clears the
//! screen, others retitle the window or move the cursor) must not act on the
//! person's terminal. [`safe`] writes each as a visible escape (`\u{1b}`); line
//! breaks and tabs stay. [`say!`] and [`tell!`] are `println!` and `eprintln!`
//! through it, and every command prints with them.

use std::borrow::Cow;

/// `text` with every control character but a line break or a tab written as an
/// escape, so printing it cannot drive the terminal.
pub fn safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn is_unsafe(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `println!`, with control characters escaped.
macro_rules! say {
    ($($arg:tt)*) => { $crate::cli::terminal::say_line(&format!($($arg)*)) };
}

/// Prints one line on stdout, control characters escaped; a reader gone (`| head`)
/// is no failure of ours, so the rest is not printed and nothing panics.
pub(crate) fn say_line(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{}", safe(text));
}

/// `eprintln!`, with control characters escaped.
macro_rules! tell {
    ($($arg:tt)*) => { eprintln!("{}", $crate::cli::terminal::safe(&format!($($arg)*))) };
}

pub(crate) use {say, tell};

#[cfg(test)]
mod tests {
    use super::safe;

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        assert_eq!(safe("plain\ttext\nnext"), "plain\ttext\nnext");
        assert_eq!(safe("\u{1b}[2JGone"), "\\u{1b}[2JGone");
        assert_eq!(safe("bell\u{7}\r and C1 \u{9b}"), "bell\\u{7}\\r and C1 \\u{9b}");
    }
}
