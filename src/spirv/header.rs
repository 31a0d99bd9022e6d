//! Dartagnan's test annotations, read unchanged from `.spvasm` comments (`; @...`) and GLSL
//! comments (`//; @...`):
//!
//! ```text
//! ; @Input: %out = {{0, 0}}, %x = 5
//! ; @Output: forall (%out[0][0] == 1 and %out[0][1] == 2)
//! ; @Config: 2, 1, 1
//! ```
//!
//! `@Input` gives a variable's initial contents (nested braces follow its type; the leaves are
//! its words in order), `@Output` the question (`exists`, `forall` or `not exists` over
//! `and`, `or`, `not` and comparisons of `%name[i][j]...` and integers), `@Filter` the
//! executions that count (a condition without quantifier: docs/litmus-format.md, "Filters"),
//! `@Config` the launch: invocations per subgroup, subgroups per workgroup, workgroups.

use crate::syntax::ast::Quantifier;
use crate::vocab::BinOp;

/// A position in the file: line and column (1-based).
pub type Pos = (u32, u32);

#[derive(Clone, Debug, Default)]
pub struct Header {
    pub inputs: Vec<Input>,
    pub outputs: Vec<Output>,
    /// `@Filter` conditions (several are one conjunction), with their text.
    pub filters: Vec<(Cond, String)>,
    pub config: Option<([u32; 3], Pos)>,
}

#[derive(Clone, Debug)]
pub struct Input {
    pub name: String,
    /// The leaves in order (negative numbers as two's complement words).
    pub words: Vec<u32>,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub struct Output {
    pub quantifier: Quantifier,
    pub cond: Cond,
    /// The annotation's text after `@Output:`, for reports.
    pub text: String,
    pub pos: Pos,
}

#[derive(Clone, Debug)]
pub enum Cond {
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
    Cmp(BinOp, Term, Term, Pos),
}

#[derive(Clone, Debug)]
pub enum Term {
    Lit(u32),
    /// `%name[i][j]...`
    Loc(String, Vec<u32>, Pos),
}

/// An annotation error: where, and what was expected.
#[derive(Debug)]
pub struct HeaderError {
    pub pos: Pos,
    pub message: String,
}

/// Reads every annotation of `text`, whose comments start with `comment` (`;` in a `.spvasm`,
/// `//;` in GLSL or WGSL); lines that are not annotations are skipped. A `.spvasm` compiled
/// with glslang's `-g` carries its GLSL, annotations included, inside `OpSource`'s string:
/// those `//;` lines are not the module's comments.
pub fn read(text: &str, comment: &str) -> Result<Header, HeaderError> {
    let mut h = Header::default();
    for (n, line) in text.lines().enumerate() {
        let ln = n as u32 + 1;
        let t = line.trim_start();
        let rest = t.strip_prefix(comment).map(str::trim_start);
        let Some(rest) = rest.and_then(|r| r.strip_prefix('@')) else {
            continue;
        };
        let col0 = (line.len() - rest.len()) as u32 + 1;
        let (key, body) = match rest.split_once(':') {
            Some((k, b)) => (k.trim(), b),
            None => continue,
        };
        let body_col =
            col0 + key.len() as u32 + 1 + (rest.len() - key.len() - 1 - body.len()) as u32;
        let mut p = Lexer::new(body, ln, body_col);
        match key {
            "Input" => loop {
                let (name, pos) = p.name()?;
                p.expect("=")?;
                let mut words = Vec::new();
                p.value(&mut words)?;
                h.inputs.push(Input { name, words, pos });
                if !p.eat(",") {
                    p.end()?;
                    break;
                }
            },
            "Output" => {
                let pos = p.pos();
                let quantifier = p.quantifier()?;
                let cond = p.or()?;
                p.end()?;
                h.outputs.push(Output {
                    quantifier,
                    cond,
                    text: body.trim().to_string(),
                    pos,
                });
            }
            "Config" => {
                let pos = p.pos();
                let mut v = [0u32; 3];
                for (k, slot) in v.iter_mut().enumerate() {
                    if k > 0 {
                        p.expect(",")?;
                    }
                    let n = p.number()?;
                    if n <= 0 || n > u32::MAX as i64 {
                        return Err(p.error("expected a positive number"));
                    }
                    *slot = n as u32;
                }
                p.end()?;
                if h.config.is_some() {
                    return Err(HeaderError {
                        pos,
                        message: "a second @Config (one is allowed)".into(),
                    });
                }
                h.config = Some((v, pos));
            }
            "Filter" => {
                let cond = p.or()?;
                p.end()?;
                h.filters.push((cond, body.trim().to_string()));
            }
            _ => {}
        }
    }
    Ok(h)
}

/// A herd-style condition given on the command line (`--condition`): `exists`, `~exists`,
/// `not exists` or `forall`, then `and`/`&&`/`/\`, `or`/`||`/`\/`, `not`/`~`/`!` over
/// comparisons of `NAME[i][j]` (with or without `%`) and integers. Positions are columns of
/// `text` on line 1.
pub fn condition(text: &str) -> Result<Output, HeaderError> {
    let mut p = Lexer::new(text, 1, 1);
    let pos = p.pos();
    let quantifier = p.quantifier()?;
    let cond = p.or()?;
    p.end()?;
    Ok(Output {
        quantifier,
        cond,
        text: text.trim().to_string(),
        pos,
    })
}

struct Lexer<'s> {
    s: &'s str,
    i: usize,
    line: u32,
    col0: u32,
}

