"""reports/index.html: the receiver x rule matrix of every committed SDK run, as one
self-contained page (no network, no external file): a column per run, a row per rule, each
cell the rule's worst verdict in that run and a link to the evidence (the scenario of that
verdict in the run's report.html). The page opens on one design of Tasks (2025-11-25; a selector
switches to the extension), so its runs and rules come first; filters by SDK, transport, level
and verdict change which columns and rows are shown. `matrix.py --update` writes it; `matrix.py` checks it is current.

A page opened with `#selftest` runs its own filters once and writes what they showed into
`<pre id="selftest">`: the headless-browser test reads that back.
"""

import html
import json
import pathlib

# worst first: a cell shows the worst verdict of the rule's checks in the run
WORST_FIRST = ["error", "fail", "warn", "consequence", "untestable", "not-applicable", "info", "pass"]

STYLE = """body{font:14px sans-serif;margin:1.5em}table{border-collapse:collapse}
th,td{border:1px solid #ddd;padding:2px 6px;white-space:nowrap}th.run{writing-mode:vertical-rl;transform:rotate(180deg)}
td a{color:inherit;text-decoration:none}.pass{background:#e6f4ea}.fail,.error{background:#fce8e6;font-weight:bold}
.warn{background:#fef7e0}.consequence,.untestable{background:#f1f3f4}.not-applicable,.info{color:#777}
#filters{margin:.5em 0 1em}#filters label{margin-right:1em}"""

SCRIPT = """function pick(id){return document.getElementById(id).value;}
function filter(){
  var design=pick('design'),sdk=pick('sdk'),transport=pick('transport'),level=pick('level'),verdict=pick('verdict');
  var shown=[];
  document.querySelectorAll('[data-run]').forEach(function(c){
    var ok=c.dataset.design===design&&(!sdk||c.dataset.sdk===sdk)&&(!transport||c.dataset.transport===transport);
    c.style.display=ok?'':'none';
    if(ok&&c.tagName==='TH')shown.push(c.dataset.run);
  });
  var rows=0;
  document.querySelectorAll('#matrix tbody tr').forEach(function(r){
    var cells=Array.prototype.filter.call(r.querySelectorAll('td[data-run]'),function(c){
      return shown.indexOf(c.dataset.run)>=0&&c.dataset.verdict;});
    var ok=cells.length>0&&(!level||r.dataset.level===level)&&
      (!verdict||cells.some(function(c){return c.dataset.verdict===verdict;}));
    r.style.display=ok?'':'none';
    if(ok)rows++;
  });
  document.getElementById('count').textContent=rows+' rule(s), '+shown.length+' run(s)';
  return [rows,shown.length];
}
function selftest(){
  var out=[],set=function(id,v){document.getElementById(id).value=v;};
  out.push('all '+filter().join(' '));
  set('verdict','fail');out.push('fail '+filter().join(' '));set('verdict','');
  set('level','SHOULD');out.push('should '+filter().join(' '));set('level','');
  var first=document.getElementById('sdk').options[1].value;
  set('sdk',first);out.push('sdk '+filter().join(' '));set('sdk','');
  set('transport','http');out.push('http '+filter().join(' '));set('transport','');
  var first=document.getElementById('design').value;
  set('design','ext-tasks');out.push('ext '+filter().join(' '));set('design',first);
  filter();
  document.getElementById('selftest').textContent=out.join('\\n');
}
filter();
if(location.hash==='#selftest')selftest();"""


def rank(verdict):
    return WORST_FIRST.index(verdict) if verdict in WORST_FIRST else len(WORST_FIRST)


def sdk_of(run):
    """The SDK a run folder (`<sdk>[+<configuration>]-<transport>`) belongs to."""
    return run.rsplit("-", 1)[0].split("+", 1)[0]


def runs(root):
    """Each run folder's name, transport, design, and per rule: (verdict, level, link, scenario)."""
    out = []
    for path in sorted(pathlib.Path(root).glob("*/report.json")):
        doc = json.loads(path.read_text())
        cells = {}
        for scenario in doc["scenarios"]:
            for check in scenario["checks"]:
                old = cells.get(check["rule"])
                if old is None or rank(check["verdict"]) < rank(old[0]):
                    cells[check["rule"]] = (check["verdict"], check.get("level", ""), check.get("link", ""), scenario["id"])
        for rule in doc["rules"]:
            cells.setdefault(rule["id"], (rule["verdict"], rule.get("level", ""), rule.get("link", ""), None))
        out.append((path.parent.name, (doc["transport"], doc["profile"]), cells))
    return out


def options(element, label, values):
    items = "".join(f'<option value="{html.escape(v)}">{html.escape(v)}</option>' for v in values)
    return f'<label>{label} <select id="{element}" onchange="filter()"><option value="">every {label}</option>{items}</select></label>'


def page(root):
    """The whole page, from the committed reports under `root`."""
    found = runs(root)
    rules = sorted({rule for _, _, cells in found for rule in cells})
    level = {rule: cells[rule][1] for _, _, cells in found for rule in cells}
    link = {rule: cells[rule][2] for _, _, cells in found for rule in cells}
    verdicts = sorted({cell[0] for _, _, cells in found for cell in cells.values()}, key=rank)
    attrs = lambda run, how: (
        f'data-run="{run}" data-sdk="{sdk_of(run)}" data-transport="{how[0]}" data-design="{how[1]}"'
    )
    head = "".join(f'<th class="run" {attrs(run, how)}>{html.escape(run)}</th>' for run, how, _ in found)
    body = []
    for rule in rules:
        cells = []
        for run, how, found_cells in found:
            cell = found_cells.get(rule)
            if cell is None:
                cells.append(f'<td {attrs(run, how)} data-verdict=""></td>')
                continue
            verdict, _, _, scenario = cell
            target = f"{run}/report.html" + (f"#s-{scenario}" if scenario else "")
            title = f"{rule} in {run}" + (f": scenario {scenario}" if scenario else "")
            cells.append(f'<td class="{verdict}" {attrs(run, how)} data-verdict="{verdict}">'
                         f'<a href="{html.escape(target)}" title="{html.escape(title)}">{verdict}</a></td>')
        name = f'<a href="{html.escape(link[rule])}">{rule}</a>' if link[rule] else rule
        body.append(f'<tr data-level="{level[rule]}"><th>{name}</th><td>{level[rule]}</td>{"".join(cells)}</tr>')
    designs = sorted({d for _, (_, d), _ in found})
    choose = "".join(f'<option value="{html.escape(d)}">{html.escape(d)}</option>' for d in designs)
    filters = " ".join([
        f'<label>design of Tasks <select id="design" onchange="filter()">{choose}</select></label>',
        options("sdk", "SDK", sorted({sdk_of(run) for run, _, _ in found})),
        options("transport", "transport", sorted({t for _, (t, _), _ in found})),
        options("level", "level", sorted({v for v in level.values() if v})),
        options("verdict", "verdict", verdicts),
    ])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>taskcheck: MCP SDKs, rule by rule</title><style>{STYLE}</style></head><body>
<h1>taskcheck: MCP SDKs, rule by rule</h1>
<p>The worst verdict of each rule in each run of <code>interop/run.sh</code>; a cell links to the
scenario of that verdict in the run's report. Root failures and their consequences are explained in
<a href="README.md">reports/README.md</a>.</p>
<div id="filters">{filters} <span id="count"></span></div>
<table id="matrix"><thead><tr><th>rule</th><th>level</th>{head}</tr></thead><tbody>
{chr(10).join(body)}
</tbody></table>
<pre id="selftest"></pre>
<script>{SCRIPT}</script>
</body></html>
"""
