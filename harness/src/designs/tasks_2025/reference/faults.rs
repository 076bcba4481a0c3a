//! Faults of the 2025-11-25 reference receiver and reference client: each breaks one rule,
//! proving its check can fail.

use super::variants::Variant;
use crate::reference::faults::{self as table, FaultEntry};
use std::sync::OnceLock;

/// A fault of the 2025-11-25 reference receiver, as its tables describe it.
pub type FaultInfo = table::FaultInfo<Fault>;
/// The faults and variants a 2025-11-25 reference runs with.
pub type Faults = table::Faults<Fault, Variant>;

/// One deliberate defect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    NoTasksCapability,
    ForbiddenAcceptsTask,
    RequiredAcceptsPlain,
    CreateReturnsResult,
    SlowCreate,
    NumericTaskId,
    DuplicateTaskId,
    TerminalStatusChanges,
    NoInputRequired,
    ElicitWithoutRelatedTask,
    /// A task waits in input_required for an elicitation it never sends.
    ElicitationDropped,
    StuckInputRequired,
    CreatedAtNotRfc3339,
    LastUpdatedAtMissing,
    CreatedAtDrifts,
    LastUpdatedGoesBack,
    GetOmitsTtl,
    ResultReturnsTask,
    ResultNotBlocking,
    ResultErrorAsSuccess,
    ResultErrorRewrapped,
    ResultWithoutRelatedTask,
    GetWithRelatedTask,
    TrustRequestMeta,
    StatusNotificationWithRelatedTask,
    ListHidesTask,
    UnknownTaskWrongCode,
    BadCursorAccepted,
    CancelTerminalOk,
    CancelReportsWorking,
    CancelledTaskCompletes,
    CancelledTaskFails,
    CancelInputRequiredRejected,
    ListMethodMissing,
    CancelMethodMissing,
    ListDropsNextCursor,
    ListOnlyUnfinished,
    ResultOnce,
    ResultDeletesTask,
    ToolErrorCompletes,
    FailedWithoutStatusMessage,
    ProgressWithoutRelatedTask,
    ProgressTokenChanged,
    EarlyExpiry,
    UnlimitedTtlVanishes,
    TtlUncapped,
    OptionalAnsweredPlainly,
    SessionEndStopsTasks,
    SequentialTaskId,
    PollIntervalString,
    EmptyErrorMessages,
    MalformedTaskAccepted,
    MalformedIdInternalError,
    AnswersCallTwice,
    TasksForUndeclaredTypes,
    /// Refuses a task-augmented request of a type it does not declare task support for.
    UndeclaredTaskRefused,
    GetOverSse,
    CancelOnDisconnect,
    SharedTaskStore,
    ThirdTaskReopens,
    OverlappingResultsLoseMeta,
    TaskIdIsRequestId,
    DiesOnOddTtl,
    SilentOnUnknownMethod,
    RepliesToNotifications,
    ParseErrorWrongCode,
    InvalidRequestAsParseError,
    UnknownMethodInvalidParams,
    StdoutLogLine,
    CrashAfterCancel,
    CrashAfterExpiry,
    TimestampsWithoutOffset,
    ProtocolErrorCompletes,
    ProgressAfterCompletion,
    CancelKeepsWorking,
    ResultReturnsEarly,
    ListOnePage,
    PerSessionIds,
    ElicitAsTask,
    ExtensionEnablesTasks,
    GetReportsRemainingTtl,
    FailedResultMissing,
    InputTaskFails,
}

/// Faults that only the Streamable HTTP receiver can show.
pub const HTTP_ONLY: [Fault; 5] = [
    Fault::GetOverSse,
    Fault::CancelOnDisconnect,
    Fault::SharedTaskStore,
    Fault::PerSessionIds,
    Fault::SessionEndStopsTasks,
];

/// Faults that only the stdio receiver can show (one writes on stdout, one exits, which over
/// HTTP would end every session of the shared server, and one answers twice, which over HTTP
/// has no second stream to go on).
pub const STDIO_ONLY: [Fault; 4] = [
    Fault::StdoutLogLine,
    Fault::CrashAfterCancel,
    Fault::CrashAfterExpiry,
    Fault::AnswersCallTwice,
];

