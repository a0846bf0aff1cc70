//! Just enough of GraphQL to check a tool's fixed document: which operations it holds (a
//! document of queries only makes the tool read-only, docs/design.md §2), which `$variables` it declares
//! and with which types (each must be a body parameter of a matching type, and each body
//! parameter a variable), and which variables the selections use.
//!
//! A tokenizer plus a small recursive reader of the executable grammar: operation and fragment
//! definitions, variable definitions with their types, directives, and balanced selection
//! sets. Selections are not resolved against a schema (a pack carries none).

use std::fmt;

use charter_terms::http::Annotations;

use crate::pack::HttpMethod;

/// A tool's annotations before its pack overrides them (docs/design.md §2): what the method
/// implies, except that a GraphQL document of queries only is read-only and idempotent.
pub fn default_annotations(method: HttpMethod, graphql: Option<&str>) -> Annotations {
    if graphql.is_some_and(|doc| scan(doc).is_ok_and(|s| s.only_queries)) {
        Annotations::GRAPHQL_QUERY
    } else {
        Annotations::for_method(method)
    }
}

/// Which operation a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// `query` (or the `{ ... }` shorthand).
    Query,
    /// `mutation`.
    Mutation,
    /// `subscription`.
    Subscription,
}

/// An input type as a variable definition writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GqlType {
    /// A named type: a built-in scalar (`Int`, `Float`, `String`, `Boolean`, `ID`), a custom
    /// scalar, an enum or an input object.
    Named(String),
    /// `[T]`.
    List(Box<GqlType>),
    /// `T!`.
    NonNull(Box<GqlType>),
}

impl GqlType {
    /// Whether the type is `T!`.
    pub fn is_non_null(&self) -> bool {
        matches!(self, GqlType::NonNull(_))
    }

    /// The type without its outer `!`.
    pub fn nullable(&self) -> &GqlType {
        match self {
            GqlType::NonNull(inner) => inner,
            other => other,
        }
    }
}

impl fmt::Display for GqlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GqlType::Named(n) => f.write_str(n),
            GqlType::List(inner) => write!(f, "[{inner}]"),
            GqlType::NonNull(inner) => write!(f, "{inner}!"),
        }
    }
}

/// One `$name: Type = default` of an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarDef {
    /// The name, without the `$`.
    pub name: String,
    /// The declared type.
    pub ty: GqlType,
    /// Whether a default value is given (a non-null variable with a default may be omitted).
    pub has_default: bool,
}

/// One operation of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// Its kind.
    pub kind: OpKind,
    /// Its name, when written.
    pub name: Option<String>,
    /// Its variable definitions, in order.
    pub variables: Vec<VarDef>,
}

/// What a document declares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scan {
    /// Whether every operation is a query (fragments aside).
    pub only_queries: bool,
    /// Every `$variable` name, declared or used, in first-appearance order, without the `$`.
    pub variables: Vec<String>,
    /// The operations, in order.
    pub operations: Vec<Operation>,
    /// The variables the selections and directives use, in first-use order.
    pub used: Vec<String>,
}

