//! Engines: given an unrolled program and a model, find the executions.
pub mod explore;
pub mod lasso;
pub mod smt;
pub mod trace;
