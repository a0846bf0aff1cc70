//! Vendor prose made fit for a model: HTML and Markdown noise stripped, whitespace collapsed,
//! huge texts cut at a sentence boundary.
//!
//! API documents are written for web pages (`<p>`, links, admonitions, code samples); a model
//! choosing a tool reads every character of every description, so only the words stay.

/// Plain text of an HTML/Markdown description, on one line.
pub(crate) fn clean(text: &str) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    let text = strip_blocks(text);
    let text = strip_tags(&text);
    let text = decode_entities(&text);
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() {
            flush(&mut current, &mut paragraphs);
            continue;
        }
        // Headings and tables are page structure, not prose.
        if line.starts_with('#') || line.starts_with('|') {
            flush(&mut current, &mut paragraphs);
            continue;
        }
        let line = strip_line_markers(line);
        let line = markdown_inline(line);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(line);
    }
    flush(&mut current, &mut paragraphs);
    let mut out = String::with_capacity(text.len());
    for p in paragraphs {
        if !out.is_empty() {
            if !ends_sentence(&out) {
                out.push('.');
            }
            out.push(' ');
        }
        out.push_str(&p);
    }
    collapse_spaces(&out)
}

fn flush(current: &mut String, paragraphs: &mut Vec<String>) {
    let p = current.trim();
    if !p.is_empty() {
        paragraphs.push(p.to_owned());
    }
    current.clear();
}

fn ends_sentence(s: &str) -> bool {
    s.trim_end()
        .trim_end_matches(['"', '\'', ')', '»', '”', '’'])
        .ends_with(['.', '!', '?', ':', ';'])
}

fn collapse_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// Removes fenced code blocks, HTML comments and Liquid tags (`{% note %}`).
fn strip_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            out.push('\n');
            continue;
        }
        if !in_fence {
            out.push_str(line);
        }
        out.push('\n');
    }
    let out = remove_between(&out, "<!--", "-->");
    let out = remove_between(&out, "{%", "%}");
    // Code blocks written as HTML.
    remove_between(&out, "<pre", "</pre>")
}

