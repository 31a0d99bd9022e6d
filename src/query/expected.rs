//! Expected verdicts, and how a run compares with them: a table of (test, model, verdict)
//! rows in CSV (herd's "promote" workflow: `check DIR --expected results.csv`, `--bless` to
//! accept the run), or the tests' own `expect` lines, which `--bless` can rewrite.
//!
//! A table is keyed by test name, so a run that reads two tests with one name cannot use one
//! (the caller refuses it). A row's verdict is `allow`, `forbid` or `unknown`: an expected
//! `unknown` pins a known limitation, and deciding it later shows up as a difference.
//!
//! Dartagnan's tables (`VULKAN-expected.csv`: no header, rows `path,1|0`, 1 when the
//! condition as written holds) are read too: a row is keyed by path (a test matches when its
//! file ends with that path) and holds for every model; the comparison is then on whether
//! the condition holds (`exists`: reachable, `~exists`: unreachable, `forall`: every outcome
//! satisfies it), spelled `1`/`0` as in the table. A Dartagnan races table (`-DR` in its
//! file name, as `VULKAN-DR-expected.csv`: Dartagnan's `CAT_SPEC` question) says instead
//! whether no execution raises a flag of the memory model ([`Analysis::flags`]): 1 when none
//! does.

use super::{Analysis, Verdict};
use crate::syntax::{ast::Test, Diagnostic};
use indexmap::IndexMap;
use std::path::Path;

/// A verdict as tables and `expect` lines spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Word {
    Allow,
    Forbid,
    Unknown,
    /// Dartagnan's `1`: the condition as written holds.
    #[serde(rename = "1")]
    Holds,
    /// Dartagnan's `0`.
    #[serde(rename = "0")]
    Fails,
}

impl Word {
    /// Whether the analysis's condition holds, in Dartagnan's words.
    pub fn holds(a: &Analysis) -> Word {
        match a.condition_holds {
            Some(true) => Word::Holds,
            Some(false) => Word::Fails,
            None => Word::Unknown,
        }
    }

    pub fn of(v: &Verdict) -> Word {
        match v {
            Verdict::Allowed => Word::Allow,
            Verdict::Forbidden => Word::Forbid,
            Verdict::Unknown(_) => Word::Unknown,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Word::Allow => "allow",
            Word::Forbid => "forbid",
            Word::Unknown => "unknown",
            Word::Holds => "1",
            Word::Fails => "0",
        }
    }

    fn parse(s: &str) -> Option<Word> {
        match s.trim().to_ascii_lowercase().as_str() {
            "allow" | "allowed" => Some(Word::Allow),
            "forbid" | "forbidden" => Some(Word::Forbid),
            "unknown" => Some(Word::Unknown),
            _ => None,
        }
    }
}

/// The expected verdicts of a table file, in file order.
#[derive(Clone, Debug, Default)]
pub struct Table {
    rows: IndexMap<(String, String), Word>,
    /// Dartagnan's rows: path, and whether the condition holds.
    holds: IndexMap<String, bool>,
    /// A Dartagnan races table: `holds` says whether no execution raises a flag.
    races: bool,
}

impl Table {
    /// Reads a table: a header `test,model,verdict`, then one row per test and model; `#`
    /// starts a comment line. Errors are located (file:line:col).
    pub fn read(path: &Path, max_bytes: u64) -> Result<Table, Diagnostic> {
        let name = path.display().to_string();
        let bytes = crate::input::read(path, max_bytes)?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let at = |line: u64, col: u32, msg: String| {
            let line = line.max(1) as u32;
            let source_line = text.lines().nth(line as usize - 1).unwrap_or("");
            let span = crate::syntax::Span {
                start: 0,
                end: source_line.len().max(1) as u32,
                line,
                col,
            };
            Diagnostic::new(&name, &text, span, msg)
        };
        if let Some(mut t) = Self::read_dartagnan(&text, &at)? {
            t.races = is_races_table(&path.to_string_lossy());
            return Ok(t);
        }
        let mut reader = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(text.as_bytes());
        let header = reader
            .headers()
            .map_err(|e| at(1, 1, format!("not a CSV table: {e}")))?
            .clone();
        let cols: Vec<&str> = header.iter().collect();
        if cols != ["test", "model", "verdict"] {
            return Err(at(
                1,
                1,
                format!(
                    "expected the header `test,model,verdict`, found `{}`",
                    cols.join(",")
                ),
            ));
        }
        let mut rows = IndexMap::new();
        for rec in reader.records() {
            let rec = rec.map_err(|e| {
                let line = e.position().map_or(1, |p| p.line());
                at(line, 1, format!("not a CSV row: {e}"))
            })?;
            let line = rec.position().map_or(1, |p| p.line());
            if rec.len() != 3 {
                return Err(at(
                    line,
                    1,
                    format!(
                        "expected 3 fields (test,model,verdict), found {}",
                        rec.len()
                    ),
                ));
            }
            let word = Word::parse(&rec[2]).ok_or_else(|| {
                let col = text
                    .lines()
                    .nth(line as usize - 1)
                    .and_then(|l| l.rfind(&rec[2]))
                    .map_or(1, |c| c as u32 + 1);
                at(
                    line,
                    col,
                    format!("expected allow, forbid or unknown, found `{}`", &rec[2]),
                )
            })?;
            let key = (rec[0].to_string(), rec[1].to_string());
            if rows.insert(key, word).is_some() {
                return Err(at(
                    line,
                    1,
                    format!("test `{}` under `{}` is listed twice", &rec[0], &rec[1]),
                ));
            }
        }
        Ok(Table {
            rows,
            holds: IndexMap::new(),
            races: false,
        })
    }

