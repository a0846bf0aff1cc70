//! Just enough of GraphQL to check a tool's fixed document: which operations it holds (a
//! document of queries only makes the tool read-only, SPEC §2) and which `$variables` it uses
//! (each must be a body parameter, and each body parameter a variable).

/// What a document declares.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scan {
    /// Whether every operation is a query (fragments aside).
    pub only_queries: bool,
    /// The `$variable` names used, in first-use order, without the `$`.
    pub variables: Vec<String>,
}

/// Scans a document: comments, strings and block strings are skipped; braces must balance.
pub fn scan(doc: &str) -> Result<Scan, String> {
    let b = doc.as_bytes();
    let mut i = 0;
    let mut depth: i32 = 0;
    let mut paren: i32 = 0;
    let mut operations = 0;
    let mut pending = false;
    let mut only_queries = true;
    let mut variables: Vec<String> = Vec::new();
    let ident = |i: usize| -> usize {
        let mut j = i;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        j
    };
    while i < b.len() {
        match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                if b[i..].starts_with(b"\"\"\"") {
                    let Some(end) = doc[i + 3..].find("\"\"\"") else {
                        return Err("unterminated block string".into());
                    };
                    i += 3 + end + 3;
                    continue;
                }
                i += 1;
                loop {
                    match b.get(i) {
                        None | Some(b'\n') => return Err("unterminated string".into()),
                        Some(b'\\') => i += 2,
                        Some(b'"') => break,
                        Some(_) => i += 1,
                    }
                }
            }
            b'{' => {
                if depth == 0 && paren == 0 {
                    if pending {
                        // The body of the operation or fragment whose keyword was counted.
                        pending = false;
                    } else {
                        // `{ ... }` alone is the query shorthand.
                        operations += 1;
                    }
                }
                depth += 1;
            }
            b'}' => {
                depth -= 1;
                if depth < 0 {
                    return Err("unbalanced `}`".into());
                }
            }
            b'(' => paren += 1,
            b')' => {
                paren -= 1;
                if paren < 0 {
                    return Err("unbalanced `)`".into());
                }
            }
            b'$' => {
                let end = ident(i + 1);
                if end == i + 1 {
                    return Err("`$` without a variable name".into());
                }
                let name = &doc[i + 1..end];
                if !variables.iter().any(|v| v == name) {
                    variables.push(name.to_owned());
                }
                i = end;
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = ident(i);
                if depth == 0 && paren == 0 {
                    match &doc[i..end] {
                        "query" => {
                            operations += 1;
                            pending = true;
                        }
                        "mutation" | "subscription" => {
                            operations += 1;
                            only_queries = false;
                            pending = true;
                        }
                        "fragment" => pending = true,
                        _ => {}
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        return Err("unbalanced `{`".into());
    }
    if paren != 0 {
        return Err("unbalanced `(`".into());
    }
    if operations == 0 {
        return Err("no operation: write `query Name { ... }` or `mutation Name { ... }`".into());
    }
    Ok(Scan {
        only_queries,
        variables,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_variables() {
        let s = scan("query Repo($owner: String!, $name: String!) { repository(owner: $owner, name: $name) { id } }").unwrap();
        assert!(s.only_queries);
        assert_eq!(s.variables, vec!["owner", "name"]);
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
        let s = scan("fragment F on User { login } query Q { viewer { ...F } }").unwrap();
        assert!(s.only_queries);
    }

    #[test]
    fn malformed() {
        assert!(scan("query { a ").is_err());
        assert!(scan("query { a } }").is_err());
        assert!(scan("query { a(x: \"open) }").is_err());
        assert!(scan("").is_err());
        assert!(scan("fragment F on User { login }").is_err());
    }
}
