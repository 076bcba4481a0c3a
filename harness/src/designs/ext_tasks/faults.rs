//! Faults of the extension's reference receiver: each breaks one rule, proving its check can
//! fail. They share the `Fault` type and its listing with the 2025-11-25 faults.

use crate::reference::faults::Fault::*;
use crate::reference::faults::{Fault, FaultInfo};

/// Faults that show only over Streamable HTTP.
pub const HTTP_ONLY: [Fault; 2] = [ExtAcceptsMismatchedHeaders, ExtUnboundTasks];

/// Every fault of the extension's reference receiver.
#[rustfmt::skip]
pub const FAULTS: &[FaultInfo] = &[
    FaultInfo { fault: ExtUndeclared, name: "undeclared-extension", rules: &["ext-tasks.capability.advertise"], description: "server/discover leaves the extension out, but tools/call still creates tasks", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtAdvertisesLegacy, name: "advertises-legacy-tasks", rules: &["ext-tasks.capability.no-legacy-advertise"], description: "server/discover also advertises the 2025-11-25 `tasks` capability", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtDiscoverWithoutVersion, name: "discover-without-version", rules: &["ext-tasks.core.discover"], description: "server/discover lists only 2025-11-25 among supportedVersions", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtTaskWithoutCapability, name: "task-without-capability", rules: &["ext-tasks.capability.no-task-without-declaration"], description: "creates tasks for requests that do not declare the extension", may_also: &[], follows: &["ext-tasks.capability.legacy-is-non-declaring", "ext-tasks.capability.task-param-ignored", "ext-tasks.capability.missing-capability-error"] },
    FaultInfo { fault: ExtLegacyHonoured, name: "legacy-capability-honoured", rules: &["ext-tasks.capability.legacy-is-non-declaring"], description: "takes the 2025-11-25 `tasks` client capability as declaring the extension", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtTaskParamHonoured, name: "task-param-honoured", rules: &["ext-tasks.capability.task-param-ignored"], description: "creates a task when tools/call carries the 2025-11-25 `task` parameter", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtMissingCapabilityWrongCode, name: "missing-capability-wrong-code", rules: &["ext-tasks.capability.missing-capability-error"], description: "a tool that needs a task, called without the extension, gets -32602 instead of -32021", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtListResultTypeTask, name: "tools-list-result-type-task", rules: &["ext-tasks.result-type.task-only-on-create"], description: "tools/list answers with `resultType` \"task\"", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtOmitsResultType, name: "tools-list-without-result-type", rules: &["ext-tasks.result-type.required"], description: "tools/list answers without `resultType`", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtCreateResultTypeComplete, name: "create-result-type-complete", rules: &["ext-tasks.result-type.task-on-create"], description: "a CreateTaskResult says `resultType` \"complete\"", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtGetResultTypeTask, name: "get-result-type-task", rules: &["ext-tasks.get.result-type-complete"], description: "tasks/get answers with `resultType` \"task\"", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtUpdateResultTypeMissing, name: "update-without-result-type", rules: &["ext-tasks.update.result-type-complete"], description: "tasks/update acknowledges with `{}`, no `resultType`", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtCancelResultTypeMissing, name: "cancel-without-result-type", rules: &["ext-tasks.cancel.result-type-complete"], description: "tasks/cancel acknowledges with `{}`, no `resultType`", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtTtlNotTtlMs, name: "ttl-not-ttl-ms", rules: &["ext-tasks.task.fields"], description: "Tasks carry the 2025-11-25 `ttl` instead of `ttlMs`", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtGetOtherTaskId, name: "get-answers-other-id", rules: &["ext-tasks.task.same-id"], description: "tasks/get answers with a `taskId` other than the one asked for", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtCancelledReopens, name: "cancelled-reopens", rules: &["ext-tasks.lifecycle.transitions"], description: "a cancelled task reads `working` again after it was read cancelled", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtLazyCreation, name: "lazy-creation", rules: &["ext-tasks.create.durable"], description: "a task becomes visible to tasks/get only 300 ms after its CreateTaskResult", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtMrtrInsideTask, name: "mrtr-inside-task", rules: &["ext-tasks.create.mrtr-synchronous"], description: "confirm_first creates its task at once and asks its confirmation through the task's `inputRequests`, not over an InputRequiredResult first", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtOneInputRequest, name: "one-input-request", rules: &["ext-tasks.get.input-required-requests"], description: "`inputRequests` lists only the first of the task's outstanding requests", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtCompletedWithoutResult, name: "completed-without-result", rules: &["ext-tasks.get.completed-result"], description: "a completed task's tasks/get carries no `result`", may_also: &[], follows: &["ext-tasks.get.result-exact"] },
    FaultInfo { fault: ExtResultLosesIsError, name: "result-loses-is-error", rules: &["ext-tasks.get.result-exact"], description: "a completed task's `result` drops the tool result's `isError: true`", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtFailedWithoutError, name: "failed-without-error", rules: &["ext-tasks.get.failed-error"], description: "a failed task's tasks/get carries no `error`", may_also: &[], follows: &["ext-tasks.get.error-exact"] },
    FaultInfo { fault: ExtErrorDiffers, name: "error-differs", rules: &["ext-tasks.get.error-exact"], description: "a failed task's `error` message differs from the plain call's", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtToolErrorFails, name: "tool-error-fails", rules: &["ext-tasks.failed.only-jsonrpc"], description: "a tool result with `isError: true` makes the task `failed`", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtFailedWithoutMessage, name: "failed-without-message", rules: &["ext-tasks.failed.status-message"], description: "a failed task has no `statusMessage`", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtGetUnknownWrongCode, name: "get-unknown-wrong-code", rules: &["ext-tasks.get.unknown-task"], description: "tasks/get of an unknown task answers -32603", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtUpdateReturnsTask, name: "update-returns-task", rules: &["ext-tasks.update.ack-empty"], description: "tasks/update answers with the task instead of an empty acknowledgement", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtUpdateIgnored, name: "update-ignored", rules: &["ext-tasks.update.input-accepted"], description: "tasks/update acknowledges but never applies the responses", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtUpdateRejectsUnknownKey, name: "update-rejects-unknown-key", rules: &["ext-tasks.update.unknown-keys-ignored"], description: "tasks/update with a key that is not outstanding answers -32602", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtPartialCompletes, name: "partial-completes", rules: &["ext-tasks.update.partial-keeps-input-required"], description: "a tasks/update answering some outstanding requests moves the task on without the rest", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtReusesInputKey, name: "reuses-input-key", rules: &["ext-tasks.update.keys-unique"], description: "a task's later input requests reuse the key of its first, already answered one", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtUpdateUnknownAcks, name: "update-unknown-acks", rules: &["ext-tasks.update.unknown-task"], description: "tasks/update of an unknown task acknowledges", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtCancelReturnsTask, name: "cancel-returns-task", rules: &["ext-tasks.cancel.ack-empty"], description: "tasks/cancel answers with the task (the 2025-11-25 shape) instead of an empty acknowledgement", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtCancelUnknownAcks, name: "cancel-unknown-acks", rules: &["ext-tasks.cancel.unknown-task"], description: "tasks/cancel of an unknown task acknowledges", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtServesTasksResult, name: "serves-tasks-result", rules: &["ext-tasks.errors.tasks-result-removed"], description: "tasks/result still answers a task's result", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtTasksMethodsUndeclared, name: "tasks-methods-without-capability", rules: &["ext-tasks.errors.tasks-methods-need-capability"], description: "tasks/get, tasks/update and tasks/cancel are served to clients that do not declare the extension", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtSequentialTaskId, name: "sequential-task-id", rules: &["ext-tasks.security.unguessable-ids"], description: "task ids are a counter (`task-1`, `task-2`, ...)", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtListenWithoutCapability, name: "listen-without-capability", rules: &["ext-tasks.notifications.listen-needs-capability"], description: "subscriptions/listen asking for task notifications is served to a client that does not declare the extension", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtNotificationWithoutPayload, name: "notification-without-payload", rules: &["ext-tasks.notifications.detailed-task"], description: "notifications/tasks leave out `result`, `error` and `inputRequests`", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtProgressOnStream, name: "message-on-stream", rules: &["ext-tasks.notifications.no-progress-on-stream"], description: "a notifications/message goes out on the subscriptions/listen stream", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtNotifyBeforeAck, name: "notify-before-ack", rules: &["ext-tasks.notifications.ack-first"], description: "the watched tasks' current state goes out on the stream before its acknowledgement", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtAcceptsMismatchedHeaders, name: "accepts-mismatched-headers", rules: &["ext-tasks.http.header-mismatch"], description: "over HTTP, requests whose Mcp-Method, Mcp-Name or MCP-Protocol-Version header is missing or differs from the body are served", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtUnboundTasks, name: "unbound-tasks", rules: &["ext-tasks.security.auth-binding"], description: "over HTTP, any caller's credentials reach any task", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtNoCacheFields, name: "no-cache-fields", rules: &["ext-tasks.schema.official"], description: "server/discover and tools/list leave out the `ttlMs` and `cacheScope` 2026-07-28 requires of them (only `--schema` sees it)", may_also: &[], follows: &[] },
    FaultInfo { fault: ExtAcceptsMissingMeta, name: "accepts-missing-meta", rules: &["ext-tasks.core.request-meta-required"], description: "requests without the per-request protocol version and client capabilities are served", may_also: &[], follows: &[] },
];