/// Faults the fixed scenarios miss by design, which `taskcheck explore` must find.
pub const EXPLORE_ONLY: [Fault; 2] = [Fault::ThirdTaskReopens, Fault::OverlappingResultsLoseMeta];

/// Faults the fixed scenarios miss by design, which `taskcheck fuzz-wire` must find.
pub const FUZZ_WIRE_ONLY: [Fault; 6] = [
    Fault::DiesOnOddTtl,
    Fault::SilentOnUnknownMethod,
    Fault::RepliesToNotifications,
    Fault::ParseErrorWrongCode,
    Fault::InvalidRequestAsParseError,
    Fault::UnknownMethodInvalidParams,
];

impl FaultInfo {
    /// Whether only wire fuzzing (`taskcheck fuzz-wire`) is expected to show the fault.
    pub fn fuzz_wire_only(&self) -> bool {
        FUZZ_WIRE_ONLY.contains(&self.fault)
    }

    /// Whether only random exploration (`taskcheck explore`) is expected to show the fault.
    pub fn explore_only(&self) -> bool {
        EXPLORE_ONLY.contains(&self.fault)
    }

    /// Whether the fault shows only over Streamable HTTP (`reference --http`).
    pub fn http_only(&self) -> bool {
        HTTP_ONLY.contains(&self.fault)
    }

    /// Whether the fault shows only over stdio.
    pub fn stdio_only(&self) -> bool {
        STDIO_ONLY.contains(&self.fault)
    }
}

use Fault::*;

