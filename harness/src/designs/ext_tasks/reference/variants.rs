//! Legal variants of the extension's reference receiver (`reference --profile ext-tasks
//! --variant NAME`): behaviours the extension allows, each of which must pass the whole ext
//! suite with no failure and no warning (a test asserts it).

use crate::reference::variants::VariantInfo;
use Variant::*;

/// One legal way the extension's reference may differ from its defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    LazyCancel,
    CancelIgnored,
    LazyUpdate,
    UnlimitedTtl,
    ShortTtl,
    NoPollInterval,
    StatusMessageAlways,
    ExtraMeta,
    NoListen,
    NoTaskNotifications,
    OwnInputKeys,
    WithoutRequiredSleep,
    SlowStart,
    ImmediateShortWork,
    RenamedTools,
    NoTasks,
    StrictNames,
}

/// Every variant of the extension's reference receiver.
pub const VARIANTS: &[VariantInfo<Variant>] = &[
    VariantInfo {
        variant: LazyCancel,
        name: "lazy-cancel",
        description: "tasks/cancel acknowledges at once; the task turns cancelled 300 ms later (eventually consistent)",
    },
    VariantInfo {
        variant: CancelIgnored,
        name: "cancel-ignored",
        description: "tasks/cancel acknowledges and the work goes on to its own end (cancellation is cooperative)",
    },
    VariantInfo {
        variant: LazyUpdate,
        name: "lazy-update",
        description: "tasks/update acknowledges at once; the answers reach the task 200 ms later",
    },
    VariantInfo {
        variant: UnlimitedTtl,
        name: "unlimited-ttl",
        description: "every task has `ttlMs: null`",
    },
    VariantInfo {
        variant: ShortTtl,
        name: "short-ttl",
        description: "every task has `ttlMs: 100` and is discarded (not found, -32602) once 100 ms have passed since it was created, whatever its status, as the text allows",
    },
    VariantInfo {
        variant: NoPollInterval,
        name: "no-poll-interval",
        description: "no Task carries `pollIntervalMs`",
    },
    VariantInfo {
        variant: StatusMessageAlways,
        name: "status-message-always",
        description: "every Task carries a statusMessage, whatever its status",
    },
    VariantInfo {
        variant: ExtraMeta,
        name: "extra-meta",
        description: "every result carries an extra `_meta` key of its own, every error (a task's too) a `data` member",
    },
    VariantInfo {
        variant: NoListen,
        name: "no-listen",
        description: "serves no subscriptions/listen: -32601 (status notifications are a MAY)",
    },
    VariantInfo {
        variant: NoTaskNotifications,
        name: "no-task-notifications",
        description: "acknowledges a subscriptions/listen for tasks without agreeing to any (no `taskIds`), and sends none",
    },
    VariantInfo {
        variant: OwnInputKeys,
        name: "own-input-keys",
        description: "input requests are keyed `<taskId>:<hex>` (confirm_first's round trip: `<hex>`, named in its requestState), keys the server mints itself",
    },
    VariantInfo {
        variant: WithoutRequiredSleep,
        name: "without-required-sleep",
        description: "has no `required_sleep` tool: tools/list leaves it out and a call of it is an unknown tool (-32602), as a server without that fixture",
    },
    VariantInfo {
        variant: SlowStart,
        name: "slow-start",
        description: "answers nothing until 3.5 s after it started (a server loading), then as the reference",
    },
    VariantInfo {
        variant: ImmediateShortWork,
        name: "immediate-short-work",
        description: "answers a call that may run either way and asks for under 100 ms of work with its result at once, no task (a requestor must handle both shapes)",
    },
    VariantInfo {
        variant: RenamedTools,
        name: "renamed-tools",
        description: "lists every fixture tool under a name of its own (`sleep_optional_tool`), taking its arguments under keys of its own (`wait_for`) and answering in words of its own; played through `reference::renamed::FIXTURES_MAP` it gives the fixture tools' verdicts",
    },
    VariantInfo {
        variant: NoTasks,
        name: "no-tasks",
        description: "has no Tasks: server/discover leaves the extension out, tools/list leaves out every tool that runs only as a task, every call is answered at once, and tasks/get, tasks/update and tasks/cancel are answered -32601 (Method not found), as a 2026-07-28 server written without the extension",
    },
    VariantInfo {
        variant: StrictNames,
        name: "strict-names",
        description: "over HTTP, refuses with 400 and -32020 (Header Mismatch) a tools/call, tasks/get, tasks/update or tasks/cancel whose Mcp-Name is missing, or whose body value is no string (a server that mirrors string names only)",
    },
];
