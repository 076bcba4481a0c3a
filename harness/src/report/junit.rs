//! JUnit XML: a test suite per scenario and a test case per check (not per scenario).

use super::{FailOn, Outcome, RunReport};
use crate::designs::Profile;
use crate::spec;
use crate::verdict::{Check, Verdict};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use std::collections::HashMap;

/// A failure (or error) with its message and the spec link as description.
fn non_success(kind: NonSuccessKind, c: &Check) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    if let TestCaseStatus::NonSuccess {
        message,
        ty,
        description,
        ..
    } = &mut status
    {
        *message = Some(c.message.as_str().into());
        *ty = Some(c.verdict.label().into());
        let link = spec::rule(&c.rule).map(Profile::link).unwrap_or_default();
        let mut text = format!("{}\n{link}", c.message);
        if let (Some(e), Some(a)) = (&c.expected, &c.actual) {
            text.push_str(&format!("\nexpected: {e}\nactual:   {a}"));
        }
        *description = Some(text.into());
    }
    status
}

fn skipped(why: String) -> TestCaseStatus {
    let mut status = TestCaseStatus::skipped();
    if let TestCaseStatus::Skipped { message, .. } = &mut status {
        *message = Some(why.into());
    }
    status
}

impl RunReport {
    /// The folded sessions as one suite with a test case per rule, failing when any of its
    /// folded checks fails the run.
    fn folded_suite(&self, outcome: &Outcome) -> TestSuite {
        let mut suite = TestSuite::new("folded sessions");
        for (rule, counts) in &self.folded.checks {
            let text = format!(
                "{} over {} folded session(s)",
                self.folded.counts_text(rule),
                self.folded.sessions
            );
            let status = if self.folded.unexpected(rule, outcome) > 0 {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                if let TestCaseStatus::NonSuccess { message, .. } = &mut status {
                    *message = Some(text.as_str().into());
                }
                status
            } else if counts.contains_key(&Verdict::Error) {
                TestCaseStatus::non_success(NonSuccessKind::Error)
            } else {
                TestCaseStatus::success()
            };
            let mut case = TestCase::new(rule.as_str(), status);
            case.set_classname("taskcheck.folded");
            case.set_system_out(text);
            suite.add_test_case(case);
        }
        suite
    }

    /// The JUnit XML document.
    pub fn junit(&self, outcome: &Outcome) -> String {
        let mut report = Report::new("taskcheck");
        report.set_time(self.duration);
        for s in &self.scenarios {
            let mut suite = TestSuite::new(s.id.as_str());
            suite.set_time(s.duration);
            let mut seen: HashMap<&str, usize> = HashMap::new();
            for c in &s.checks {
                let n = seen.entry(c.rule.as_str()).or_default();
                *n += 1;
                let name = match *n {
                    1 => c.rule.clone(),
                    n => format!("{} #{n}", c.rule),
                };
                let expected = outcome.fails(c) && outcome.is_expected(&s.id, c);
                let status = match c.verdict {
                    _ if expected => skipped(format!(
                        "expected failure listed in the baseline: {}",
                        c.message
                    )),
                    Verdict::Fail => non_success(NonSuccessKind::Failure, c),
                    Verdict::Warn if outcome.fail_on == FailOn::Should => {
                        non_success(NonSuccessKind::Failure, c)
                    }
                    Verdict::Error => non_success(NonSuccessKind::Error, c),
                    Verdict::NotApplicable | Verdict::Untestable | Verdict::Consequence => {
                        skipped(format!("{}: {}", c.verdict.label(), c.explained()))
                    }
                    Verdict::Pass | Verdict::Info | Verdict::Warn => TestCaseStatus::success(),
                };
                let mut case = TestCase::new(name, status);
                case.set_classname(format!("taskcheck.{}", s.id));
                case.set_system_out(format!("{}: {}", c.verdict.label(), c.explained()));
                suite.add_test_case(case);
            }
            if let Some(e) = &s.error {
                suite.set_system_err(e.as_str());
            }
            report.add_test_suite(suite);
        }
        if self.folded.sessions > 0 {
            report.add_test_suite(self.folded_suite(outcome));
        }
        report
            .to_string()
            .unwrap_or_else(|e| format!("<!-- cannot write JUnit: {e} -->"))
    }
}