/// Every fault.
pub const FAULTS: &[FaultInfo] = &[
    FaultInfo { fault: NoTasksCapability, name: "no-tasks-capability", rules: &["tasks.capability.declare"], description: "declares no `tasks` capability but still creates tasks", may_also: &[], follows: &["tasks.support.undeclared-processed-normally"] },
    FaultInfo { fault: ForbiddenAcceptsTask, name: "forbidden-accepts-task", rules: &["tasks.tool.forbidden-rejected"], description: "creates tasks for tools whose taskSupport is absent or forbidden", may_also: &[], follows: &[] },
    FaultInfo { fault: RequiredAcceptsPlain, name: "required-accepts-plain", rules: &["tasks.tool.required-without-task-rejected"], description: "runs `required` tools called without a task", may_also: &[], follows: &[] },
    FaultInfo { fault: CreateReturnsResult, name: "create-returns-result", rules: &["tasks.create.create-task-result"], description: "answers a task-augmented call with the tool result instead of a CreateTaskResult", may_also: &[], follows: &[] },
    FaultInfo { fault: SlowCreate, name: "slow-create", rules: &["tasks.create.prompt"], description: "sends the CreateTaskResult only once the task's work is done", may_also: &[], follows: &[] },
    FaultInfo { fault: NumericTaskId, name: "numeric-task-id", rules: &["tasks.id.string", "tasks.security.secure-ids"], description: "task ids are JSON numbers (a counter, so guessable too, and repeated by each HTTP session)", may_also: &["tasks.id.unique"], follows: &["tasks.schema.receiver-messages"] },
    FaultInfo { fault: DuplicateTaskId, name: "duplicate-task-id", rules: &["tasks.id.unique", "tasks.ttl.created-at-constant"], description: "every second task reuses the previous task's id (so the id's createdAt changes, and two tasks of a scenario are one)", may_also: &["tasks.lifecycle.terminal-final", "tasks.meta.ignore-request-related-task"], follows: &[] },
    FaultInfo { fault: TerminalStatusChanges, name: "terminal-status-changes", rules: &["tasks.lifecycle.terminal-final"], description: "a completed task reports `working` from its second tasks/get on", may_also: &[], follows: &[] },
    FaultInfo { fault: NoInputRequired, name: "no-input-required", rules: &["tasks.input.move-to-input-required"], description: "stays `working` while waiting for an elicitation answer", may_also: &[], follows: &[] },
    FaultInfo { fault: ElicitationDropped, name: "elicitation-dropped", rules: &["tasks.input.requests-delivered"], description: "a task moves to `input_required` but its elicitation is never sent", may_also: &[], follows: &[] },
    FaultInfo { fault: ElicitWithoutRelatedTask, name: "elicit-without-related-task", rules: &["tasks.input.request-related-task"], description: "task elicitations carry no related-task `_meta`", may_also: &[], follows: &[] },
    FaultInfo { fault: StuckInputRequired, name: "stuck-input-required", rules: &["tasks.input.leave-after-input"], description: "stays `input_required` for good after the answer arrived", may_also: &[], follows: &[] },
    FaultInfo { fault: CreatedAtNotRfc3339, name: "created-at-not-rfc3339", rules: &["tasks.ttl.created-at"], description: "`createdAt` is Unix milliseconds in a string", may_also: &[], follows: &[] },
    FaultInfo { fault: LastUpdatedAtMissing, name: "last-updated-at-missing", rules: &["tasks.ttl.last-updated-at"], description: "tasks have no `lastUpdatedAt`", may_also: &[], follows: &["tasks.schema.receiver-messages"] },
    FaultInfo { fault: CreatedAtDrifts, name: "created-at-drifts", rules: &["tasks.ttl.created-at-constant"], description: "`createdAt` moves one second earlier with every report", may_also: &[], follows: &[] },
    FaultInfo { fault: LastUpdatedGoesBack, name: "last-updated-goes-back", rules: &["tasks.ttl.last-updated-monotonic"], description: "`lastUpdatedAt` in tasks/get moves 1 ms earlier with every call", may_also: &[], follows: &[] },
    FaultInfo { fault: GetOmitsTtl, name: "get-omits-ttl", rules: &["tasks.ttl.get-includes-ttl"], description: "tasks/get results have no `ttl`", may_also: &[], follows: &["tasks.schema.receiver-messages"] },
    FaultInfo { fault: ResultReturnsTask, name: "result-returns-task", rules: &["tasks.result.terminal-returns-final"], description: "tasks/result on a terminal task returns the Task, not the outcome (so not the exact result, nor a CallToolResult to the schema, either: its consequences)", may_also: &["tasks.result.blocks"], follows: &["tasks.result.exact", "tasks.schema.receiver-messages"] },
    FaultInfo { fault: ResultNotBlocking, name: "result-not-blocking", rules: &["tasks.result.blocks"], description: "tasks/result on an unfinished task fails at once instead of blocking", may_also: &[], follows: &[] },
    FaultInfo { fault: ResultErrorAsSuccess, name: "result-error-as-success", rules: &["tasks.result.terminal-returns-final"], description: "tasks/result turns the underlying JSON-RPC error into an `isError` result", may_also: &[], follows: &["tasks.result.exact"] },
    FaultInfo { fault: ResultErrorRewrapped, name: "result-error-rewrapped", rules: &["tasks.result.exact"], description: "tasks/result answers the underlying JSON-RPC error with its code but another message (as rmcp 2.2.0 rewraps it)", may_also: &[], follows: &[] },
    FaultInfo { fault: ResultWithoutRelatedTask, name: "result-without-related-task", rules: &["tasks.meta.result-related-task"], description: "tasks/result results carry no related-task `_meta`", may_also: &[], follows: &[] },
    FaultInfo { fault: GetWithRelatedTask, name: "get-with-related-task", rules: &["tasks.meta.no-related-task-in-results"], description: "tasks/get results carry related-task `_meta`", may_also: &[], follows: &[] },
    FaultInfo { fault: TrustRequestMeta, name: "trust-request-meta", rules: &["tasks.meta.ignore-request-related-task"], description: "tasks/get, tasks/result and tasks/cancel follow related-task `_meta` over `params.taskId`", may_also: &[], follows: &[] },
    FaultInfo { fault: StatusNotificationWithRelatedTask, name: "status-notification-with-related-task", rules: &["tasks.notify.no-related-task"], description: "status notifications carry related-task `_meta`", may_also: &[], follows: &[] },
    FaultInfo { fault: ListHidesTask, name: "list-hides-task", rules: &["tasks.list.contains-retrievable"], description: "tasks/list leaves out the newest task", may_also: &[], follows: &[] },
    FaultInfo { fault: UnknownTaskWrongCode, name: "unknown-task-wrong-code", rules: &["tasks.errors.unknown-task-id"], description: "unknown task ids get -32600 instead of -32602", may_also: &[], follows: &[] },
    FaultInfo { fault: BadCursorAccepted, name: "bad-cursor-accepted", rules: &["tasks.errors.bad-cursor"], description: "an unknown cursor returns the first page", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelTerminalOk, name: "cancel-terminal-ok", rules: &["tasks.cancel.terminal-rejected"], description: "cancelling a terminal task succeeds", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelReportsWorking, name: "cancel-reports-working", rules: &["tasks.cancel.cancelled-before-response"], description: "tasks/cancel answers with the old status and cancels 200 ms later", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelInputRequiredRejected, name: "cancel-input-required-rejected", rules: &["tasks.cancel.cancelled-before-response"], description: "tasks/cancel of a task in `input_required` gets -32602", may_also: &[], follows: &[] },
    FaultInfo { fault: ListMethodMissing, name: "list-method-missing", rules: &["tasks.capability.list-supported"], description: "declares `tasks.list` but answers tasks/list with -32601 (what its pages and cursors would show: its consequences)", may_also: &[], follows: &["tasks.errors.bad-cursor", "tasks.list.contains-retrievable"] },
    FaultInfo { fault: CancelMethodMissing, name: "cancel-method-missing", rules: &["tasks.capability.cancel-supported"], description: "declares `tasks.cancel` but answers tasks/cancel with -32601 (what a cancellation would show: its consequences)", may_also: &[], follows: &["tasks.errors.unknown-task-id", "tasks.cancel.terminal-rejected", "tasks.cancel.cancelled-before-response", "tasks.meta.ignore-request-related-task", "tasks.cancel.stays-cancelled"] },
    FaultInfo { fault: ListDropsNextCursor, name: "list-drops-next-cursor", rules: &["tasks.list.next-cursor"], description: "tasks/list pages never carry `nextCursor` (so later tasks are unreachable too: its consequence)", may_also: &[], follows: &["tasks.list.contains-retrievable"] },
    FaultInfo { fault: ResultOnce, name: "result-once", rules: &["tasks.result.terminal-returns-final"], description: "a second tasks/result of a task gets -32602, as if the result were consumed", may_also: &[], follows: &[] },
    FaultInfo { fault: ToolErrorCompletes, name: "tool-error-completes", rules: &["tasks.failed.tool-error"], description: "a tool result with `isError: true` ends the task `completed`", may_also: &[], follows: &[] },
    FaultInfo { fault: FailedWithoutStatusMessage, name: "failed-without-status-message", rules: &["tasks.failed.status-message"], description: "failed tasks carry no `statusMessage`", may_also: &[], follows: &[] },
    FaultInfo { fault: ProgressWithoutRelatedTask, name: "progress-without-related-task", rules: &["tasks.meta.related-messages"], description: "a task's progress notifications carry no related-task `_meta`", may_also: &[], follows: &[] },
    FaultInfo { fault: ProgressTokenChanged, name: "progress-token-changed", rules: &["tasks.progress.token-valid"], description: "once its task exists, a task-augmented request's progress carries another progressToken than the request's", may_also: &[], follows: &[] },
    FaultInfo { fault: EarlyExpiry, name: "early-expiry", rules: &["tasks.ttl.no-early-expiry"], description: "tasks are deleted after a tenth of their granted ttl", may_also: &[], follows: &[] },
    FaultInfo { fault: SequentialTaskId, name: "sequential-task-id", rules: &["tasks.security.secure-ids"], description: "task ids are a counter (`task-1`, `task-2`, ...; each HTTP session counts anew)", may_also: &["tasks.id.unique"], follows: &[] },
    FaultInfo { fault: PollIntervalString, name: "poll-interval-string", rules: &["tasks.schema.receiver-messages", "tasks.schema.official"], description: "`pollInterval` is a string of digits", may_also: &[], follows: &[] },
    FaultInfo { fault: EmptyErrorMessages, name: "empty-error-messages", rules: &["tasks.errors.informative-message"], description: "every JSON-RPC error has an empty `message`", may_also: &[], follows: &[] },
    FaultInfo { fault: MalformedTaskAccepted, name: "malformed-task-accepted", rules: &["tasks.errors.malformed-task-param"], description: "a `task` that is not a TaskMetadata object creates a task with the default ttl", may_also: &[], follows: &[] },
    FaultInfo { fault: TasksForUndeclaredTypes, name: "tasks-for-undeclared-types", rules: &["tasks.support.undeclared-processed-normally"], description: "a task-augmented tools/list (not declared in `tasks.requests`) creates a task", may_also: &[], follows: &[] },
    FaultInfo { fault: UndeclaredTaskRefused, name: "undeclared-task-refused", rules: &["tasks.support.undeclared-processed-normally"], description: "refuses a task-augmented tools/list (not declared in `tasks.requests`) instead of ignoring `task`", may_also: &[], follows: &[] },
    FaultInfo { fault: GetOverSse, name: "get-over-sse", rules: &["tasks.http.no-sse-for-get"], description: "(HTTP) tasks/get is answered on an SSE stream instead of plain JSON", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelOnDisconnect, name: "cancel-on-disconnect", rules: &["tasks.http.disconnect-not-cancel"], description: "(HTTP) dropping the SSE stream of a waiting tasks/result cancels the task", may_also: &[], follows: &[] },
    FaultInfo { fault: SharedTaskStore, name: "shared-task-store", rules: &["tasks.security.bind-context"], description: "(HTTP) every session and credential sees one task store", may_also: &[], follows: &[] },
    FaultInfo { fault: ThirdTaskReopens, name: "third-task-reopens", rules: &["tasks.lifecycle.terminal-final"], description: "(explore) the third task of a session, once completed, reports `working` from its second tasks/get on", may_also: &[], follows: &[] },
    FaultInfo { fault: TaskIdIsRequestId, name: "task-id-is-request-id", rules: &["tasks.security.secure-ids"], description: "uses the JSON-RPC id of the creating request as the task id (so HTTP sessions repeat them)", may_also: &["tasks.id.unique"], follows: &[] },
    FaultInfo { fault: DiesOnOddTtl, name: "dies-on-odd-ttl", rules: &["wire.survives"], description: "(fuzz-wire) exits when `task.ttl` is a number but not a 64-bit unsigned integer (negative, fractional, huge)", may_also: &[], follows: &[] },
    FaultInfo { fault: SilentOnUnknownMethod, name: "silent-on-unknown-method", rules: &["wire.answers-requests"], description: "(fuzz-wire) never answers a request for a method it does not know", may_also: &[], follows: &[] },
    FaultInfo { fault: RepliesToNotifications, name: "replies-to-notifications", rules: &["wire.no-reply-to-notification"], description: "(fuzz-wire) answers a notification it does not know with a -32601 error", may_also: &[], follows: &[] },
    FaultInfo { fault: ParseErrorWrongCode, name: "parse-error-wrong-code", rules: &["wire.parse-error"], description: "(fuzz-wire) answers input that is not JSON with -32600 instead of -32700", may_also: &[], follows: &[] },
    FaultInfo { fault: InvalidRequestAsParseError, name: "invalid-request-as-parse-error", rules: &["wire.invalid-request"], description: "(fuzz-wire) answers JSON that is not a JSON-RPC request with -32700 instead of -32600", may_also: &[], follows: &[] },
    FaultInfo { fault: UnknownMethodInvalidParams, name: "unknown-method-invalid-params", rules: &["wire.method-not-found"], description: "(fuzz-wire) answers an unknown method with -32602 instead of -32601", may_also: &[], follows: &[] },
    FaultInfo { fault: OverlappingResultsLoseMeta, name: "overlapping-results-lose-meta", rules: &["tasks.meta.result-related-task"], description: "(explore) once two tasks/result requests for a task wait at the same time, its results carry no related-task `_meta`", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelledTaskCompletes, name: "cancelled-task-completes", rules: &["tasks.cancel.stays-cancelled", "tasks.progress.stops-when-terminal"], description: "a cancelled task's work goes on and marks it `completed`", may_also: &[], follows: &["tasks.cancel.stop-execution", "tasks.lifecycle.terminal-final"] },
    FaultInfo { fault: CancelledTaskFails, name: "cancelled-task-fails", rules: &["tasks.cancel.stays-cancelled", "tasks.progress.stops-when-terminal"], description: "a cancelled task's work goes on and marks it `failed` without a statusMessage (as rmcp 2.2.0 reports an aborted task)", may_also: &[], follows: &["tasks.cancel.stop-execution", "tasks.lifecycle.terminal-final", "tasks.failed.status-message"] },
    FaultInfo { fault: ListOnlyUnfinished, name: "list-only-unfinished", rules: &["tasks.list.contains-retrievable", "tasks.errors.bad-cursor"], description: "tasks/list lists only unfinished tasks, on one page without `nextCursor`, whatever the cursor (as rmcp 2.2.0)", may_also: &[], follows: &["tasks.list.next-cursor"] },
    FaultInfo { fault: ResultDeletesTask, name: "result-deletes-task", rules: &["tasks.ttl.no-early-expiry"], description: "a task is deleted once tasks/result has answered, and later requests for it get -32002 (as rmcp 2.2.0 takes the result)", may_also: &[], follows: &["tasks.result.terminal-returns-final"] },
    FaultInfo { fault: UnlimitedTtlVanishes, name: "unlimited-ttl-vanishes", rules: &["tasks.ttl.no-early-expiry", "tasks.resources.max-ttl"], description: "reports every ttl as null (unlimited: no maximum), yet deletes a task 100 ms after it ends (deletions mid-walk shift its offset cursors: tasks may go unlisted)", may_also: &["tasks.list.contains-retrievable"], follows: &[] },
    FaultInfo { fault: TtlUncapped, name: "ttl-uncapped", rules: &["tasks.resources.max-ttl"], description: "grants every ttl as asked, ten years included (no maximum)", may_also: &[], follows: &[] },
    FaultInfo { fault: OptionalAnsweredPlainly, name: "optional-answered-plainly", rules: &["tasks.create.create-task-result"], description: "answers a task-augmented call of an `optional` tool with its plain result, no task (as mcp 1.30.0 does once its task support stopped)", may_also: &[], follows: &[] },
    FaultInfo { fault: SessionEndStopsTasks, name: "session-end-stops-tasks", rules: &["tasks.create.create-task-result"], description: "(HTTP) once any session ends, a task-augmented call of an `optional` tool in every other session gets its plain result, no task (as mcp 1.30.0's one task group for the whole server)", may_also: &[], follows: &[] },
    FaultInfo { fault: AnswersCallTwice, name: "answers-call-twice", rules: &["wire.one-response"], description: "(stdio) answers every tools/call twice, the same response sent again", may_also: &[], follows: &[] },
    FaultInfo { fault: MalformedIdInternalError, name: "malformed-id-internal-error", rules: &["tasks.errors.unknown-task-id"], description: "a `taskId` that is not a string gets -32603 (as the TypeScript SDK's schema validation answers)", may_also: &[], follows: &[] },
    FaultInfo { fault: StdoutLogLine, name: "stdout-log-line", rules: &["transport.stdio.stdout-only-mcp"], description: "(stdio) writes a log line on stdout with its fourth message", may_also: &[], follows: &[] },
    FaultInfo { fault: CrashAfterCancel, name: "crash-after-cancel", rules: &["wire.survives", "tasks.progress.stops-when-terminal"], description: "(stdio) exits when the work of a cancelled task ends (as the Python SDK 1.30.0 server does), its progress going on until then", may_also: &[], follows: &["tasks.cancel.stop-execution"] },
    FaultInfo { fault: CrashAfterExpiry, name: "crash-after-expiry", rules: &["wire.survives"], description: "(stdio) exits when the work of a task ends after its ttl elapsed and the task was deleted (as the Python SDK 1.30.0 server does)", may_also: &[], follows: &[] },
    FaultInfo { fault: TimestampsWithoutOffset, name: "timestamps-without-offset", rules: &["tasks.ttl.timestamps-rfc3339"], description: "timestamps are ISO 8601 local times without an offset (`2025-11-25T10:30:00.123`)", may_also: &[], follows: &[] },
    FaultInfo { fault: ProtocolErrorCompletes, name: "protocol-error-completes", rules: &["tasks.failed.protocol-error"], description: "a task whose request ends in a JSON-RPC error ends `completed`", may_also: &[], follows: &[] },
    FaultInfo { fault: ProgressAfterCompletion, name: "progress-after-completion", rules: &["tasks.progress.stops-when-terminal"], description: "sends one more progress notification 1.2 s after a task's work ended", may_also: &[], follows: &[] },
    FaultInfo { fault: CancelKeepsWorking, name: "cancel-keeps-working", rules: &["tasks.progress.stops-when-terminal"], description: "a cancelled task's work goes on, still sending progress, though its status stays `cancelled` (one observation: progress after a terminal status, a MUST, whose consequence is the work not stopping)", may_also: &[], follows: &["tasks.cancel.stop-execution"] },
    FaultInfo { fault: ResultReturnsEarly, name: "result-returns-early", rules: &["tasks.result.blocks"], description: "tasks/result of an unfinished task answers at once with an empty result", may_also: &[], follows: &[] },
    FaultInfo { fault: ListOnePage, name: "list-one-page", rules: &["tasks.list.paginate"], description: "tasks/list returns every task on one page", may_also: &[], follows: &[] },
    FaultInfo { fault: PerSessionIds, name: "per-session-ids", rules: &["tasks.id.unique"], description: "(HTTP) task ids are random-looking but derived from a counter each session restarts, so sessions repeat them", may_also: &[], follows: &[] },
    FaultInfo { fault: InputTaskFails, name: "input-task-fails", rules: &["tasks.input.move-to-input-required"], description: "a task that needs input fails at once, its statusMessage saying the client cannot be asked (as mcp 1.30.0 stateless does): one cause, so the elicitation that never comes is no second finding", may_also: &[], follows: &[] },
    FaultInfo { fault: FailedResultMissing, name: "failed-result-missing", rules: &["tasks.result.terminal-returns-final"], description: "a task whose request ended in a JSON-RPC error ends `failed` with nothing kept of that error, and tasks/result of it waits for an outcome forever", may_also: &[], follows: &[] },
    FaultInfo { fault: GetReportsRemainingTtl, name: "get-reports-remaining-ttl", rules: &["tasks.ttl.get-reports-granted"], description: "tasks/get reports what remains of a task's ttl, not the ttl it was granted", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtensionEnablesTasks, name: "extension-enables-tasks", rules: &["tasks.capability.extension-not-enabling"], description: "a 2025-11-25 session whose client declares the Tasks extension gets a task for a tools/call without the `task` parameter, as the extension would give", may_also: &[], follows: &["tasks.schema.receiver-messages"] },
    FaultInfo { fault: ElicitAsTask, name: "elicit-as-task", rules: &["tasks.capability.requestor-augments-declared-only"], description: "the elicitation a task sends is task-augmented, though taskcheck declares no `tasks` capability", may_also: &[], follows: &[] },
];