impl Scan {
    /// The variable definitions of every operation.
    pub fn definitions(&self) -> impl Iterator<Item = &VarDef> {
        self.operations.iter().flat_map(|o| o.variables.iter())
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Punct(u8),
    Spread,
    Name(&'a str),
    /// A string or number literal: only ever skipped.
    Literal,
}

fn describe(t: Option<&Tok<'_>>) -> String {
    match t {
        None => "the end of the document".to_owned(),
        Some(Tok::Punct(c)) => format!("`{}`", *c as char),
        Some(Tok::Spread) => "`...`".to_owned(),
        Some(Tok::Name(n)) => format!("`{n}`"),
        Some(Tok::Literal) => "a literal".to_owned(),
    }
}

fn tokenize(doc: &str) -> Result<Vec<Tok<'_>>, String> {
    let b = doc.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => i += 1,
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' if b[i..].starts_with(b"\"\"\"") => {
                let mut j = i + 3;
                loop {
                    if j >= b.len() {
                        return Err("unterminated block string".into());
                    }
                    if b[j..].starts_with(b"\\\"\"\"") {
                        j += 4;
                    } else if b[j..].starts_with(b"\"\"\"") {
                        break;
                    } else {
                        j += 1;
                    }
                }
                out.push(Tok::Literal);
                i = j + 3;
            }
            b'"' => {
                i += 1;
                loop {
                    match b.get(i) {
                        None | Some(b'\n') => return Err("unterminated string".into()),
                        Some(b'\\') => i += 2,
                        Some(b'"') => break,
                        Some(_) => i += 1,
                    }
                }
                out.push(Tok::Literal);
                i += 1;
            }
            b'.' if b[i..].starts_with(b"...") => {
                out.push(Tok::Spread);
                i += 3;
            }
            c @ (b'!' | b'$' | b'&' | b'(' | b')' | b':' | b'=' | b'@' | b'[' | b']' | b'{'
            | b'|' | b'}') => {
                out.push(Tok::Punct(c));
                i += 1;
            }
            c if c == b'-' || c.is_ascii_digit() => {
                i += 1;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'.' | b'+' | b'-'))
                {
                    i += 1;
                }
                out.push(Tok::Literal);
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Tok::Name(&doc[start..i]));
            }
            _ => {
                let c = doc[i..].chars().next().unwrap_or('?');
                return Err(format!("unexpected character `{c}`"));
            }
        }
    }
    Ok(out)
}

struct Reader<'t, 'a> {
    toks: &'t [Tok<'a>],
    at: usize,
    seen: Vec<String>,
    used: Vec<String>,
}

impl<'a> Reader<'_, 'a> {
    fn peek(&self) -> Option<&Tok<'a>> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, t: &Tok<'_>) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: Tok<'_>, what: &str) -> Result<(), String> {
        if self.eat(&t) {
            Ok(())
        } else {
            Err(format!("expected {what}, found {}", describe(self.peek())))
        }
    }

    fn name(&mut self, what: &str) -> Result<&'a str, String> {
        match self.peek() {
            Some(Tok::Name(n)) => {
                let n = *n;
                self.at += 1;
                Ok(n)
            }
            other => Err(format!("expected {what}, found {}", describe(other))),
        }
    }

    fn note(list: &mut Vec<String>, name: &str) {
        if !list.iter().any(|v| v == name) {
            list.push(name.to_owned());
        }
    }

    /// `$name` where a value may be; recorded as a use.
    fn variable_use(&mut self) -> Result<(), String> {
        let name = self.name("a variable name after `$`")?;
        Self::note(&mut self.seen, name);
        Self::note(&mut self.used, name);
        Ok(())
    }

    /// A balanced group opened by the current token (`{`, `(` or `[`), recording variable
    /// uses. `allow_vars`: whether `$name` may appear (not in a default value).
    fn group(&mut self, allow_vars: bool) -> Result<(), String> {
        let mut stack: Vec<u8> = Vec::new();
        loop {
            let Some(t) = self.peek().cloned() else {
                let open = stack.last().map_or('{', |c| *c as char);
                return Err(format!(
                    "unbalanced `{open}`: the document ends before it closes"
                ));
            };
            self.at += 1;
            match t {
                Tok::Punct(c @ (b'{' | b'(' | b'[')) => stack.push(c),
                Tok::Punct(c @ (b'}' | b')' | b']')) => {
                    let want = match stack.pop() {
                        Some(b'{') => b'}',
                        Some(b'(') => b')',
                        Some(_) => b']',
                        None => return Err(format!("unbalanced `{}`", c as char)),
                    };
                    if c != want {
                        return Err(format!(
                            "unbalanced `{}`: expected `{}` first",
                            c as char, want as char
                        ));
                    }
                    if stack.is_empty() {
                        return Ok(());
                    }
                }
                Tok::Punct(b'$') if allow_vars => self.variable_use()?,
                Tok::Punct(b'$') => {
                    return Err("a default value cannot use a variable".into());
                }
                _ => {}
            }
        }
    }

    fn directives(&mut self) -> Result<(), String> {
        while self.eat(&Tok::Punct(b'@')) {
            self.name("a directive name after `@`")?;
            if self.peek() == Some(&Tok::Punct(b'(')) {
                self.group(true)?;
            }
        }
        Ok(())
    }

    fn ty(&mut self) -> Result<GqlType, String> {
        let base = if self.eat(&Tok::Punct(b'[')) {
            let inner = self.ty()?;
            self.expect(Tok::Punct(b']'), "`]` closing a list type")?;
            GqlType::List(Box::new(inner))
        } else {
            GqlType::Named(self.name("a type name")?.to_owned())
        };
        Ok(if self.eat(&Tok::Punct(b'!')) {
            GqlType::NonNull(Box::new(base))
        } else {
            base
        })
    }

    fn variable_definitions(&mut self) -> Result<Vec<VarDef>, String> {
        let mut defs: Vec<VarDef> = Vec::new();
        self.expect(Tok::Punct(b'('), "`(`")?;
        while !self.eat(&Tok::Punct(b')')) {
            self.expect(Tok::Punct(b'$'), "`$name: Type` or `)`")?;
            let name = self.name("a variable name after `$`")?;
            if defs.iter().any(|d| d.name == name) {
                return Err(format!("variable `${name}` is declared twice"));
            }
            Self::note(&mut self.seen, name);
            self.expect(Tok::Punct(b':'), &format!("`:` and a type after `${name}`"))?;
            let ty = self.ty()?;
            let has_default = self.eat(&Tok::Punct(b'='));
            if has_default {
                match self.peek() {
                    Some(Tok::Punct(b'{' | b'[')) => self.group(false)?,
                    Some(Tok::Literal | Tok::Name(_)) => self.at += 1,
                    other => {
                        return Err(format!(
                            "expected a default value for `${name}`, found {}",
                            describe(other)
                        ));
                    }
                }
            }
            self.directives()?;
            defs.push(VarDef {
                name: name.to_owned(),
                ty,
                has_default,
            });
        }
        Ok(defs)
    }

    fn selection_set(&mut self) -> Result<(), String> {
        if self.peek() != Some(&Tok::Punct(b'{')) {
            return Err(format!(
                "expected a selection set `{{ ... }}`, found {}",
                describe(self.peek())
            ));
        }
        self.group(true)
    }
}

