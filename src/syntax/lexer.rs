//! Tokens of the `.litmus` format (litmus-format.md).
//!
//! The lexer runs once over the whole file and hands the parser a vector that always ends in
//! [`Tok::Eof`], so the parser can look ahead freely and never indexes past the end.
//!
//! A lexical error (a stray character, an unterminated string or comment, invalid UTF-8) ends
//! the vector at that point: the parser still reports the errors it finds before it, and the
//! end of input it then meets is marked `truncated`, so that it does not add a second,
//! misleading "found end of file" error. Keywords are not distinguished here because most of
//! them are only keywords in some positions (`threads` is a register name inside the kernel).

use super::diag::Span;

/// Punctuation and operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Punct {
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Assign,
    Eq,
    Not,
    Ne,
    Lt,
    Le,
    Shl,
    Gt,
    Ge,
    Shr,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    AndAnd,
    Pipe,
    OrOr,
    Caret,
    Tilde,
    Question,
    Colon,
    /// `/\`, herd's conjunction (conditions only).
    Wedge,
    /// `\/`, herd's disjunction (conditions only).
    Vee,
}

impl Punct {
    /// The source spelling, for "expected `;`" messages.
    pub fn text(self) -> &'static str {
        use Punct::*;
        match self {
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            LBracket => "[",
            RBracket => "]",
            Semi => ";",
            Comma => ",",
            Assign => "=",
            Eq => "==",
            Not => "!",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Shl => "<<",
            Gt => ">",
            Ge => ">=",
            Shr => ">>",
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Percent => "%",
            Amp => "&",
            AndAnd => "&&",
            Pipe => "|",
            OrOr => "||",
            Caret => "^",
            Tilde => "~",
            Question => "?",
            Colon => ":",
            Wedge => "/\\",
            Vee => "\\/",
        }
    }
}

