//! The layering of `harness/src` (docs/architecture.md): no import circle between files, no
//! design folder importing another, and no shared file naming a design. A parent module's
//! use of its own submodules is not an edge: a folder is one unit.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Shared files that still ask which design runs, to be moved into the design folders; the
/// list may only shrink.
const NOT_YET_PEERS: [&str; 6] = [
    "explore/ext_steps.rs",
    "explore/mod.rs",
    "fuzzwire/inputs.rs",
    "fuzzwire/mod.rs",
    "load/ext.rs",
    "load/mod.rs",
];

/// Every module of the library: its path (`a::b`) and its source without comments and tests.
fn modules() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                if let Some(name) = module_name(&root, &path) {
                    out.insert(name, code_of(&std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
    }
    out
}

fn module_name(root: &Path, file: &Path) -> Option<String> {
    let rel: PathBuf = file.strip_prefix(root).ok()?.with_extension("");
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

/// The longest module a path names.
fn resolve<'a>(mods: &'a BTreeMap<String, String>, path: &str) -> Option<&'a str> {
    let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
    (1..=parts.len())
        .rev()
        .map(|n| parts[..n].join("::"))
        .find_map(|m| mods.get_key_value(&m).map(|(k, _)| k.as_str()))
}

/// The modules a module imports (`crate::…` and `super::…` paths), besides its own children.
fn imports(mods: &BTreeMap<String, String>, module: &str, code: &str) -> BTreeSet<String> {
    let parent: Vec<&str> = module.split("::").collect();
    let parent = parent[..parent.len() - 1].join("::");
    let mut out = BTreeSet::new();
    for (prefix, base) in [("crate::", String::new()), ("super::", parent)] {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let path = path.trim_end_matches(':');
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
                        out.insert(m.to_string());
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

/// A circle of imports, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            return Some(path[at..].to_vec());
        }
        if !done.insert(node.to_string()) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

/// The design folder a module belongs to (`designs::<name>…`).
fn design_of(module: &str) -> Option<&str> {
    let rest = module.strip_prefix("designs::")?;
    Some(rest.split("::").next().unwrap_or(rest))
}

#[test]
fn no_import_runs_in_a_circle() {
    assert_eq!(circle(&graph()), None);
}

#[test]
fn a_circle_is_found_where_there_is_one() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(circle(&g).map(|c| c.len()), Some(3));
    g.insert("c".to_string(), BTreeSet::new());
    assert_eq!(circle(&g), None);
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
    let allowed: BTreeSet<String> = NOT_YET_PEERS
        .iter()
        .map(|f| {
            let m = f.trim_end_matches(".rs").replace('/', "::");
            m.trim_end_matches("::mod").to_string()
        })
        .collect();
    let newly: Vec<&String> = naming.difference(&allowed).collect();
    assert!(
        newly.is_empty(),
        "shared files that name a design: {newly:?}"
    );
    let moved: Vec<&String> = allowed.difference(&naming).collect();
    assert!(
        moved.is_empty(),
        "no longer name a design, take them off NOT_YET_PEERS: {moved:?}"
    );
}

#[test]
fn the_graph_sees_imports_and_the_designs() {
    let g = graph();
    assert!(g["designs::ext_tasks::monitor"].contains("monitor"));
    assert!(g["report"].contains("verdict"));
    assert!(g.keys().any(|m| design_of(m) == Some("tasks_2025")));
}
