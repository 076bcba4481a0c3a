//! The layering of `harness/src` (docs/architecture.md): no import running up a layer, no import
//! circle between files, no design folder importing another, and no shared file naming a design
//! or one of its protocol methods. An import of what a
//! module re-exports is an import of the file that defines it; a module's use of its own
//! submodules is not an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `src/`: its path relative to `src/` and its code without comments
/// and tests.
fn source_files() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let code = code_of(&std::fs::read_to_string(&path).unwrap());
                out.push((path.strip_prefix(&root).unwrap().to_path_buf(), code));
            }
        }
    }
    out
}

/// Every module of the library: its path (`a::b`) and its source without comments and tests.
fn modules() -> BTreeMap<String, String> {
    source_files()
        .into_iter()
        .filter_map(|(file, code)| Some((module_name(&file)?, code)))
        .collect()
}

fn module_name(file: &Path) -> Option<String> {
    let rel: PathBuf = file.with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    let name = parts.join("::");
    (!matches!(name.as_str(), "lib" | "main") && !name.starts_with("cli")).then_some(name)
}

/// Source without line comments and without its unit tests.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module that defines what a path names: the longest module it names, or, where that
/// module re-exports the next name from a submodule (`pub use child::{Name}`, `pub use
/// child::*`), the submodule that defines it.
fn resolve(mods: &BTreeMap<String, String>, path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
    let n = (1..=parts.len())
        .rev()
        .find(|n| mods.contains_key(&parts[..*n].join("::")))?;
    let module = parts[..n].join("::");
    let Some(item) = parts.get(n) else {
        return Some(module);
    };
    let code = &mods[&module];
    let from = code.match_indices("pub use ").find_map(|(at, _)| {
        let line = code[at + 8..].split(';').next().unwrap_or("");
        let (child, names) = line.split_once("::")?;
        let child_module = format!("{module}::{child}");
        let defines = |c: &str| {
            [
                "fn", "struct", "enum", "const", "static", "trait", "type", "mod",
            ]
            .iter()
            .any(|k| c.contains(&format!("pub {k} {item}")))
        };
        let names_it = names
            .trim_matches(|c| c == '{' || c == '}')
            .split(',')
            .any(|n| n.trim() == *item);
        let glob = names.trim() == "*" && mods.get(&child_module).is_some_and(|c| defines(c));
        (names_it || glob).then_some(child_module)
    });
    match from {
        Some(child) if mods.contains_key(&child) => {
            resolve(mods, &format!("{child}::{}", parts[n..].join("::")))
        }
        _ => Some(module),
    }
}

