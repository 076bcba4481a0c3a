#!/usr/bin/env python3
"""Compares the official conformance suite's verdicts with taskcheck's on the same servers
(interop/calibrate.sh ran both) and writes reports/calibration.md.

    interop/calibrate.py RUNS            compare: exit 1 on a disagreement that
                                         interop/calibration.txt does not explain
    interop/calibrate.py RUNS --update   also rewrite reports/calibration.md

RUNS holds one folder per server (`reference`, `fault-<name>`, `variant-<name>`,
`rust-rmcp-3.11.0-ext`), each with `official/<scenario>/checks.json` (the official suite) and
`taskcheck.json` (`taskcheck run --checks-json`, where a rule lists in `details.officialChecks`
the official checks that judge its requirement), plus `seconds.txt` (both tools' wall times) on
the servers run one scenario after the other.
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXPLAINED = ROOT / "interop" / "calibration.txt"
REPORT = ROOT / "reports" / "calibration.md"
OFFICIAL_VERSION = json.loads((ROOT / "interop" / "conformance" / "package.json").read_text())[
    "dependencies"
]["@modelcontextprotocol/conformance"]
# official checks that only report how the run started, not a requirement
BOOTSTRAP_SUFFIX = "-bootstrap"
# the runs of the official transport and lifecycle scenarios against a reference
TRANSPORT = "transport-"
# how verdicts read in the report
SHOWN = {"SUCCESS": "pass", "FAILURE": "FAIL", "CONSEQUENCE": "consequence", "WARNING": "warn", "INFO": "info", "SKIPPED": "skip"}


def official_checks(run):
    """{check id: (scenario, status, message)} of the official suite's run on one server."""
    checks = {}
    for path in sorted((run / "official").glob("*/checks.json")):
        scenario = path.parent.name
        for check in json.loads(path.read_text()):
            if check["id"].endswith(BOOTSTRAP_SUFFIX) and check["status"] == "SUCCESS":
                continue
            # every scenario has its own schema check: told apart by its scenario
            key = check["id"] if check["id"] != "wire-schema-valid" else f"wire-schema-valid/{scenario}"
            checks[key] = (scenario, check["status"], (check.get("errorMessage") or "").strip())
    return checks


def taskcheck_verdicts(run):
    """{official check id: (worst status, rules)} of taskcheck's run on one server: the rules
    that carry an official id, their verdicts folded worst first."""
    # a consequence is a failure taskcheck shows under the rule it follows from
    order = ["FAILURE", "CONSEQUENCE", "WARNING", "SUCCESS", "INFO", "SKIPPED"]
    verdicts = {}
    path = run / "taskcheck.json"
    if not path.exists():
        return verdicts
    for check in json.loads(path.read_text()):
        # a rule with no official counterpart has none
        mine = "CONSEQUENCE" if check["details"].get("verdict") == "consequence" else check["status"]
        for official in check["details"].get("officialChecks", []):
            status, rules = verdicts.get(official, ("SKIPPED", set()))
            rules.add(check["name"])
            if order.index(mine) < order.index(status):
                status = mine
            verdicts[official] = (status, rules)
    return verdicts


def agrees(official, ours):
    """Whether two verdicts on one requirement agree: both hold or both break it (a warning
    is a kind of holding, a skip says nothing)."""
    if official in ("INFO", "SKIPPED") or ours in ("INFO", "SKIPPED", "CONSEQUENCE", None):
        return True
    return (official == "FAILURE") == (ours == "FAILURE")


def explanations():
    """{(target, check): why} from interop/calibration.txt; target `*` is every server."""
    explained = {}
    for line in EXPLAINED.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        target, check, why = line.split(None, 2)
        explained[(target, check)] = why
    return explained


