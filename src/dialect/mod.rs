//! Front ends for other tools' litmus dialects, siblings of [`crate::syntax`]: each reads a
//! file unchanged and produces the same [`crate::syntax::ast::Test`].
//!
//! - [`vulkan`]: Dartagnan's (and the Vulkan memory model's) `VULKAN` litmus tests.

pub mod ptx;
mod table;
pub mod vulkan;

/// The dialect a litmus file is written in, from its first word (`None`: tangle's own).
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    let text = std::str::from_utf8(bytes).ok()?;
    let first = text.split_whitespace().next()?;
    match first {
        "Vulkan" | "VULKAN" => Some("vulkan"),
        "PTX" => Some("ptx"),
        _ => None,
    }
}
