//! Memory-model tags as the front ends write them on the AST (`ast::Stmt::tags`): the names
//! a cat model reads (docs/memory-models.md). A read-modify-write is one statement, but the
//! Vulkan model orders its read and its write apart: a tag meant for one half is written
//! `R:TAG` or `W:TAG` (`memory::base` reads them). Every front end that reads Vulkan
//! semantics (the VULKAN dialect, SPIR-V) splits an RMW's tags here, so they agree.

/// An RMW's tags per half, as Dartagnan compiles it: acquire and visibility (and the
/// storage-class semantics, when acquiring) belong to its read, release and availability (and
/// the semantics, when releasing) to its write; the rest to both. A half's tag is written
/// `R:TAG` or `W:TAG` (memory::base reads them).
pub fn split_rmw(tags: Vec<String>) -> Vec<String> {
    let acq = tags.iter().any(|t| t == "ACQ");
    let rel = tags.iter().any(|t| t == "REL");
    let mut out = Vec::new();
    for t in tags {
        let semsc = t.starts_with("SEMSC");
        match t.as_str() {
            "ACQ" | "VIS" | "SEMVIS" => out.push(format!("R:{t}")),
            "REL" | "AV" | "SEMAV" => out.push(format!("W:{t}")),
            _ if semsc => {
                if acq {
                    out.push(format!("R:{t}"));
                }
                if rel {
                    out.push(format!("W:{t}"));
                }
            }
            _ => out.push(t),
        }
    }
    out
}
