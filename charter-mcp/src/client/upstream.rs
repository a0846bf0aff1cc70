//! Where the MCP server is: a child process (a command line) or a streamable HTTP endpoint.

use super::BridgeError;

/// Where an MCP server is.
#[derive(Clone, PartialEq, Eq)]
pub enum Upstream {
    /// A program started as a child process, speaking MCP on its stdin/stdout.
    Command {
        /// The program (looked up on `PATH` when it has no `/`).
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the environment it inherits.
        env: Vec<(String, String)>,
    },
    /// A streamable HTTP endpoint (`http://127.0.0.1:8080/mcp`).
    Http {
        /// The endpoint URL.
        url: String,
    },
}

impl std::fmt::Debug for Upstream {
    /// Names the program or the endpoint only: arguments, environment values and URL credentials
    /// may hold secrets.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Upstream {
    /// A program and its arguments.
    pub fn command<S: Into<String>>(
        program: impl Into<String>,
        args: impl IntoIterator<Item = S>,
    ) -> Self {
        Upstream::Command {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
        }
    }

    /// A streamable HTTP endpoint.
    pub fn http(url: impl Into<String>) -> Self {
        Upstream::Http { url: url.into() }
    }

    /// This command with one more environment variable (no effect on an HTTP endpoint).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Upstream::Command { env, .. } = &mut self {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// Parses a command line as a shell would split it, without running a shell: words split on
    /// whitespace, `'…'` and `"…"` quote, `\` escapes, and leading `KEY=VALUE` words set the
    /// environment (`API_TOKEN=x node server.js --stdio`).
    pub fn parse_command_line(line: &str) -> Result<Self, BridgeError> {
        let bad = |reason: &str| BridgeError::Upstream {
            reason: reason.to_owned(),
        };
        let words = split_words(line).map_err(|reason| bad(&reason))?;
        let mut words = words.into_iter().peekable();
        let mut env = Vec::new();
        while let Some(word) = words.peek() {
            match word.split_once('=') {
                Some((key, value))
                    if !key.is_empty()
                        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && !key.starts_with(|c: char| c.is_ascii_digit()) =>
                {
                    env.push((key.to_owned(), value.to_owned()));
                    words.next();
                }
                _ => break,
            }
        }
        let program = words
            .next()
            .ok_or_else(|| bad("no program to run; give a command such as `node server.js`"))?;
        Ok(Upstream::Command {
            program,
            args: words.collect(),
            env,
        })
    }

    /// What messages and logs call this server: the program's file name, or the URL without
    /// credentials or query (either may carry secrets).
    pub fn describe(&self) -> String {
        match self {
            Upstream::Command { program, .. } => {
                let name = program.rsplit('/').next().unwrap_or(program);
                format!("`{name}` (child process)")
            }
            Upstream::Http { url } => {
                let no_query = url.split(['?', '#']).next().unwrap_or(url);
                match no_query.split_once("://") {
                    Some((scheme, rest)) => {
                        let host_path = rest.rsplit_once('@').map_or(rest, |(_, after)| after);
                        format!("{scheme}://{host_path}")
                    }
                    None => no_query.to_owned(),
                }
            }
        }
    }
}

/// Splits a command line into words: whitespace separates, quotes group, `\` escapes.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a `'` quote is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a `\"` quote is not closed".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a `\"` quote is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("the line ends with a lone `\\`".into()),
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        let up = Upstream::parse_command_line(
            r#"TOKEN=a\ b  node "dist/my server.js" 'single quoted' a\"b --flag="x y""#,
        )
        .unwrap();
        assert_eq!(
            up,
            Upstream::Command {
                program: "node".into(),
                args: vec![
                    "dist/my server.js".into(),
                    "single quoted".into(),
                    "a\"b".into(),
                    "--flag=x y".into()
                ],
                env: vec![("TOKEN".into(), "a b".into())],
            }
        );
        assert!(Upstream::parse_command_line("  ").is_err());
        assert!(Upstream::parse_command_line("A=1").is_err());
        assert!(Upstream::parse_command_line("node 'open").is_err());
        // `=` later in the line is an argument, not the environment.
        let up = Upstream::parse_command_line("node --x=1").unwrap();
        assert!(matches!(up, Upstream::Command { ref env, .. } if env.is_empty()));
    }

    #[test]
    fn descriptions_hold_no_secrets() {
        let up =
            Upstream::parse_command_line("TOKEN=s3cret /usr/bin/node srv.js --key s3cret").unwrap();
        assert_eq!(up.describe(), "`node` (child process)");
        assert!(!format!("{up:?}").contains("s3cret"));
        let http = Upstream::http("https://user:pw@example.com:8443/mcp?token=s3cret");
        assert_eq!(http.describe(), "https://example.com:8443/mcp");
    }
}
