//! JSON output: an array of analysis objects (`test`, `model`, `verdict`, `outcomes`, ...).
use crate::query::Analysis;

/// The JSON wire form of a list of analyses (one object per test and model).
pub fn analyses(list: &[Analysis]) -> String {
    serde_json::to_string_pretty(list).expect("analyses serialise")
}
