//! JSON output. Every document is an envelope `{"schema_version", "tool", "command", ...}`
//! around the command's payload, so scripts can tell formats apart as they change. An
//! analysis is written through [`AnalysisRecord`], the wire form: outcomes are objects keyed
//! by location, fields that would contradict the verdict are absent rather than guessed
//! (`condition_holds` when nothing decides it, `outcomes` when they were not listed).
//!
//! Schema history: 1 was a bare array of analyses with positional outcome arrays; 2 is this.

use crate::query::{Analysis, TraceStep, UbReport, Verdict};
use serde::Serialize;
use serde_json::{Map, Value};

/// The version of the JSON documents tangle writes.
pub const SCHEMA_VERSION: u32 = 2;

/// `payload`'s fields inside the envelope of `command`.
pub fn document(command: &str, payload: impl Serialize) -> String {
    let mut doc = Map::new();
    doc.insert("schema_version".into(), SCHEMA_VERSION.into());
    doc.insert(
        "tool".into(),
        format!("tangle {}", env!("CARGO_PKG_VERSION")).into(),
    );
    doc.insert("command".into(), command.into());
    match serde_json::to_value(payload).unwrap_or(Value::Null) {
        Value::Object(fields) => doc.extend(fields),
        other => {
            doc.insert("result".into(), other);
        }
    }
    serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default() + "\n"
}

/// One outcome: the value of every observable, by name.
#[derive(Serialize)]
pub struct OutcomeRecord {
    /// Each observable's value; for those of `any_value`, the name of its free value (`"v"`,
    /// `"w"`, ...: observables with one name take one common value).
    pub values: Map<String, Value>,
    /// A family of outcomes: these observables take any values (each choice is reachable,
    /// proved by Z3), the others the values given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub any_value: Vec<String>,
    /// For a family: does every member satisfy P (`satisfies`: does some member)?
    #[serde(skip_serializing_if = "Option::is_none")]
    pub satisfies_all: Option<bool>,
    /// Does it satisfy the condition's proposition P?
    pub satisfies: bool,
}

/// The wire form of an [`Analysis`].
#[derive(Serialize)]
pub struct AnalysisRecord<'a> {
    pub test: &'a str,
    pub file: &'a str,
    pub model: &'a str,
    pub engine: String,
    /// allowed, forbidden or unknown: is an outcome satisfying P reachable?
    pub verdict: &'static str,
    /// Why the verdict is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// allow or forbid, from the `expect` line or the --expected table.
    pub expected: Option<&'static str>,
    /// Does the verdict match `expected`? (absent without an expectation or when unknown)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches_expected: Option<bool>,
    pub condition: &'a str,
    pub quantifier: &'static str,
    /// herd's Ok/No; absent when the run does not decide it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition_holds: Option<bool>,
    pub observables: &'a [String],
    /// Every reachable outcome; absent when they were not listed (`check` asks only for the
    /// verdict).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcomes: Option<Vec<OutcomeRecord>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcomes_complete: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcomes_incomplete_because: Option<&'a str>,
    pub witness: Option<&'a [TraceStep]>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub witness_differs: &'a [String],
    pub undefined_behaviour: &'a [UbReport],
    pub bound_hit: Option<&'a [TraceStep]>,
    /// A run past the loop bound that never finishes (the liveness answer, with its lasso).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hang: Option<&'a crate::query::liveness::LivenessReport>,
    pub notes: &'a [String],
    /// Under a relaxed memory model: reads-from and coherence of the witness, or the axioms
    /// that forbid the condition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<&'a crate::memory::MemoryReport>,
    /// Explorer only: states created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states: Option<usize>,
    pub millis: f64,
}

