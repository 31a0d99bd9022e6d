//! Reading inputs: which paths are accepted and how much of them is read.
//!
//! Every front end (litmus files, shaders, model files) reads through here, so the rules are
//! the same everywhere: `-` is standard input; only regular files are read (a FIFO would block
//! forever, `/dev/zero` never ends); a file above the size ceiling is refused before it is
//! read; a directory is walked for `.litmus` files, and a subdirectory that cannot be read is
//! an error, not a silent skip.

use crate::diag::Diagnostic;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The default ceiling on one input file (`--max-file-size` raises it).
pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;

/// Deepest directory nesting walked (symbolic-link loops end here).
const MAX_WALK_DEPTH: usize = 64;

/// The path that means standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How a path is named in messages (`<stdin>` for `-`).
pub fn display_name(path: &Path) -> String {
    if is_stdin(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Reads a whole input of at most `max_bytes` bytes.
pub fn read(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Diagnostic> {
    let name = display_name(path);
    let fail = |m: String| Diagnostic::bare(&name, 0, 0, m);
    let too_big = |n: u64| {
        fail(format!(
            "the file is {n} bytes, above the limit of {max_bytes} bytes"
        ))
        .with_help("raise the limit with --max-file-size BYTES")
    };
    if is_stdin(path) {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| fail(format!("cannot read standard input: {e}")))?;
        if bytes.len() as u64 > max_bytes {
            return Err(fail(format!(
                "standard input is longer than the limit of {max_bytes} bytes"
            ))
            .with_help("raise the limit with --max-file-size BYTES"));
        }
        return Ok(bytes);
    }
    let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read the file: {e}")))?;
    if meta.is_dir() {
        return Err(fail("is a directory, where a file was expected".into()));
    }
    if !meta.is_file() {
        return Err(fail(
            "not a regular file (a FIFO, device or socket): tangle reads regular files, or `-` for standard input".into(),
        ));
    }
    if meta.len() > max_bytes {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(|e| fail(format!("cannot read the file: {e}")))?;
    if bytes.len() as u64 > max_bytes {
        // It grew while being read.
        return Err(too_big(bytes.len() as u64));
    }
    Ok(bytes)
}

/// The inputs named on a command line: files as given (and `-`), directories replaced by
/// their `.litmus` files and annotated shaders ([`asks_its_question`]; recursively, sorted).
/// Paths that do not exist, directories without tests and unreadable directories are errors,
/// reported next to the files that were found.
pub fn expand(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<Diagnostic>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if is_stdin(p) {
            files.push(p.clone());
            continue;
        }
        match std::fs::metadata(p) {
            Err(e) => errors.push(Diagnostic::bare(
                &p.display().to_string(),
                0,
                0,
                match e.kind() {
                    std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
                    _ => format!("cannot read: {e}"),
                },
            )),
            Ok(m) if m.is_dir() => {
                let mut found = Vec::new();
                let mut seen = std::collections::HashSet::new();
                walk(p, 0, &mut found, &mut seen, &mut errors);
                found.sort();
                if found.is_empty() {
                    errors.push(Diagnostic::bare(
                        &p.display().to_string(),
                        0,
                        0,
                        "no tests in this directory (.litmus files, or shaders with Dartagnan's `@Output`/`@Config` annotations)",
                    ));
                }
                files.extend(found);
            }
            Ok(_) => files.push(p.clone()),
        }
    }
    (files, errors)
}

/// Adds the `.litmus` files under `dir`; a directory reached twice (through a symbolic link)
/// is walked once.
fn walk(
    dir: &Path,
    depth: usize,
    out: &mut Vec<PathBuf>,
    seen: &mut std::collections::HashSet<PathBuf>,
    errors: &mut Vec<Diagnostic>,
) {
    let here = dir.display().to_string();
    if let Ok(canonical) = std::fs::canonicalize(dir) {
        if !seen.insert(canonical) {
            return;
        }
    }
    if depth > MAX_WALK_DEPTH {
        errors.push(Diagnostic::bare(
            &here,
            0,
            0,
            format!(
                "directories nested deeper than {MAX_WALK_DEPTH} levels (a symbolic-link loop?)"
            ),
        ));
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(Diagnostic::bare(
                &here,
                0,
                0,
                format!("cannot read the directory: {e}"),
            ));
            return;
        }
    };
    for e in entries {
        let p = match e {
            Ok(e) => e.path(),
            Err(e) => {
                errors.push(Diagnostic::bare(
                    &here,
                    0,
                    0,
                    format!("cannot read the directory: {e}"),
                ));
                continue;
            }
        };
        if p.is_dir() {
            walk(&p, depth + 1, out, seen, errors);
        } else if p.extension().is_some_and(|x| x == "litmus") || asks_its_question(&p) {
            out.push(p);
        }
    }
}

/// Shader text that carries its own launch and question (Dartagnan's `@Config` / `@Output`
/// annotations, docs/spirv.md): a directory's test like a `.litmus` file, since it needs no
/// launch flags. Other shaders in a directory are left out (they need `--subgroup-size` and
/// their buffers); name them on the command line.
fn asks_its_question(p: &Path) -> bool {
    const SHADERS: &[&str] = &["comp", "glsl", "spvasm", "wgsl"];
    if !p
        .extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| SHADERS.contains(&x))
    {
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(p).and_then(|f| f.take(64 * 1024).read_to_end(&mut head));
    read.is_ok()
        && String::from_utf8_lossy(&head).lines().any(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix("//;").or_else(|| l.strip_prefix(';'));
            rest.is_some_and(|r| {
                let r = r.trim_start();
                r.starts_with("@Output") || r.starts_with("@Config")
            })
        })
}

/// The before/after pairs of a directory for `equiv --table`: every `NAME.before.litmus`
/// (recursively, sorted) with its `NAME.after.litmus`, as (NAME, before, after).
pub fn pairs_in(dir: &Path) -> Result<Vec<(String, PathBuf, PathBuf)>, Vec<Diagnostic>> {
    let (files, errors) = expand(&[dir.to_path_buf()]);
    if !errors.is_empty() {
        return Err(errors);
    }
    let pairs: Vec<_> = files
        .into_iter()
        .filter_map(|b| {
            let path = b.to_string_lossy().to_string();
            let stem = path.strip_suffix(".before.litmus")?.to_string();
            let name = Path::new(&stem)
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().to_string());
            Some((name, b, PathBuf::from(format!("{stem}.after.litmus"))))
        })
        .collect();
    if pairs.is_empty() {
        return Err(vec![Diagnostic::bare(
            &dir.display().to_string(),
            0,
            0,
            "no NAME.before.litmus files in this directory",
        )]);
    }
    Ok(pairs)
}
