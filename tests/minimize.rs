//! Test minimization (`tangle minimize`) on a padded copy of the paper's sso_ww.

use std::path::Path;
use tangle::model::Model;
use tangle::query::minimize::{minimize, statements, MinimizeError};
use tangle::query::search::Combination;
use tangle::query::{analyse, Engine, Options, Verdict};
use tangle::syntax::ast::Test;

/// sso_ww with irrelevant statements, an extra global, a wider array and a third thread.
const PADDED: &str = r#"
test sso_ww_padded "sso_ww, padded"
threads 3
global slots[3]
global junk = 5

kernel {
  k = 7;
  next = (lane + 1) % 2;
  junk = lane;
  slots[lane] = 1;
  w = k * 2;
  if (lane % 2 == 0) {
    s = subgroupAll(true);
    slots[next] = 2;
    u = 3;
  } else {
    s = subgroupAll(false);
    slots[next] = 2;
  }
  subgroupBarrier();
  r = slots[lane];
  z = junk;
}

exists (0:r != 2 || 1:r != 2)
"#;

fn model(n: &str) -> Model {
    Model::by_name(n).unwrap()
}

fn sc(n: &str) -> Combination {
    Combination::sc(model(n))
}

fn verdict(t: &Test, m: &str, engine: Engine) -> Verdict {
    analyse(t, &model(m), &Options::default().with_engine(engine))
        .unwrap()
        .verdict
}

#[test]
fn a_padded_paper_test_shrinks_to_a_1_minimal_distinguishing_test() {
    let padded = tangle::syntax::parse("sso_ww_padded.litmus", PADDED.as_bytes()).unwrap();
    let (spec, sso) = (sc("Spec"), sc("SSO"));
    let mut events = 0;
    let m = minimize(&padded, &spec, &sso, &Options::default(), &mut |_| {
        events += 1
    })
    .unwrap();
    assert_eq!(events, m.tried);
    assert!(!m.steps.is_empty());

    // The output parses, carries the expectations and the new name.
    let min = tangle::syntax::parse("min.litmus", m.text.as_bytes())
        .unwrap_or_else(|d| panic!("{d}\n{}", m.text));
    assert_eq!(min.name, "sso_ww_padded_min");
    let exp: Vec<(String, bool)> = min
        .expect
        .iter()
        .map(|e| (e.model.clone().unwrap_or_default(), e.allow))
        .collect();
    assert_eq!(
        exp,
        [("SSO".to_string(), false), ("Spec".to_string(), true)]
    );

    // Re-checking reproduces allowed / forbidden, with both engines.
    for engine in [Engine::Smt, Engine::Explore] {
        assert_eq!(verdict(&min, "Spec", engine), Verdict::Allowed, "{engine}");
        assert_eq!(verdict(&min, "SSO", engine), Verdict::Forbidden, "{engine}");
    }

    // No larger than the paper's test.
    let paper = tangle::syntax::parse_file(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/paper/sso_ww.litmus"),
    )
    .unwrap();
    assert!(min.threads <= paper.threads, "{}", m.text);
    assert!(
        statements(&min.kernel) <= statements(&paper.kernel),
        "{} statements, the paper's test has {}:\n{}",
        statements(&min.kernel),
        statements(&paper.kernel),
        m.text
    );
    assert_eq!(m.statements_after, statements(&min.kernel));
    assert_eq!(m.threads_before, 3);

    // 1-minimal, judged apart from the minimizer's own list of reductions: no line of the
    // printed kernel can be deleted, and no thread dropped, with Spec still allowing and
    // SSO forbidding (without undefined behaviour).
    let keeps = |text: &str| -> Option<bool> {
        let t = tangle::syntax::parse("candidate.litmus", text.as_bytes()).ok()?;
        let a = analyse(&t, &spec.model, &Options::default()).unwrap();
        let b = analyse(&t, &sso.model, &Options::default()).unwrap();
        Some(
            a.verdict == Verdict::Allowed
                && b.verdict == Verdict::Forbidden
                && a.undefined_behaviour.is_empty()
                && b.undefined_behaviour.is_empty(),
        )
    };
    let lines: Vec<&str> = m.text.lines().collect();
    let kernel = lines.iter().position(|l| l.starts_with("kernel")).unwrap();
    let end = lines.iter().rposition(|l| *l == "}").unwrap();
    let mut checked = 0;
    for i in kernel + 1..end {
        let mut cut = lines.clone();
        cut.remove(i);
        let text = cut.join("\n");
        if let Some(k) = keeps(&text) {
            checked += 1;
            assert!(!k, "not 1-minimal: line {} can go:\n{text}", i + 1);
        }
    }
    for n in 1..min.threads {
        let text = m
            .text
            .replace(&format!("threads {}", min.threads), &format!("threads {n}"));
        if let Some(k) = keeps(&text) {
            checked += 1;
            assert!(!k, "not 1-minimal: {n} threads do:\n{text}");
        }
    }
    assert!(
        checked >= 3,
        "only {checked} reduced texts parse:\n{}",
        m.text
    );
}

#[test]
fn a_test_that_does_not_distinguish_is_refused() {
    let padded = tangle::syntax::parse("sso_ww_padded.litmus", PADDED.as_bytes()).unwrap();
    // CM forbids it as SSO does.
    match minimize(
        &padded,
        &sc("CM"),
        &sc("SSO"),
        &Options::default(),
        &mut |_| {},
    ) {
        Err(e @ MinimizeError::NotDistinguishing(_)) => {
            let s = e.to_string();
            assert!(s.contains("CM says forbidden"), "{s}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn the_cli_writes_the_minimized_test_and_reports_progress() {
    let dir = std::env::temp_dir().join(format!("tangle-minimize-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("padded.litmus");
    std::fs::write(&input, PADDED).unwrap();
    let output = dir.join("min.litmus");
    let run = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tangle"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&[
        "minimize".as_ref(),
        input.as_os_str(),
        "--allowed-by".as_ref(),
        "Spec".as_ref(),
        "--forbidden-by".as_ref(),
        "SSO".as_ref(),
        "-o".as_ref(),
        output.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("kept"), "{err}");
    assert!(err.contains("3 -> 2 threads"), "{err}");
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(text.contains("expect SSO forbid, Spec allow"), "{text}");
    // `tangle check` agrees with the expect line it wrote.
    let check = run(&["check".as_ref(), output.as_os_str()]);
    assert_eq!(check.status.code(), Some(0));
    // Bad input: unknown model, not distinguishing, unparsable file.
    let bad = run(&[
        "minimize".as_ref(),
        input.as_os_str(),
        "--allowed-by".as_ref(),
        "Nope".as_ref(),
        "--forbidden-by".as_ref(),
        "SSO".as_ref(),
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let same = run(&[
        "minimize".as_ref(),
        input.as_os_str(),
        "--allowed-by".as_ref(),
        "SSO".as_ref(),
        "--forbidden-by".as_ref(),
        "SSO".as_ref(),
    ]);
    assert_eq!(same.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&same.stderr).contains("does not distinguish"));
    std::fs::write(
        dir.join("broken.litmus"),
        "test broken\nthreads 2\nkernel {\n  r = ;\n}\n",
    )
    .unwrap();
    let broken = run(&[
        "minimize".as_ref(),
        dir.join("broken.litmus").as_os_str(),
        "--allowed-by".as_ref(),
        "Spec".as_ref(),
        "--forbidden-by".as_ref(),
        "SSO".as_ref(),
    ]);
    assert_eq!(broken.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&broken.stderr).contains("broken.litmus:4:"));
    let _ = std::fs::remove_dir_all(&dir);
}
