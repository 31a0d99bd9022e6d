//! Source positions for shaders: byte offsets -> file line:col.
//!
//! WGSL errors are byte ranges of the text. A SPIR-V instruction is placed by the module's
//! `OpLine` debug instructions (glslang's `-g` and naga's writer with debug info, so a GLSL or
//! WGSL shader's errors and witnesses point into its own lines), or else by the lines of
//! `spirv-dis --offsets`' disassembly, or else by the instruction's index.

use crate::syntax::Span;

/// Line starts of a text, for byte offset -> line:col.
pub struct Text {
    pub text: String,
    starts: Vec<usize>,
}

impl Text {
    pub fn new(text: String) -> Text {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Text { text, starts }
    }

    /// The span of bytes `start..end`.
    pub fn span(&self, start: usize, end: usize) -> Span {
        let start = start.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= start).max(1);
        let col = self.text[self.starts[line - 1]..start].chars().count() + 1;
        Span {
            start: start as u32,
            end: end.max(start).min(self.text.len()) as u32,
            line: line as u32,
            col: col as u32,
        }
    }

    /// The span of the whole line `line` (1-based), from column `col`.
    pub fn line_span(&self, line: u32, col: u32) -> Span {
        let l = (line.max(1) as usize).min(self.starts.len());
        let s = self.starts[l - 1];
        let e = self
            .starts
            .get(l)
            .map_or(self.text.len(), |&n| n.saturating_sub(1));
        let start = (s + col.saturating_sub(1) as usize).min(e);
        Span {
            start: start as u32,
            end: e as u32,
            line: l as u32,
            col: col.max(1),
        }
    }
}

/// One SPIR-V instruction: where it starts (bytes), its opcode and its operand words.
pub struct Inst {
    pub offset: usize,
    pub opcode: u16,
    pub operands: Vec<u32>,
}

/// Splits a SPIR-V binary into instructions (after the 5-word header).
pub fn instructions(words: &[u32]) -> Result<Vec<Inst>, String> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err("not a SPIR-V binary (bad magic number)".into());
    }
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let count = (words[i] >> 16) as usize;
        if count == 0 || i + count > words.len() {
            return Err(format!("malformed instruction at byte {}", i * 4));
        }
        out.push(Inst {
            offset: i * 4,
            opcode: (words[i] & 0xffff) as u16,
            operands: words[i + 1..i + count].to_vec(),
        });
        i += count;
    }
    Ok(out)
}

/// Decodes a SPIR-V literal string (NUL-terminated, little-endian words).
pub fn string(words: &[u32]) -> (String, usize) {
    let mut bytes = Vec::new();
    for (k, w) in words.iter().enumerate() {
        for b in w.to_le_bytes() {
            if b == 0 {
                return (String::from_utf8_lossy(&bytes).into_owned(), k + 1);
            }
            bytes.push(b);
        }
    }
    (String::from_utf8_lossy(&bytes).into_owned(), words.len())
}

pub const OP_SOURCE_CONTINUED: u16 = 2;
pub const OP_SOURCE: u16 = 3;
pub const OP_STRING: u16 = 7;
pub const OP_LINE: u16 = 8;
pub const OP_NO_LINE: u16 = 317;

/// Byte offset of an instruction -> (line, col) from `OpLine`, and the source text embedded by
/// `OpSource`, if any.
pub struct DebugLines {
    /// (instruction offset, line, col), sorted by offset; `None` where no `OpLine` applies.
    pub at: Vec<(usize, Option<(u32, u32)>)>,
    pub embedded: Option<String>,
}

impl DebugLines {
    pub fn read(insts: &[Inst]) -> DebugLines {
        let mut at = Vec::new();
        let mut cur = None;
        let mut embedded: Option<String> = None;
        for ins in insts {
            match ins.opcode {
                OP_LINE if ins.operands.len() >= 3 => {
                    cur = Some((ins.operands[1], ins.operands[2]));
                }
                OP_NO_LINE => cur = None,
                OP_SOURCE if ins.operands.len() > 3 => {
                    embedded = Some(string(&ins.operands[3..]).0);
                }
                OP_SOURCE_CONTINUED => {
                    if let Some(e) = &mut embedded {
                        e.push_str(&string(&ins.operands).0);
                    }
                }
                // Function and block boundaries end an OpLine's reach.
                54 | 56 | 248 => cur = None,
                _ => {}
            }
            at.push((ins.offset, cur));
        }
        DebugLines { at, embedded }
    }

    pub fn has_lines(&self) -> bool {
        self.at.iter().any(|(_, l)| l.is_some())
    }

    /// Per instruction, its line, where an instruction of a function that no `OpLine` reaches
    /// (glslang puts the function's variables and labels before the first one) takes the next
    /// line of its function, else the previous: a witness step then points at the statement
    /// it belongs to rather than at no line.
    pub fn filled(&self, insts: &[Inst]) -> Vec<Option<(u32, u32)>> {
        let mut out: Vec<_> = self.at.iter().map(|(_, l)| *l).collect();
        let mut in_function = vec![false; insts.len()];
        let mut inside = false;
        for (k, ins) in insts.iter().enumerate() {
            if ins.opcode == 54 {
                inside = true;
            }
            in_function[k] = inside;
            if ins.opcode == 56 {
                inside = false;
            }
        }
        let mut next = None;
        for k in (0..out.len()).rev() {
            if !in_function[k] || insts[k].opcode == 56 {
                next = None;
            }
            match out[k] {
                Some(l) => next = Some(l),
                None if in_function[k] => out[k] = next,
                None => {}
            }
        }
        let mut prev = None;
        for k in 0..out.len() {
            if !in_function[k] || insts[k].opcode == 54 {
                prev = None;
            }
            match out[k] {
                Some(l) => prev = Some(l),
                None if in_function[k] => out[k] = prev,
                None => {}
            }
        }
        out
    }
}

/// `spirv-dis --offsets` output and its offset -> line map, when the tool is installed.
pub fn disassemble(path: &std::path::Path) -> Option<(String, Vec<(usize, u32)>)> {
    let out = std::process::Command::new("spirv-dis")
        .arg("--offsets")
        .arg("--no-color")
        .arg(path)
        .arg("-o")
        .arg("-")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let mut map = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(pos) = line.rfind("; 0x") {
            if let Ok(off) = usize::from_str_radix(line[pos + 4..].trim(), 16) {
                map.push((off, i as u32 + 1));
            }
        }
    }
    map.sort();
    Some((text, map))
}
