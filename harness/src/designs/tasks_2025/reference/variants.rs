//! Legal variants of the 2025-11-25 reference receiver (`reference --variant NAME`):
//! behaviours the spec allows that a correct receiver may have, each of which must pass the
//! whole suite with no failure and no warning (a test asserts it).

use crate::reference::variants::VariantInfo;

/// One legal way to differ from the reference's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    OffsetTimestamps,
    MillisecondReads,
    LongPollInterval,
    CancelledDeleted,
    LowTtlCap,
    OnePerPage,
    UnlimitedTtlByDefault,
    StatusMessageAlways,
    ExtraMeta,
    OwnTools,
    InputShownFirst,
    CallsOnly,
    RenamedTools,
    NoTasks,
    FewWorkers,
}

/// Every variant.
pub const VARIANTS: &[VariantInfo<Variant>] = &[
    VariantInfo {
        variant: Variant::OffsetTimestamps,
        name: "offset-timestamps",
        description: "the CreateTaskResult writes timestamps with `Z`, every later report the same instants with `+00:00`",
    },
    VariantInfo {
        variant: Variant::MillisecondReads,
        name: "millisecond-reads",
        description: "the CreateTaskResult has nanosecond timestamps, every later report the same instants cut to milliseconds (a store that keeps less precision)",
    },
    VariantInfo {
        variant: Variant::LongPollInterval,
        name: "long-poll-interval",
        description: "suggests a pollInterval of 1500 ms",
    },
    VariantInfo {
        variant: Variant::CancelledDeleted,
        name: "cancelled-deleted",
        description: "deletes a cancelled task as soon as tasks/cancel has answered (tasks.cancel.may-delete)",
    },
    VariantInfo {
        variant: Variant::LowTtlCap,
        name: "low-ttl-cap",
        description: "grants at most 4000 ms of ttl, and deletes tasks once it elapses",
    },
    VariantInfo {
        variant: Variant::OnePerPage,
        name: "one-per-page",
        description: "tasks/list pages hold one task each",
    },
    VariantInfo {
        variant: Variant::UnlimitedTtlByDefault,
        name: "unlimited-ttl-by-default",
        description: "a task whose request asks for no ttl gets `ttl: null` (unlimited)",
    },
    VariantInfo {
        variant: Variant::StatusMessageAlways,
        name: "status-message-always",
        description: "every task carries a statusMessage, whatever its status",
    },
    VariantInfo {
        variant: Variant::ExtraMeta,
        name: "extra-meta",
        description: "every result carries an extra `_meta` key of its own, every error a `data` member",
    },
    VariantInfo {
        variant: Variant::OwnTools,
        name: "own-tools",
        description: "lists its own tools instead of the fixture contract's: `generate_report` (taskSupport required, works 1500 ms whatever it is given), `wait_for_sync` and `format_quarter` (forbidden, neither saying it echoes) and `purge_reports` (destructiveHint)",
    },
    VariantInfo {
        variant: Variant::InputShownFirst,
        name: "input-shown-first",
        description: "a task waiting for input sends its elicitation only once a tasks/get has shown it input_required or a tasks/result asks for it (2 s at most)",
    },
    VariantInfo {
        variant: Variant::CallsOnly,
        name: "calls-only",
        description: "declares tasks for tools/call only, no `tasks.list` or `tasks.cancel`, and answers both methods -32601 (Method not found)",
    },
    VariantInfo {
        variant: Variant::RenamedTools,
        name: "renamed-tools",
        description: "lists every fixture tool under a name of its own (`sleep_optional_tool`), taking its arguments under keys of its own (`wait_for`) and answering in words of its own; played through `reference::renamed::FIXTURES_MAP` it gives the fixture tools' verdicts",
    },
    VariantInfo {
        variant: Variant::NoTasks,
        name: "no-tasks",
        description: "has no Tasks: declares no `tasks` capability, serves every tools/call as a plain one whatever its `task` and the tool's taskSupport (which it still lists), and answers the tasks methods -32601 (Method not found)",
    },
    VariantInfo {
        variant: Variant::FewWorkers,
        name: "few-workers",
        description: "works on at most 2 tasks at once across all its sessions, as a server with a small worker pool: a task waiting for a worker reads `working`, and cancelling it frees its place",
    },
];
