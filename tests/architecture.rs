//! The architecture rules of ARCHITECTURE.md that code can check, read from the source text:
//! the dependency order of the library's top-level modules, no module cycle (at the top level,
//! in `src/ir/`, `src/engine/` and `src/query/`), what the IR may import, Z3 only in
//! `engine::smt`, queries that never print, shaders unknown past the front ends, engines that
//! never look at a model's name, a thin `main.rs` and a CLI that computes nothing, and every
//! file and item the page names exists.

use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

// ---------------------------------------------------------------------------------------------
// Reading the source

/// Every `.rs` file under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// One file of `src/` as the checks read it.
struct Source {
    /// The path relative to `src/` (`ir/unroll.rs`).
    rel: String,
    /// The code, as [`code`] (or [`without_literals`], with test items) leaves it.
    code: String,
}

impl Source {
    /// `src/file:line` of a byte offset of the code.
    fn at(&self, offset: usize) -> String {
        let line = 1 + self.code[..offset].matches('\n').count();
        format!("src/{}:{line}", self.rel)
    }
}

/// Every file under `src/<under>` (`""`: all of `src/`), without its test items unless
/// `with_tests`.
fn sources(under: &str, with_tests: bool) -> Vec<Source> {
    let root = Path::new(SRC);
    rust_files(&root.join(under))
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            Source {
                rel: p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
                code: if with_tests {
                    without_literals(&text)
                } else {
                    code(&text)
                },
            }
        })
        .collect()
}

/// The code of a file as the checks read it: comments and the insides of string and character
/// literals blanked ([`without_literals`]), and every item under a `#[cfg(test)]` at column 0
/// blanked too (test modules may use anything). Line breaks are kept, so an offset still
/// gives the line.
fn code(text: &str) -> String {
    without_test_items(&without_literals(text))
}

/// `text` with comments (`//`, nested `/* */`) and the insides of string, raw string and
/// character literals replaced by spaces, line breaks kept: doc links, messages and `'{'` are
/// not code. Lifetimes and labels (`'a`) stay.
fn without_literals(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        match c[i] {
            '/' if next == Some('/') => {
                while i < c.len() && c[i] != '\n' {
                    out.push(' ');
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < c.len() {
                    let pair = (c[i], c.get(i + 1).copied());
                    if pair == ('/', Some('*')) || pair == ('*', Some('/')) {
                        depth += if c[i] == '/' { 1 } else { -1 };
                        out.push_str("  ");
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        out.push(blank(c[i]));
                        i += 1;
                    }
                }
            }
            '"' => {
                out.push('"');
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' && i + 1 < c.len() {
                        out.push(' ');
                        i += 1;
                    }
                    out.push(blank(c[i]));
                    i += 1;
                }
                if i < c.len() {
                    out.push('"');
                    i += 1;
                }
            }
            // A raw string (`r"…"`, `r#"…"#`, `br#"…"#`), not a raw identifier (`r#type`).
            'r' if (i == 0
                || !is_ident(c[i - 1])
                || (c[i - 1] == 'b' && (i < 2 || !is_ident(c[i - 2]))))
                && raw_hashes(&c[i + 1..]).is_some() =>
            {
                let hashes = raw_hashes(&c[i + 1..]).unwrap();
                let close: Vec<char> = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                out.push('r');
                out.extend(&close[1..]);
                out.push('"');
                i += hashes + 2;
                while i < c.len() && !c[i..].starts_with(&close) {
                    out.push(blank(c[i]));
                    i += 1;
                }
                out.extend(&close);
                i += close.len();
            }
            // A character literal (`'{'`, `'\''`, `'\u{7f}'`); otherwise a lifetime or label.
            '\'' if next == Some('\\') => {
                out.push('\'');
                let mut j = i + 3;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                out.extend(std::iter::repeat_n(' ', j - i - 1));
                out.push('\'');
                i = j + 1;
            }
            '\'' if c.get(i + 2) == Some(&'\'') => {
                out.push_str("' '");
                i += 3;
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

/// The number of `#`s of the raw string that `rest` (what follows an `r`) starts, if it starts
/// one: `#"` gives 1, `"` 0, `#type` none.
fn raw_hashes(rest: &[char]) -> Option<usize> {
    let hashes = rest.iter().take_while(|&&ch| ch == '#').count();
    (rest.get(hashes) == Some(&'"')).then_some(hashes)
}

/// `code` with each item under a `#[cfg(test)]` line at column 0 blanked: up to the `;` or the
/// closing brace that ends it.
fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some((i, _)) = rest
        .match_indices("#[cfg(test)]")
        .find(|&(i, _)| i == 0 || rest.as_bytes()[i - 1] == b'\n')
    {
        out.push_str(&rest[..i]);
        let item = &rest[i..];
        let body = item.find('\n').unwrap_or(item.len());
        let mut depth = 0i32;
        let mut end = item.len();
        for (j, ch) in item[body..].char_indices() {
            match ch {
                '{' | '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = body + j + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = body + j + 1;
                    break;
                }
                _ => {}
            }
        }
        out.extend(
            item[..end]
                .chars()
                .map(|ch| if ch == '\n' { '\n' } else { ' ' }),
        );
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// The first name of each path that `prefix` starts in `code`, with its byte offset:
/// `crate::eval::X` gives `eval`, a group gives each member's first name, nested groups
/// included (`crate::{ir::{A, B}, eval}` gives `ir` and `eval`). The prefix must begin a path:
/// `xcrate::`, `a::crate::` and `$crate::` do not count.
fn names_after<'a>(code: &'a str, prefix: &str) -> Vec<(usize, &'a str)> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        let before = code[..i].chars().next_back();
        if !before.is_some_and(|ch| is_ident(ch) || ch == ':' || ch == '$') {
            path_heads(code, i + prefix.len(), &mut out);
        }
    }
    out.retain(|(_, n)| !n.is_empty());
    out
}

