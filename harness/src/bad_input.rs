//! A file a user gave that taskcheck cannot use, and where: what every reader of a user's
//! file returns (fixture maps, `taskcheck.yaml`, baselines, schemas, reports, saved cases),
//! and what the command line prints before it exits with the usage code.

use std::fmt;

/// Why a user's file cannot be used, at its line and column where one is known; shown as
/// `file:line:column: cause`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadInput {
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub cause: String,
}

impl BadInput {
    /// A cause at a line and column of `file`.
    pub fn at(file: &str, line: usize, column: usize, cause: impl Into<String>) -> BadInput {
        BadInput {
            line: Some(line),
            column: Some(column),
            ..BadInput::whole(file, cause)
        }
    }

    /// A cause at a line of `file`, its column unknown.
    pub fn on_line(file: &str, line: usize, cause: impl Into<String>) -> BadInput {
        BadInput {
            line: Some(line),
            ..BadInput::whole(file, cause)
        }
    }

    /// A cause of `file` as a whole (it cannot be read, it is not what was asked for).
    pub fn whole(file: &str, cause: impl Into<String>) -> BadInput {
        BadInput {
            file: file.to_string(),
            line: None,
            column: None,
            cause: cause.into(),
        }
    }

    /// `file` could not be read.
    pub fn unreadable(file: &str, error: &std::io::Error) -> BadInput {
        BadInput::whole(file, format!("cannot read: {error}"))
    }

    /// `file` is not the JSON it should be, at the parser's line and column.
    pub fn json(file: &str, error: &serde_json::Error, what: &str) -> BadInput {
        BadInput::at(file, error.line(), error.column(), format!("{what}{error}"))
    }
}

impl fmt::Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        for n in [self.line, self.column].into_iter().flatten() {
            write!(f, ":{n}")?;
        }
        write!(f, ": {}", self.cause)
    }
}

impl std::error::Error for BadInput {}

#[cfg(test)]
mod tests {
    use super::BadInput;

    #[test]
    fn it_shows_the_place_it_knows() {
        assert_eq!(
            BadInput::at("m.yaml", 3, 5, "bad").to_string(),
            "m.yaml:3:5: bad"
        );
        assert_eq!(
            BadInput::on_line("b.yaml", 2, "bad").to_string(),
            "b.yaml:2: bad"
        );
        assert_eq!(BadInput::whole("r.json", "bad").to_string(), "r.json: bad");
    }
}