def explanation(explained, target, check, differs=False, official_fails=False):
    """Why a check differs on a server, or has no counterpart, if interop/calibration.txt
    says: a difference only by its own server's line, no counterpart also by a `*` line.
    `wire-schema-valid` explains every scenario's `wire-schema-valid/<scenario>`. A server's
    `*` check (a legal variant whose every official failure is the suite's, whichever check
    timing makes it hit) explains only an official FAILURE that taskcheck does not share."""
    for name in (check, check.split("/")[0]):
        why = explained.get((target, name)) or (None if differs else explained.get(("*", name)))
        if why:
            return why
    return explained.get((target, "*")) if official_fails else None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    update = "--update" in sys.argv
    runs = pathlib.Path(args[0])
    explained = explanations()
    every = sorted(p.name for p in runs.iterdir() if (p / "official").is_dir())
    targets = [t for t in every if not t.startswith(TRANSPORT)]
    rows, unexplained, seen_explained = {}, [], set()
    transports = {}
    for target in (t for t in every if t.startswith(TRANSPORT)):
        # no taskcheck side: every check must pass, or say why not
        for check, (scenario, status, message) in official_checks(runs / target).items():
            why = explanation(explained, target, check)
            if status in ("FAILURE", "WARNING") and not why:
                unexplained.append((target, check, status, "-", message))
            transports.setdefault(target, []).append((scenario, check, status, why, message))
    for target in targets:
        official = official_checks(runs / target)
        ours = taskcheck_verdicts(runs / target)
        for check, (scenario, status, message) in official.items():
            # taskcheck's one schema rule answers every scenario's wire-schema-valid
            mine, rules = ours.get(check) or ours.get(check.split("/")[0], (None, set()))
            ok = agrees(status, mine)
            official_fails = status == "FAILURE" and mine != "FAILURE"
            why = explanation(explained, target, check, differs=not ok, official_fails=official_fails)
            if not ok or mine is None:
                if why:
                    seen_explained.add((target, check))
                elif not ok:
                    unexplained.append((target, check, status, mine, message))
            rows.setdefault(target, []).append((scenario, check, status, mine, sorted(rules), ok, why, message))
    for target, check, status, mine, message in unexplained:
        print(
            f"UNEXPLAINED: {target}: official {check} is {status}, taskcheck {mine}: {message[:200]}"
            " (explain it in interop/calibration.txt, or fix taskcheck)"
        )
    if update:
        REPORT.write_text(render(runs, targets, rows) + render_transports(transports))
        print(f"wrote {REPORT.relative_to(ROOT)}")
    disagreements = sum(1 for t in rows.values() for r in t if not r[5])
    print(
        f"calibration: {len(targets)} server(s), {sum(len(t) for t in rows.values())} official verdicts,"
        f" {disagreements} disagreement(s), {len(unexplained)} unexplained"
    )
    return 1 if unexplained else 0


def render_transports(transports):
    out = [
        "## The reference servers under the official transport and lifecycle scenarios",
        "",
        "`taskcheck reference --http` of each profile, under the official scenarios of its revision"
        " (2026-07-28 ones with `--spec-version 2026-07-28`). Listed are the checks that did not"
        " pass, each with why.",
        "",
    ]
    for target, checks in sorted(transports.items()):
        scenarios = sorted({c[0] for c in checks})
        passed = sum(1 for c in checks if c[2] == "SUCCESS")
        out.append(
            f"- **{target.removeprefix(TRANSPORT)}** ({', '.join(scenarios)}): {passed} of {len(checks)} checks pass."
        )
        for scenario, check, status, why, message in checks:
            if status == "SKIPPED":
                out.append(f"  - `{check}` ({scenario}): skipped by the official suite: {message or 'nothing to exercise'}")
            elif status not in ("SUCCESS", "INFO"):
                out.append(f"  - `{check}` ({scenario}): {SHOWN.get(status, status)}. {why or 'UNEXPLAINED'}")
    out.append("")
    return "\n".join(out)


def seconds(run):
    """{tool: seconds} the run recorded."""
    path = run / "seconds.txt"
    if not path.exists():
        return {}
    return {k: float(v) for k, v in (line.split() for line in path.read_text().splitlines() if line.strip())}


