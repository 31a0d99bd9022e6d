//! The JSON a script reads never contradicts itself: over every suite file, both engines,
//! with and without an outcome list, each analysis record is checked against the rules a
//! reader relies on (the wire form is `report::json::AnalysisRecord`, what the binary prints).

mod common;

use serde_json::Value;
use tangle::model::Model;
use tangle::query::{self, Engine, Options};
use tangle::report::json::AnalysisRecord;
use tangle::vocab::{Class, Kind};

/// Every way the record `r` contradicts itself.
fn inconsistencies(r: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    let verdict = r["verdict"].as_str().unwrap_or("?");
    let decided = verdict == "allowed" || verdict == "forbidden";
    if (verdict == "unknown") != r.get("reason").is_some() {
        bad.push("a reason exactly when unknown".into());
    }
    if (verdict == "allowed") != r["witness"].is_array() {
        bad.push("a witness exactly when allowed".into());
    }
    let holds = r.get("condition_holds").and_then(Value::as_bool);
    match (r["quantifier"].as_str(), holds) {
        // `forall P` is decided by its own question (is an outcome breaking P reachable?),
        // so it may hold or fail while the verdict (is P reachable?) is unknown.
        (Some("exists" | "~exists"), Some(_)) if !decided => {
            bad.push("condition_holds without a verdict".into())
        }
        (Some("exists"), Some(h)) if h != (verdict == "allowed") => {
            bad.push("exists P holds iff P is reachable".into())
        }
        (Some("~exists"), Some(h)) if h != (verdict == "forbidden") => {
            bad.push("~exists P holds iff P is unreachable".into())
        }
        (Some("exists" | "~exists"), None) if decided => {
            bad.push("a decided exists/~exists condition has condition_holds".into())
        }
        _ => {}
    }
    match (
        r.get("expected").and_then(Value::as_str),
        r.get("matches_expected"),
    ) {
        (Some(e), Some(m)) => {
            let want = (e == "allow") == (verdict == "allowed");
            if !decided || m.as_bool() != Some(want) {
                bad.push("matches_expected follows expected and the verdict".into());
            }
        }
        (Some(_), None) if decided => bad.push("matches_expected missing".into()),
        (None, Some(_)) => bad.push("matches_expected without expected".into()),
        _ => {}
    }
    if let Some(list) = r.get("outcomes").and_then(Value::as_array) {
        let names: Vec<&str> = r["observables"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        for o in list {
            let keys: Vec<&str> = o["values"]
                .as_object()
                .map(|m| m.keys().map(String::as_str).collect())
                .unwrap_or_default();
            if keys != names {
                bad.push(format!(
                    "outcome keys {keys:?} are the observables {names:?}"
                ));
            }
        }
        let any_sat = list.iter().any(|o| o["satisfies"] == true);
        if verdict == "forbidden" && any_sat {
            bad.push("forbidden, yet a listed outcome satisfies P".into());
        }
        let complete = r["outcomes_complete"] == true;
        if complete && verdict == "allowed" && !any_sat {
            bad.push("allowed, yet no outcome of a complete list satisfies P".into());
        }
        if complete == r.get("outcomes_incomplete_because").is_some() {
            bad.push("a reason exactly when the list is incomplete".into());
        }
        if r["quantifier"] == "forall" && holds == Some(true) && !list.is_empty() && !any_sat {
            bad.push("forall P holds, yet no listed outcome satisfies P".into());
        }
        let breaks = |o: &Value| match o.get("satisfies_all") {
            Some(all) => all == false,
            None => o["satisfies"] == false,
        };
        if r["quantifier"] == "forall" && holds == Some(true) && list.iter().any(breaks) {
            bad.push("forall P holds, yet a listed outcome breaks P".into());
        }
        if r["quantifier"] == "forall" && complete && decided {
            let all = list.iter().all(|o| o["satisfies"] == true);
            if holds != Some(all) {
                bad.push(
                    "forall P over a complete list holds iff every outcome satisfies P".into(),
                );
            }
        }
    } else if r.get("outcomes_complete").is_some() {
        bad.push("outcomes_complete without outcomes".into());
    }
    bad
}

#[test]
fn no_record_contradicts_itself_on_the_suites_with_either_engine() {
    let files = common::suite_files();
    let all = Model::builtin();
    let explorable: Vec<Model> = all
        .iter()
        .filter(|m| m.class(Kind::Sgop) != Class::Symbolic)
        .cloned()
        .collect();
    let mut records = 0;
    let mut bad = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let test = tangle::syntax::parse_file(f).unwrap();
        let prog = query::compile(&test, 8).unwrap();
        for (engine, models) in [(Engine::Smt, &all), (Engine::Explore, &explorable)] {
            // Records without outcomes carry a subset of the fields of records with them:
            // every third test is enough to pin their shape (and keeps CI short).
            let kinds: &[bool] = if i % 3 == 0 { &[false, true] } else { &[true] };
            for &listed in kinds {
                let opts = Options::default()
                    .with_engine(engine)
                    .with_outcomes(listed)
                    .with_max_states(300_000)
                    .with_timeout_ms(Some(20_000));
                for a in query::analyse_models(&test, &prog, models, &opts) {
                    let v = serde_json::to_value(AnalysisRecord::of(&a)).unwrap();
                    records += 1;
                    for why in inconsistencies(&v) {
                        bad.push(format!(
                            "{} {} {engine} listed={listed}: {why}",
                            a.test, a.model
                        ));
                    }
                }
            }
        }
    }
    assert!(records > 1000, "{records} records");
    assert!(
        bad.is_empty(),
        "{} inconsistent records:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_checker_catches_a_contradiction() {
    // The rule the old output broke: condition_holds false next to an allowed verdict.
    let r = serde_json::json!({
        "verdict": "allowed", "quantifier": "exists", "condition_holds": false,
        "witness": [], "observables": [],
    });
    assert!(!inconsistencies(&r).is_empty());
}

/// `forall P` is decided without an outcome list (is an outcome breaking P reachable?), and
/// that answer is the one a complete list gives: every fourth suite file, its condition made
/// a `forall`, under both engines, with and without the list.
#[test]
fn forall_holds_without_an_outcome_list_as_with_one() {
    let models: Vec<Model> = ["CM", "SSO", "Lazy"]
        .iter()
        .map(|m| Model::by_name(m).unwrap())
        .collect();
    let (mut compared, mut holds, mut fails) = (0, 0, 0);
    let mut bad = Vec::new();
    for f in common::suite_files().iter().step_by(4) {
        let text = std::fs::read_to_string(f).unwrap();
        let Some(at) = text.rfind("\nexists").or_else(|| text.rfind("\n~exists")) else {
            continue;
        };
        let tail = &text[at + 1..];
        let body = tail.trim_start_matches('~').trim_start_matches("exists");
        let text = format!("{}forall{body}", &text[..at + 1]);
        let Ok(test) = tangle::syntax::parse("forall.litmus", text.as_bytes()) else {
            continue;
        };
        let prog = query::compile(&test, 8).unwrap();
        for engine in [Engine::Smt, Engine::Explore] {
            let opts = |listed: bool| {
                Options::default()
                    .with_engine(engine)
                    .with_outcomes(listed)
                    .with_max_states(300_000)
                    .with_timeout_ms(Some(20_000))
            };
            let listed = query::analyse_models(&test, &prog, &models, &opts(true));
            let checked = query::analyse_models(&test, &prog, &models, &opts(false));
            for (l, c) in listed.iter().zip(&checked) {
                if !l.outcomes_complete {
                    continue;
                }
                compared += 1;
                match c.condition_holds {
                    Some(true) => holds += 1,
                    Some(false) => fails += 1,
                    None => {}
                }
                if c.condition_holds != l.condition_holds {
                    bad.push(format!(
                        "{} {} {engine}: {:?} without the list, {:?} with it",
                        f.display(),
                        l.model,
                        c.condition_holds,
                        l.condition_holds
                    ));
                }
            }
        }
    }
    eprintln!("{compared} compared: {holds} hold, {fails} fail");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(
        compared >= 60 && holds >= 5 && fails >= 20,
        "{compared} {holds} {fails}"
    );
}
