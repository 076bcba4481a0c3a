//! Arbitrary bytes through the decoder taskcheck runs on everything a receiver sends:
//! no panic, and a message that decodes re-encodes to one that decodes to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_taskcheck::wire;

fuzz_target!(|data: &[u8]| {
    let Ok((value, message)) = wire::decode(data, 1 << 20) else {
        return;
    };
    let text = value.to_string();
    let (again, message_again) =
        wire::decode(text.as_bytes(), usize::MAX).expect("a re-encoded message decodes");
    assert_eq!(again, value, "re-encoding changed the value");
    assert_eq!(message_again, message, "re-encoding changed the message");
});
