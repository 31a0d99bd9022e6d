//! The SIMT-Step TLA+ artifact's GLSL extensions (ArberSephirotheca/gpu-subgroup_semantics-TLAPlus),
//! read so that its shaders run unchanged: stock glslang rejects them, so they are blanked out
//! before compiling, keeping every line where it was (docs/progress.md, "The TLA+ artifact").
//!
//! - `layout(tla_subgroup_size = N) in;` and `layout(tla_num_workgroups = N) in;` give the
//!   launch (flags still win);
//! - `layout(tla_synchronization_id = K) in;` names the execution model (0 and 1 SSO, 2 SCF,
//!   3 SM, 4 CM, as the artifact's translator reads them);
//! - `#pragma scheduler(HSA|OBE)` names the progress model;
//! - `assert(P);` becomes `if (!(P)) { tangle_assert.word[0] = 1u; }` on the same line, over a
//!   buffer declared in front of `main`, and the question becomes "can an assertion fail?"
//!   (`exists (tangle_assert[0] == 1)`), whose witness ends at the assert's line.

/// What the extensions said, with the text glslang can compile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tla {
    /// The source with the extensions blanked or rewritten, every line keeping its number
    /// (missing subgroup `#extension` lines are added after `#version`, then `#line`).
    pub text: String,
    pub subgroup_size: Option<u32>,
    pub workgroups: Option<u32>,
    /// The execution model `tla_synchronization_id` names.
    pub model: Option<&'static str>,
    /// The progress model `#pragma scheduler` names.
    pub scheduler: Option<String>,
    /// Some `assert(P);` was rewritten.
    pub asserts: bool,
}

/// The buffer asserts write: the condition names it.
pub const ASSERT_BUFFER: &str = "tangle_assert";

/// Reads the extensions out of `text`; `None` when it uses none of them. An extension written
/// wrongly (a value that is not a number, an unknown synchronization id) is an error with its
/// line.
pub fn read(text: &str) -> Result<Option<Tla>, (u32, String)> {
    if !text.contains("tla_") && !text.contains("#pragma scheduler") && !has_assert(text) {
        return Ok(None);
    }
    let mut tla = Tla::default();
    let mut out = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let no = i as u32 + 1;
        let mut line = line.to_string();
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("#pragma") {
            let rest = rest.trim();
            if let Some(arg) = rest.strip_prefix("scheduler") {
                let arg = arg.trim().trim_start_matches('(');
                let arg = arg.split(')').next().unwrap_or("").trim();
                tla.scheduler = Some(arg.to_ascii_lowercase());
                out.push(String::new());
                continue;
            }
        }
        while let Some((start, end, key, value)) = tla_layout(&line) {
            let n: u32 = value
                .parse()
                .map_err(|_| (no, format!("`{key}` takes a number, found `{value}`")))?;
            match key.as_str() {
                "tla_subgroup_size" => tla.subgroup_size = Some(n),
                "tla_num_workgroups" => tla.workgroups = Some(n),
                "tla_synchronization_id" => {
                    tla.model = Some(match n {
                        0 | 1 => "SSO",
                        2 => "SCF",
                        3 => "SM",
                        4 => "CM",
                        _ => {
                            return Err((
                                no,
                                format!("tla_synchronization_id {n}: expected 0 (none), 1 (SSO), 2 (SCF), 3 (SM) or 4 (CM)"),
                            ))
                        }
                    })
                }
                other => return Err((no, format!("unknown TLA+ layout `{other}`"))),
            }
            line.replace_range(start..end, &" ".repeat(end - start));
        }
        while let Some((start, end, cond)) = assert_stmt(&line) {
            tla.asserts = true;
            line.replace_range(
                start..end,
                &format!("if (!({cond})) {{ {ASSERT_BUFFER}.word[0] = 1u; }}"),
            );
        }
        out.push(line);
    }
    if tla.asserts {
        let decl = format!(
            "layout(std430, set = 7, binding = 0) buffer TangleAssert {{ uint word[1]; }} {ASSERT_BUFFER}; "
        );
        if let Some(line) = out.iter_mut().find(|l| l.contains("void main")) {
            let at = line.find("void main").expect("found");
            line.insert_str(at, &decl);
        }
    }
    enable_subgroup_extensions(&mut out);
    tla.text = out.join("\n");
    Ok(Some(tla))
}

/// The `GL_KHR_shader_subgroup_*` extensions and names that need them.
const SUBGROUP_EXTENSIONS: [(&str, &[&str]); 8] = [
    (
        "basic",
        &[
            "subgroupElect",
            "subgroupBarrier",
            "subgroupMemoryBarrier",
            "gl_Subgroup",
            "gl_NumSubgroups",
        ],
    ),
    ("vote", &["subgroupAll", "subgroupAny"]),
    (
        "arithmetic",
        &[
            "subgroupAdd",
            "subgroupMul",
            "subgroupMin",
            "subgroupMax",
            "subgroupAnd",
            "subgroupOr",
            "subgroupXor",
            "subgroupInclusive",
            "subgroupExclusive",
        ],
    ),
    (
        "ballot",
        &[
            "subgroupBroadcast",
            "subgroupBallot",
            "subgroupInverseBallot",
            "Mask",
        ],
    ),
    ("shuffle", &["subgroupShuffle"]),
    (
        "shuffle_relative",
        &["subgroupShuffleUp", "subgroupShuffleDown"],
    ),
    ("clustered", &["subgroupClustered"]),
    ("quad", &["subgroupQuad"]),
];

