//! Tokens (stub, being written).
