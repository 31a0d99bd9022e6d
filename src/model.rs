//! Models as data: each model is a file in `encodings/` giving every modelled instruction kind
//! its execution class (docs/semantics.md §3-§4). Engines ask a [`Model`] for classes and never
//! look at its name.

use crate::vocab::{Class, Kind, TimingRule};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// An execution model: a class for each instruction kind.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Model {
    pub name: String,
    pub description: String,
    classes: BTreeMap<Kind, Class>,
}

impl Model {
    /// The class of an instruction kind: the model's, or the one docs/semantics.md §3 fixes.
    pub fn class(&self, kind: Kind) -> Class {
        kind.fixed_class().unwrap_or_else(|| self.classes[&kind])
    }

    /// When events of `kind` may happen under this model.
    pub fn rule(&self, kind: Kind) -> TimingRule {
        TimingRule::of(kind, self.class(kind))
    }

    /// The model with every class narrowed ([`Class::narrowed`]): each of its steps is a step
    /// of this one. `None` when no class narrows (the model is its own narrowed form).
    pub fn narrowed(&self) -> Option<Model> {
        let changed = Kind::MODELLED
            .iter()
            .any(|&k| self.class(k).narrowed() != self.class(k));
        changed.then(|| Model {
            name: format!("{} (subgroup ops collective)", self.name),
            description: format!("{}'s runs in which every class is narrowed", self.name),
            classes: (self.classes.iter())
                .map(|(&k, &c)| (k, c.narrowed()))
                .collect(),
        })
    }

    /// Builds a model from a class per modelled kind (used by generators and tests).
    pub fn new(name: &str, classes: [(Kind, Class); 4]) -> Result<Model, ModelError> {
        let file = ModelFile {
            name: name.to_string(),
            description: String::new(),
            classes: classes
                .iter()
                .map(|(k, c)| (k.name().to_string(), c.name().to_string()))
                .collect(),
        };
        Model::from_file(file, "<inline>")
    }