    /// A Dartagnan table (`path,1|0`, no header; `//` and `#` lines are comments), when the
    /// first row looks like one.
    fn read_dartagnan(
        text: &str,
        at: &dyn Fn(u64, u32, String) -> Diagnostic,
    ) -> Result<Option<Table>, Diagnostic> {
        let rows: Vec<(usize, &str)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            // `;` comments a row out, as Dartagnan's tables do.
            .filter(|(_, l)| {
                !l.is_empty() && !l.starts_with("//") && !l.starts_with('#') && !l.starts_with(';')
            })
            .collect();
        let looks = |l: &str| {
            l.split_once(',')
                .is_some_and(|(p, v)| !p.trim().is_empty() && matches!(v.trim(), "0" | "1"))
        };
        if !rows.first().is_some_and(|(_, l)| looks(l)) {
            return Ok(None);
        }
        let mut holds = IndexMap::new();
        for (line, l) in rows {
            let Some((path, v)) = l.split_once(',').filter(|_| looks(l)) else {
                return Err(at(
                    line as u64,
                    1,
                    format!("expected a Dartagnan row `path,1` or `path,0`, found `{l}`"),
                ));
            };
            // Dartagnan's own tables list a file twice with one answer; keep the first.
            holds
                .entry(path.trim().to_string())
                .or_insert(v.trim() == "1");
        }
        Ok(Some(Table {
            rows: IndexMap::new(),
            holds,
            races: false,
        }))
    }

    /// Is this a Dartagnan table (rows by path, condition holds or not)?
    pub fn by_path(&self) -> bool {
        !self.holds.is_empty()
    }

    /// Is it a Dartagnan races table (its rows say whether no execution raises a flag)?
    pub fn races(&self) -> bool {
        self.races
    }

    /// A Dartagnan row for `file`: the row whose path `file` ends with.
    pub fn holds_for(&self, file: &str) -> Option<bool> {
        let file = file.replace('\\', "/");
        self.holds
            .iter()
            .find(|(p, _)| file == **p || file.ends_with(&format!("/{p}")))
            .map(|(_, h)| *h)
    }

    /// The expected verdict of `test` under `model` (model names match in any case).
    pub fn get(&self, test: &str, model: &str) -> Option<Word> {
        self.rows
            .iter()
            .find(|((t, m), _)| t == test && same_model(m, model))
            .map(|(_, w)| *w)
    }

    /// The table with this run's verdicts written in (rows of other tests and models kept;
    /// an unknown verdict does not replace a decided row).
    pub fn blessed(&self, analyses: &[Analysis]) -> Table {
        let mut rows = self.rows.clone();
        for a in analyses {
            let got = Word::of(&a.verdict);
            let key = rows
                .keys()
                .find(|(t, m)| *t == a.test && same_model(m, &a.model))
                .cloned()
                .unwrap_or((a.test.clone(), a.model.clone()));
            match rows.get(&key) {
                Some(Word::Allow | Word::Forbid) if got == Word::Unknown => {}
                _ => {
                    rows.insert(key, got);
                }
            }
        }
        Table {
            rows,
            holds: self.holds.clone(),
            races: self.races,
        }
    }

