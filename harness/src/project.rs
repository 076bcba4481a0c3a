//! `taskcheck.yaml`: a project's receiver, profile, fixture mapping, baseline and reports, so
//! that in CI `taskcheck run` needs no flags. `taskcheck run` reads it from the working
//! directory (or `--config FILE`); a flag given on the command line wins over the file.
//! `taskcheck init` writes it.

use crate::bad_input::BadInput;
use crate::designs::Profile;
use crate::fixtures::{FixtureMap, Mapping};
use crate::report::{FailOn, Require};
use crate::yaml::{self, line_of_key};
use clap::ValueEnum;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file `taskcheck run` looks for in the working directory.
pub const FILE_NAME: &str = "taskcheck.yaml";

/// What a `taskcheck.yaml` says; paths in it are relative to the file's folder.
#[derive(Debug, Default)]
pub struct Project {
    /// The file read, for messages.
    pub file: PathBuf,
    pub stdio: Option<String>,
    pub url: Option<String>,
    pub url_from: Option<String>,
    pub headers: Vec<String>,
    pub profile: Option<Profile>,
    pub fixtures: FixtureMap,
    pub expected_failures: Option<PathBuf>,
    pub fail_on: Option<FailOn>,
    pub require_judged: Option<Require>,
    pub timeout_scale: Option<f64>,
    pub reports: Reports,
}

/// Where the reports go (each as the `--report-*` flag of the same name).
#[derive(Debug, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Reports {
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub md: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub checks_json: Option<PathBuf>,
}

/// The file as written, before its values are checked.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Written {
    stdio: Option<String>,
    url: Option<String>,
    url_from: Option<String>,
    #[serde(default)]
    headers: Vec<String>,
    profile: Option<String>,
    #[serde(default)]
    fixtures: BTreeMap<String, Mapping>,
    expected_failures: Option<PathBuf>,
    fail_on: Option<String>,
    /// `all` or a number of rules (YAML reads the number as one).
    require_judged: Option<serde_json::Value>,
    timeout_scale: Option<f64>,
    #[serde(default)]
    reports: Reports,
}

impl Project {
    /// The project file to use: `explicit` (which must exist), else `taskcheck.yaml` in the
    /// working directory if there is one.
    pub fn find(explicit: Option<&Path>) -> Result<Option<Project>, BadInput> {
        match explicit {
            Some(path) => Project::load(path).map(Some),
            None if Path::new(FILE_NAME).is_file() => Project::load(Path::new(FILE_NAME)).map(Some),
            None => Ok(None),
        }
    }

    /// Reads and checks a project file; an error is `file:line:column: cause`.
    pub fn load(path: &Path) -> Result<Project, BadInput> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| BadInput::unreadable(&path.display().to_string(), &e))?;
        Project::parse(&text, path)
    }

    /// Checks a project file's text, read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Project, BadInput> {
        let file = path.display().to_string();
        let at = |key: &str, cause: String| BadInput::at(&file, line_of_key(text, key), 1, cause);
        let written: Written = match text.trim().is_empty() {
            true => {
                let cause = "empty: give the receiver at least (`stdio: COMMAND` or `url: URL`)";
                return Err(BadInput::at(&file, 1, 1, cause));
            }
            false => yaml::from_str(text, &file)?,
        };
        let receivers = [&written.stdio, &written.url, &written.url_from];
        if receivers.iter().filter(|r| r.is_some()).count() > 1 {
            let key = ["url-from", "url", "stdio"]
                .into_iter()
                .zip([&written.url_from, &written.url, &written.stdio])
                .find(|(_, r)| r.is_some())
                .map(|(k, _)| k)
                .unwrap_or("stdio");
            return Err(at(
                key,
                "give one receiver: `stdio`, `url` or `url-from`".into(),
            ));
        }
        let profile = match &written.profile {
            Some(name) => Some(Profile::by_name(name).ok_or_else(|| {
                let names: Vec<&str> = Profile::ALL.iter().map(|p| p.name()).collect();
                at(
                    "profile",
                    format!("no profile {name:?} (one of {})", names.join(", ")),
                )
            })?),
            None => None,
        };
        let fail_on = match &written.fail_on {
            Some(level) => Some(FailOn::from_str(level, true).map_err(|_| {
                at(
                    "fail-on",
                    format!("fail-on is `must` or `should`, not {level:?}"),
                )
            })?),
            None => None,
        };
        let require_judged = match &written.require_judged {
            Some(value) => {
                let text = value
                    .as_str()
                    .map(String::from)
                    .unwrap_or(value.to_string());
                Some(
                    text.parse::<Require>()
                        .map_err(|e| at("require-judged", e))?,
                )
            }
            None => None,
        };
        if let Some(scale) = written.timeout_scale {
            if !(scale.is_finite() && scale > 0.0) {
                return Err(at(
                    "timeout-scale",
                    format!("timeout-scale must be a positive number, not {scale}"),
                ));
            }
        }
        let roles = crate::designs::Profile::fixture_roles();
        let fixtures = FixtureMap::checked(written.fixtures, text, &file, &roles)?;
        // paths are the file's, wherever taskcheck runs
        let base = path.parent().unwrap_or(Path::new(""));
        let near = |p: Option<PathBuf>| p.map(|p| base.join(p));
        Ok(Project {
            file: path.to_path_buf(),
            stdio: written.stdio,
            url: written.url,
            url_from: written.url_from,
            headers: written.headers,
            profile,
            fixtures,
            expected_failures: near(written.expected_failures),
            fail_on,
            require_judged,
            timeout_scale: written.timeout_scale,
            reports: Reports {
                json: near(written.reports.json),
                junit: near(written.reports.junit),
                md: near(written.reports.md),
                html: near(written.reports.html),
                checks_json: near(written.reports.checks_json),
            },
        })
    }
}