/// Receiver faults that concern tools, `input_required` or progress, which client receivers
/// have no part in: the reference client cannot have them.
const SERVER_ONLY: [Fault; 15] = [
    ElicitAsTask,
    InputTaskFails,
    ExtensionEnablesTasks,
    OptionalAnsweredPlainly,
    SessionEndStopsTasks,
    ElicitationDropped,
    ForbiddenAcceptsTask,
    RequiredAcceptsPlain,
    NoInputRequired,
    ElicitWithoutRelatedTask,
    StuckInputRequired,
    CancelInputRequiredRejected,
    ToolErrorCompletes,
    ProgressWithoutRelatedTask,
    ProgressTokenChanged,
];

/// Rules no client-receiver scenario can exercise: they concern tools, `input_required`,
/// progress or a hundred tasks, which a client receiver has no part in, or a ten-year ttl,
/// which no client scenario asks for. A reference-client fault is held to its rules but these.
const SERVER_ONLY_RULES: [&str; 12] = [
    "tasks.tool.forbidden-rejected",
    "tasks.tool.required-without-task-rejected",
    "tasks.input.move-to-input-required",
    "tasks.input.request-related-task",
    "tasks.input.leave-after-input",
    "tasks.failed.tool-error",
    "tasks.meta.related-messages",
    "tasks.progress.token-valid",
    "tasks.progress.stops-when-terminal",
    "tasks.cancel.stop-execution",
    "tasks.list.paginate",
    "tasks.resources.max-ttl",
];

