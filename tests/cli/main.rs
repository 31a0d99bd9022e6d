//! The `tangle` executable's tests, one binary: `commands` runs each command end to end,
//! `contract` pins the outputs users script against (snapshots with insta).

mod commands;
mod contract;
mod harness;
