//! Legal variants of the reference receiver (`reference --variant NAME`): behaviours the spec
//! allows that a correct receiver may have, each of which must pass the whole suite with no
//! failure and no warning (a test asserts it), so no check accuses a correct receiver.

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
    // the extension's reference (designs/ext_tasks/variants.rs)
    ExtLazyCancel,
    ExtCancelIgnored,
    ExtLazyUpdate,
    ExtUnlimitedTtl,
    ExtNoPollInterval,
    ExtStatusMessageAlways,
    ExtExtraMeta,
    ExtNoListen,
    ExtNoTaskNotifications,
}

/// A variant's name, and what it does.
pub struct VariantInfo {
    pub variant: Variant,
    pub name: &'static str,
    pub description: &'static str,
}

/// Every variant.
pub const VARIANTS: &[VariantInfo] = &[
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
];

/// The variants of a list with these names; the first unknown name is the error, naming the
/// command that lists them.
pub fn named(
    names: &[String],
    list: &[VariantInfo],
    command: &str,
) -> Result<std::collections::HashSet<Variant>, String> {
    names
        .iter()
        .map(|name| {
            list.iter()
                .find(|v| v.name == name)
                .map(|v| v.variant)
                .ok_or_else(|| {
                    format!("unknown variant {name:?} (see `taskcheck {command} --list-variants`)")
                })
        })
        .collect()
}

/// The `--list-variants` lines of a list of variants.
pub fn list_of(variants: &[VariantInfo]) -> String {
    variants
        .iter()
        .map(|v| format!("{:<28} {}\n", v.name, v.description))
        .collect()
}