/// Every punctuation token, longest spellings first so that `<<` wins over `<`.
const PUNCTS: [Punct; 33] = {
    use Punct::*;
    [
        Wedge, Vee, Eq, Ne, Le, Shl, Ge, Shr, AndAnd, OrOr, LParen, RParen, LBrace, RBrace,
        LBracket, RBracket, Semi, Comma, Assign, Not, Lt, Gt, Plus, Minus, Star, Slash, Percent,
        Amp, Pipe, Caret, Tilde, Question, Colon,
    ]
};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*`, keywords included.
    Ident(String),
    /// The test name right after the leading `test`: a run of `[A-Za-z0-9_.+-]`, which is not
    /// an identifier (`sb+rel.2`), so it gets its own token.
    Name(String),
    /// A decimal or `0x` literal; `None` when it does not fit in 32 bits. The parser reports
    /// that where the literal is used, so a bad `threads` value does not cascade.
    Int(Option<u32>),
    /// A double-quoted string, escapes resolved.
    Str(String),
    Punct(Punct),
    /// End of input; `truncated` when a lexical error (already reported) stopped the lexer.
    Eof {
        truncated: bool,
    },
}

impl Tok {
    /// The identifier's text, if this is an identifier.
    pub fn word(&self) -> Option<&str> {
        match self {
            Tok::Ident(w) => Some(w),
            _ => None,
        }
    }

    /// Whether this is the identifier `word`.
    pub fn is_word(&self, word: &str) -> bool {
        self.word() == Some(word)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// The lexer's output.
pub struct Lexed<'a> {
    /// The text that was lexed: the whole file, or its valid UTF-8 prefix.
    pub text: &'a str,
    /// Never empty: the last token is `Eof`.
    pub tokens: Vec<Token>,
    /// The lexical error that stopped the lexer, if any.
    pub error: Option<(Span, String)>,
}

/// Splits `bytes` into tokens; see the module documentation for how errors are handled.
pub fn lex(bytes: &[u8]) -> Lexed<'_> {
    let (text, bad_byte) = match std::str::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let valid = bytes.get(..e.valid_up_to()).unwrap_or_default();
            let bad = bytes.get(e.valid_up_to()).copied();
            (std::str::from_utf8(valid).unwrap_or_default(), bad)
        }
    };
    let mut lexer = Lexer {
        text,
        bad_byte,
        pos: 0,
        line: 1,
        col: 1,
        tokens: Vec::new(),
    };
    let error = match lexer.run() {
        Ok(()) => bad_byte.map(|_| lexer.end_of_input()),
        Err(e) => Some(e),
    };
    let eof_span = error
        .as_ref()
        .map_or_else(|| lexer.here(), |(span, _)| *span);
    lexer.tokens.push(Token {
        tok: Tok::Eof {
            truncated: error.is_some(),
        },
        span: eof_span,
    });
    Lexed {
        text,
        tokens: lexer.tokens,
        error,
    }
}

type LexResult<T> = Result<T, (Span, String)>;

struct Lexer<'a> {
    text: &'a str,
    /// The byte after `text` when the file is not valid UTF-8.
    bad_byte: Option<u8>,
    /// Byte offset of the next character (always on a character boundary).
    pos: usize,
    line: u32,
    /// Column in characters, 1-based.
    col: u32,
    tokens: Vec<Token>,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_name_char(c: char) -> bool {
    is_ident_char(c) || matches!(c, '.' | '+' | '-')
}

fn offset(pos: usize) -> u32 {
    u32::try_from(pos).unwrap_or(u32::MAX)
}

impl Lexer<'_> {
    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    /// An empty span at the current position.
    fn here(&self) -> Span {
        Span {
            start: offset(self.pos),
            end: offset(self.pos),
            line: self.line,
            col: self.col,
        }
    }

    /// The error at the end of a text cut short by invalid UTF-8. A string or comment that is
    /// still open there reports this too: the bad byte, not the missing `"`, is the cause.
    fn end_of_input(&self) -> (Span, String) {
        let byte = self.bad_byte.unwrap_or_default();
        (
            self.here(),
            format!("invalid UTF-8 (byte 0x{byte:02X}): a `.litmus` file must be UTF-8 text"),
        )
    }

    /// `start` extended to the current position.
    fn since(&self, start: Span) -> Span {
        Span {
            end: offset(self.pos),
            ..start
        }
    }

    fn bump_while(&mut self, pred: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&pred) {
            self.bump();
        }
    }

    fn run(&mut self) -> LexResult<()> {
        loop {
            self.skip_trivia()?;
            let start = self.here();
            let Some(c) = self.peek() else {
                return Ok(());
            };
            let tok = if is_ident_start(c) {
                self.bump_while(is_ident_char);
                let word = self
                    .text
                    .get(start.start as usize..self.pos)
                    .unwrap_or_default();
                Tok::Ident(word.to_string())
            } else if c.is_ascii_digit() {
                self.number(start)?
            } else if c == '"' {
                self.string(start)?
            } else if let Some(p) = PUNCTS
                .into_iter()
                .find(|p| self.rest().starts_with(p.text()))
            {
                for _ in p.text().chars() {
                    self.bump();
                }
                Tok::Punct(p)
            } else {
                self.bump();
                return Err((
                    self.since(start),
                    format!("unexpected character `{}`", c.escape_debug()),
                ));
            };
            let is_first_test = self.tokens.is_empty() && tok == Tok::Ident("test".into());
            self.tokens.push(Token {
                tok,
                span: self.since(start),
            });
            if is_first_test {
                self.test_name();
            }
        }
    }

    /// After the leading `test`, lexes the test name if one follows on the same line. When it
    /// does not, nothing is produced and the parser reports the missing name.
    fn test_name(&mut self) {
        self.bump_while(|c| c == ' ' || c == '\t');
        let start = self.here();
        if !self.peek().is_some_and(is_name_char) {
            return;
        }
        self.bump_while(is_name_char);
        let name = self
            .text
            .get(start.start as usize..self.pos)
            .unwrap_or_default();
        self.tokens.push(Token {
            tok: Tok::Name(name.to_string()),
            span: self.since(start),
        });
    }

    /// Skips whitespace and comments. A leading byte-order mark counts as whitespace.
    fn skip_trivia(&mut self) -> LexResult<()> {
        loop {
            match (self.peek(), self.peek2()) {
                (Some(' ' | '\t' | '\n' | '\r' | '\x0c'), _) => {
                    self.bump();
                }
                (Some('\u{feff}'), _) if self.pos == 0 => {
                    self.bump();
                }
                (Some('/'), Some('/')) => self.bump_while(|c| c != '\n'),
                (Some('/'), Some('*')) => {
                    let start = self.here();
                    self.bump();
                    self.bump();
                    loop {
                        match (self.peek(), self.peek2()) {
                            (Some('*'), Some('/')) => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            (Some(_), _) => {
                                self.bump();
                            }
                            (None, _) if self.bad_byte.is_some() => return Err(self.end_of_input()),
                            (None, _) => {
                                let span = Span {
                                    end: start.start.saturating_add(2),
                                    ..start
                                };
                                return Err((
                                    span,
                                    "unterminated block comment: `/*` has no closing `*/`".into(),
                                ));
                            }
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// Decimal or `0x` hexadecimal. Overflow is not an error here (see [`Tok::Int`]); digits
    /// running into letters are (`12ab`, `1u`), since the format has no literal suffixes.
    fn number(&mut self, start: Span) -> LexResult<Tok> {
        let hex = self.rest().starts_with("0x") || self.rest().starts_with("0X");
        let (radix, digits_start) = if hex {
            self.bump();
            self.bump();
            (16, self.pos)
        } else {
            (10, self.pos)
        };
        self.bump_while(|c| c.is_digit(radix));
        let digits = self.text.get(digits_start..self.pos).unwrap_or_default();
        if self.peek().is_some_and(is_ident_char) || digits.is_empty() {
            self.bump_while(is_ident_char);
            let text = self
                .text
                .get(start.start as usize..self.pos)
                .unwrap_or_default();
            return Err((
                self.since(start),
                format!(
                    "invalid number `{}`: expected decimal digits or `0x` then hex digits",
                    shorten(text)
                ),
            ));
        }
        let value = digits.chars().try_fold(0u32, |acc, c| {
            acc.checked_mul(radix)?.checked_add(c.to_digit(radix)?)
        });
        Ok(Tok::Int(value))
    }

    /// A double-quoted string on one line, with `\"` and `\\` as the only escapes.
    fn string(&mut self, start: Span) -> LexResult<Tok> {
        self.bump();
        let mut value = String::new();
        loop {
            let at = self.here();
            match self.bump() {
                Some('"') => return Ok(Tok::Str(value)),
                Some('\\') => match self.bump() {
                    Some(c @ ('"' | '\\')) => value.push(c),
                    Some(c) if c != '\n' => {
                        return Err((
                            self.since(at),
                            format!(
                            "unknown escape `\\{}` in a string: only `\\\"` and `\\\\` are allowed",
                            c.escape_debug()
                        ),
                        ))
                    }
                    None if self.bad_byte.is_some() => return Err(self.end_of_input()),
                    _ => return Err(unterminated_string(start)),
                },
                None if self.bad_byte.is_some() => return Err(self.end_of_input()),
                Some('\n') | None => return Err(unterminated_string(start)),
                Some(c) => value.push(c),
            }
        }
    }
}

fn unterminated_string(start: Span) -> (Span, String) {
    let span = Span {
        end: start.start.saturating_add(1),
        ..start
    };
    (
        span,
        "unterminated string: no closing `\"` on the same line".into(),
    )
}

/// Shortens user text quoted in a message, so that a huge identifier cannot flood the output.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<Tok> {
        lex(src.as_bytes())
            .tokens
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn longest_punctuation_wins() {
        use Punct::*;
        assert_eq!(
            toks("<<= /\\ \\/ != &&&"),
            vec![
                Tok::Punct(Shl),
                Tok::Punct(Assign),
                Tok::Punct(Wedge),
                Tok::Punct(Vee),
                Tok::Punct(Ne),
                Tok::Punct(AndAnd),
                Tok::Punct(Amp),
                Tok::Eof { truncated: false }
            ]
        );
    }

    #[test]
    fn test_name_is_one_token() {
        assert_eq!(
            toks("test sb+rel.2-x \"d\""),
            vec![
                Tok::Ident("test".into()),
                Tok::Name("sb+rel.2-x".into()),
                Tok::Str("d".into()),
                Tok::Eof { truncated: false }
            ]
        );
    }

    #[test]
    fn literals() {
        assert_eq!(
            toks("0x1F 4294967295 4294967296"),
            vec![
                Tok::Int(Some(31)),
                Tok::Int(Some(u32::MAX)),
                Tok::Int(None),
                Tok::Eof { truncated: false }
            ]
        );
    }

    #[test]
    fn error_truncates_at_its_position() {
        let lexed = lex("a\n  é b".as_bytes());
        let (span, msg) = lexed.error.expect("an error");
        assert_eq!((span.line, span.col), (2, 3));
        assert!(msg.contains("unexpected character `é`"), "{msg}");
        assert_eq!(lexed.tokens.len(), 2);
    }
}