/// Where `taskcheck init` writes the CI workflow, beside `taskcheck.yaml`.
pub const WORKFLOW: &str = ".github/workflows/taskcheck.yml";

/// The receiver a project file names: the key (`stdio`, `url` or `url-from`) and its value.
pub struct Receiver<'a> {
    pub key: &'static str,
    pub value: &'a str,
}

/// A receiver's command or URL as `taskcheck.yaml` keeps it: the project folder's absolute
/// path (`dir`, where `taskcheck run` will run) made relative, so the file works on any
/// machine that checks the project out.
pub fn relative_to(value: &str, dir: &Path) -> String {
    let Some(dir) = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.to_str().map(String::from))
    else {
        return value.to_string();
    };
    let mut out = value.replace(&format!("{dir}/"), "");
    // the folder itself, standing alone as an argument
    let words: Vec<String> = out
        .split(' ')
        .map(|w| {
            if w == dir {
                ".".to_string()
            } else {
                w.to_string()
            }
        })
        .collect();
    out = words.join(" ");
    out
}

/// The paths a server command (as `taskcheck.yaml` keeps it, relative to its folder where it
/// can be) names outside that folder: absolute ones, but for the system's own (`/usr`,
/// `/bin`), and ones that climb out with `..`. A CI checkout may not have them.
pub fn outside_paths(command: &str) -> Vec<&str> {
    let system = ["/usr/", "/bin/", "/dev/"];
    command
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
        .filter(|w| {
            let absolute = w.starts_with('/') && !system.iter().any(|s| w.starts_with(s));
            absolute || w.starts_with('~') || w.starts_with("../") || w.contains("/../")
        })
        .collect()
}

/// A `taskcheck.yaml` for this receiver, profile and fixture roles (`(role, tool, arguments)`),
/// with comments that say what each part does.
pub fn render(receiver: &Receiver, profile: Profile, roles: &[(&str, &Mapping)]) -> String {
    // JSON strings and objects are YAML flow scalars and mappings
    let quoted = |s: &str| serde_json::Value::from(s).to_string();
    let mut out = String::from(
        "# taskcheck.yaml: what `taskcheck run` reads from this folder (written by `taskcheck init`;\n\
         # docs/testing-servers.md#taskcheckyaml). A flag given to `taskcheck run` wins over it.\n",
    );
    out.push_str(&format!("{}: {}\n", receiver.key, quoted(receiver.value)));
    out.push_str(&format!("profile: {}\n", profile.name()));
    if roles.is_empty() {
        out.push_str("# fixtures: the server's own tools that play fixture roles (none needed: each role is\n# played by the tool of its name, or stays untestable)\n");
    } else {
        out.push_str("# the server's own tools that play fixture roles (`taskcheck list --fixtures` says what each\n# role must do); a role left out is played by the tool of its name, or stays untestable\nfixtures:\n");
        for (role, mapping) in roles {
            out.push_str(&format!("  {role}:\n    tool: {}\n", quoted(&mapping.tool)));
            if let Some(arguments) = &mapping.arguments {
                out.push_str(&format!("    arguments: {arguments}\n"));
            }
            if let Some(ms) = mapping.duration_ms {
                out.push_str(&format!(
                    "    duration-ms: {ms}   # measured: it works this long whatever it is given\n"
                ));
            }
            if let Some(quick) = &mapping.many_tasks {
                out.push_str(&format!(
                    "    # the steps that make many tasks (12, 100, 200) call the quickest tool that plays the role\n    many-tasks: {{tool: {}, arguments: {}{}}}\n",
                    quoted(&quick.tool),
                    quick.arguments.clone().unwrap_or_default(),
                    quick.duration_ms.map(|ms| format!(", duration-ms: {ms}")).unwrap_or_default()
                ));
            }
        }
    }
    out.push_str(
        "# known failures that do not fail the run (docs/reports-and-ci.md#baselines)\n\
         # expected-failures: taskcheck-baseline.yaml\n\
         # fail-on: should          # also fail on SHOULD-level rules\n\
         # require-judged: all      # exit 4 when a run leaves an applicable rule unjudged (or a number of rules)\n\
         # timeout-scale: 2         # a slow server or a busy CI machine\n\
         reports:\n  json: taskcheck-report.json\n  junit: taskcheck-junit.xml\n  html: taskcheck-report.html\n",
    );
    out
}

