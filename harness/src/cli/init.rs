//! `taskcheck init`: looks at a server, proposes which of its tools play the fixture roles, and
//! writes `taskcheck.yaml` (and a CI workflow that runs taskcheck's action, when its repository is
//! known), so that `taskcheck run` alone tests it.

use super::args::{LibraryArgs, SelectArgs, TargetArgs};
use super::target::profile_for;
use super::{parse_profile, selected_for, usage_error};
use mcp_taskcheck::calibration::{self, Observed};
use mcp_taskcheck::designs::Profile;
use mcp_taskcheck::fixtures::{self, Mapping};
use mcp_taskcheck::project::{self, Receiver};
use mcp_taskcheck::proposal::{self, Choice};
use mcp_taskcheck::runner::Limits;
use mcp_taskcheck::transport::ReceiverKind;
use mcp_taskcheck::{exit, inspect};
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Prints a line fitted to the reader's width, broken between words (a terminal would break
/// a long one inside a word).
macro_rules! say {
    ($($t:tt)*) => {
        print!(
            "{}",
            mcp_taskcheck::report::width::fit(
                &format!("{}\n", format!($($t)*)),
                mcp_taskcheck::report::width::stdout_width()
            )
        )
    };
}

/// What `init` takes.
#[derive(clap::Args, Clone)]
pub struct InitArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The design of Tasks: `2025-11-25` or `ext-tasks` (default: what the server speaks).
    #[arg(long, value_name = "NAME", value_parser = parse_profile)]
    pub profile: Option<Profile>,
    /// Write the files without asking.
    #[arg(short, long)]
    pub yes: bool,
    /// Overwrite taskcheck.yaml and the workflow if they exist.
    #[arg(long)]
    pub force: bool,
    /// The folder to write into.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Longest wait for each answer of the receiver, in ms (twice `run`'s default: `init` also
    /// waits for each tool it watches to end).
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Lets taskcheck call a tool that may destroy something (its annotations say
    /// `destructiveHint`, or its name says it deletes); repeat for more tools.
    #[arg(long, value_name = "NAME")]
    pub allow_tool: Vec<String>,
    /// The GitHub repository and ref holding taskcheck's action.yml (`OWNER/REPO@REF`), for
    /// the workflow's `uses:` line (default: where this build was released from, when known;
    /// without one, no workflow is written).
    #[arg(long, value_name = "OWNER/REPO@REF")]
    pub action: Option<String>,
}