    /// Parses a model file's text.
    pub fn parse(text: &str, origin: &str) -> Result<Model, ModelError> {
        let file: ModelFile = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            ModelError::Syntax {
                origin: origin.to_string(),
                line,
                col,
                message: e.message().to_string(),
                source_line: nth_line(text, line),
            }
        })?;
        Model::from_file(file, origin).map_err(|e| match e {
            ModelError::Invalid { origin, message } => {
                let (line, col) = locate_key(text, &message);
                ModelError::Syntax {
                    origin,
                    line,
                    col,
                    message,
                    source_line: nth_line(text, line),
                }
            }
            other => other,
        })
    }

    fn from_file(file: ModelFile, origin: &str) -> Result<Model, ModelError> {
        let bad = |message: String| ModelError::Invalid {
            origin: origin.to_string(),
            message,
        };
        if file.name.trim().is_empty() {
            return Err(bad("the model's `name` is empty".into()));
        }
        let mut classes = BTreeMap::new();
        for (k, c) in &file.classes {
            let kind = Kind::MODELLED
                .into_iter()
                .find(|m| m.name() == k)
                .ok_or_else(|| {
                    bad(format!(
                        "unknown instruction kind `{k}` in [classes]: expected one of label, branch, memory, sgop (barriers are always collective, local arithmetic always independent)"
                    ))
                })?;
            let class = Class::ALL
                .into_iter()
                .find(|x| x.name() == c)
                .ok_or_else(|| {
                    bad(format!(
                        "unknown class `{c}` for `{k}`: expected one of independent, synchronous, collective, speculative, lazy, symbolic"
                    ))
                })?;
            if class.sgop_only() && kind != Kind::Sgop {
                return Err(bad(format!(
                    "class `{c}` is only for subgroup operations (sgop), not `{k}`"
                )));
            }
            // docs/semantics.md defines a subgroup op's result only when it runs collectively or
            // with a deferred result; a thread alone at an op has no participants to read.
            if kind == Kind::Sgop && matches!(class, Class::Independent | Class::Synchronous) {
                return Err(bad(format!(
                    "class `{c}` for `sgop`: subgroup operations must be collective, speculative, lazy or symbolic"
                )));
            }
            classes.insert(kind, class);
        }
        for k in Kind::MODELLED {
            if !classes.contains_key(&k) {
                return Err(bad(format!("[classes] gives no class for `{k}`")));
            }
        }
        Ok(Model {
            name: file.name,
            description: file.description,
            classes,
        })
    }

    /// Reads a model file from disk (regular files of a sane size only; see [`crate::input`]).
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let origin = path.display().to_string();
        let bytes =
            crate::input::read(path, crate::input::DEFAULT_MAX_FILE_BYTES).map_err(|d| {
                ModelError::Invalid {
                    origin: origin.clone(),
                    message: format!("cannot read the model file: {}", d.message),
                }
            })?;
        Model::parse(&String::from_utf8_lossy(&bytes), &origin)
    }

    /// The one way a command line names a model: a built-in name (any case) or the path of a
    /// model file. An unknown name lists the built-ins and suggests the closest.
    pub fn resolve(spec: &str) -> Result<Model, ModelError> {
        if let Some(m) = Model::by_name(spec) {
            return Ok(m);
        }
        let path = Path::new(spec);
        if path.exists() || spec.ends_with(".toml") {
            return Model::load(path);
        }
        let known: Vec<String> = Model::builtin().into_iter().map(|m| m.name).collect();
        let hint = crate::diag::closest(spec, known.iter().map(String::as_str))
            .map(|k| format!(" (did you mean `{k}`?)"))
            .unwrap_or_default();
        Err(ModelError::Unknown(format!(
            "unknown model `{spec}`{hint}: expected one of {} or a model file",
            known.join(", ")
        )))
    }

    /// The models of a run: each of `specs` resolved, then each of `files` loaded; every
    /// built-in model when both are empty. Two models with one name are refused (results are
    /// keyed by model name).
    pub fn select(
        specs: &[String],
        files: &[std::path::PathBuf],
    ) -> Result<Vec<Model>, ModelError> {
        let mut out = specs
            .iter()
            .map(|s| Model::resolve(s))
            .collect::<Result<Vec<_>, _>>()?;
        for f in files {
            out.push(Model::load(f)?);
        }
        if out.is_empty() {
            out = Model::builtin();
        }
        for (i, m) in out.iter().enumerate() {
            if out[..i]
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&m.name))
            {
                return Err(ModelError::Unknown(format!(
                    "model `{}` is given twice (model names must be unique; rename the model file's `name`)",
                    m.name
                )));
            }
        }
        Ok(out)
    }

    /// The seven models of docs/semantics.md §4, from the files in `encodings/` (compiled in, so the
    /// binary works from any directory), in lattice order.
    pub fn builtin() -> Vec<Model> {
        BUILTIN
            .iter()
            .map(|(file, text)| {
                Model::parse(text, file).expect("the built-in encodings/ files are valid")
            })
            .collect()
    }

    /// A built-in model by name (case-insensitive).
    pub fn by_name(name: &str) -> Option<Model> {
        Model::builtin()
            .into_iter()
            .find(|m| m.name.eq_ignore_ascii_case(name))
    }
}

const BUILTIN: [(&str, &str); 7] = [
    ("encodings/cm.toml", include_str!("../encodings/cm.toml")),
    ("encodings/sm.toml", include_str!("../encodings/sm.toml")),
    ("encodings/scf.toml", include_str!("../encodings/scf.toml")),
    ("encodings/sso.toml", include_str!("../encodings/sso.toml")),
    (
        "encodings/spec.toml",
        include_str!("../encodings/spec.toml"),
    ),
    (
        "encodings/lazy.toml",
        include_str!("../encodings/lazy.toml"),
    ),
    (
        "encodings/symb.toml",
        include_str!("../encodings/symb.toml"),
    ),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    name: String,
    #[serde(default)]
    description: String,
    classes: BTreeMap<String, String>,
}

