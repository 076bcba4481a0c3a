//! Server-Sent Events framing of Streamable HTTP answers: byte chunks in, events out, with
//! every event bounded in size. Pure, so it is fuzzed apart from any socket.

use crate::wire::DecodeError;
use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::{Stream, StreamExt};

/// Why a stream of events ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// One event's data grew past the limit.
    TooLarge(String),
    /// The byte stream itself broke (connection reset, ...).
    Transport(String),
    /// The bytes are not an event stream (invalid UTF-8, ...).
    Broken(String),
}

/// The events of a byte stream; an event of more than `max` bytes ends it with [`SseError::TooLarge`].
pub fn events<S>(bytes: S, max: usize) -> impl Stream<Item = Result<Event, SseError>> + Unpin
where
    S: Stream<Item = Result<bytes::Bytes, String>> + Unpin,
{
    bounded(bytes, max).eventsource().map(|event| {
        event.map_err(|e| match e {
            EventStreamError::Transport(Limit::Exceeded(e)) => SseError::TooLarge(e),
            EventStreamError::Transport(Limit::Broken(e)) => SseError::Transport(e),
            other => SseError::Broken(other.to_string()),
        })
    })
}

/// A failure of the bounded byte stream.
#[derive(Debug)]
enum Limit {
    Exceeded(String),
    Broken(String),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::Exceeded(e) | Limit::Broken(e) => f.write_str(e),
        }
    }
}

/// Passes bytes through until a single event (between blank lines) exceeds `max`, then
/// fails: the bytes before the overflow still arrive, so where chunks split changes nothing.
fn bounded<S>(bytes: S, max: usize) -> impl Stream<Item = Result<bytes::Bytes, Limit>> + Unpin
where
    S: Stream<Item = Result<bytes::Bytes, String>> + Unpin,
{
    let mut in_event = 0usize;
    let mut line_empty = true;
    let mut after_cr = false;
    let mut over = false;
    bytes.flat_map(move |chunk| {
        let mut out = Vec::with_capacity(2);
        match chunk {
            _ if over => {}
            Err(e) => {
                over = true;
                out.push(Err(Limit::Broken(e)));
            }
            Ok(chunk) => {
                let overflow = chunk.iter().position(|b| {
                    // CR, LF and CRLF each end a line; a line that ends at once ends the event
                    let ends_line = *b == b'\r' || (*b == b'\n' && !after_cr);
                    after_cr = *b == b'\r';
                    if *b == b'\r' || *b == b'\n' {
                        if ends_line {
                            if line_empty {
                                in_event = 0;
                            }
                            line_empty = true;
                        }
                        return false;
                    }
                    line_empty = false;
                    in_event += 1;
                    in_event > max
                });
                match overflow {
                    None => out.push(Ok(chunk)),
                    Some(at) => {
                        over = true;
                        out.push(Ok(chunk.slice(..at)));
                        out.push(Err(Limit::Exceeded(
                            DecodeError::TooLong {
                                len: in_event,
                                limit: max,
                            }
                            .to_string(),
                        )));
                    }
                }
            }
        }
        futures::stream::iter(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    fn run(chunks: &[&str], max: usize) -> Vec<Result<String, SseError>> {
        let stream = futures::stream::iter(
            chunks
                .iter()
                .map(|c| Ok(bytes::Bytes::copy_from_slice(c.as_bytes())))
                .collect::<Vec<_>>(),
        );
        block_on(events(stream, max).map(|e| e.map(|e| e.data)).collect())
    }

    #[test]
    fn events_split_anywhere_are_the_same() {
        let whole = run(&["id: 1\ndata: {\"a\":1}\n\ndata: x\r\n\r\n"], 100);
        assert_eq!(whole, vec![Ok("{\"a\":1}".into()), Ok("x".into())]);
        assert_eq!(
            run(
                &["id: 1\nda", "ta: {\"a\":1}\n", "\ndata: x\r", "\n\r\n"],
                100
            ),
            whole
        );
    }

    #[test]
    fn an_oversized_event_ends_the_stream_but_many_small_ones_do_not() {
        let big = format!("data: {}\n\n", "x".repeat(50));
        assert!(matches!(
            run(&[&big], 20).last(),
            Some(Err(SseError::TooLarge(_)))
        ));
        let many = "data: 1234\n\n".repeat(100);
        assert_eq!(run(&[&many], 20).len(), 100);
        // a final lone CR waits for a possible LF, so the stream ends with an LF-ended event
        let cr_only = "data: 1234\r\r".repeat(100) + "data: end\n\n";
        assert_eq!(run(&[&cr_only], 20).len(), 101);
    }
}
