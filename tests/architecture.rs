//! The architecture rules of ARCHITECTURE.md that code can check: no module cycles (among the
//! library's top-level modules, and among the queries), and a thin `main.rs`.

use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;
use std::path::Path;

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comments (doc links are not dependencies).
fn code(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Identifiers following `prefix` in `text` (`crate::eval` -> `eval`), including each
/// member of a group (`super::{include, cegis}` -> `include`, `cegis`).
fn names_after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let ident = |rest: &'a str| {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        &rest[..end]
    };
    let mut out = Vec::new();
    for (i, _) in text.match_indices(prefix) {
        let rest = &text[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|m| ident(m.trim_start())));
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|n| !n.is_empty());
    out
}

#[test]
fn grouped_imports_count_as_dependencies() {
    let names = names_after(
        "use super::{include, cegis::Cegis}; use crate::eval;",
        "super::",
    );
    assert_eq!(names, ["include", "cegis"]);
}

/// Strongly connected components with more than one member: the cycles.
fn cycles<'a>(edges: &[(&'a str, &'a str)]) -> Vec<Vec<&'a str>> {
    let mut g: DiGraphMap<&str, ()> = DiGraphMap::new();
    for (a, b) in edges {
        if a != b {
            g.add_edge(a, b, ());
        }
    }
    tarjan_scc(&g).into_iter().filter(|c| c.len() > 1).collect()
}

#[test]
fn the_library_top_level_modules_have_no_cycle() {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let mut edges: Vec<(String, String)> = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(SRC).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if ["main", "lib", "cli"].contains(&top.as_str()) {
            continue;
        }
        let text = code(f);
        for used in names_after(&text, "crate::") {
            edges.push((top.clone(), used.to_string()));
        }
    }
    let e: Vec<(&str, &str)> = edges
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(cycles(&e), Vec::<Vec<&str>>::new(), "module cycles");
}

#[test]
fn the_queries_have_no_cycle() {
    let dir = Path::new(SRC).join("query");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut edges: Vec<(String, String)> = Vec::new();
    for f in &files {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        if name == "mod" {
            continue;
        }
        let text = code(f);
        let mut used = names_after(&text, "super::");
        used.extend(names_after(&text, "crate::query::"));
        for u in used {
            if dir.join(format!("{u}.rs")).exists() {
                edges.push((name.clone(), u.to_string()));
            }
        }
    }
    let e: Vec<(&str, &str)> = edges
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(cycles(&e), Vec::<Vec<&str>>::new(), "query module cycles");
}

#[test]
fn main_only_dispatches() {
    let main = std::fs::read_to_string(Path::new(SRC).join("main.rs")).unwrap();
    assert!(
        main.lines().count() < 150,
        "main.rs has {} lines",
        main.lines().count()
    );
}

#[test]
fn one_model_resolver() {
    // Command lines name models through `Model::resolve`/`Model::select` only.
    let mut files = Vec::new();
    rust_files(&Path::new(SRC).join("cli"), &mut files);
    for f in files {
        let text = code(&f);
        assert!(
            !text.contains("by_name(") && !text.contains("Model::load("),
            "{} resolves models itself",
            f.display()
        );
    }
}

#[test]
fn architecture_md_names_only_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let path = quoted.trim_end_matches('/');
        let looks_like_path = [
            "src/",
            "tests/",
            "benches/",
            "examples/",
            "docs/",
            "litmus/",
        ]
        .iter()
        .any(|p| path.starts_with(p))
            && !path.contains('*')
            && !path.contains(' ');
        if looks_like_path && !root.join(path).exists() {
            missing.push(path.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names missing paths: {missing:?}"
    );
}