/// The first name of the path at `at` in `code`, or of each member of the group there.
fn path_heads<'a>(code: &'a str, at: usize, out: &mut Vec<(usize, &'a str)>) {
    let rest = &code[at..];
    let Some(group) = rest.strip_prefix('{') else {
        let end = rest.find(|ch: char| !is_ident(ch)).unwrap_or(rest.len());
        out.push((at, &rest[..end]));
        return;
    };
    let mut member = |start: usize| {
        let m = &code[start..];
        path_heads(code, start + m.len() - m.trim_start().len(), out);
    };
    let mut depth = 0;
    let mut start = at + 1;
    for (j, ch) in group.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            '}' => return member(start),
            ',' if depth == 0 => {
                member(start);
                start = at + 1 + j + 1;
            }
            _ => {}
        }
    }
}

/// Byte offsets of `word` in `code` where it stands alone (no identifier character either
/// side): `z3` in `z3::Solver`, not in `static_z3`.
fn words(code: &str, word: &str) -> Vec<usize> {
    code.match_indices(word)
        .filter(|&(i, _)| {
            let before = code[..i].chars().next_back();
            let after = code[i + word.len()..].chars().next();
            let joined_before = word.starts_with(is_ident) && before.is_some_and(is_ident);
            let joined_after = word.ends_with(is_ident) && after.is_some_and(is_ident);
            !joined_before && !joined_after
        })
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn names_after_reads_nested_groups() {
    let code = "use crate::{ir::{A, B}, eval,\n    syntax::ast::{self, Test},};\n\
                use super::{include, cegis::Cegis};\n\
                let k = crate::vocab::Kind::Label; a::crate::no; $crate::no; xcrate::no;";
    let names = |prefix| -> Vec<&str> {
        names_after(code, prefix)
            .into_iter()
            .map(|(_, n)| n)
            .collect()
    };
    assert_eq!(names("crate::"), ["ir", "eval", "syntax", "vocab"]);
    assert_eq!(names("super::"), ["include", "cegis"]);
    let syntax = names_after(code, "crate::")[2].0;
    assert_eq!(
        code[..syntax].matches('\n').count(),
        1,
        "the member's own line"
    );
}

#[test]
fn code_blanks_comments_literals_and_test_items() {
    let text = "use crate::a; // crate::b\n/* crate::c /* */\n crate::d */\n\
                let s = (\"crate::e \\\" crate::f\", '{', '\\'', r#\"crate::g\"#);\n\
                fn f<'a>(x: &'a str) -> usize { 1 }\n\
                #[cfg(test)]\nfn only_in_tests() { crate::h(); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::i;\n    fn g() -> [u8; 2] { [b'}', 0] }\n}\n\
                use crate::j;\n";
    let c = code(text);
    assert_eq!(c.lines().count(), text.lines().count());
    let names: Vec<&str> = names_after(&c, "crate::")
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(names, ["a", "j"]);
    assert!(c.contains("fn f<'a>(x: &'a str)"));
    let with_tests = without_literals(text);
    let names: Vec<&str> = names_after(&with_tests, "crate::")
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert_eq!(names, ["a", "h", "i", "j"]);
}

// ---------------------------------------------------------------------------------------------
// Module graphs

/// A reference from one module of a directory to a sibling, and where it is.
struct Edge {
    from: String,
    to: String,
    at: String,
}

/// The references among the modules of `src/<dir>` (`""`: the crate's top-level modules,
/// `main.rs` and `lib.rs` left out), whose path is `path` (`crate::ir`, or `crate`): a file of
/// module `a` (`a.rs`, or under `a/`) naming `<path>::b` or, relative to where it sits,
/// `super::b` (`super::super::b` one directory deeper), where `b` is a module of the directory
/// (`b.rs` or `b/`). A reference to the parent (`super::X` for an item of `mod.rs`) does not
/// count. Test items are left out.
fn module_edges(dir: &str, path: &str) -> Vec<Edge> {
    let root = Path::new(SRC).join(dir);
    let is_module = |name: &str| {
        !["", "mod", "lib", "main"].contains(&name)
            && (root.join(format!("{name}.rs")).is_file() || root.join(name).is_dir())
    };
    let mut out = Vec::new();
    for s in sources(dir, false) {
        let rel = s.rel.strip_prefix(dir).unwrap().trim_start_matches('/');
        let parts: Vec<&str> = rel.split('/').collect();
        let from = parts[0].trim_end_matches(".rs");
        if !is_module(from) {
            continue;
        }
        let depth = parts.len() - usize::from(parts.last() == Some(&"mod.rs"));
        let mut names = names_after(&s.code, &format!("{path}::"));
        names.extend(names_after(&s.code, &"super::".repeat(depth)));
        for (offset, to) in names {
            if to != from && is_module(to) {
                out.push(Edge {
                    from: from.to_string(),
                    to: to.to_string(),
                    at: s.at(offset),
                });
            }
        }
    }
    out
}

/// The references among the library's top-level modules (`cli` is the executable's).
fn top_level_edges() -> Vec<Edge> {
    let mut edges = module_edges("", "crate");
    edges.retain(|e| e.from != "cli");
    edges
}

/// Fails naming each cycle among `edges` and the references that close it.
fn assert_acyclic(what: &str, edges: &[Edge]) {
    let mut g: DiGraphMap<&str, ()> = DiGraphMap::new();
    for e in edges {
        g.add_edge(e.from.as_str(), e.to.as_str(), ());
    }
    let cycles: Vec<Vec<&str>> = tarjan_scc(&g).into_iter().filter(|c| c.len() > 1).collect();
    let closing: Vec<String> = edges
        .iter()
        .filter(|e| {
            cycles
                .iter()
                .any(|c| c.contains(&e.from.as_str()) && c.contains(&e.to.as_str()))
        })
        .map(|e| format!("  {}: {} -> {}", e.at, e.from, e.to))
        .collect();
    assert!(
        cycles.is_empty(),
        "module cycles in {what}: {cycles:?}\n{}",
        closing.join("\n")
    );
}

#[test]
fn module_edges_count_siblings_not_the_parent() {
    let edges = module_edges("engine", "crate::engine");
    assert!(
        edges
            .iter()
            .any(|e| e.from == "smt" && e.at.starts_with("src/engine/smt/")),
        "smt's files reach the engine's other modules"
    );
    assert!(edges.iter().all(|e| e.from != "mod" && e.to != "mod"));
}

/// ARCHITECTURE.md: "The library's top-level modules import each other without cycles".
#[test]
fn the_library_top_level_modules_have_no_cycle() {
    assert_acyclic("src/", &top_level_edges());
}

/// ARCHITECTURE.md: "and so do the modules of `src/query/`" (those of `src/query/search/`
/// too).
#[test]
fn the_queries_have_no_cycle() {
    assert_acyclic("src/query/", &module_edges("query", "crate::query"));
    assert_acyclic(
        "src/query/search/",
        &module_edges("query/search", "crate::query::search"),
    );
}

/// ARCHITECTURE.md, "IR": `cfg.rs` lowers, `bounds.rs` finds depths, `unroll.rs` unrolls,
/// `deps.rs` follows registers: stages of one pipeline, so `src/ir/`'s modules import each
/// other without cycles.
#[test]
fn the_ir_modules_have_no_cycle() {
    assert_acyclic("src/ir/", &module_edges("ir", "crate::ir"));
}

/// ARCHITECTURE.md, "Engines": the explorer, `lasso` over its graph, `trace` from both engines
/// and the Z3 encoding "in one file per concern": `src/engine/` and `src/engine/smt/` import
/// without cycles.
#[test]
fn the_engine_modules_have_no_cycle() {
    assert_acyclic("src/engine/", &module_edges("engine", "crate::engine"));
    assert_acyclic(
        "src/engine/smt/",
        &module_edges("engine/smt", "crate::engine::smt"),
    );
}

/// ARCHITECTURE.md, "Queries": "`include` and `distinguish` both ask `search`; neither imports
/// the other".
#[test]
fn include_and_distinguish_ask_search_not_each_other() {
    let edges = module_edges("query", "crate::query");
    let has = |a: &str, b: &str| edges.iter().any(|e| e.from == a && e.to == b);
    assert!(has("include", "search"), "include does not ask search");
    assert!(
        has("distinguish", "search"),
        "distinguish does not ask search"
    );
    let between: Vec<String> = edges
        .iter()
        .filter(|e| {
            (e.from == "include" && e.to == "distinguish")
                || (e.from == "distinguish" && e.to == "include")
        })
        .map(|e| format!("  {}: {} -> {}", e.at, e.from, e.to))
        .collect();
    assert!(
        between.is_empty(),
        "include and distinguish import each other:\n{}",
        between.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The dependency order of the top-level modules

/// The shared vocabulary (ARCHITECTURE.md, "Shared vocabulary"), usable by every stage.
const SHARED: [&str; 4] = ["vocab", "eval", "diag", "input"];

/// What each top-level module may name (`crate::<m>`), from the layering of ARCHITECTURE.md:
/// the shared vocabulary, then the front ends (bytes to AST), the IR, the models (execution,
/// memory, progress), the engines, the queries and the reports; `budget` is a leaf utility of
/// the stages that run within an analysis. Each row lists modules of earlier layers only, and
/// keeps the rules the page states: the front ends are siblings (only `spirv` builds on
/// `shader`, whose SPIR-V it reads), nothing past them knows shaders exist, and the IR imports
/// only `syntax`, `vocab`, `eval` and `budget`. `None`: a module with no place in the layering.
fn allowed(module: &str) -> Option<Vec<&'static str>> {
    let with = |more: &[&'static str]| -> Vec<&'static str> {
        SHARED.iter().chain(more).copied().collect()
    };
    Some(match module {
        // "below both the IR and `eval`": the bottom.
        "vocab" => vec![],
        // Leaves: located diagnostics; the budget of one analysis.
        "diag" | "budget" => vec![],
        // The value rules over the vocabulary.
        "eval" => vec!["vocab"],
        // Paths and how much is read; unreadable entries are reported.
        "input" => vec!["diag"],
        // Front ends: bytes to AST.
        "syntax" => with(&[]),
        "dialect" => with(&["syntax"]),
        "shader" => with(&["syntax"]),
        "spirv" => with(&["syntax", "shader"]),
        // "the IR knows nothing about models, interleavings or Z3"; unrolling runs under the
        // analysis's budget.
        "ir" => vec!["syntax", "vocab", "eval", "budget"],
        // Generators: programs as ASTs, sized against the IR's limits (unrolled without a
        // budget), with a simulator of their own.
        "gen" => with(&["syntax", "ir", "budget"]),
        // Models: execution (`model`), memory (`memory`, evaluated by `cat`), progress.
        "model" | "cat" | "progress" => with(&[]),
        "memory" => with(&["syntax", "ir", "cat", "budget"]),
        // Engines: the IR under a model.
        "engine" => with(&[
            "syntax", "ir", "model", "memory", "cat", "progress", "budget",
        ]),
        // Queries: compile, run engines, return data.
        "query" => with(&[
            "syntax", "ir", "model", "memory", "cat", "progress", "budget", "engine",
        ]),
        // Reports print what queries return.
        "report" => with(&[
            "syntax", "ir", "model", "memory", "cat", "progress", "query",
        ]),
        _ => return None,
    })
}

/// ARCHITECTURE.md, the pipeline and the code map: the top-level modules import each other only
/// downwards, in the layering [`allowed`] spells out, with no exception on record.
#[test]
fn the_top_level_modules_import_only_downwards() {
    let edges = top_level_edges();
    let mut wrong = Vec::new();
    for e in &edges {
        let Some(ok) = allowed(&e.from) else {
            wrong.push(format!(
                "  {}: {} -> {} (`{}` has no place in the layering: add it to `allowed`)",
                e.at, e.from, e.to, e.from
            ));
            continue;
        };
        if !ok.contains(&e.to.as_str()) {
            wrong.push(format!("  {}: {} -> {}", e.at, e.from, e.to));
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering of ARCHITECTURE.md:\n{}",
        wrong.join("\n")
    );
}

/// ARCHITECTURE.md, "IR": "the IR knows nothing about models, interleavings or Z3": `src/ir/`
/// names only `crate::{syntax, vocab, eval, budget}` (unrolling runs under the analysis's
/// time budget).
#[test]
fn the_ir_imports_only_the_ast_vocabulary_values_and_budget() {
    let ok = ["syntax", "vocab", "eval", "budget"];
    let wrong: Vec<String> = top_level_edges()
        .into_iter()
        .filter(|e| e.from == "ir" && !ok.contains(&e.to.as_str()))
        .map(|e| format!("  {}: ir -> {}", e.at, e.to))
        .collect();
    assert!(wrong.is_empty(), "the IR imports:\n{}", wrong.join("\n"));
}

/// ARCHITECTURE.md, "Front ends": "nothing below the AST knows that shaders exist (no module
/// after the front ends imports `shader` or `spirv`)": only `spirv` names `shader`, and no
/// library module names `spirv` (`tangle::load` in `lib.rs` picks the front end).
#[test]
fn nothing_past_the_front_ends_knows_shaders() {
    let wrong: Vec<String> = top_level_edges()
        .into_iter()
        .filter(|e| (e.to == "shader" && e.from != "spirv") || e.to == "spirv")
        .map(|e| format!("  {}: {} -> {}", e.at, e.from, e.to))
        .collect();
    assert!(
        wrong.is_empty(),
        "modules that know shaders:\n{}",
        wrong.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Who does what

/// ARCHITECTURE.md, "Engines": "`engine::smt` is the only module that uses Z3 (no file outside
/// `src/engine/smt/` names `z3::`)": no `z3` path, `use z3` or `extern crate z3` elsewhere,
/// test modules and the executable included.
#[test]
fn only_engine_smt_uses_z3() {
    let wrong: Vec<String> = sources("", true)
        .iter()
        .filter(|s| !s.rel.starts_with("engine/smt/"))
        .flat_map(|s| words(&s.code, "z3").into_iter().map(|i| s.at(i)))
        .collect();
    assert!(
        wrong.is_empty(),
        "Z3 outside src/engine/smt/:\n  {}",
        wrong.join("\n  ")
    );
}

/// ARCHITECTURE.md, "Queries": "queries return data; they never print": no `println!`,
/// `print!`, `eprintln!`, `eprint!`, `dbg!`, `stdout` or `stderr` in `src/query/`.
#[test]
fn queries_never_print() {
    let banned = [
        "println!",
        "print!",
        "eprintln!",
        "eprint!",
        "dbg!",
        "stdout",
        "stderr",
    ];
    let mut wrong = Vec::new();
    for s in sources("query", false) {
        for b in banned {
            wrong.extend(
                words(&s.code, b)
                    .into_iter()
                    .map(|i| format!("{}: {b}", s.at(i))),
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "queries that print:\n  {}",
        wrong.join("\n  ")
    );
}

/// Offsets in `code` where a `.name` field is compared (`==`, `!=`, `match`, `.as_str()`,
/// `.eq…`, `.starts_with`, `.contains`, …) or a model is looked up by name (`by_name`).
fn name_comparisons(code: &str) -> Vec<usize> {
    const COMPARED: [&str; 11] = [
        "==",
        "!=",
        ".as_str",
        ".as_ref",
        ".eq",
        ".starts_with",
        ".ends_with",
        ".contains",
        ".to_lowercase",
        ".to_ascii_lowercase",
        ".to_uppercase",
    ];
    let mut out = words(code, "by_name");
    for i in words(code, "name") {
        let after = code[i + 4..].trim_start();
        if !code[..i].ends_with('.') || after.starts_with('(') {
            continue;
        }
        let line = &code[code[..i].rfind('\n').map_or(0, |l| l + 1)..i - 1];
        let receiver = |ch: char| is_ident(ch) || ".&*()".contains(ch);
        let before = line.trim_end_matches(receiver).trim_end();
        if COMPARED.iter().any(|c| after.starts_with(c))
            || ["==", "!=", "match"].iter().any(|c| before.ends_with(c))
        {
            out.push(i);
        }
    }
    out.sort();
    out
}

#[test]
fn name_comparisons_are_found() {
    let code = "if m.name == \"CM\" {}\nmatch model.name.as_str() {}\nmatch &self.m.name {}\n\
                if \"SM\" != m.name {}\nModel::by_name(x);\nif m.name.eq_ignore_ascii_case(y) {}\n\
                let k = c.name(); cache.get(&m.name); format!(\"{}\", m.name);";
    let lines: Vec<usize> = name_comparisons(code)
        .into_iter()
        .map(|i| 1 + code[..i].matches('\n').count())
        .collect();
    assert_eq!(lines, [1, 2, 3, 4, 5, 6]);
}

/// ARCHITECTURE.md, "Models": "no engine matches on a model's name" (and, "Models" again, none
/// reads a memory or progress model's name): `src/engine/` never compares a `.name` nor looks a
/// model up by name ([`name_comparisons`]).
#[test]
fn no_engine_matches_on_a_model_name() {
    let wrong: Vec<String> = sources("engine", false)
        .iter()
        .flat_map(|s| name_comparisons(&s.code).into_iter().map(|i| s.at(i)))
        .collect();
    assert!(
        wrong.is_empty(),
        "engines looking at a name:\n  {}",
        wrong.join("\n  ")
    );
}

/// ARCHITECTURE.md, "Models": "Besides passing the model along, only the explorer's relaxed
/// mode and `engine/smt/relaxed.rs` know that memory models exist" (with `smt/cat.rs`, the
/// symbolic algebra), and "a model is only ever evaluated by `cat::interp`": in `src/engine/`,
/// only `explore.rs`, `smt/relaxed.rs`, `smt/cat.rs` and `smt/mod.rs` (which passes the model
/// along) name `crate::memory` or `crate::cat`, and of `cat` only `cat::interp`.
#[test]
fn only_the_relaxed_engines_know_memory_models() {
    let knowing = [
        "engine/explore.rs",
        "engine/smt/relaxed.rs",
        "engine/smt/cat.rs",
        "engine/smt/mod.rs",
    ];
    let mut wrong: Vec<String> = top_level_edges()
        .into_iter()
        .filter(|e| e.from == "engine" && (e.to == "memory" || e.to == "cat"))
        .filter(|e| {
            let file = e.at.rsplit_once(':').unwrap().0;
            !knowing.contains(&file.strip_prefix("src/").unwrap())
        })
        .map(|e| format!("  {}: crate::{}", e.at, e.to))
        .collect();
    for s in sources("engine", false) {
        for (i, part) in names_after(&s.code, "crate::cat::") {
            if part != "interp" {
                wrong.push(format!("  {}: crate::cat::{part}", s.at(i)));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "engine files that know memory models:\n{}",
        wrong.join("\n")
    );
}

/// ARCHITECTURE.md, "Models": "no engine reads a progress model's name; only `Progress::fair`
/// interprets one": `src/engine/` names only `progress::{Progress, ThreadStatus}`, and never a
/// progress model's levels, guarantees or name.
#[test]
fn engines_ask_progress_models_only_fair() {
    let mut wrong = Vec::new();
    for s in sources("engine", false) {
        for (i, part) in names_after(&s.code, "crate::progress::") {
            if !["Progress", "ThreadStatus"].contains(&part) {
                wrong.push(format!("  {}: crate::progress::{part}", s.at(i)));
            }
        }
        for w in [
            ".levels",
            ".guarantee",
            "ProgressModel",
            "Guarantee",
            "progress.name",
        ] {
            wrong.extend(
                words(&s.code, w)
                    .into_iter()
                    .map(|i| format!("  {}: {w}", s.at(i))),
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "engines interpreting progress models:\n{}",
        wrong.join("\n")
    );
}

/// ARCHITECTURE.md, "Reports and the command line": `main.rs` "parses the flags, runs one
/// command and exits with its status (`tests/architecture.rs` keeps it under 150 lines)".
#[test]
fn main_only_dispatches() {
    let main = std::fs::read_to_string(Path::new(SRC).join("main.rs")).unwrap();
    assert!(
        main.lines().count() < 150,
        "main.rs has {} lines",
        main.lines().count()
    );
}

/// ARCHITECTURE.md, "Reports and the command line": "`src/cli/` is the executable's own code
/// (not the library's)".
#[test]
fn the_cli_is_the_executables_own() {
    let lib = code(&std::fs::read_to_string(Path::new(SRC).join("lib.rs")).unwrap());
    let main = code(&std::fs::read_to_string(Path::new(SRC).join("main.rs")).unwrap());
    assert!(words(&lib, "cli").is_empty(), "lib.rs names `cli`");
    assert!(
        main.contains("mod cli;"),
        "main.rs does not declare `mod cli`"
    );
}

/// ARCHITECTURE.md, "Reports and the command line": "the CLI chooses a query and a printer; it
/// computes nothing itself": `main.rs` and `src/cli/` reach the engines and the IR only through
/// the queries, and the front ends only through `tangle::load` (no `tangle::{engine, ir, eval,
/// cat, dialect, spirv, gen}`).
#[test]
fn the_cli_computes_nothing_itself() {
    let banned = ["engine", "ir", "eval", "cat", "dialect", "spirv", "gen"];
    let mut wrong = Vec::new();
    for s in sources("", false) {
        if !(s.rel == "main.rs" || s.rel.starts_with("cli/")) {
            continue;
        }
        for (i, m) in names_after(&s.code, "tangle::") {
            if banned.contains(&m) {
                wrong.push(format!("  {}: tangle::{m}", s.at(i)));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the CLI computing itself:\n{}",
        wrong.join("\n")
    );
}

/// ARCHITECTURE.md, "Models": "`Model::resolve` (a built-in name or a model file) and
/// `Model::select` are the one way a command line names models (`tests/architecture.rs`: no
/// file of `src/cli/` calls `Model::by_name` or `Model::load`)".
#[test]
fn one_model_resolver() {
    for s in sources("cli", false) {
        assert!(
            !s.code.contains("by_name(") && !s.code.contains("Model::load("),
            "src/{} resolves models itself",
            s.rel
        );
    }
}

/// ARCHITECTURE.md, "IR": "at most `ir::unroll::MAX_BLOCKS` (20,000) block instances",
/// "deepening after 12 rounds".
#[test]
fn the_unrolling_limits_are_as_documented() {
    let read = |f: &str| code(&std::fs::read_to_string(Path::new(SRC).join(f)).unwrap());
    assert!(
        read("ir/unroll.rs").contains("pub const MAX_BLOCKS: usize = 20_000;"),
        "MAX_BLOCKS is not 20,000"
    );
    assert!(
        read("ir/depth.rs").contains("const ROUNDS: usize = 12;"),
        "deepening does not stop after 12 rounds"
    );
}

// ---------------------------------------------------------------------------------------------
// ARCHITECTURE.md names what exists

/// ARCHITECTURE.md, "Tests": "every path this page names exists".
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

/// Does `code` declare `name`: an item (`fn`, `struct`, …, an inline `mod name {`), a field or
/// an enum variant (`name:`, `name,`, `name(`, `name {`, `name =`), or a `use` of it?
fn declares(code: &str, name: &str) -> bool {
    const ITEMS: [&str; 10] = [
        "fn ",
        "const fn ",
        "struct ",
        "enum ",
        "trait ",
        "type ",
        "const ",
        "static ",
        "macro_rules! ",
        "mod ",
    ];
    code.lines().any(|l| {
        let mut l = l.trim_start();
        if let Some(r) = l.strip_prefix("pub(") {
            l = r[r.find(')').map_or(0, |i| i + 1)..].trim_start();
        } else if let Some(r) = l.strip_prefix("pub ") {
            l = r.trim_start();
        }
        let after = |k: &str| {
            l.strip_prefix(k)
                .and_then(|r| r.strip_prefix(name))
                .filter(|r| !r.starts_with(is_ident))
                .map(str::trim_start)
        };
        ITEMS
            .iter()
            .any(|&k| after(k).is_some_and(|r| k != "mod " || r.starts_with('{')))
            || after("").is_some_and(|r| {
                [",", "(", "{", "="].iter().any(|p| r.starts_with(p))
                    || (r.starts_with(':') && !r.starts_with("::"))
            })
            || (l.starts_with("use ") && !words(l, name).is_empty())
    })
}

/// Does the path `segments` resolve from `scope` (the files of the module named so far, or all
/// of `src/` at the start, `dir` being `None`)? A segment is a module (a file or directory of
/// the module `dir` names; at the start, anywhere: `smt::contain`, `ast::Test`), else a name
/// the scope declares, after which the rest are members (`Model::class`) declared there too.
fn resolves(all: &[Source], scope: &[&Source], dir: Option<&str>, segments: &[&str]) -> bool {
    let Some((seg, rest)) = segments.split_first() else {
        return true;
    };
    let dirs: BTreeSet<String> = match dir {
        Some(d) => BTreeSet::from([d.to_string()]),
        None => all
            .iter()
            .filter_map(|s| {
                let rel = s.rel.strip_suffix(".rs").unwrap();
                let at = rel.split('/').position(|p| p == *seg)?;
                Some(rel.split('/').take(at).map(|p| format!("{p}/")).collect())
            })
            .collect(),
    };
    let mut a_module = false;
    for d in dirs {
        let (file, sub) = (format!("{d}{seg}.rs"), format!("{d}{seg}/"));
        let files: Vec<&Source> = all
            .iter()
            .filter(|s| s.rel == file || s.rel.starts_with(&sub))
            .collect();
        a_module |= !files.is_empty();
        if !files.is_empty() && resolves(all, &files, Some(&sub), rest) {
            return true;
        }
    }
    // Past the modules: a type or item, then its members, declared in the same scope.
    !a_module
        && scope.iter().any(|s| declares(&s.code, seg))
        && resolves(all, scope, Some("\0"), rest)
}

/// ARCHITECTURE.md, "Tests": every Rust path the page names (`ir::unroll::MAX_BLOCKS`,
/// `Program::reaches`, `eval::Domain::unspecified`) exists: each module of the path is a file
/// or directory, and each other name is declared in the module named before it (anywhere in
/// `src/` when the path starts with a type).
#[test]
fn architecture_md_names_only_items_that_exist() {
    const EXTERNAL: [&str; 2] = ["z3", "petgraph"];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let all = sources("", false);
    let everything: Vec<&Source> = all.iter().collect();
    let known = |p: &str| resolves(&all, &everything, None, &p.split("::").collect::<Vec<_>>());
    assert!(known("ir::unroll::MAX_BLOCKS") && known("ast::Test") && known("Program::reaches"));
    assert!(
        !known("ir::unroll::MAX_BLOCK")
            && !known("eval::MAX_BLOCKS")
            && !known("Program::reaches_nowhere")
            && !known("ir::nope")
    );
    let mut missing = Vec::new();
    for quoted in text.split('`').skip(1).step_by(2) {
        let path = quoted.split('(').next().unwrap().trim_end_matches("::");
        let segments: Vec<&str> = path.split("::").collect();
        let is_path = segments.len() > 1
            && segments
                .iter()
                .all(|s| !s.is_empty() && s.chars().all(is_ident));
        if !is_path || EXTERNAL.contains(&segments[0]) {
            continue;
        }
        let segments = segments.strip_prefix(&["tangle"]).unwrap_or(&segments);
        if !resolves(&all, &everything, None, segments) {
            missing.push(quoted.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names items that do not exist: {missing:?}"
    );
}
