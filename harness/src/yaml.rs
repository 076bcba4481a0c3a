//! Reading the YAML files people write (fixture maps, `taskcheck.yaml`) with errors that name
//! the file, line and column.

use crate::bad_input::BadInput;
use serde::de::DeserializeOwned;

/// Parses `text` (read from `file`); an error is `file:line:column: cause`.
pub fn from_str<T: DeserializeOwned>(text: &str, file: &str) -> Result<T, BadInput> {
    serde_saphyr::from_str(text).map_err(|e| {
        let (line, column, cause) = located(&e, text);
        BadInput::at(file, line, column, cause)
    })
}

/// Where a parse error is, and its cause said once: the parser's own `error: line L column
/// C: ` prefix is left out (the position already says it), and an error met inside a `{` or
/// `[` left open on an earlier line points at that bracket, which is where the mistake is.
pub fn located(e: &serde_saphyr::Error, text: &str) -> (usize, usize, String) {
    let (line, column) = e
        .location()
        .map(|l| (l.line() as usize, l.column() as usize))
        .unwrap_or((1, 1));
    let said = e.to_string();
    let cause = said.lines().next().unwrap_or_default();
    let cause = cause
        .strip_prefix("error: line ")
        .and_then(|rest| rest.split_once(": ").map(|(_, c)| c))
        .unwrap_or(cause)
        .to_string();
    match unclosed_before(text, line) {
        Some((l, c, bracket)) => (
            l,
            c,
            format!("this `{bracket}` is never closed (at line {line}: {cause})"),
        ),
        None => (line, column, cause),
    }
}

/// The last flow bracket (`{` or `[`) opened before `line` and still open where that line
/// starts, with its line and column (from 1); brackets inside quotes or comments do not count.
fn unclosed_before(text: &str, line: usize) -> Option<(usize, usize, char)> {
    let mut open: Vec<(usize, usize, char)> = Vec::new();
    for (n, l) in text.lines().enumerate().take(line.saturating_sub(1)) {
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        for (c, ch) in l.chars().enumerate() {
            match (quote, ch) {
                (Some(q), _) if ch == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(ch),
                (None, '#') if previous.is_whitespace() => break,
                (None, '{' | '[') => open.push((n + 1, c + 1, ch)),
                (None, '}' | ']') => {
                    open.pop();
                }
                _ => {}
            }
            previous = ch;
        }
    }
    open.pop()
}

/// The line (from 1) where `key:` first opens a line, whatever its indentation; 1 if none does.
pub fn line_of_key(text: &str, key: &str) -> usize {
    let opening = format!("{key}:");
    text.lines()
        .position(|l| l.trim_start().starts_with(&opening))
        .unwrap_or(0)
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unclosed_brace_is_pointed_at_once() {
        let text = "steps:\n  - send: x\n    params: {name: a, arguments: {ms: 0}\n  - send: y\n";
        let e = from_str::<serde_json::Value>(text, "s.yaml").unwrap_err();
        let said = e.to_string();
        assert!(
            said.starts_with("s.yaml:3:13: this `{` is never closed (at line 4: "),
            "{said}"
        );
        assert_eq!(said.matches("line 4").count(), 1, "{said}");
        // a bracket closed on a later line, or inside quotes, is no mistake
        let fine = "a: {b: 1,\n  c: 2}\nd: \"{\"\ne: [\n";
        assert_eq!(unclosed_before(fine, 4), None);
    }
}