/// Lists the server's tools, proposes the fixture mapping and writes the files when agreed.
pub async fn run(args: InitArgs) -> i32 {
    let t = &args.target;
    let receiver = match (&t.stdio, &t.url, &t.url_from) {
        (Some(v), _, _) => Receiver {
            key: "stdio",
            value: v,
        },
        (_, Some(v), _) => Receiver {
            key: "url",
            value: v,
        },
        (_, _, Some(v)) => Receiver {
            key: "url-from",
            value: v,
        },
        _ => usage_error("give the server with --stdio COMMAND, --url URL or --url-from COMMAND"),
    };
    // a workflow only where its `uses:` line can be true
    let action = args.action.clone().or_else(project::released_action);
    let mut files = vec![args.dir.join(project::FILE_NAME)];
    files.extend(action.iter().map(|_| args.dir.join(project::WORKFLOW)));
    if let Some(there) = files.iter().find(|f| f.exists() && !args.force) {
        usage_error(format!("{} exists: --force overwrites it", there.display()));
    }
    let wait = Duration::from_millis(args.timeout_ms);
    let limits = Limits {
        request: wait,
        scenario: wait,
        poll: wait,
        scale: 1.0,
    };
    let (profile, proposal) = with_target!(&args.target, 1.0, |c| {
        let profile = profile_for(&c, args.profile, &limits).await;
        let proposal = match mcp_taskcheck::runner::probe(&c, &limits, profile).await {
            Ok((info, tools)) => {
                let declared = proposal::Declared {
                    tasks: mcp_taskcheck::monitor::has_capability(
                        &info.capabilities,
                        profile.facts().task_tools_capability,
                    ),
                    negotiates: profile.negotiates_task_support(&info.capabilities),
                };
                if !declared.tasks {
                    say!(
                        "the server declares no Tasks under the {profile} design ({} absent): no tool plays a task role, and the rules for servers without Tasks are what a run judges",
                        profile.facts().task_tools_capability
                    );
                }
                print!("{}", tool_table(&tools));
                let roles = profile.fixture_roles();
                let mut proposal = proposal::propose(&roles, &tools, declared, &args.allow_tool);
                let offer = Offer {
                    tools: &tools,
                    roles: &roles,
                    negotiates: declared.negotiates,
                    allowed: &args.allow_tool,
                };
                let seen = calibrate(
                    &c,
                    profile,
                    &limits,
                    (&offer, &info.capabilities),
                    &mut proposal,
                )
                .await;
                quickest_for_many(&c, profile, &limits, &offer, seen, &mut proposal).await;
                Ok((proposal, info.capabilities, tools))
            }
            Err(e) => Err(e),
        };
        (profile, proposal)
    });
    let (proposal, capabilities, tools) = match proposal {
        Ok(found) => found,
        Err(e) => {
            eprintln!("taskcheck: cannot list the server's tools: {e}");
            return exit::HARNESS;
        }
    };
    say!("\nfixture roles (`taskcheck list --fixtures` says what each must do):");
    for (role, choice) in &proposal {
        let line = match choice {
            Choice::Itself => "played by the tool of that name".to_string(),
            Choice::Mapped(m) => format!(
                "played by {:?} with arguments {}{}{}",
                m.tool,
                m.arguments.clone().unwrap_or_default(),
                m.duration_ms
                    .map(|ms| format!(", working {ms} ms whatever it is given (measured)"))
                    .unwrap_or_default(),
                m.many_tasks
                    .as_ref()
                    .map(|q| format!(
                        "; the steps that make many tasks call {:?}, which completed sooner{}",
                        q.tool,
                        q.duration_ms
                            .map(|ms| format!(" ({ms} ms)"))
                            .unwrap_or_default()
                    ))
                    .unwrap_or_default()
            ),
            Choice::Unplayed(why) => format!("unplayed: {why}"),
        };
        say!("  {role:<16} {line}");
    }
    // what the run will leave out: the unplayed roles, and the calls a played role's tool
    // answers otherwise than the role does (a plain call of a `required` tool)
    let negotiates = profile.negotiates_task_support(&capabilities);
    let mut left = inspect::Left::default();
    for (role, choice) in &proposal {
        let tool = match choice {
            Choice::Unplayed(_) => {
                left.unplayed.insert(role.to_string());
                continue;
            }
            Choice::Itself => role.to_string(),
            Choice::Mapped(m) => m.tool.clone(),
        };
        let listed = tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(&tool));
        let declared = listed.and_then(fixtures::declared_support);
        for task in [false, true] {
            left.calls_left_out(role, &tool, declared, task, negotiates);
        }
    }
    let library = LibraryArgs {
        scenarios: None,
        profile: Some(profile),
    };
    // the rules that apply here: none of another transport's, nor of two credentials
    let transport = match t.stdio {
        Some(_) => "stdio",
        None => "http",
    };
    let scenarios: Vec<_> = selected_for(&library, &SelectArgs::default(), ReceiverKind::Server)
        .into_iter()
        .filter(|s| s.requires.transport.is_none_or(|t| t.as_str() == transport))
        .filter(|s| !s.requires.distinct_auth)
        .filter(|s| applies(s, &capabilities))
        .collect();
    match inspect::left_by_role(&left, &scenarios) {
        None => say!(
            "every rule of the {profile} profile that applies over {transport} has a scenario whose tools are played (`taskcheck run` says how many it judged)"
        ),
        Some(left) => say!("left untestable until a tool plays what they need: {left}"),
    }
    let roles = proposal::mapped(&proposal);
    let kept = project::relative_to(receiver.value, &args.dir);
    let receiver = Receiver {
        value: &kept,
        ..receiver
    };
    let mut texts = vec![project::render(&receiver, profile, &roles)];
    texts.extend(action.iter().map(|a| project::workflow(&receiver, a)));
    for path in project::outside_paths(receiver.value) {
        say!(
            "note: the server command names {path}, outside this folder: a CI machine that checks out the repository may not have it"
        );
    }
    match args.yes || agreed(&files).unwrap_or_else(|| {
        usage_error("no answer on stdin to whether to write (no terminal to ask): nothing written; `--yes` writes without asking")
    }) {
        true => {}
        false => {
            say!("nothing written");
            return exit::CONFORMANT;
        }
    }
    for (file, text) in files.iter().zip(texts) {
        if let Err(e) = write(file, &text) {
            eprintln!("taskcheck: cannot write {}: {e}", file.display());
            return exit::HARNESS;
        }
        say!("wrote {}", file.display());
    }
    if action.is_none() {
        say!(
            "no CI workflow written: this build of taskcheck does not know where its GitHub \
             Action is published; `--action OWNER/REPO@REF` (a repository holding taskcheck's \
             action.yml) writes one"
        );
    }
    say!(
        "next: `taskcheck run` in {} tests the server with these settings",
        args.dir.display()
    );
    exit::CONFORMANT
}

