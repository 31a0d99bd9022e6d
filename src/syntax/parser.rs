//! Parser (stub, being written).
use super::{ast, Diagnostics};
pub fn parse(_file: &str, _bytes: &[u8]) -> Result<ast::Test, Diagnostics> {
    Err(Diagnostics(vec![]))
}