/// Where the error is: the line of the first key quoted in the message (`memory`, `lazy`...),
/// else the `[classes]` header, else the start of the file.
fn locate_key(text: &str, message: &str) -> (u32, u32) {
    let quoted: Vec<&str> = message.split('`').skip(1).step_by(2).collect();
    for (i, line) in text.lines().enumerate() {
        let key = line.split('=').next().unwrap_or("").trim();
        if quoted.contains(&key) {
            let col = line.len() - line.trim_start().len();
            return (i as u32 + 1, col as u32 + 1);
        }
    }
    for (i, line) in text.lines().enumerate() {
        if line.trim() == "[classes]" {
            return (i as u32 + 1, 1);
        }
    }
    (1, 1)
}

fn nth_line(text: &str, line: u32) -> String {
    text.lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("")
        .to_string()
}

impl ModelError {
    /// The error as a located diagnostic (a caret under the offending key of a model file).
    pub fn diagnostic(&self) -> crate::diag::Diagnostic {
        use crate::diag::Diagnostic;
        match self {
            ModelError::Syntax {
                origin,
                line,
                col,
                message,
                source_line,
            } => {
                let mut d = Diagnostic::bare(
                    origin,
                    *line,
                    *col,
                    format!("invalid model file: {message}"),
                );
                d.source_line = source_line.clone();
                d
            }
            ModelError::Invalid { origin, message } => {
                Diagnostic::bare(origin, 0, 0, format!("invalid model: {message}"))
            }
            ModelError::Unknown(message) => Diagnostic::bare("command line", 0, 0, message.clone()),
        }
    }
}

fn line_col(text: &str, offset: usize) -> (u32, u32) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    (line, col)
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ModelError {
    #[error("{origin}:{line}:{col}: invalid model file: {message}")]
    Syntax {
        origin: String,
        line: u32,
        col: u32,
        message: String,
        /// The line it is on, for the caret display.
        source_line: String,
    },
    #[error("{origin}: invalid model: {message}")]
    Invalid { origin: String, message: String },
    /// A name that is neither a built-in model nor a file.
    #[error("{0}")]
    Unknown(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_models_match_the_semantics_table() {
        let names: Vec<String> = Model::builtin().into_iter().map(|m| m.name).collect();
        assert_eq!(names, ["CM", "SM", "SCF", "SSO", "Spec", "Lazy", "Symb"]);
        let sm = Model::by_name("sm").unwrap();
        assert_eq!(sm.class(Kind::Memory), Class::Synchronous);
        assert_eq!(sm.class(Kind::Barrier), Class::Collective);
        assert_eq!(sm.class(Kind::Local), Class::Independent);
    }

    #[test]
    fn bad_model_files_are_located() {
        let e = Model::parse("name = \"X\"\n[classes]\nlabel = 3\n", "m.toml").unwrap_err();
        assert!(matches!(e, ModelError::Syntax { line: 3, .. }), "{e}");
        let e = Model::parse(
            "name = \"X\"\n[classes]\nlabel = \"lazy\"\nbranch = \"independent\"\nmemory = \"independent\"\nsgop = \"lazy\"\n",
            "m.toml",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("only for subgroup operations"),
            "{e}"
        );
        let e = Model::parse(
            "name = \"X\"\n[classes]\nlabel = \"independent\"\n",
            "m.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("no class for `branch`"), "{e}");
        assert!(e.to_string().starts_with("m.toml:2:1:"), "{e}");
        let e = Model::parse(
            "name = \"X\"\n[classes]\nlabel = \"independent\"\nbranch = \"independent\"\nmemory = \"independent\"\nsgop = \"independent\"\n",
            "m.toml",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("must be collective, speculative, lazy or symbolic"),
            "{e}"
        );
    }
}
