//! Build errors that point into a pack file (`file:line:col: message`).

use std::fmt;

/// A position in a pack file: 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Loc {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl Loc {
    /// A position.
    pub const fn new(line: u32, col: u32) -> Self {
        Self { line, col }
    }
}

/// One mistake in a pack: where it is and what to change.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Diagnostic {
    /// The pack file as it was given to the compiler.
    pub file: String,
    /// Where the mistake is.
    pub loc: Loc,
    /// What is wrong and what to change.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at `loc` in `file`.
    pub fn new(file: impl Into<String>, loc: Loc, message: impl Into<String>) -> Self {
        Self {
            file: file.into(),
            loc,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.loc.line, self.loc.col, self.message
        )
    }
}

/// Collects the diagnostics of one file, so every mistake is reported before the build fails.
#[derive(Debug)]
pub(crate) struct Sink {
    file: String,
    pub(crate) diags: Vec<Diagnostic>,
    /// What works but should change (a field the schema deprecates): printed, never fatal.
    pub(crate) warnings: Vec<Diagnostic>,
}

impl Sink {
    pub(crate) fn new(file: &str) -> Self {
        Self {
            file: file.to_owned(),
            diags: Vec::new(),
            warnings: Vec::new(),
        }
    }

    #[cfg_attr(not(feature = "graphql-schema"), allow(dead_code))]
    pub(crate) fn warn(&mut self, loc: Loc, message: impl Into<String>) {
        self.warnings
            .push(Diagnostic::new(self.file.clone(), loc, message));
    }

    pub(crate) fn err(&mut self, loc: Loc, message: impl Into<String>) {
        self.diags
            .push(Diagnostic::new(self.file.clone(), loc, message));
    }

    pub(crate) fn file(&self) -> &str {
        &self.file
    }
}