def render(runs, targets, rows):
    out = [
        "# Calibration against the official conformance suite",
        "",
        "<!-- written by interop/calibrate.sh --update; CI runs interop/calibrate.sh, which fails on",
        "a disagreement that interop/calibration.txt does not explain -->",
        "",
        f"The official suite (`@modelcontextprotocol/conformance` {OFFICIAL_VERSION}) and taskcheck"
        " (`--profile ext-tasks`) ran against the same servers: taskcheck's extension reference over"
        " HTTP, clean, under every fault whose rule has an official counterpart, and under every"
        " legal variant; and the rmcp 3.11.0 fixture (`interop/rust-v3`). For every official"
        " `tasks-*` check, taskcheck's verdict is that of its rules that check the same requirement"
        " (the catalogue's `official:` field; `taskcheck explain RULE` shows it), folded worst"
        " first. Two verdicts agree when both hold or both break the requirement; a warning holds,"
        " a skip or info says nothing, and neither does a consequence (taskcheck shows a break"
        " that follows from another rule's failure under that rule: one defect, one failure).",
        "",
    ]
    total = sum(len(t) for t in rows.values())
    bad = [(t, r) for t in targets for r in rows[t] if not r[5]]
    out += [
        f"**{len(targets)} servers, {total} official verdicts, {total - len(bad)} agree, {len(bad)} differ"
        " (each explained below).**",
        "",
        "## Every official check, on the clean servers",
        "",
        "| official check | scenario | taskcheck rules | reference: official / taskcheck | rmcp 3.11.0: official / taskcheck |",
        "|---|---|---|---|---|",
    ]
    clean = [t for t in ("reference", "rust-rmcp-3.11.0-ext") if t in rows]
    by_check = {}
    for t in clean:
        for scenario, check, status, mine, rules, ok, why, message in rows[t]:
            entry = by_check.setdefault(check, {"scenario": scenario, "rules": set(), "why": why})
            entry["rules"].update(rules)
            entry[t] = (status, mine, ok)
    for check in sorted(by_check, key=lambda c: (by_check[c]["scenario"], c)):
        e = by_check[check]
        cells = []
        for t in ("reference", "rust-rmcp-3.11.0-ext"):
            if t not in e:
                cells.append("not run")
                continue
            status, mine, ok = e[t]
            mark = "" if ok else " **differ**"
            cells.append(f"{SHOWN.get(status, status)} / {SHOWN.get(mine, 'no counterpart') if mine else 'no counterpart'}{mark}")
        rules = ", ".join(f"`{r}`" for r in sorted(e["rules"])) or "none (below)"
        out.append(f"| `{check}` | {e['scenario'].removeprefix('server-').split('-2026')[0]} | {rules} | {cells[0]} | {cells[1]} |")
    out += ["", "## Each fault and variant of the reference", ""]
    out += [
        "A fault breaks one rule: both tools must fail the official checks of that rule, and only"
        " those. A legal variant breaks none: both tools must pass it. Listed are the official"
        " checks that did not pass on that server, with taskcheck's verdict beside.",
        "",
        "| server | official checks not passing (official / taskcheck) |",
        "|---|---|",
    ]
    for t in targets:
        if t in clean:
            continue
        failing = [
            f"`{check}` {SHOWN.get(status, status)} / {SHOWN.get(mine, '-') if mine else 'no counterpart'}" + ("" if ok else " **differ**")
            for scenario, check, status, mine, rules, ok, why, message in rows[t]
            if status not in ("SUCCESS", "INFO", "SKIPPED") or not ok
        ]
        out.append(f"| {t} | {'; '.join(failing) or 'every official check passes'} |")
    out += ["", "## Every difference, explained", ""]
    if not bad:
        out.append("None.")
    seen = set()
    for t, (scenario, check, status, mine, rules, ok, why, message) in bad:
        out.append(f"- **{t}**, `{check}`: official {SHOWN.get(status, status)}, taskcheck {SHOWN.get(mine, mine)}. {why or 'UNEXPLAINED'}")
        if message and (check, message) not in seen:
            seen.add((check, message))
            out.append(f"  - the official suite said: \"{message[:300]}\"")
    out += ["", "## Official checks without a taskcheck counterpart", ""]
    # every scenario's wire-schema-valid shares one line
    unmapped = sorted({(r[1].split("/")[0], r[6] or "") for t in clean for r in rows[t] if r[3] is None})
    for check, why in unmapped:
        shown = f"`{check}` (every scenario)" if check == "wire-schema-valid" else f"`{check}`"
        out.append(f"- {shown}: {why or 'UNEXPLAINED'}")
    times = {t: seconds(runs / t) for t in clean}
    out += ["", "## Time on the same work", ""]
    for t in clean:
        s = times[t]
        if "official" in s and "taskcheck" in s:
            out.append(
                f"- {t}: the official suite's ten `tasks-*` scenarios, one command each as its README runs"
                f" them, {s['official']:.1f} s; taskcheck's whole ext-tasks suite {s['taskcheck']:.1f} s"
                f" (ratio {s['official'] / max(s['taskcheck'], 0.001):.1f}x)."
            )
    out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
