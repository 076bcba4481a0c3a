//! Process exit codes, distinct per kind of outcome.

/// Every check passed (or only warned, unless `--fail-on should`).
pub const CONFORMANT: i32 = 0;
/// A MUST failed (or a SHOULD, with `--fail-on should`).
pub const NONCONFORMANT: i32 = 1;
/// Bad command line or broken scenario file.
pub const USAGE: i32 = 2;
/// Harness or transport error: the receiver could not be started, died, or never answered.
pub const HARNESS: i32 = 3;
/// No failure, but fewer rules judged than `--require-judged` asks (a receiver whose tools let
/// little be judged).
pub const TOO_LITTLE_JUDGED: i32 = 4;