/// Whether a scenario applies to a server that declares `capabilities` (it needs none it
/// lacks, and it is not one for servers without one it has).
fn applies(scenario: &mcp_taskcheck::scenario::Scenario, capabilities: &Value) -> bool {
    let has = |c: &String| mcp_taskcheck::monitor::has_capability(capabilities, c);
    scenario.requires.capabilities.iter().all(has)
        && !scenario.requires.absent_capabilities.iter().any(has)
}

/// The most tools `init` calls as a task to find one that plays a role.
const TRIES_PER_ROLE: usize = 4;

/// Calls each tool proposed for a role a task can show (`calibration::CALIBRATED`) once as a
/// task, where the server serves tasks and the tool allows them: one that does what the role
/// does plays it (a sleep role's tool that takes no duration with the duration measured).
/// One that does anything else (asks for input, fails, never ends) does not, and the next
/// candidate is tried, best evidence first, up to [`TRIES_PER_ROLE`] calls; a role none plays
/// is unplayed, with what each try did. Each distinct call is made once.
async fn calibrate<C: mcp_taskcheck::transport::Connect>(
    connector: &C,
    profile: Profile,
    limits: &Limits,
    server: (&Offer<'_>, &Value),
    proposal: &mut std::collections::BTreeMap<&'static str, Choice>,
) -> Seen {
    let (offer, capabilities) = server;
    let mut seen = Seen::default();
    if !mcp_taskcheck::monitor::has_capability(capabilities, profile.facts().task_tools_capability)
    {
        return seen;
    }
    let negotiates = profile.negotiates_task_support(capabilities);
    say!("calling each proposed tool once as a task, to see it does what its role does (up to {TRIES_PER_ROLE} tools a role, the next best where one does something else)");
    let calls_as_task = |mapping: &Mapping| {
        let tool = offer
            .tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(&mapping.tool));
        !negotiates || fixtures::allows(tool.and_then(fixtures::declared_support), true)
    };
    for (role, choice) in proposal.iter_mut() {
        let Choice::Mapped(proposed) = choice else {
            continue;
        };
        if !calibration::CALIBRATED.contains(role) || !calls_as_task(proposed) {
            continue;
        }
        // the proposed tool first, then the others that may play the role, best first
        let mut tries = vec![proposed.clone()];
        tries.extend(
            proposal::candidates(
                role,
                offer.tools,
                offer.roles,
                offer.negotiates,
                offer.allowed,
            )
            .into_iter()
            .filter(|m| m.tool != proposed.tool && calls_as_task(m)),
        );
        let mut failed = Vec::new();
        let mut played = None;
        for mapping in tries.into_iter().take(TRIES_PER_ROLE) {
            let call = match calibration::call_for(role, &mapping) {
                Ok(call) => call,
                Err(e) => {
                    failed.push(format!("{:?}: {e}", mapping.tool));
                    continue;
                }
            };
            let did = watch_call(connector, limits, profile, &mapping.tool, call, &mut seen)
                .await
                .and_then(|did| {
                    calibration::plays(role, &did)?;
                    Ok(did)
                });
            match did {
                Ok(did) => {
                    played = Some(Mapping {
                        duration_ms: proposal::needs_duration(role, &mapping)
                            .then_some(did.took.as_millis() as u64),
                        ..mapping
                    });
                    break;
                }
                Err(e) => failed.push(format!(
                    "{:?} does not do what {role} does: called once as a task it {e}",
                    mapping.tool
                )),
            }
        }
        *choice = match played {
            Some(mapping) => {
                if !failed.is_empty() {
                    say!(
                        "  {role}: played by {:?} after {} other try(s)",
                        mapping.tool,
                        failed.len()
                    );
                }
                Choice::Mapped(mapping)
            }
            None => Choice::Unplayed(failed.join("; ")),
        };
    }
    seen
}