/// The artifact's translator reads subgroup operations without their `#extension` lines,
/// which glslang requires (two of its shaders omit one). The missing ones are enabled right
/// after `#version`, followed by `#line` so that every line keeps its number (glslang numbers
/// the line after `#line N` as N under `#version 450`). A name only in a comment enables an
/// extension needlessly, which changes nothing.
fn enable_subgroup_extensions(lines: &mut Vec<String>) {
    // `GL_KHR_shader_subgroup_shuffle` is a prefix of `..._shuffle_relative`: match the name whole.
    fn enables(text: &str, family: &str) -> bool {
        let name = format!("GL_KHR_shader_subgroup_{family}");
        text.match_indices(&name).any(|(i, _)| {
            !text[i + name.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    }
    let text = lines.join("\n");
    let missing: Vec<String> = SUBGROUP_EXTENSIONS
        .iter()
        .filter(|(family, names)| names.iter().any(|n| text.contains(n)) && !enables(&text, family))
        .map(|(family, _)| format!("#extension GL_KHR_shader_subgroup_{family} : enable"))
        .collect();
    let Some(version) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("#version"))
    else {
        return;
    };
    if missing.is_empty() {
        return;
    }
    let next = version + 2;
    let mut added = missing;
    added.push(format!("#line {next}"));
    lines.splice(version + 1..version + 1, added);
}

fn has_assert(text: &str) -> bool {
    text.lines().any(|l| assert_stmt(l).is_some())
}

/// `layout(tla_NAME = VALUE) in;` in `line`: its byte range, name and value.
fn tla_layout(line: &str) -> Option<(usize, usize, String, String)> {
    let mut from = 0;
    while let Some(k) = line[from..].find("layout") {
        let start = from + k;
        let rest = &line[start + 6..];
        let open = rest.find('(')?;
        if !rest[..open].trim().is_empty() {
            from = start + 6;
            continue;
        }
        let close = rest.find(')')?;
        let inner = &rest[open + 1..close];
        let after = &rest[close + 1..];
        let Some((name, value)) = inner.split_once('=') else {
            from = start + 6;
            continue;
        };
        let name = name.trim();
        let tail = after.trim_start();
        if name.starts_with("tla_") && tail.starts_with("in") {
            let semi = after.find(';')?;
            let end = start + 6 + close + 1 + semi + 1;
            return Some((start, end, name.to_string(), value.trim().to_string()));
        }
        from = start + 6;
    }
    None
}

/// `assert(P);` in `line`, as a statement (not `static_assert`, not a name ending in
/// `assert`): its byte range and `P`.
fn assert_stmt(line: &str) -> Option<(usize, usize, String)> {
    let mut from = 0;
    while let Some(k) = line[from..].find("assert") {
        let start = from + k;
        let before = line[..start].chars().next_back();
        let word_start = !before.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let rest = &line[start + 6..];
        if word_start && rest.trim_start().starts_with('(') {
            let open = start + 6 + rest.find('(').expect("starts with it");
            let mut depth = 0;
            for (i, c) in line[open..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            let close = open + i;
                            let after = &line[close + 1..];
                            let semi = after.find(';')?;
                            if !after[..semi].trim().is_empty() {
                                return None;
                            }
                            let cond = line[open + 1..close].to_string();
                            return Some((start, close + 1 + semi + 1, cond));
                        }
                    }
                    _ => {}
                }
            }
            return None;
        }
        from = start + 6;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_are_read_and_blanked_on_their_lines() {
        let src = "#version 460\n#pragma scheduler(OBE)\nlayout(local_size_x = 4) in;\nlayout(tla_subgroup_size = 2) in;\nlayout(tla_num_workgroups = 1) in;\nlayout(tla_synchronization_id = 4) in; // CM\nvoid main() {\n  assert(subgroupAllEqual(read));\n}\n";
        let t = read(src).unwrap().unwrap();
        assert_eq!(t.subgroup_size, Some(2));
        assert_eq!(t.workgroups, Some(1));
        assert_eq!(t.model, Some("CM"));
        assert_eq!(t.scheduler.as_deref(), Some("obe"));
        assert!(t.asserts);
        // `subgroupAllEqual` without its extension: enabled after `#version`, then `#line 2`.
        assert_eq!(t.text.lines().count(), src.lines().count() + 2);
        assert_eq!(
            t.text.lines().take(4).collect::<Vec<_>>(),
            [
                "#version 460",
                "#extension GL_KHR_shader_subgroup_vote : enable",
                "#line 2",
                ""
            ]
        );
        assert!(!t.text.contains("tla_"));
        assert!(t
            .text
            .contains("if (!(subgroupAllEqual(read))) { tangle_assert.word[0] = 1u; }"));
        assert!(t
            .text
            .lines()
            .nth(8)
            .unwrap()
            .contains("buffer TangleAssert"));
        assert_eq!(read("#version 450\nvoid main() {}\n").unwrap(), None);
        assert!(read("layout(tla_synchronization_id = 9) in;\n").is_err());
    }
}
