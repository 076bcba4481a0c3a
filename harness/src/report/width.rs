//! Fitting printed text to its reader's width: the terminal's when stdout is one, else
//! [`PRINT_WIDTH`]. A line too long is broken between words, its continuation indented under it;
//! a word longer than the width (a link) is never broken, so it stays clickable.

use std::io::IsTerminal;

/// The width of printed text when stdout is no terminal (a CI log, a file).
pub const PRINT_WIDTH: usize = 100;

/// Columns to print in: `COLUMNS` when set (as a script that parses the text sets it wide),
/// else the terminal's, or [`PRINT_WIDTH`] when stdout is not a terminal.
pub fn stdout_width() -> usize {
    let asked = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok());
    if let Some(cols) = asked.filter(|c| *c >= 40) {
        return cols;
    }
    let term = std::io::stdout().is_terminal();
    match console::Term::stdout().size_checked() {
        Some((_, cols)) if term && cols >= 40 => cols as usize,
        _ => PRINT_WIDTH,
    }
}

/// Every line of `text` fitted to `width` columns: a long line is broken between words, each
/// continuation four columns deeper than the line's own indentation.
pub fn fit(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        if textwrap::core::display_width(body) <= width {
            out.push_str(line);
            continue;
        }
        let words = body.trim_start_matches(' ');
        let indent = &body[..body.len() - words.len()];
        // under the last column, unless its longest word would not fit there
        let longest = words.split(' ').map(textwrap::core::display_width).max();
        let column = hang(body, width).filter(|h| h + longest.unwrap_or(0) <= width);
        let deeper = " ".repeat(column.unwrap_or((indent.len() + 4).min(width / 3)));
        let options = textwrap::Options::new(width)
            .initial_indent(indent)
            .subsequent_indent(&deeper)
            .break_words(false)
            .word_splitter(textwrap::WordSplitter::NoHyphenation)
            .word_separator(textwrap::WordSeparator::AsciiSpace);
        out.push_str(&textwrap::fill(words, options));
        out.push_str(newline);
    }
    out
}

/// The column where a line's last column starts (after a run of two spaces), if it starts in
/// the first half of `width`: a long title or summary continues under itself.
fn hang(line: &str, width: usize) -> Option<usize> {
    let body = line.trim_start_matches(' ');
    let indent = line.len() - body.len();
    body.match_indices("  ")
        .filter_map(|(i, _)| {
            let after = &body[i..];
            let column = indent + i + after.len() - after.trim_start_matches(' ').len();
            (!after.trim_start_matches(' ').is_empty()).then_some(column)
        })
        .map(|column| textwrap::core::display_width(&line[..column]))
        .take_while(|&col| col <= width / 2)
        .last()
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn a_long_line_breaks_between_words_under_its_indentation() {
        let long = format!("    {}", "word ".repeat(40));
        let fitted = fit(&long, 60);
        let lines: Vec<&str> = fitted.lines().collect();
        assert!(lines.len() > 1, "{fitted}");
        assert!(lines.iter().all(|l| l.chars().count() <= 60), "{fitted}");
        assert!(
            lines[1..].iter().all(|l| l.starts_with("        word")),
            "{fitted}"
        );
    }

    #[test]
    fn a_columned_line_continues_under_its_last_column() {
        let row = format!("  cancel-working      {}", "title ".repeat(20));
        let fitted = fit(&row, 60);
        assert!(
            fitted
                .lines()
                .skip(1)
                .all(|l| l.starts_with(&format!("{}title", " ".repeat(22)))),
            "{fitted}"
        );
    }

    #[test]
    fn short_lines_and_long_words_are_kept_whole() {
        let link = format!("  https://example.com/{}", "a".repeat(120));
        assert_eq!(fit("short\n", 60), "short\n");
        assert_eq!(fit(&format!("{link}\n"), 60).trim_end(), link);
    }
}
