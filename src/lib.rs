//! tangle: executable SIMT-Step semantics for GPU subgroups.
pub mod syntax;
pub mod vocab;