    /// The table as CSV text.
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        let _ = w.write_record(["test", "model", "verdict"]);
        for ((t, m), v) in &self.rows {
            let _ = w.write_record([t.as_str(), m.as_str(), v.as_str()]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// Is a Dartagnan table by this name a races table (`VULKAN-DR-expected.csv`)? Dartagnan names
/// its `CAT_SPEC` tables with `-DR`.
pub fn is_races_table(name: &str) -> bool {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    file.contains("-DR-") || file.contains("-DR.")
}

/// A result that is not what the table says.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Mismatch {
    pub test: String,
    pub file: String,
    pub model: String,
    /// `None`: the table has no row for this test and model.
    pub expected: Option<Word>,
    pub got: Word,
    /// A races table's row: `got` says whether no execution raises a flag.
    pub races: bool,
}

/// Every analysis whose verdict differs from the table's row (or has none).
pub fn differences(table: &Table, analyses: &[Analysis]) -> Vec<Mismatch> {
    analyses
        .iter()
        .filter_map(|a| {
            let (got, expected) = if table.by_path() {
                let want = table.holds_for(&a.file);
                let word = |h: bool| if h { Word::Holds } else { Word::Fails };
                let got = match (table.races, a.flags().pass()) {
                    (false, _) => Word::holds(a),
                    (true, Some(true)) => Word::Holds,
                    (true, Some(false)) => Word::Fails,
                    (true, None) => Word::Unknown,
                };
                (got, want.map(word))
            } else {
                (Word::of(&a.verdict), table.get(&a.test, &a.model))
            };
            (expected != Some(got)).then(|| Mismatch {
                test: a.test.clone(),
                file: a.file.clone(),
                model: a.model.clone(),
                expected,
                got,
                races: table.races,
            })
        })
        .collect()
}

/// Sets each analysis's `expected` from the table instead of the `expect` lines (rows saying
/// `unknown` expect no decided verdict, so they set none).
pub fn apply(table: &Table, analyses: &mut [Analysis]) {
    for a in analyses {
        if table.races {
            // The row is about flags, not the condition.
            a.expected = None;
            continue;
        }
        if table.by_path() {
            // The row says whether the condition holds; as a verdict that is only defined for
            // `exists` (holds: allowed) and `~exists` (holds: forbidden).
            a.expected = table.holds_for(&a.file).and_then(|h| match a.quantifier {
                crate::syntax::ast::Quantifier::Exists => Some(h),
                crate::syntax::ast::Quantifier::NotExists => Some(!h),
                crate::syntax::ast::Quantifier::Forall => None,
            });
            continue;
        }
        a.expected = match table.get(&a.test, &a.model) {
            Some(Word::Allow) => Some(true),
            Some(Word::Forbid) => Some(false),
            _ => None,
        };
    }
}

/// Do two model labels name the same run (`SSO` and `sso+sc.cat`)?
fn same_model(a: &str, b: &str) -> bool {
    crate::syntax::ast::expectation_key(a) == crate::syntax::ast::expectation_key(b)
}

/// The test's source with its `expect` lines replaced by one line giving this run's decided
/// verdicts (entries for models not run, or undecided in this run, are kept as they were).
pub fn bless_source(test: &Test, analyses: &[Analysis]) -> String {
    let mut entries: Vec<(Option<String>, bool)> = test
        .expect
        .iter()
        .map(|e| (e.model.clone(), e.allow))
        .collect();
    for a in analyses
        .iter()
        .filter(|a| a.file == test.file && a.test == test.name)
    {
        let allow = match a.verdict {
            Verdict::Allowed => true,
            Verdict::Forbidden => false,
            Verdict::Unknown(_) => continue,
        };
        let named = entries
            .iter_mut()
            .find(|(m, _)| m.as_deref().is_some_and(|m| same_model(m, &a.model)));
        match named {
            Some(e) => e.1 = allow,
            // An entry for every model that already says it stays the only one.
            None if test.expectation(&a.model) == Some(allow) => {}
            // (A memory model whose name no line can write gets no entry of its own.)
            None => {
                if let Some(m) = crate::syntax::ast::expectation_label(&a.model) {
                    entries.push((Some(m), allow))
                }
            }
        }
    }
    let line = format!(
        "expect {}",
        entries
            .iter()
            .map(|(m, a)| {
                let verdict = if *a { "allow" } else { "forbid" };
                match m {
                    Some(m) => format!("{m} {verdict}"),
                    None => verdict.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Replace the bytes from the first `expect` keyword to the end of the last entry, so a
    // condition or comment sharing those lines, line breaks inside the list and the file's
    // line endings all stay as they were.
    let src = &test.source;
    let range = test
        .expect
        .iter()
        .map(|e| e.span)
        .min_by_key(|sp| sp.start)
        .and_then(|first| {
            let start = src.get(..first.start as usize)?.rfind("expect")?;
            let end = test.expect.iter().map(|e| e.span.end as usize).max()?;
            (end <= src.len() && start < end).then_some(start..end)
        });
    match range {
        Some(r) => format!("{}{line}{}", &src[..r.start], &src[r.end..]),
        None => {
            let mut out = src.trim_end().to_string();
            let nl = if src.contains("\r\n") { "\r\n" } else { "\n" };
            out.push_str(nl);
            out.push_str(&line);
            out.push_str(nl);
            out
        }
    }
}