/// The modules a module imports: the files that define what its `crate::…`, `super::…` and
/// `child::…` paths name. A module's use of its own submodules is how it is composed, not an
/// import, so a submodule may use its parent's types.
fn imports(mods: &BTreeMap<String, String>, module: &str, code: &str) -> BTreeSet<String> {
    let parent: Vec<&str> = module.split("::").collect();
    let parent = parent[..parent.len() - 1].join("::");
    let children: Vec<String> = mods
        .keys()
        .filter_map(|m| m.strip_prefix(&format!("{module}::")))
        .filter(|rest| !rest.contains("::"))
        .map(|c| format!("{c}::"))
        .collect();
    let mut prefixes = vec![
        ("crate::".to_string(), String::new()),
        ("super::".into(), parent),
    ];
    prefixes.extend(
        children
            .iter()
            .map(|c| (c.clone(), format!("{module}::{}", &c[..c.len() - 2]))),
    );
    let mut out = BTreeSet::new();
    for (prefix, base) in &prefixes {
        for (at, _) in code.match_indices(prefix.as_str()) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[at + prefix.len()..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':' || *c == '*')
                .collect();
            let path = path.trim_end_matches(':').trim_end_matches("::*");
            let full = [base.as_str(), path]
                .iter()
                .filter(|p| !p.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join("::");
            let mut targets = vec![full.clone()];
            if let Some(group) = rest[path.len()..].strip_prefix("::{") {
                let group = group.split('}').next().unwrap_or("");
                targets = group
                    .split(',')
                    .map(|item| item.split_whitespace().next().unwrap_or(""))
                    .map(|item| match item {
                        "self" | "" => full.clone(),
                        item => format!("{full}::{item}"),
                    })
                    .collect();
            }
            for t in targets {
                if let Some(m) = resolve(mods, &t) {
                    if m != module && !m.starts_with(&format!("{module}::")) {
                        out.insert(m);
                    }
                }
            }
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mods = modules();
    mods.iter()
        .map(|(m, code)| (m.clone(), imports(&mods, m, code)))
        .collect()
}

/// Every circle of imports: the groups of modules that reach each other (Tarjan's strongly
/// connected components of more than one module).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, (usize, usize)>,
        stack: Vec<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(w: &mut Walk<'g>, node: &'g str) {
        let n = w.index.len();
        w.index.insert(node, (n, n));
        w.stack.push(node);
        for next in w.graph.get(node).into_iter().flatten() {
            let low = match w.index.get(next.as_str()) {
                None => {
                    visit(w, next);
                    w.index[next.as_str()].1
                }
                Some(&(i, _)) if w.stack.contains(&next.as_str()) => i,
                Some(_) => continue,
            };
            let entry = w.index.get_mut(node).unwrap();
            entry.1 = entry.1.min(low);
        }
        if w.index[node].0 == w.index[node].1 {
            let at = w.stack.iter().position(|m| *m == node).unwrap();
            let group: Vec<String> = w.stack.drain(at..).map(String::from).collect();
            if group.len() > 1 {
                w.out.push(group);
            }
        }
    }
    let mut w = Walk {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for node in graph.keys() {
        if !w.index.contains_key(node.as_str()) {
            visit(&mut w, node);
        }
    }
    w.out
}

/// The design folder a module belongs to (`designs::<name>…`).
fn design_of(module: &str) -> Option<&str> {
    let rest = module.strip_prefix("designs::")?;
    Some(rest.split("::").next().unwrap_or(rest))
}

#[test]
fn no_import_runs_in_a_circle() {
    assert_eq!(circles(&graph()), Vec::<Vec<String>>::new());
}

#[test]
fn a_circle_is_found_where_there_is_one() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(circles(&g).iter().map(Vec::len).collect::<Vec<_>>(), [3]);
    g.insert("c".to_string(), BTreeSet::new());
    assert!(circles(&g).is_empty());
}

#[test]
fn only_a_design_names_its_folder_and_no_design_imports_another() {
    let mut naming = BTreeSet::new();
    for (module, imported) in graph() {
        for target in imported.iter().filter_map(|t| design_of(t)) {
            match design_of(&module) {
                Some(own) => assert_eq!(own, target, "{module} imports design {target}"),
                None => {
                    naming.insert(module.clone());
                }
            }
        }
    }
    // also the constants that name one design from outside its folder
    for (module, code) in modules() {
        let names_one = ["EXT_TASKS", "TASKS_2025"].iter().any(|k| code.contains(k));
        if design_of(&module).is_none() && module != "designs" && names_one {
            naming.insert(module);
        }
    }
    assert!(
        naming.is_empty(),
        "shared files that name a design: {naming:?}"
    );
}

#[test]
fn the_graph_sees_imports_and_the_designs() {
    let g = graph();
    assert!(g["designs::ext_tasks::monitor"].contains("monitor"));
    assert!(g["report"].contains("verdict"));
    assert!(g.keys().any(|m| design_of(m) == Some("tasks_2025")));
}

/// The layers, lowest first (docs/architecture.md), each a list of module paths: a module is
/// in the layer of the longest path that is it or holds it; one no list holds is in the
/// engine. A file imports only from its own layer or below.
const LAYERS: [(&str, &[&str]); 5] = [
    (
        "core",
        &[
            "spec",
            "bad_input",
            "wire",
            "trace",
            "verdict",
            "model",
            "schema",
            "matcher",
            "timestamp",
            "diff",
            "exit",
            "yaml",
        ],
    ),
    (
        "kit",
        &[
            "session",
            "transport",
            "monitor",
            "reference",
            "fixtures",
            "calibration",
            "scenario::format",
            "scenario::ask",
            "explore::ops",
        ],
    ),
    ("seam", &["design", "designs"]),
    ("engine", &[]),
    ("design", &["designs::"]),
];

/// The layer of a module: its index in [`LAYERS`] and its name.
fn layer_of(module: &str) -> (usize, &'static str) {
    let holds = |path: &str| {
        module == path
            || module.starts_with(&format!("{path}::"))
            || (path.ends_with("::") && module.starts_with(path))
    };
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, (name, paths))| paths.iter().map(move |p| (i, *name, *p)))
        .filter(|(_, _, p)| holds(p))
        .max_by_key(|(_, _, p)| p.len())
        .map(|(i, name, _)| (i, name))
        .unwrap_or((3, "engine"))
}