/// Reference-client faults whose rules differ from the receiver's otherwise (the client
/// scenarios do not cancel unknown ids or send related-task `_meta` in tasks/cancel, nor
/// cancel after a tasks/result).
const CLIENT_RULES: &[FaultInfo] = &[
    FaultInfo {
        fault: ResultDeletesTask,
        name: "result-deletes-task",
        rules: &["tasks.ttl.no-early-expiry"],
        description:
            "a task is deleted once tasks/result has answered, and later requests for it get -32002",
        may_also: &[],
        follows: &["tasks.result.terminal-returns-final"],
    },
    FaultInfo {
        fault: CancelMethodMissing,
        name: "cancel-method-missing",
        rules: &["tasks.capability.cancel-supported"],
        description: "declares `tasks.cancel` but answers tasks/cancel with -32601 (what a cancellation would show: its consequences)",
        may_also: &[],
        follows: &[
            "tasks.cancel.terminal-rejected",
            "tasks.cancel.cancelled-before-response",
            "tasks.cancel.stays-cancelled",
        ],
    },
];

/// The reference client's faults: the receiver's, but for those of servers, HTTP serving,
/// exploration and wire fuzzing; each makes the same rules fail in the client-receiver
/// scenarios (`taskcheck client`) as in the server ones, but for the server-only rules, and
/// where [`CLIENT_RULES`] says otherwise.
pub fn client_faults() -> Vec<&'static FaultInfo> {
    static CLIENT: OnceLock<Vec<FaultInfo>> = OnceLock::new();
    let client_rules = |rules: &[&'static str]| -> &'static [&'static str] {
        let kept: Vec<&'static str> = rules
            .iter()
            .copied()
            .filter(|r| !SERVER_ONLY_RULES.contains(r))
            .collect();
        Box::leak(kept.into_boxed_slice())
    };
    CLIENT
        .get_or_init(|| {
            FAULTS
                .iter()
                .filter(|f| {
                    let elsewhere =
                        f.http_only() || f.stdio_only() || f.explore_only() || f.fuzz_wire_only();
                    !(SERVER_ONLY.contains(&f.fault) || elsewhere)
                })
                .map(|f| {
                    CLIENT_RULES
                        .iter()
                        .find(|c| c.fault == f.fault)
                        .unwrap_or(f)
                })
                .map(|f| FaultInfo {
                    rules: client_rules(f.rules),
                    follows: client_rules(f.follows),
                    may_also: client_rules(f.may_also),
                    ..*f
                })
                .filter(|f| !f.rules.is_empty())
                .collect()
        })
        .iter()
        .collect()
}

/// Looks a fault up by name.
pub fn by_name(name: &str) -> Option<&'static FaultInfo> {
    FAULTS.iter().find(|f| f.name == name)
}

/// Faults of the reference receiver from their names; the first unknown name is the error.
pub fn from_names(names: &[String]) -> Result<Faults, String> {
    Faults::named(names, &FAULTS.iter().collect::<Vec<_>>(), "reference")
}

/// Faults of the reference client from their names; the first unknown name is the error.
pub fn from_client_names(names: &[String]) -> Result<Faults, String> {
    Faults::named(names, &client_faults(), "reference-client")
}

/// The reference client's faults, without their enum.
pub fn client_entries() -> Vec<FaultEntry> {
    client_faults().into_iter().map(FaultInfo::entry).collect()
}
