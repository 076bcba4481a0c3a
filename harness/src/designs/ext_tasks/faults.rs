//! Faults of the extension's reference receiver: each breaks one rule, proving its check can
//! fail.

use super::variants::Variant;
use crate::reference::faults as table;
use Fault::*;

/// One deliberate defect of the extension's reference receiver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    Undeclared,
    AdvertisesLegacy,
    DiscoverWithoutVersion,
    TaskWithoutCapability,
    LegacyHonoured,
    TaskParamHonoured,
    TasksUnder2025,
    MissingCapabilityWrongCode,
    ListResultTypeTask,
    OmitsResultType,
    CreateResultTypeComplete,
    GetResultTypeTask,
    UpdateResultTypeMissing,
    CancelResultTypeMissing,
    TtlNotTtlMs,
    GetOtherTaskId,
    CancelledReopens,
    LazyCreation,
    DiscardsFinished,
    MrtrInsideTask,
    OneInputRequest,
    ElicitsUndeclared,
    CompletedWithoutResult,
    ResultLosesIsError,
    FailedWithoutError,
    ErrorDiffers,
    PlainErrorResult,
    ToolErrorFails,
    FailedWithoutMessage,
    GetUnknownWrongCode,
    GetInvalidIdUnserved,
    UpdateReturnsTask,
    UpdateIgnored,
    UpdateRejectsUnknownKey,
    PartialCompletes,
    ReusesInputKey,
    UpdateUnknownAcks,
    CancelReturnsTask,
    CancelUnknownAcks,
    ServesTasksResult,
    TasksMethodsUndeclared,
    AcceptsMissingMeta,
    NoCacheFields,
    SequentialTaskId,
    ListenWithoutCapability,
    NotificationWithoutPayload,
    ProgressOnStream,
    NotifyBeforeAck,
    AcceptsMismatchedHeaders,
    UnboundTasks,
}

/// A fault of the extension's reference receiver, as its table describes it.
pub type FaultInfo = table::FaultInfo<Fault>;
/// The faults and variants the extension's reference runs with.
pub type Faults = table::Faults<Fault, Variant>;

/// Faults that show only over Streamable HTTP.
pub const HTTP_ONLY: [Fault; 2] = [AcceptsMismatchedHeaders, UnboundTasks];