/// Every import of a module in a higher layer than the importer's, as `a (layer) -> b (layer)`.
fn upward(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut out = Vec::new();
    for (module, imported) in graph {
        let (own, own_name) = layer_of(module);
        for target in imported {
            let (theirs, their_name) = layer_of(target);
            if theirs > own {
                out.push(format!("{module} ({own_name}) -> {target} ({their_name})"));
            }
        }
    }
    out
}

#[test]
fn no_import_runs_up_a_layer() {
    assert_eq!(upward(&graph()), Vec::<String>::new());
}

#[test]
fn the_layers_are_where_the_guide_says() {
    assert_eq!(layer_of("wire").1, "core");
    assert_eq!(layer_of("scenario::ask").1, "kit");
    assert_eq!(layer_of("scenario::library").1, "engine");
    assert_eq!(layer_of("designs").1, "seam");
    assert_eq!(layer_of("designs::ext_tasks::monitor").1, "design");
    assert_eq!(layer_of("runner::steps").1, "engine");
    let mut g = BTreeMap::new();
    g.insert(
        "session".to_string(),
        BTreeSet::from(["runner".to_string()]),
    );
    g.insert(
        "runner".to_string(),
        BTreeSet::from(["session".to_string()]),
    );
    assert_eq!(upward(&g), ["session (kit) -> runner (engine)"]);
}

/// rustfmt formats a module only where it is declared outside a macro: a `mod` a macro
/// declares (`pub mod $folder;`) and everything below it would never be formatted.
#[test]
fn no_module_is_declared_inside_a_macro() {
    let inside: Vec<String> = modules()
        .into_iter()
        .filter(|(_, code)| code.contains("mod $"))
        .map(|(module, _)| module)
        .collect();
    assert!(inside.is_empty(), "modules declared by a macro: {inside:?}");
}

/// Every `.rs` file under `src/` outside the designs (the command line's too): its path
/// relative to `src/` and its code without comments and tests.
fn shared_files() -> Vec<(String, String)> {
    source_files()
        .into_iter()
        .filter(|(file, _)| !file.starts_with("designs"))
        .map(|(file, code)| (file.to_string_lossy().to_string(), code))
        .collect()
}

/// The protocol methods a design of Tasks defines that a piece of code names as a string
/// literal: `"tasks/…"`, `"notifications/tasks…"`, `"initialize"`,
/// `"notifications/initialized"`, `"server/discover"` (a pattern such as `"tasks/{}"` is no
/// method).
fn protocol_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices('"') {
        let rest = &code[at + 1..];
        let Some(end) = rest.find('"') else {
            continue;
        };
        let literal = &rest[..end];
        let method_like = !literal.is_empty()
            && literal
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '/' || c == '_');
        let named = ["tasks/", "notifications/tasks"]
            .iter()
            .any(|p| literal.starts_with(p))
            || ["initialize", "notifications/initialized", "server/discover"].contains(&literal);
        if method_like && named && !literal.ends_with('/') {
            out.push(literal.to_string());
        }
    }
    out
}

/// Where a protocol method may be named outside the designs: the transports' framing (a
/// Streamable HTTP session opens at initialize) and the hostile HTTP receiver that breaks it.
const FRAMING: &[&str] = &["transport/", "reference/http_hostile.rs"];

#[test]
fn no_shared_file_names_a_protocol_method_of_a_design() {
    let named: Vec<String> = shared_files()
        .into_iter()
        .filter(|(file, _)| !FRAMING.iter().any(|f| file.starts_with(f)))
        .flat_map(|(file, code)| {
            protocol_literals(&code)
                .into_iter()
                .map(move |m| format!("{file}: {m:?}"))
        })
        .collect();
    assert!(
        named.is_empty(),
        "shared code naming a design's method (read it from the design's Wire): {named:?}"
    );
}

#[test]
fn a_protocol_method_literal_is_found_where_there_is_one() {
    let code =
        r#"ask("tasks/get"); let m = format!("tasks/{}", w); x == "initialize"; "tasks/get/""#;
    assert_eq!(protocol_literals(code), vec!["tasks/get", "initialize"]);
    assert!(protocol_literals(r#"session.request(wire.get, params)"#).is_empty());
}