fn remove_between(text: &str, open: &str, close: &str) -> String {
    if !text.contains(open) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(open) {
        out.push_str(&rest[..i]);
        match rest[i + open.len()..].find(close) {
            Some(j) => {
                out.push(' ');
                rest = &rest[i + open.len() + j + close.len()..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Strips HTML tags; block-level tags become line breaks so paragraphs survive.
fn strip_tags(text: &str) -> String {
    if !text.contains('<') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let is_tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!');
        let close = after.find('>');
        match (is_tag, close) {
            (true, Some(j)) if !after[..j].contains('<') => {
                let tag = after[..j].trim_start_matches('/').to_ascii_lowercase();
                let name: String = tag
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                match name.as_str() {
                    "p" | "br" | "div" | "ul" | "ol" | "table" | "tr" | "h1" | "h2" | "h3"
                    | "h4" | "h5" | "h6" => out.push_str("\n\n"),
                    "li" => out.push('\n'),
                    _ => {}
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let end = after.find(';').filter(|&j| j <= 8);
        let decoded = end.and_then(|j| {
            let name = &after[..j];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                "mdash" => Some('—'),
                "ndash" => Some('–'),
                "hellip" => Some('…'),
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            }?;
            Some((c, j))
        });
        match decoded {
            Some((c, j)) => {
                out.push(c);
                rest = &after[j + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Blockquote, list and admonition markers at the start of a line.
fn strip_line_markers(mut line: &str) -> &str {
    loop {
        let before = line;
        line = line.trim_start();
        if let Some(r) = line.strip_prefix('>') {
            line = r;
        }
        for bullet in ["- ", "* ", "+ "] {
            if let Some(r) = line.strip_prefix(bullet) {
                line = r;
            }
        }
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && digits < 4 && line[digits..].starts_with(". ") {
            line = &line[digits + 2..];
        }
        if line.starts_with("[!")
            && let Some(end) = line.find(']')
        {
            line = &line[end + 1..];
        }
        if line == before {
            return line;
        }
    }
}

/// `[text](url)` → text, `![alt](url)` → nothing, `**bold**` → bold.
fn markdown_inline(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find('[') {
        let image = i > 0 && rest.as_bytes()[i - 1] == b'!';
        out.push_str(&rest[..if image { i - 1 } else { i }]);
        let after = &rest[i + 1..];
        let Some(close) = after.find(']') else {
            out.push('[');
            rest = after;
            continue;
        };
        let label = &after[..close];
        let tail = &after[close + 1..];
        let target_end = if tail.starts_with('(') {
            tail.find(')').map(|j| j + 1)
        } else if tail.starts_with('[') {
            tail.find(']').map(|j| j + 1)
        } else {
            None
        };
        match target_end {
            Some(end) if !label.contains('[') => {
                if !image {
                    out.push_str(label);
                }
                rest = &tail[end..];
            }
            _ => {
                if image {
                    out.push('!');
                }
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    strip_emphasis(&out.replace("**", ""))
}

/// `_text_` and `*text*` → text, in pairs; `snake_case`, `repo:*` and `a * b` stay.
fn strip_emphasis(line: &str) -> String {
    if !line.contains(['_', '*']) {
        return line.to_owned();
    }
    let chars: Vec<char> = line.chars().collect();
    let space = |x: Option<char>| x.is_none_or(|x| x.is_whitespace() || matches!(x, '(' | '"'));
    let ends = |x: Option<char>| {
        x.is_none_or(|x| {
            x.is_whitespace() || matches!(x, ')' | '"' | ',' | '.' | ':' | ';' | '!' | '?')
        })
    };
    let mut drop = vec![false; chars.len()];
    // The pending opening `_` and `*`.
    let mut open: [Option<usize>; 2] = [None, None];
    for (i, &c) in chars.iter().enumerate() {
        if c != '_' && c != '*' {
            continue;
        }
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let slot = &mut open[usize::from(c == '*')];
        match *slot {
            Some(j) if !space(before) && ends(after) => {
                drop[j] = true;
                drop[i] = true;
                *slot = None;
            }
            None if space(before) && !space(after) && !ends(after) => *slot = Some(i),
            _ => {}
        }
    }
    chars
        .iter()
        .zip(drop)
        .filter(|(_, d)| !d)
        .map(|(c, _)| *c)
        .collect()
}

/// `text` cut to at most `max` characters: at the last sentence end that keeps at least a
/// third of the budget, else at a word boundary with an ellipsis.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let max = max.max(8);
    // Byte offset of the `max`-th character.
    let limit = text.char_indices().nth(max).map_or(text.len(), |(i, _)| i);
    let window = &text[..limit];
    let mut best = None;
    for (i, c) in window.char_indices() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let end = i + c.len_utf8();
        let next = text[end..].chars().next();
        if !matches!(next, None | Some(' ')) {
            continue;
        }
        if c == '.' && abbreviation(&window[..i]) {
            continue;
        }
        best = Some(end);
    }
    if let Some(end) = best
        && window[..end].chars().count() * 3 >= max
    {
        return window[..end].to_owned();
    }
    // A word boundary, leaving room for the ellipsis.
    let room = text
        .char_indices()
        .nth(max - 1)
        .map_or(text.len(), |(i, _)| i);
    let cut = text[..room]
        .rfind(' ')
        .filter(|&i| i * 2 >= room)
        .unwrap_or(room);
    let mut out = text[..cut]
        .trim_end_matches([' ', ',', ';', ':', '('])
        .to_owned();
    out.push('…');
    out
}

fn abbreviation(before: &str) -> bool {
    let word = before
        .rsplit([' ', '('])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    matches!(
        word.as_str(),
        "e.g" | "i.e" | "etc" | "vs" | "approx" | "incl" | "no"
    ) || (word.len() == 1 && word.chars().all(|c| c.is_ascii_alphabetic()))
}

/// A tool's description from an operation's `summary` and `description`.
pub(crate) fn tool_description(summary: &str, description: &str, max: usize) -> String {
    let s = clean(summary);
    let d = clean(description);
    let joined = if s.is_empty() {
        d
    } else if d.is_empty() || starts_with_ci(&d, s.trim_end_matches('.')) {
        if d.is_empty() { s } else { d }
    } else {
        let mut j = s;
        if !ends_sentence(&j) {
            j.push('.');
        }
        j.push(' ');
        j.push_str(&d);
        j
    };
    shorten(&full_stop(joined), max)
}

/// A text that ends like a sentence (`Get a pet` → `Get a pet.`).
pub(crate) fn full_stop(mut s: String) -> String {
    if s.ends_with(|c: char| c.is_alphanumeric() || c == '`' || c == ')') {
        s.push('.');
    }
    s
}

fn starts_with_ci(text: &str, prefix: &str) -> bool {
    text.len() >= prefix.len()
        && text.is_char_boundary(prefix.len())
        && text[..prefix.len()].eq_ignore_ascii_case(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_html_and_markdown() {
        assert_eq!(
            clean(
                "<p>Creates a <strong>new</strong> charge.</p><p>See <a href=\"x\">docs</a> &amp; more.</p>"
            ),
            "Creates a new charge. See docs & more."
        );
        assert_eq!(
            clean(
                "Lists [issues](https://x.dev/issues) **fast**.\n\n> [!NOTE]\n> Pull requests are issues.\n\n```json\n{\"a\":1}\n```\n\n## Example\nDone"
            ),
            "Lists issues fast. Pull requests are issues. Done"
        );
        assert_eq!(clean("a < b and c > d"), "a < b and c > d");
        assert_eq!(
            clean("{% note %}\nHidden tags.\n{% endnote %}"),
            "Hidden tags."
        );
        assert_eq!(clean("- one\n- two"), "one two");
        assert_eq!(
            clean("_NOTE: only *some* users._ Use `per_page`."),
            "NOTE: only some users. Use `per_page`."
        );
        assert_eq!(
            clean("Search repo:* and a * b, not_this."),
            "Search repo:* and a * b, not_this."
        );
        assert_eq!(clean("See \"[Docs](x).\"\n\nNext"), "See \"Docs.\" Next");
    }

    #[test]
    fn shortens_at_a_sentence() {
        let t = "First sentence here. Second sentence is longer than the rest. Third.";
        assert_eq!(shorten(t, 30), "First sentence here.");
        assert_eq!(shorten(t, 500), t);
        // No sentence end in reach: a word boundary and an ellipsis.
        let long = "word ".repeat(40);
        let s = shorten(long.trim(), 50);
        assert!(s.ends_with('…') && s.chars().count() <= 50, "{s}");
        // e.g. is not a sentence end.
        assert_eq!(
            shorten(
                "Use a name, e.g. octocat and others. More text follows here.",
                40
            ),
            "Use a name, e.g. octocat and others."
        );
    }

    #[test]
    fn joins_summary_and_description() {
        assert_eq!(
            tool_description("List issues", "List issues in a repository.", 100),
            "List issues in a repository."
        );
        assert_eq!(
            tool_description("Get a user", "Returns the user.", 100),
            "Get a user. Returns the user."
        );
        assert_eq!(tool_description("", "", 100), "");
    }
}