/// Reads a document: comments, strings and block strings are skipped; brackets must balance.
pub fn scan(doc: &str) -> Result<Scan, String> {
    let toks = tokenize(doc)?;
    let mut r = Reader {
        toks: &toks,
        at: 0,
        seen: Vec::new(),
        used: Vec::new(),
    };
    let mut operations = Vec::new();
    while let Some(t) = r.peek().cloned() {
        match t {
            Tok::Punct(b'{') => {
                r.selection_set()?;
                operations.push(Operation {
                    kind: OpKind::Query,
                    name: None,
                    variables: Vec::new(),
                });
            }
            Tok::Name(word @ ("query" | "mutation" | "subscription")) => {
                r.at += 1;
                let kind = match word {
                    "query" => OpKind::Query,
                    "mutation" => OpKind::Mutation,
                    _ => OpKind::Subscription,
                };
                let name = match r.peek() {
                    Some(Tok::Name(n)) => {
                        let n = (*n).to_owned();
                        r.at += 1;
                        Some(n)
                    }
                    _ => None,
                };
                let variables = if r.peek() == Some(&Tok::Punct(b'(')) {
                    r.variable_definitions()?
                } else {
                    Vec::new()
                };
                r.directives()?;
                r.selection_set()?;
                operations.push(Operation {
                    kind,
                    name,
                    variables,
                });
            }
            Tok::Name("fragment") => {
                r.at += 1;
                r.name("a fragment name")?;
                r.expect(Tok::Name("on"), "`on` and a type condition")?;
                r.name("a type name after `on`")?;
                r.directives()?;
                r.selection_set()?;
            }
            Tok::Punct(c @ (b'}' | b')' | b']')) => {
                return Err(format!("unbalanced `{}`", c as char));
            }
            other => {
                return Err(format!(
                    "expected `query`, `mutation`, `fragment` or `{{`, found {}",
                    describe(Some(&other))
                ));
            }
        }
    }
    if operations.is_empty() {
        return Err("no operation: write `query Name { ... }` or `mutation Name { ... }`".into());
    }
    Ok(Scan {
        only_queries: operations.iter().all(|o| o.kind == OpKind::Query),
        variables: r.seen,
        operations,
        used: r.used,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(n: &str) -> GqlType {
        GqlType::Named(n.into())
    }
    fn non_null(t: GqlType) -> GqlType {
        GqlType::NonNull(Box::new(t))
    }
    fn list(t: GqlType) -> GqlType {
        GqlType::List(Box::new(t))
    }

    #[test]
    fn queries_and_variables() {
        let s = scan("query Repo($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { id } }").unwrap();
        assert!(s.only_queries);
        assert_eq!(s.variables, vec!["owner", "name"]);
        assert_eq!(s.used, vec!["owner", "name"]);
        let s = scan("{ viewer { login } }").unwrap();
        assert!(s.only_queries);
        let s = scan("# mutation in a comment\nquery { a(x: \"mutation $y\") }").unwrap();
        assert!(s.only_queries);
        assert!(s.variables.is_empty());
        let s = scan(
            "mutation Add($id: ID!) { addStar(input: {starrableId: $id}) { clientMutationId } }",
        )
        .unwrap();
        assert!(!s.only_queries);
        assert_eq!(s.variables, vec!["id"]);
        let s = scan("query A { a } mutation B { b }").unwrap();
        assert!(!s.only_queries);
        assert_eq!(s.operations.len(), 2);
        let s = scan("fragment F on User { login } query Q { viewer { ...F } }").unwrap();
        assert!(s.only_queries);
        assert_eq!(s.operations.len(), 1);
    }

    #[test]
    fn operation_names_that_are_keywords_do_not_change_the_kind() {
        // `mutation` as the *name* of a query, `query` as the name of a mutation.
        assert!(scan("query mutation { a }").unwrap().only_queries);
        assert!(!scan("mutation query { a }").unwrap().only_queries);
        // A field called `mutation` inside a query.
        assert!(scan("query Q { mutation { id } }").unwrap().only_queries);
        assert!(
            !scan("subscription S { events { id } }")
                .unwrap()
                .only_queries
        );
    }

    #[test]
    fn variable_definitions_keep_their_types_and_defaults() {
        let s = scan(
            r#"query Issues($first: Int = 50, $filter: IssueFilter, $ids: [ID!]!, $x: String! @deprecated(reason: "no"))
               @cached { issues(first: $first, filter: $filter, ids: $ids, x: $x) { nodes { id } } }"#,
        )
        .unwrap();
        let defs: Vec<_> = s.definitions().cloned().collect();
        assert_eq!(
            defs,
            vec![
                VarDef {
                    name: "first".into(),
                    ty: named("Int"),
                    has_default: true
                },
                VarDef {
                    name: "filter".into(),
                    ty: named("IssueFilter"),
                    has_default: false
                },
                VarDef {
                    name: "ids".into(),
                    ty: non_null(list(non_null(named("ID")))),
                    has_default: false
                },
                VarDef {
                    name: "x".into(),
                    ty: non_null(named("String")),
                    has_default: false
                },
            ]
        );
        assert_eq!(defs[2].ty.to_string(), "[ID!]!");
        assert_eq!(s.used, vec!["first", "filter", "ids", "x"]);
        // An object default value and a block string in the selection.
        let s = scan(
            "query Q($f: F = {a: [1, 2], b: \"}\"}) { a(f: $f, d: \"\"\"multi\n} line\"\"\") }",
        )
        .unwrap();
        assert!(s.definitions().next().unwrap().has_default);
    }

    #[test]
    fn uses_and_declarations_are_told_apart() {
        let s = scan("query Q($a: Int) { x(b: $b) }").unwrap();
        assert_eq!(s.variables, vec!["a", "b"]);
        assert_eq!(s.used, vec!["b"]);
    }

    #[test]
    fn malformed() {
        assert!(scan("query { a ").is_err());
        assert!(scan("query { a } }").is_err());
        assert!(scan("query { a(x: \"open) }").is_err());
        assert!(scan("").is_err());
        assert!(scan("fragment F on User { login }").is_err());
        assert!(scan("query { a(x: 1 }").is_err());
        assert!(scan("query Q($a Int) { a }").is_err());
        assert!(scan("query Q($a: Int, $a: Int) { a }").is_err());
        assert!(scan("query Q($a: [Int) { a }").is_err());
        assert!(scan("query Q($a: Int = $b) { a }").is_err());
        assert!(scan("query Q { a } ; ").is_err());
        assert!(scan("query Q").is_err());
    }
}
