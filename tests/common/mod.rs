//! Shared by the integration tests: the suite files under `litmus/`.

use std::path::{Path, PathBuf};

/// Every `.litmus` file in tangle's own format under `litmus/`, recursively, sorted. Files
/// in Dartagnan's VULKAN and PTX dialects (`litmus/public/`, `litmus/vulkan/`) carry no
/// `expect` lines and run under a memory model: `tests/cat.rs` and `tests/liveness.rs` check
/// them against their CSVs.
pub fn suite_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "litmus")
                && tangle::dialect::sniff(&std::fs::read(&p).unwrap()).is_none()
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/litmus")),
        &mut files,
    );
    files.sort();
    files
}
