"""Why every committed SDK verdict that is not a pass is what it is, as data
(reports/explanations.toml), checked both ways against the reports and against the prose of
reports/README.md.

An entry names an SDK (the section of reports/README.md after `<!-- sdk: NAME -->`), a rule, a
verdict, the configurations (report folders) and scenarios where that verdict shows, its origin
(`sdk`, `example`, `fixture` or `taskcheck`) and why; a failure or warning also quotes its spec
sentence (`spec`), a consequence names the rule it follows (`follows`). The checks:
- every check of a committed report (`report.json`, `fuzz-wire.json`, `explore/report.json`)
  whose verdict is fail, warn, error, untestable or consequence has an entry that names its
  configuration and scenario (and, for a consequence, its root);
- every entry is met: each configuration it names shows it in one of its scenarios, and each
  scenario it names shows it in one of its configurations;
- the prose agrees: every root an entry states (fail, warn) is claimed in bold in its SDK's
  section (**`rule` FAIL** or **`rule` warn**), and every such bold claim has its entry."""

import collections
import glob
import json
import pathlib
import re
import tomllib

import index_page

NON_PASS = ("fail", "warn", "error", "untestable", "consequence")
ORIGINS = ("sdk", "example", "fixture", "taskcheck")
CLAIM = re.compile(r"\*\*`([a-z0-9.\-]+)`\s+(FAIL|warn)\*\*")


def checks(root):
    """(configuration, scenario, rule, verdict, root rule or None) of every non-pass check."""
    out = set()
    patterns = ("*/report.json", "*/fuzz-wire.json", "*/explore/report.json")
    for pattern in patterns:
        for path in glob.glob(str(pathlib.Path(root) / pattern)):
            config = pathlib.Path(path).relative_to(root).parts[0]
            for scenario in json.loads(pathlib.Path(path).read_text()).get("scenarios", []):
                for check in scenario["checks"]:
                    if check["verdict"] in NON_PASS:
                        follows = (check.get("consequenceOf") or {}).get("rule")
                        out.add((config, scenario["id"], check["rule"], check["verdict"], follows))
    return out


def sections(text):
    """Each SDK's section of reports/README.md."""
    out = {}
    for part in text.split("<!-- sdk: ")[1:]:
        name, body = part.split(" -->", 1)
        out[name] = body.split("\n## ", 1)[0]
    return out


def problems(root="reports"):
    """What is wrong between reports/explanations.toml, the reports and reports/README.md."""
    data = tomllib.loads((pathlib.Path(root) / "explanations.toml").read_text())
    entries = data.get("explanation", [])
    out = []
    for i, e in enumerate(entries):
        where = f"explanations.toml entry {i + 1} ({e.get('sdk')} {e.get('rule')} {e.get('verdict')})"
        if e.get("origin") not in ORIGINS:
            out.append(f"{where}: origin must be one of {', '.join(ORIGINS)}")
        if e.get("verdict") not in NON_PASS:
            out.append(f"{where}: verdict must be one of {', '.join(NON_PASS)}")
        if e.get("verdict") in ("fail", "warn", "error") and not e.get("spec"):
            out.append(f"{where}: a failure or warning quotes its spec sentence (spec)")
        if e.get("verdict") == "consequence" and not e.get("follows"):
            out.append(f"{where}: a consequence names the rule it follows (follows)")
        if not e.get("why"):
            out.append(f"{where}: says why (why)")
        for config in e.get("configurations", []):
            if index_page.sdk_of(config) != e.get("sdk"):
                out.append(f"{where}: {config} is no configuration of {e.get('sdk')}")
    seen = checks(root)

    def covers(e, check):
        config, scenario, rule, verdict, follows = check
        return (e["rule"] == rule and e["verdict"] == verdict
                and config in e.get("configurations", []) and scenario in e.get("scenarios", [])
                and (verdict != "consequence" or e.get("follows") == follows))

    for check in sorted(seen, key=lambda c: tuple(str(x) for x in c)):
        if not any(covers(e, check) for e in entries):
            config, scenario, rule, verdict, follows = check
            after = f" (after {follows})" if verdict == "consequence" else ""
            out.append(f"no explanation: {config} {scenario} {rule} {verdict}{after}")
    for i, e in enumerate(entries):
        where = f"explanations.toml entry {i + 1} ({e.get('sdk')} {e.get('rule')} {e.get('verdict')})"
        mine = [c for c in seen if covers(e, c)]
        for config in e.get("configurations", []):
            if not any(c[0] == config for c in mine):
                out.append(f"{where}: {config} shows no such verdict in its scenarios")
        for scenario in e.get("scenarios", []):
            if not any(c[1] == scenario for c in mine):
                out.append(f"{where}: {scenario} shows no such verdict in its configurations")
    text = (pathlib.Path(root) / "README.md").read_text()
    prose = sections(text)
    stated = collections.defaultdict(set)
    for e in entries:
        if e.get("verdict") in ("fail", "warn"):
            stated[e["sdk"]].add((e["rule"], e["verdict"]))
    for sdk in sorted(set(prose) | set(stated)):
        claimed = {(rule, "fail" if word == "FAIL" else "warn")
                   for rule, word in CLAIM.findall(prose.get(sdk, ""))}
        for rule, verdict in sorted(stated[sdk] - claimed):
            out.append(f"README.md, section {sdk}: no **`{rule}` {verdict.upper() if verdict == 'fail' else verdict}** for its entry")
        for rule, verdict in sorted(claimed - stated[sdk]):
            out.append(f"README.md, section {sdk}: claims {rule} {verdict}, which no entry of explanations.toml states")
    return out


if __name__ == "__main__":
    import sys

    found = problems(*sys.argv[1:])
    print("\n".join(found) or "every non-pass verdict is explained, and every explanation is met")
    sys.exit(1 if found else 0)