impl<'a> AnalysisRecord<'a> {
    pub fn of(a: &'a Analysis) -> AnalysisRecord<'a> {
        let (verdict, reason) = match &a.verdict {
            Verdict::Allowed => ("allowed", None),
            Verdict::Forbidden => ("forbidden", None),
            Verdict::Unknown(why) => ("unknown", Some(why.as_str())),
        };
        AnalysisRecord {
            test: &a.test,
            file: &a.file,
            model: &a.model,
            engine: a.engine.to_string(),
            verdict,
            reason,
            expected: a.expected.map(|e| if e { "allow" } else { "forbid" }),
            matches_expected: a.matches_expectation(),
            condition: &a.condition,
            quantifier: a.quantifier.keyword(),
            condition_holds: a.condition_holds,
            observables: &a.observables,
            outcomes: a.outcomes_listed.then(|| {
                a.outcomes
                    .iter()
                    .map(|o| {
                        let mut values = keyed(&a.observables, &o.values);
                        let mut any_value = Vec::new();
                        for (k, g) in o.free.iter().enumerate() {
                            for &i in g {
                                let v = crate::query::free_value_name(k);
                                values.insert(a.observables[i].clone(), Value::from(v));
                                any_value.push(a.observables[i].clone());
                            }
                        }
                        OutcomeRecord {
                            satisfies_all: (!o.free.is_empty()).then_some(o.satisfies_all),
                            values,
                            any_value,
                            satisfies: o.satisfies,
                        }
                    })
                    .collect()
            }),
            outcomes_complete: a.outcomes_listed.then_some(a.outcomes_complete),
            outcomes_incomplete_because: a.outcomes_incomplete.as_deref(),
            witness: a.witness.as_deref(),
            witness_differs: &a.witness_differs,
            undefined_behaviour: &a.undefined_behaviour,
            bound_hit: a.bound_hit.as_deref(),
            hang: a.hang.as_deref(),
            notes: &a.notes,
            memory: a.memory.as_ref(),
            states: (a.engine == crate::query::Engine::Explore).then_some(a.states),
            millis: a.millis,
        }
    }
}

/// Values keyed by observable name, in observable order.
pub fn keyed(names: &[String], values: &[u32]) -> Map<String, Value> {
    names
        .iter()
        .zip(values)
        .map(|(n, v)| (n.clone(), Value::from(*v)))
        .collect()
}

/// The analyses of a run, as records.
pub fn analyses(list: &[Analysis]) -> Vec<AnalysisRecord<'_>> {
    list.iter().map(AnalysisRecord::of).collect()
}

/// Replaces each positional outcome (an array of numbers) under `fields` of `obj` with an
/// object keyed by `names`.
fn key_fields(obj: &mut Value, names: &[String], fields: &[&str]) {
    for f in fields {
        if let Some(v) = obj.get_mut(*f) {
            *v = match v.take() {
                // One outcome (`values`), or a list of them.
                Value::Array(items) if *f == "values" => Value::Object(keyed_values(names, &items)),
                Value::Array(items) => Value::Array(
                    items
                        .into_iter()
                        .map(|o| match o {
                            Value::Array(vals) => Value::Object(keyed_values(names, &vals)),
                            other => other,
                        })
                        .collect(),
                ),
                other => other,
            };
        }
    }
}

fn keyed_values(names: &[String], values: &[Value]) -> Map<String, Value> {
    names.iter().cloned().zip(values.iter().cloned()).collect()
}

/// The wire form of an `equiv` report: outcome sets keyed by location.
pub fn equiv(r: &crate::query::equiv::EquivReport) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Some(results) = v.get_mut("results").and_then(Value::as_array_mut) {
        for x in results {
            key_fields(
                x,
                &r.observables,
                &["p_outcomes", "q_outcomes", "only_in_p", "only_in_q"],
            );
            if let Some(d) = x.get_mut("distinction") {
                key_fields(d, &r.observables, &["values"]);
            }
        }
    }
    v
}

/// The wire form of a thin-air report: each outcome's values keyed by location.
pub fn thin_air(r: &crate::query::thin_air::ThinAirReport) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Some(list) = v.get_mut("thin_air").and_then(Value::as_array_mut) {
        for o in list {
            key_fields(o, &r.observables, &["values"]);
        }
    }
    v
}
