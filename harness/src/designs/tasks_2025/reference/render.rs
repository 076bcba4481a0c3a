//! How the reference renders a task: the Task object each message shows (faults differ by
//! message), its timestamps, its id on the wire and its related-task `_meta`.

use super::*;

impl Reference {
    /// A task id as it appears on the wire (a number under the numeric-task-id fault).
    pub(super) fn wire_id(&self, id: &str) -> Value {
        match id.parse::<u64>() {
            Ok(n) if self.faults.has(Fault::NumericTaskId) => json!(n),
            _ => json!(id),
        }
    }

    /// `_meta` associating a message with a task.
    pub(super) fn related_meta(&self, id: &str) -> Value {
        json!({ wire::RELATED_TASK: {"taskId": self.wire_id(id)} })
    }

    /// Renders a task as the wire Task object.
    pub(super) fn render(&self, t: &mut TaskRecord, view: View) -> Value {
        t.reports += 1;
        let f = &self.faults;
        let id = self.wire_id(&t.id);
        let mut status = t.status;
        if view == View::Get && t.status == TaskStatus::Completed {
            t.terminal_gets += 1;
            let reopens = f.has(Fault::TerminalStatusChanges)
                || (f.has(Fault::ThirdTaskReopens) && t.ordinal == 3);
            if reopens && t.terminal_gets > 1 {
                status = TaskStatus::Working;
            }
        }
        let created = if f.has(Fault::CreatedAtDrifts) {
            self.stamp(t.created - time::Duration::seconds(t.reports as i64), view)
        } else if f.has(Fault::CreatedAtNotRfc3339) {
            format!("{}", (t.created.unix_timestamp_nanos() / 1_000_000))
        } else {
            self.stamp(t.created, view)
        };
        let mut task = json!({"taskId": id, "status": status.as_str(), "createdAt": created});
        if !f.has(Fault::LastUpdatedAtMissing) {
            let updated = if view == View::Get && f.has(Fault::LastUpdatedGoesBack) {
                t.updated + time::Duration::milliseconds(1000 - t.reports as i64)
            } else {
                t.updated
            };
            task["lastUpdatedAt"] = json!(self.stamp(updated, view));
        }
        if !(view == View::Get && f.has(Fault::GetOmitsTtl)) {
            task["ttl"] = json!(t.ttl_ms);
        }
        if let (View::Get, true, Some(ttl)) = (view, f.has(Fault::GetReportsRemainingTtl), t.ttl_ms)
        {
            let lived = (time::OffsetDateTime::now_utc() - t.created).whole_milliseconds();
            task["ttl"] = json!(ttl.saturating_sub(lived.max(1) as u64));
        }
        let poll_interval = match f.is(Variant::LongPollInterval) {
            true => 1500,
            false => store::POLL_INTERVAL_MS,
        };
        task["pollInterval"] = if f.has(Fault::PollIntervalString) {
            json!(poll_interval.to_string())
        } else {
            json!(poll_interval)
        };
        let always = f
            .is(Variant::StatusMessageAlways)
            .then(|| format!("The task is {}.", status.as_str()));
        if let Some(m) = t.status_message.clone().or(always) {
            task["statusMessage"] = json!(m);
        }
        task
    }

    /// A timestamp as this receiver writes it for a view (RFC 3339 unless a fault or a
    /// variant says otherwise).
    pub(super) fn stamp(&self, t: time::OffsetDateTime, view: View) -> String {
        let f = &self.faults;
        let t = match view != View::Create && f.is(Variant::MillisecondReads) {
            true => t
                .replace_nanosecond(t.millisecond() as u32 * 1_000_000)
                .unwrap_or(t),
            false => t,
        };
        let text = rfc3339(t);
        if f.has(Fault::TimestampsWithoutOffset) {
            return text.trim_end_matches('Z').to_string();
        }
        match view != View::Create && f.is(Variant::OffsetTimestamps) {
            true => format!("{}+00:00", text.trim_end_matches('Z')),
            false => text,
        }
    }
}
