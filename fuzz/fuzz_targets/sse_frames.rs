//! Arbitrary bytes, split into chunks at arbitrary points, through the SSE framing of HTTP
//! answers: the events (and the error that ends them, if any) are those of the unsplit stream.
#![no_main]

use arbitrary::Arbitrary;
use futures::StreamExt;
use libfuzzer_sys::fuzz_target;
use mcp_taskcheck::transport::sse;
use mcp_taskcheck::wire;

#[derive(Arbitrary, Debug)]
struct Input {
    bytes: Vec<u8>,
    cuts: Vec<u16>,
    max: u8,
}

/// Everything a stream yields, as comparable text, up to and with the first error.
fn frames(chunks: Vec<bytes::Bytes>, max: usize) -> Vec<String> {
    let stream = futures::stream::iter(chunks.into_iter().map(Ok));
    let mut out = Vec::new();
    futures::executor::block_on(async {
        let mut events = sse::events(stream, max);
        while let Some(event) = events.next().await {
            match event {
                Ok(e) => {
                    // the message taskcheck would take from it, or the decode error
                    let decoded = wire::decode(e.data.as_bytes(), max).map(|(v, _)| v);
                    out.push(format!(
                        "{:?} {:?} {:?} {:?}",
                        e.event, e.id, e.retry, decoded
                    ));
                }
                Err(e) => {
                    out.push(format!("{e:?}"));
                    break;
                }
            }
        }
    });
    out
}

fuzz_target!(|input: Input| {
    let whole = bytes::Bytes::from(input.bytes);
    let max = usize::from(input.max) * 16 + 1;
    let mut cuts: Vec<usize> = input
        .cuts
        .iter()
        .map(|c| usize::from(*c) % (whole.len() + 1))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut chunks = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain(std::iter::once(whole.len())) {
        chunks.push(whole.slice(start..cut));
        start = cut;
    }
    assert_eq!(frames(chunks, max), frames(vec![whole], max));
});