/// What each distinct call did, watched once.
type Seen = std::collections::BTreeMap<String, Result<Observed, String>>;

/// What one call as a task did, watched once per distinct call (`seen`), saying so.
async fn watch_call<C: mcp_taskcheck::transport::Connect>(
    connector: &C,
    limits: &Limits,
    profile: Profile,
    tool: &str,
    call: Value,
    seen: &mut Seen,
) -> Result<Observed, String> {
    let key = call.to_string();
    if !seen.contains_key(&key) {
        say!("watching {tool:?}: one call as a task, to learn what it does");
        let did = mcp_taskcheck::runner::observe_task(connector, limits, profile, call).await;
        if let Ok(did) = &did {
            say!("  it {}", did.describe());
        }
        seen.insert(key.clone(), did);
    }
    seen[&key].clone()
}

/// What decides which tools may play a role: the server's tools, the fixture roles, whether
/// the server negotiates taskSupport, and the tools the user allows.
struct Offer<'a> {
    tools: &'a [Value],
    roles: &'a [&'static str],
    negotiates: bool,
    allowed: &'a [String],
}

/// The role whose calls the steps that make many tasks repeat.
const MANY_ROLE: &str = "optional_sleep";
/// The most other tools `init` calls to find a quicker one for those steps.
const MANY_CANDIDATES: usize = 4;

/// Where the many-task steps' role is played by a tool that works a fixed time, watches the
/// other tools that may play it (a few, each once) and gives the role the quickest that
/// completes as a task sooner as its `many-tasks` tool: a run then asks that much less of
/// the server's work.
async fn quickest_for_many<C: mcp_taskcheck::transport::Connect>(
    connector: &C,
    profile: Profile,
    limits: &Limits,
    many: &Offer<'_>,
    mut seen: Seen,
    proposal: &mut std::collections::BTreeMap<&'static str, Choice>,
) {
    let Some(Choice::Mapped(chosen)) = proposal.get(MANY_ROLE) else {
        return;
    };
    let Some(fixed) = chosen.duration_ms else {
        return;
    };
    let others = proposal::others_for(
        MANY_ROLE,
        &chosen.tool,
        many.tools,
        many.roles,
        many.negotiates,
        many.allowed,
    );
    let mut best: Option<(u64, Mapping)> = None;
    for other in others.into_iter().take(MANY_CANDIDATES) {
        let Ok(call) = calibration::call_for(MANY_ROLE, &other) else {
            continue;
        };
        let Ok(did) = watch_call(connector, limits, profile, &other.tool, call, &mut seen).await
        else {
            continue;
        };
        let took = did.took.as_millis() as u64;
        let quicker = took < best.as_ref().map_or(fixed, |(ms, _)| *ms);
        if calibration::plays(MANY_ROLE, &did).is_ok() && quicker {
            let duration_ms = proposal::needs_duration(MANY_ROLE, &other).then_some(took);
            best = Some((
                took,
                Mapping {
                    duration_ms,
                    ..other
                },
            ));
        }
    }
    if let (Some((_, quick)), Some(Choice::Mapped(chosen))) = (best, proposal.get_mut(MANY_ROLE)) {
        chosen.many_tasks = Some(Box::new(quick));
    }
}

/// The server's tools, a line each: name, `execution.taskSupport`, arguments (required ones
/// marked `*`).
fn tool_table(tools: &[Value]) -> String {
    let mut out = format!("the server lists {} tool(s):\n", tools.len());
    for tool in tools {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        let support = fixtures::declared_support(tool).unwrap_or("(none)");
        let required = proposal::required(tool);
        let arguments: Vec<String> = tool
            .pointer("/inputSchema/properties")
            .and_then(Value::as_object)
            .map(|p| {
                p.keys()
                    .map(|k| match required.contains(&k.as_str()) {
                        true => format!("{k}*"),
                        false => k.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "  {name:<24} taskSupport {support:<10} arguments: {}\n",
            arguments.join(", ")
        ));
    }
    out
}

/// Asks on the terminal whether to write the files; anything but `y` (or no answer) is no.
fn agreed(files: &[PathBuf]) -> Option<bool> {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    print!("\nwrite {}? [y/N] ", names.join(" and "));
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    // no answer at all (stdin closed, as in a script without a terminal) is not a no
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(matches!(answer.trim(), "y" | "Y" | "yes")),
    }
}

/// Writes a file, making its folder first.
fn write(file: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(file, text)
}