impl<'s> Lexer<'s> {
    fn new(s: &'s str, line: u32, col0: u32) -> Self {
        Lexer {
            s,
            i: 0,
            line,
            col0,
        }
    }

    fn skip(&mut self) {
        while self.s[self.i..].starts_with(char::is_whitespace) {
            self.i += self.s[self.i..].chars().next().map_or(1, char::len_utf8);
        }
    }

    fn pos(&mut self) -> Pos {
        self.skip();
        (self.line, self.col0 + self.i as u32)
    }

    fn error(&mut self, m: &str) -> HeaderError {
        let pos = self.pos();
        let found = self.s[self.i..]
            .split_whitespace()
            .next()
            .unwrap_or("the end of the line");
        HeaderError {
            pos,
            message: format!("{m}, found `{found}`"),
        }
    }

    fn eat(&mut self, tok: &str) -> bool {
        self.skip();
        if self.s[self.i..].starts_with(tok) {
            self.i += tok.len();
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, w: &str) -> bool {
        self.skip();
        let r = &self.s[self.i..];
        if r.starts_with(w)
            && !r[w.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        {
            self.i += w.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &str) -> Result<(), HeaderError> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{tok}`")))
        }
    }

    fn end(&mut self) -> Result<(), HeaderError> {
        self.skip();
        if self.i < self.s.len() {
            return Err(self.error("expected the end of the annotation"));
        }
        Ok(())
    }

    /// `%name`, or a bare `name` (herd's habit, in conditions).
    fn name(&mut self) -> Result<(String, Pos), HeaderError> {
        let pos = self.pos();
        let percent = self.eat("%");
        let r = &self.s[self.i..];
        if !percent && !r.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return Err(self.error("expected a `%name`"));
        }
        let n = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(r.len());
        if n == 0 {
            return Err(self.error("expected a name after `%`"));
        }
        let name = r[..n].to_string();
        self.i += n;
        Ok((name, pos))
    }

    fn number(&mut self) -> Result<i64, HeaderError> {
        self.skip();
        let r = &self.s[self.i..];
        let neg = r.starts_with('-');
        let d = &r[neg as usize..];
        let n = d.find(|c: char| !c.is_ascii_digit()).unwrap_or(d.len());
        if n == 0 {
            return Err(self.error("expected a number"));
        }
        let v: i64 = d[..n]
            .parse()
            .map_err(|_| self.error("a number too large"))?;
        if v > u32::MAX as i64 {
            return Err(self.error("a number above 2^32 - 1"));
        }
        self.i += n + neg as usize;
        Ok(if neg { -v } else { v })
    }

    /// A value: a number or `{v, v, ...}`; its leaves are appended to `out`.
    fn value(&mut self, out: &mut Vec<u32>) -> Result<(), HeaderError> {
        if self.eat("{") {
            if self.eat("}") {
                return Ok(());
            }
            loop {
                self.value(out)?;
                if self.eat("}") {
                    return Ok(());
                }
                self.expect(",")?;
            }
        }
        let n = self.number()?;
        // Negative numbers wrap to two's complement words.
        out.push(n as u32);
        Ok(())
    }

    /// `exists`, `forall`, `not exists` (Dartagnan) or `~exists` (herd).
    fn quantifier(&mut self) -> Result<Quantifier, HeaderError> {
        if self.eat_word("exists") {
            Ok(Quantifier::Exists)
        } else if self.eat_word("forall") {
            Ok(Quantifier::Forall)
        } else if self.eat("~") || self.eat_word("not") {
            if !self.eat_word("exists") {
                return Err(self.error("expected `exists` after `not` or `~`"));
            }
            Ok(Quantifier::NotExists)
        } else {
            Err(self.error("expected `exists`, `forall`, `not exists` or `~exists`"))
        }
    }

    fn or(&mut self) -> Result<Cond, HeaderError> {
        // A flat chain is read iteratively: hundreds of terms are not deep nesting.
        let mut a = self.and()?;
        while self.eat_word("or") || self.eat("||") || self.eat("\\/") {
            let b = self.and()?;
            a = Cond::Or(Box::new(a), Box::new(b));
        }
        Ok(a)
    }

    fn and(&mut self) -> Result<Cond, HeaderError> {
        let mut a = self.not()?;
        while self.eat_word("and") || self.eat("&&") || self.eat("/\\") {
            let b = self.not()?;
            a = Cond::And(Box::new(a), Box::new(b));
        }
        Ok(a)
    }

    fn not(&mut self) -> Result<Cond, HeaderError> {
        if self.eat_word("not") || self.eat("~") || self.eat("!") {
            return Ok(Cond::Not(Box::new(self.not()?)));
        }
        if self.eat("(") {
            let c = self.or()?;
            self.expect(")")?;
            return Ok(c);
        }
        let pos = self.pos();
        let a = self.term()?;
        let op = [
            ("==", BinOp::Eq),
            ("!=", BinOp::Ne),
            ("<=", BinOp::Le),
            (">=", BinOp::Ge),
            ("<", BinOp::Lt),
            (">", BinOp::Gt),
        ]
        .into_iter()
        .find(|(t, _)| self.eat(t))
        .map(|(_, o)| o)
        .ok_or_else(|| self.error("expected a comparison (==, !=, <, <=, >, >=)"))?;
        let b = self.term()?;
        Ok(Cond::Cmp(op, a, b, pos))
    }

    fn term(&mut self) -> Result<Term, HeaderError> {
        self.skip();
        let r = &self.s[self.i..];
        if r.starts_with('%') || r.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            let (name, pos) = self.name()?;
            let mut path = Vec::new();
            while self.eat("[") {
                let n = self.number()?;
                if n < 0 {
                    return Err(self.error("expected an index"));
                }
                path.push(n as u32);
                self.expect("]")?;
            }
            return Ok(Term::Loc(name, path, pos));
        }
        let n = self.number()?;
        Ok(Term::Lit(n as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn herd_style_conditions_are_read() {
        let o = condition("exists (X[0] == 1 /\\ ~(%y[1][2] != 2) || z == 3)").unwrap();
        assert_eq!(o.quantifier, Quantifier::Exists);
        let Cond::Or(a, b) = &o.cond else {
            panic!("{:?}", o.cond)
        };
        assert!(matches!(**a, Cond::And(..)), "{a:?}");
        assert!(
            matches!(&**b, Cond::Cmp(BinOp::Eq, Term::Loc(n, p, _), Term::Lit(3), _) if n == "z" && p.is_empty())
        );
        assert_eq!(
            condition("~exists (x[0] == 1)").unwrap().quantifier,
            Quantifier::NotExists
        );
        let e = condition("exists (x[0] == )").unwrap_err();
        assert_eq!(e.pos, (1, 17));
        assert!(e.message.contains("expected a number"), "{}", e.message);
        assert!(condition("maybe (x == 1)").is_err());
    }

    #[test]
    fn reads_the_three_annotations() {
        let h = read(
            "; @Input: %out = {{0, -1}}, %x=5\n; @Output: not exists (%out[0][1] == -1 or not %x != 2)\n; @Config: 2, 1, 3\n",
            ";",
        )
        .unwrap();
        assert_eq!(h.inputs.len(), 2);
        assert_eq!(h.inputs[0].words, vec![0, u32::MAX]);
        assert_eq!(h.inputs[1].words, vec![5]);
        assert_eq!(h.outputs[0].quantifier, Quantifier::NotExists);
        assert_eq!(h.config.unwrap().0, [2, 1, 3]);
    }

    #[test]
    fn a_long_flat_chain_is_not_nesting() {
        let terms: Vec<String> = (0..5000).map(|k| format!("%a[{k}] == 1")).collect();
        let text = format!("; @Output: forall ({})\n", terms.join(" and "));
        assert!(read(&text, ";").is_ok());
    }

    #[test]
    fn a_spvasm_reads_its_own_comments_not_the_glsl_in_its_opsource() {
        // glslang -g puts the GLSL, with its `//;` annotations, in OpSource's string.
        let text = "; @Config: 2, 1, 1\nOpSource GLSL 460 %1 \"//; @Config: 2, 1, 1\n//; @Input: %_ = {{7}}\n\"\n";
        let h = read(text, ";").unwrap();
        assert_eq!(h.config.unwrap().0, [2, 1, 1]);
        assert!(h.inputs.is_empty());
        let glsl = read("//; @Input: %_ = {{7}}\n; @Config: 9, 9, 9\n", "//;").unwrap();
        assert_eq!(glsl.inputs[0].words, vec![7]);
        assert!(glsl.config.is_none());
    }

    #[test]
    fn errors_are_located() {
        let e = read("x\n; @Config: 2, 0, 1\n", ";").unwrap_err();
        assert_eq!(e.pos.0, 2);
        assert!(e.message.contains("positive"), "{}", e.message);
    }
}