/// Every fault of the extension's reference receiver.
#[rustfmt::skip]
pub const FAULTS: &[FaultInfo] = &[
    FaultInfo { fault: Undeclared, name: "undeclared-extension", rules: &["ext-tasks.capability.advertise"], description: "server/discover leaves the extension out, but tools/call still creates tasks", may_also: &[], follows: &[] },
    FaultInfo { fault: AdvertisesLegacy, name: "advertises-legacy-tasks", rules: &["ext-tasks.capability.no-legacy-advertise"], description: "server/discover also advertises the 2025-11-25 `tasks` capability", may_also: &[], follows: &[] },
    FaultInfo { fault: DiscoverWithoutVersion, name: "discover-without-version", rules: &["ext-tasks.core.discover"], description: "server/discover lists only 2025-11-25 among supportedVersions", may_also: &[], follows: &[] },
    FaultInfo { fault: TaskWithoutCapability, name: "task-without-capability", rules: &["ext-tasks.capability.no-task-without-declaration"], description: "creates tasks for requests that do not declare the extension", may_also: &[], follows: &["ext-tasks.capability.legacy-is-non-declaring", "ext-tasks.capability.task-param-ignored", "ext-tasks.capability.missing-capability-error"] },
    FaultInfo { fault: LegacyHonoured, name: "legacy-capability-honoured", rules: &["ext-tasks.capability.legacy-is-non-declaring"], description: "takes the 2025-11-25 `tasks` client capability as declaring the extension", may_also: &[], follows: &[] },
    FaultInfo { fault: TaskParamHonoured, name: "task-param-honoured", rules: &["ext-tasks.capability.task-param-ignored"], description: "creates a task when tools/call carries the 2025-11-25 `task` parameter", may_also: &[], follows: &[] },
    FaultInfo { fault: TasksUnder2025, name: "tasks-under-2025", rules: &["ext-tasks.capability.not-under-2025"], description: "a request under protocol 2025-11-25 that declares the extension is served as a 2026-07-28 one, and gets a task (as rmcp 3.11.0 does)", may_also: &[], follows: &[] },
    FaultInfo { fault: MissingCapabilityWrongCode, name: "missing-capability-wrong-code", rules: &["ext-tasks.capability.missing-capability-error"], description: "a tool that needs a task, called without the extension, gets -32602 instead of -32021", may_also: &[], follows: &[] },
    FaultInfo { fault: ListResultTypeTask, name: "tools-list-result-type-task", rules: &["ext-tasks.result-type.task-only-on-create"], description: "tools/list answers with `resultType` \"task\"", may_also: &[], follows: &[] },
    FaultInfo { fault: OmitsResultType, name: "tools-list-without-result-type", rules: &["ext-tasks.result-type.required"], description: "tools/list answers without `resultType`", may_also: &[], follows: &[] },
    FaultInfo { fault: CreateResultTypeComplete, name: "create-result-type-complete", rules: &["ext-tasks.result-type.task-on-create"], description: "a CreateTaskResult says `resultType` \"complete\"", may_also: &[], follows: &[] },
    FaultInfo { fault: GetResultTypeTask, name: "get-result-type-task", rules: &["ext-tasks.get.result-type-complete"], description: "tasks/get answers with `resultType` \"task\"", may_also: &[], follows: &[] },
    FaultInfo { fault: UpdateResultTypeMissing, name: "update-without-result-type", rules: &["ext-tasks.update.result-type-complete"], description: "tasks/update acknowledges with `{}`, no `resultType`", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelResultTypeMissing, name: "cancel-without-result-type", rules: &["ext-tasks.cancel.result-type-complete"], description: "tasks/cancel acknowledges with `{}`, no `resultType`", may_also: &[], follows: &[] },
    FaultInfo { fault: TtlNotTtlMs, name: "ttl-not-ttl-ms", rules: &["ext-tasks.task.fields"], description: "Tasks carry the 2025-11-25 `ttl` instead of `ttlMs`", may_also: &[], follows: &[] },
    FaultInfo { fault: GetOtherTaskId, name: "get-answers-other-id", rules: &["ext-tasks.task.same-id"], description: "tasks/get answers with a `taskId` other than the one asked for", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelledReopens, name: "cancelled-reopens", rules: &["ext-tasks.lifecycle.transitions"], description: "a cancelled task reads `working` again after it was read cancelled", may_also: &[], follows: &[] },
    FaultInfo { fault: LazyCreation, name: "lazy-creation", rules: &["ext-tasks.create.durable"], description: "a task becomes visible to tasks/get only 300 ms after its CreateTaskResult", may_also: &[], follows: &[] },
    FaultInfo { fault: DiscardsFinished, name: "discards-finished", rules: &["ext-tasks.ttl.no-early-expiry"], description: "a task is discarded as soon as a tasks/get has shown it finished, long before its ttlMs", may_also: &[], follows: &[] },
    FaultInfo { fault: MrtrInsideTask, name: "mrtr-inside-task", rules: &["ext-tasks.create.mrtr-synchronous"], description: "confirm_first creates its task at once and asks its confirmation through the task's `inputRequests`, not over an InputRequiredResult first", may_also: &[], follows: &[] },
    FaultInfo { fault: OneInputRequest, name: "one-input-request", rules: &["ext-tasks.get.input-required-requests"], description: "`inputRequests` lists only the first of the task's outstanding requests", may_also: &[], follows: &[] },
    FaultInfo { fault: ElicitsUndeclared, name: "elicits-undeclared", rules: &["ext-tasks.input.declared-only"], description: "a tool that asks an elicitation creates its task and shows the elicitation in `inputRequests` to a client that did not declare `elicitation`", may_also: &[], follows: &[] },
    FaultInfo { fault: CompletedWithoutResult, name: "completed-without-result", rules: &["ext-tasks.get.completed-result"], description: "a completed task's tasks/get carries no `result`", may_also: &[], follows: &["ext-tasks.get.result-exact"] },
    FaultInfo { fault: ResultLosesIsError, name: "result-loses-is-error", rules: &["ext-tasks.get.result-exact"], description: "a completed task's `result` drops the tool result's `isError: true`", may_also: &[], follows: &[] },
    FaultInfo { fault: FailedWithoutError, name: "failed-without-error", rules: &["ext-tasks.get.failed-error"], description: "a failed task's tasks/get carries no `error`", may_also: &[], follows: &["ext-tasks.get.error-exact"] },
    FaultInfo { fault: ErrorDiffers, name: "error-differs", rules: &["ext-tasks.get.error-exact"], description: "a failed task's `error` message differs from the plain call's", may_also: &[], follows: &[] },
    FaultInfo { fault: PlainErrorResult, name: "plain-error-result", rules: &["ext-tasks.get.error-exact"], description: "protocol_error called without the extension answers an `isError` CallToolResult, while its task fails with the JSON-RPC error: the task's outcome is not what the request returns without one", may_also: &[], follows: &[] },
    FaultInfo { fault: ToolErrorFails, name: "tool-error-fails", rules: &["ext-tasks.failed.only-jsonrpc"], description: "a tool result with `isError: true` makes the task `failed`", may_also: &[], follows: &[] },
    FaultInfo { fault: FailedWithoutMessage, name: "failed-without-message", rules: &["ext-tasks.failed.status-message"], description: "a failed task has no `statusMessage`", may_also: &[], follows: &[] },
    FaultInfo { fault: GetUnknownWrongCode, name: "get-unknown-wrong-code", rules: &["ext-tasks.get.unknown-task"], description: "tasks/get of an unknown task answers -32603", may_also: &[], follows: &[] },
    FaultInfo { fault: GetInvalidIdUnserved, name: "get-invalid-id-unserved", rules: &["ext-tasks.get.unknown-task"], description: "tasks/get whose `taskId` is not a string, or absent, answers -32601 (as rmcp 3.11.0 does); an unknown string still gets -32602", may_also: &[], follows: &[] },
    FaultInfo { fault: UpdateReturnsTask, name: "update-returns-task", rules: &["ext-tasks.update.ack-empty"], description: "tasks/update answers with the task instead of an empty acknowledgement", may_also: &[], follows: &[] },
    FaultInfo { fault: UpdateIgnored, name: "update-ignored", rules: &["ext-tasks.update.input-accepted"], description: "tasks/update acknowledges but never applies the responses", may_also: &[], follows: &[] },
    FaultInfo { fault: UpdateRejectsUnknownKey, name: "update-rejects-unknown-key", rules: &["ext-tasks.update.unknown-keys-ignored"], description: "tasks/update with a key that is not outstanding answers -32602", may_also: &[], follows: &[] },
    FaultInfo { fault: PartialCompletes, name: "partial-completes", rules: &["ext-tasks.update.partial-keeps-input-required"], description: "a tasks/update answering some outstanding requests moves the task on without the rest", may_also: &[], follows: &[] },
    FaultInfo { fault: ReusesInputKey, name: "reuses-input-key", rules: &["ext-tasks.update.keys-unique"], description: "a task's later input requests reuse the key of its first, already answered one", may_also: &[], follows: &[] },
    FaultInfo { fault: UpdateUnknownAcks, name: "update-unknown-acks", rules: &["ext-tasks.update.unknown-task"], description: "tasks/update of an unknown task acknowledges", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelReturnsTask, name: "cancel-returns-task", rules: &["ext-tasks.cancel.ack-empty"], description: "tasks/cancel answers with the task (the 2025-11-25 shape) instead of an empty acknowledgement", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelUnknownAcks, name: "cancel-unknown-acks", rules: &["ext-tasks.cancel.unknown-task"], description: "tasks/cancel of an unknown task acknowledges", may_also: &[], follows: &[] },
    FaultInfo { fault: ServesTasksResult, name: "serves-tasks-result", rules: &["ext-tasks.errors.tasks-result-removed"], description: "tasks/result still answers a task's result", may_also: &[], follows: &[] },
    FaultInfo { fault: TasksMethodsUndeclared, name: "tasks-methods-without-capability", rules: &["ext-tasks.errors.tasks-methods-need-capability"], description: "tasks/get, tasks/update and tasks/cancel are served to clients that do not declare the extension", may_also: &[], follows: &[] },
    FaultInfo { fault: SequentialTaskId, name: "sequential-task-id", rules: &["ext-tasks.security.unguessable-ids"], description: "task ids are a counter (`task-1`, `task-2`, ...)", may_also: &[], follows: &[] },
    FaultInfo { fault: ListenWithoutCapability, name: "listen-without-capability", rules: &["ext-tasks.notifications.listen-needs-capability"], description: "subscriptions/listen asking for task notifications is served to a client that does not declare the extension", may_also: &[], follows: &[] },
    FaultInfo { fault: NotificationWithoutPayload, name: "notification-without-payload", rules: &["ext-tasks.notifications.detailed-task"], description: "notifications/tasks leave out `result`, `error` and `inputRequests`", may_also: &[], follows: &[] },
    FaultInfo { fault: ProgressOnStream, name: "message-on-stream", rules: &["ext-tasks.notifications.no-progress-on-stream"], description: "a notifications/message goes out on the subscriptions/listen stream", may_also: &[], follows: &[] },
    FaultInfo { fault: NotifyBeforeAck, name: "notify-before-ack", rules: &["ext-tasks.notifications.ack-first"], description: "the watched tasks' current state goes out on the stream before its acknowledgement", may_also: &[], follows: &[] },
    FaultInfo { fault: AcceptsMismatchedHeaders, name: "accepts-mismatched-headers", rules: &["ext-tasks.http.header-mismatch"], description: "over HTTP, requests whose Mcp-Method, Mcp-Name or MCP-Protocol-Version header is missing or differs from the body are served", may_also: &[], follows: &[] },
    FaultInfo { fault: UnboundTasks, name: "unbound-tasks", rules: &["ext-tasks.security.auth-binding"], description: "over HTTP, any caller's credentials reach any task", may_also: &[], follows: &[] },
    FaultInfo { fault: NoCacheFields, name: "no-cache-fields", rules: &["ext-tasks.schema.official"], description: "server/discover and tools/list leave out the `ttlMs` and `cacheScope` 2026-07-28 requires of them (only `--schema` sees it)", may_also: &[], follows: &[] },
    FaultInfo { fault: AcceptsMissingMeta, name: "accepts-missing-meta", rules: &["ext-tasks.core.request-meta-required"], description: "requests without the per-request protocol version and client capabilities are served", may_also: &[], follows: &[] },
];
