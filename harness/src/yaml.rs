//! Reading the YAML files people write (fixture maps, `taskcheck.yaml`) with errors that name
//! the file, line and column.

use crate::bad_input::BadInput;
use serde::de::DeserializeOwned;

/// Parses `text` (read from `file`); an error is `file:line:column: cause`.
pub fn from_str<T: DeserializeOwned>(text: &str, file: &str) -> Result<T, BadInput> {
    serde_saphyr::from_str(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line() as usize, l.column() as usize))
            .unwrap_or((1, 1));
        let cause = e.to_string();
        let cause = cause.lines().next().unwrap_or_default();
        // the parser's own "error: line L column C: " prefix repeats the location
        let cause = cause
            .strip_prefix("error: line ")
            .and_then(|rest| rest.split_once(": ").map(|(_, c)| c))
            .unwrap_or(cause);
        BadInput::at(file, line, column, cause)
    })
}

/// The line (from 1) where `key:` first opens a line, whatever its indentation; 1 if none does.
pub fn line_of_key(text: &str, key: &str) -> usize {
    let opening = format!("{key}:");
    text.lines()
        .position(|l| l.trim_start().starts_with(&opening))
        .unwrap_or(0)
        + 1
}