/// The action of the repository this build was released from (`OWNER/REPO@vVERSION`), when
/// its manifest names one on GitHub.
pub fn released_action() -> Option<String> {
    let repository = option_env!("CARGO_PKG_REPOSITORY")?;
    let slug = repository
        .strip_prefix("https://github.com/")?
        .trim_end_matches('/');
    Some(format!("{slug}@v{}", env!("CARGO_PKG_VERSION")))
}

/// A GitHub Actions workflow that runs taskcheck's action (`action`, `OWNER/REPO@REF`) with
/// this folder's taskcheck.yaml on every push and pull request: the Markdown report on the
/// job's page, the others kept as an artifact.
pub fn workflow(receiver: &Receiver, action: &str) -> String {
    let start = match receiver.key {
        "url" => "      # start your server here, in the background, listening where taskcheck.yaml's url says\n",
        _ => "",
    };
    format!(
        "# Runs taskcheck against this server on every push and pull request (written by\n\
         # `taskcheck init`; its settings are in taskcheck.yaml).\n\
         name: taskcheck\n\
         on: [push, pull_request]\n\
         jobs:\n\
         \x20 taskcheck:\n\
         \x20   runs-on: ubuntu-latest\n\
         \x20   steps:\n\
         \x20     - uses: actions/checkout@v4\n\
         \x20     # taskcheck's build, kept between runs (the action builds it when this is empty)\n\
         \x20     - uses: actions/cache@v4\n\
         \x20       with:\n\
         \x20         path: ~/.cache/taskcheck-action\n\
         \x20         key: taskcheck-${{{{ runner.os }}}}-{action}\n\
         \x20     # install what your server needs to start here\n\
         {start}\
         \x20     - uses: {action}\n\
         \x20       with:\n\
         \x20         config: taskcheck.yaml\n\
         \x20     - uses: actions/upload-artifact@v4\n\
         \x20       if: always()\n\
         \x20       with:\n\
         \x20         name: taskcheck-reports\n\
         \x20         path: |\n\
         \x20           taskcheck-reports\n\
         \x20           taskcheck-*\n",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Project, String> {
        Project::parse(text, Path::new("dir/taskcheck.yaml")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_project_file_gives_every_setting_with_paths_beside_it() {
        let p = parse(
            "stdio: python3 server.py\nprofile: 2025-11-25\nfail-on: should\ntimeout-scale: 2\nrequire-judged: 12\n\
             fixtures:\n  optional_sleep:\n    tool: slow_job\n    arguments: {duration_ms: \"${ms}\"}\n\
             expected-failures: baseline.yaml\nreports:\n  json: out/report.json\n",
        )
        .unwrap();
        assert_eq!(p.stdio.as_deref(), Some("python3 server.py"));
        assert_eq!(p.profile, Some(crate::designs::TASKS_2025));
        assert_eq!(p.fail_on, Some(FailOn::Should));
        assert_eq!(p.timeout_scale, Some(2.0));
        assert_eq!(p.require_judged, Some(Require::Rules(12)));
        assert_eq!(
            parse("stdio: s\nrequire-judged: all\n")
                .unwrap()
                .require_judged,
            Some(Require::All)
        );
        let e = parse("stdio: s\nrequire-judged: most\n").unwrap_err();
        assert!(e.starts_with("dir/taskcheck.yaml:2:1: "), "{e}");
        assert_eq!(p.fixtures.tool_name("optional_sleep"), "slow_job");
        assert_eq!(
            p.expected_failures,
            Some(PathBuf::from("dir/baseline.yaml"))
        );
        assert_eq!(p.reports.json, Some(PathBuf::from("dir/out/report.json")));
    }

    /// Every design's roles may be mapped, the extension's own among them.
    #[test]
    fn the_extension_s_roles_may_be_mapped() {
        let p = parse(
            "stdio: s\nprofile: ext-tasks\nfixtures:\n  elicit_pair:\n    tool: ask_two\n  \
             confirm_first:\n    tool: confirm\n",
        )
        .unwrap();
        assert!(p.fixtures.maps("elicit_pair") && p.fixtures.maps("confirm_first"));
        assert!(parse("stdio: s\nfixtures:\n  no_role:\n    tool: x\n").is_err());
    }

    #[test]
    fn paths_a_ci_checkout_may_lack_are_named() {
        assert_eq!(
            outside_paths("/home/me/.venv/bin/python server.py --db ../data/x.db"),
            ["/home/me/.venv/bin/python", "../data/x.db"]
        );
        assert!(outside_paths("/usr/bin/python3 server.py ./run.sh").is_empty());
    }

    #[test]
    fn a_rendered_project_file_reads_back_as_written() {
        let mapping = Mapping {
            tool: "slow \"job\"".into(),
            arguments: Some(serde_json::json!({"delay_ms": "${ms}", "tag": "a: b"})),
            duration_ms: Some(1500),
            many_tasks: Some(Box::new(Mapping {
                tool: "quick \"check\"".into(),
                arguments: Some(serde_json::json!({"q": "Q1"})),
                duration_ms: Some(90),
                many_tasks: None,
            })),
        };
        let receiver = Receiver {
            key: "url-from",
            value: "python3 server.py --http # not a comment",
        };
        let text = render(
            &receiver,
            crate::designs::EXT_TASKS,
            &[("optional_sleep", &mapping)],
        );
        let p = Project::parse(&text, Path::new("taskcheck.yaml")).unwrap();
        assert_eq!(p.url_from.as_deref(), Some(receiver.value));
        assert_eq!(p.profile, Some(crate::designs::EXT_TASKS));
        assert_eq!(
            p.fixtures,
            FixtureMap::checked(
                [("optional_sleep".to_string(), mapping)].into(),
                "",
                "",
                &["optional_sleep"]
            )
            .unwrap()
        );
        assert_eq!(p.reports.junit, Some(PathBuf::from("taskcheck-junit.xml")));
        let text = workflow(&receiver, "someone/taskcheck@v1");
        let doc: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        let steps = &doc["jobs"]["taskcheck"]["steps"];
        assert_eq!(steps[2]["uses"], "someone/taskcheck@v1");
        assert_eq!(steps[2]["with"]["config"], "taskcheck.yaml");
    }

    #[test]
    fn a_broken_project_file_names_its_line() {
        for (text, line, cause) in [
            ("stdio: a\nprofil: x\n", 2, "unknown field"),
            ("stdio: a\nprofile: 2024\n", 2, "no profile \"2024\""),
            ("stdio: a\nurl: http://x/\n", 2, "give one receiver"),
            (
                "stdio: a\nfail-on: may\n",
                2,
                "fail-on is `must` or `should`",
            ),
            (
                "url: u\ntimeout-scale: 0\n",
                2,
                "timeout-scale must be a positive number",
            ),
            (
                "stdio: a\nfixtures:\n  sleeper:\n    tool: b\n",
                3,
                "unknown fixture role",
            ),
            ("stdio: [a\n", 1, ""),
        ] {
            let e = parse(text).unwrap_err();
            assert!(
                e.starts_with(&format!("dir/taskcheck.yaml:{line}:")),
                "{text:?}: {e}"
            );
            assert!(e.contains(cause), "{text:?}: {e}");
        }
    }

    #[test]
    fn the_project_folder_is_kept_relative() {
        let dir = std::env::temp_dir().canonicalize().unwrap();
        let at = dir.display();
        assert_eq!(
            relative_to(&format!("python3 {at}/server.py --root {at}"), &dir),
            "python3 server.py --root ."
        );
        assert_eq!(
            relative_to("node /elsewhere/s.mjs", &dir),
            "node /elsewhere/s.mjs"
        );
    }
}
