//! Tool, parameter and type names from an API document's spellings.
//!
//! Tool names must be `[a-z0-9_]+` without `__`, and `<pack>_<tool>` at most 50 characters
//! (docs/design.md §2). Shortening is deterministic (the same document always yields the same names, and
//! a name never depends on which operations were selected) and readable first: stop words go,
//! then `customers_customer` pairs, then common abbreviations; only then a cut with a short hash.

use std::collections::{HashMap, HashSet};

/// `issues/list-for-repo` → `issues_list_for_repo`, `GetCustomers` → `get_customers`,
/// `chat.postMessage` → `chat_post_message`.
pub(crate) fn snake(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && i > 0 {
                let prev = chars[i - 1];
                let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
                if prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower)
                {
                    out.push('_');
                }
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push('_');
        }
    }
    tidy(&out)
}

/// Collapses `_` runs and trims them at both ends.
fn tidy(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s.split('_').filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push('_');
        }
        out.push_str(part);
    }
    out
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "for", "to", "of", "by", "in", "on", "with", "from", "at", "as",
];

/// Words that qualify rather than name (`remove_all_custom_labels`).
const FILLERS: &[&str] = &[
    "all", "custom", "selected", "specific", "existing", "given", "current", "single",
];

const ABBREVIATIONS: &[(&str, &str)] = &[
    ("authenticated", "auth"),
    ("authentication", "auth"),
    ("repository", "repo"),
    ("repositories", "repos"),
    ("organization", "org"),
    ("organizations", "orgs"),
    ("configuration", "config"),
    ("configurations", "configs"),
    ("environment", "env"),
    ("environments", "envs"),
    ("information", "info"),
    ("application", "app"),
    ("applications", "apps"),
    ("installation", "install"),
    ("installations", "installs"),
    ("permission", "perm"),
    ("permissions", "perms"),
    ("administrator", "admin"),
    ("administrators", "admins"),
    ("subscription", "sub"),
    ("subscriptions", "subs"),
    ("identifier", "id"),
    ("identifiers", "ids"),
    ("statistics", "stats"),
    ("variable", "var"),
    ("variables", "vars"),
    ("transaction", "txn"),
    ("transactions", "txns"),
    ("developer", "dev"),
    ("message", "msg"),
    ("messages", "msgs"),
];

/// What shortening knows about the whole document.
pub(crate) struct Namer {
    /// The pack label's word (`github`): redundant inside a tool name.
    label_word: String,
    /// How many operation names use each word: a frequent word tells operations apart least.
    freq: HashMap<String, usize>,
}

/// Verbs are what an operation does: never dropped.
const VERBS: &[&str] = &[
    "get",
    "list",
    "create",
    "update",
    "delete",
    "remove",
    "add",
    "set",
    "post",
    "put",
    "patch",
    "enable",
    "disable",
    "approve",
    "cancel",
    "start",
    "stop",
    "open",
    "close",
    "invite",
    "revoke",
    "rename",
    "archive",
    "unarchive",
    "send",
    "search",
    "upload",
    "download",
    "test",
    "check",
    "restore",
    "replace",
    "merge",
    "move",
    "copy",
    "import",
    "export",
    "retrieve",
    "fail",
    "return",
    "reject",
    "accept",
    "block",
    "unblock",
    "lock",
    "unlock",
    "follow",
    "unfollow",
    "star",
    "unstar",
];

impl Namer {
    /// A namer for a pack labelled `label` over every operation name (snake case).
    pub(crate) fn new(label: &str, all: &[String]) -> Self {
        let mut freq: HashMap<String, usize> = HashMap::new();
        for name in all {
            let words: HashSet<&str> = name.split('_').collect();
            for w in words {
                *freq.entry(w.to_owned()).or_default() += 1;
            }
        }
        Namer {
            label_word: label.replace('-', "_"),
            freq,
        }
    }

    /// A valid tool name for `raw` (snake case) that fits in `max` characters, and whether it
    /// had to be shortened.
    pub(crate) fn fit(&self, raw: &str, max: usize) -> (String, bool) {
        let mut name = tidy(raw);
        if name.is_empty() {
            name = "operation".into();
        }
        if name.len() <= max {
            return (name, false);
        }
        let mut words: Vec<String> = name.split('_').map(str::to_owned).collect();
        let fits = |w: &[String]| joined_len(w) <= max;
        // 1. Stop words (never the first word).
        let first = words[0].clone();
        words = std::iter::once(first)
            .chain(
                words[1..]
                    .iter()
                    .filter(|w| !STOP_WORDS.contains(&w.as_str()))
                    .cloned(),
            )
            .collect();
        if fits(&words) {
            return (words.join("_"), true);
        }
        // 2. A collection followed by one of its items (`customers_customer`,
        //    `outbound_transfers_outbound_transfer`) inside the name, and repeated words. A
        //    trailing item stays: `configurations` and `configurations_configuration` are the
        //    list and the item.
        collapse_items(&mut words);
        if fits(&words) {
            return (words.join("_"), true);
        }
        // 3. Qualifiers, and the pack's own name (`github_actions` in the github pack).
        let mut i = words.len().saturating_sub(2);
        while i >= 1 && !fits(&words) {
            if FILLERS.contains(&words[i].as_str()) || words[i] == self.label_word {
                words.remove(i);
            }
            i -= 1;
        }
        if fits(&words) {
            return (words.join("_"), true);
        }
        // 4. Abbreviations, longest words first.
        let abbrev: HashMap<&str, &str> = ABBREVIATIONS.iter().copied().collect();
        let mut order: Vec<usize> = (0..words.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(words[i].len()));
        for i in order {
            if let Some(short) = abbrev.get(words[i].as_str()) {
                words[i] = (*short).to_owned();
                if fits(&words) {
                    return (words.join("_"), true);
                }
            }
        }
        // 5. Middle words that repeat an earlier one (`packages_get_package_...`), from the right.
        let mut i = words.len().saturating_sub(2);
        while i >= 1 && !fits(&words) {
            let w = &words[i];
            if words[..i]
                .iter()
                .any(|e| e == w || plural_of(e, w) || plural_of(w, e))
            {
                words.remove(i);
            }
            i -= 1;
        }
        if fits(&words) {
            return (words.join("_"), true);
        }
        // 6. The middle word most operations share (it tells them apart least); never the first
        //    two (area and verb, or verb and object), the last (often the scope: `_org`,
        //    `_repo`) or a verb.
        while !fits(&words) {
            let candidate = (2..words.len().saturating_sub(1))
                .filter(|&i| !VERBS.contains(&words[i].as_str()))
                .max_by_key(|&i| (self.freq.get(&words[i]).copied().unwrap_or(0), i));
            match candidate {
                Some(i) => {
                    words.remove(i);
                }
                None => break,
            }
        }
        if fits(&words) {
            return (words.join("_"), true);
        }
        // 7. Cut at a word boundary and add a hash of the full name, so two long names that
        //    share a prefix stay distinct.
        let hash = format!("{:04x}", fnv(raw) & 0xffff);
        let keep = max.saturating_sub(hash.len() + 1);
        let joined = words.join("_");
        let mut cut = joined[..keep.min(joined.len())].to_owned();
        if let Some(i) = cut.rfind('_')
            && i * 3 >= keep * 2
        {
            cut.truncate(i);
        }
        let cut = tidy(&cut);
        let name = if cut.is_empty() {
            hash
        } else {
            format!("{cut}_{hash}")
        };
        (name, true)
    }

    /// `name` made unique against `taken` by a `_2`, `_3`… suffix, shortened (as [`fit`]
    /// does) so the whole still fits in `max`.
    ///
    /// [`fit`]: Namer::fit
    pub(crate) fn disambiguate(&self, name: &str, taken: &HashSet<String>, max: usize) -> String {
        for n in 2.. {
            let suffix = format!("_{n}");
            let (base, _) = self.fit(name, max.saturating_sub(suffix.len()));
            let candidate = format!("{base}{suffix}");
            if !taken.contains(&candidate) {
                return candidate;
            }
        }
        unreachable!("an unbounded counter always finds a free name")
    }
}

/// Removes an item group that follows its collection (`a_bs_a_b_c` → `a_bs_c`) and repeated
/// words, unless the item ends the name.
fn collapse_items(words: &mut Vec<String>) {
    'again: loop {
        let n = words.len();
        for k in (1..=3).rev() {
            for i in 0..n.saturating_sub(2 * k) {
                let (a, b) = (&words[i..i + k], &words[i + k..i + 2 * k]);
                let item = a[..k - 1] == b[..k - 1]
                    && (a[k - 1] == b[k - 1] || plural_of(&a[k - 1], &b[k - 1]));
                // The item group must not end the name (`..._configurations_configuration`).
                if item && i + 2 * k < n {
                    words.drain(i + k..i + 2 * k);
                    continue 'again;
                }
            }
        }
        // Exact repeats anywhere adjacent (`get_get_x`), even at the end.
        for i in 1..n {
            if words[i] == words[i - 1] {
                words.remove(i);
                continue 'again;
            }
        }
        break;
    }
}

/// Whether `plural` is `singular` + `s`/`es` (`customers`, `customer`).
fn plural_of(plural: &str, singular: &str) -> bool {
    plural.strip_suffix('s').is_some_and(|p| p == singular)
        || plural.strip_suffix("es").is_some_and(|p| p == singular)
        || (plural.ends_with("ies")
            && singular.ends_with('y')
            && plural[..plural.len() - 3] == singular[..singular.len() - 1])
}

fn joined_len(words: &[String]) -> usize {
    words.iter().map(String::len).sum::<usize>() + words.len().saturating_sub(1)
}

/// FNV-1a: a stable hash (std's hasher is not stable across releases).
pub(crate) fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Whether `name` is a valid property/parameter name: `[A-Za-z0-9_.-]{1,64}`.
pub(crate) fn valid_property(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// A valid property name for an API's spelling (`expand[]` → `expand`, `$.xgafv` → `xgafv`).
pub(crate) fn property(name: &str) -> String {
    if valid_property(name) {
        return name.to_owned();
    }
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut t = tidy(&mapped);
    t = t.trim_matches(['.', '-']).to_owned();
    if t.is_empty() {
        t = "field".into();
    }
    if t.len() > 64 {
        let hash = format!("{:04x}", fnv(name) & 0xffff);
        t = format!("{}_{hash}", &t[..59]);
    }
    t
}

/// `name` made unique among `taken` with a suffix (`id_header`, then `id_header_2`…).
pub(crate) fn unique(name: &str, suffix: &str, taken: &HashSet<String>) -> String {
    let first = if name.len() + suffix.len() < 64 {
        format!("{name}_{suffix}")
    } else {
        format!("{}_{suffix}", &name[..63 - suffix.len()])
    };
    if !taken.contains(&first) {
        return first;
    }
    for n in 2.. {
        let candidate = format!("{first}_{n}");
        if !taken.contains(&candidate) && candidate.len() <= 64 {
            return candidate;
        }
    }
    unreachable!("an unbounded counter always finds a free name")
}

/// A type name (`[A-Za-z][A-Za-z0-9_]*`) for a component schema: `issue-comment` →
/// `IssueComment`, `google.rpc.Status` → `GoogleRpcStatus`.
pub(crate) fn type_name(component: &str) -> String {
    let mut out = String::with_capacity(component.len());
    for part in component
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
    {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert(0, 'T');
    }
    out
}

/// `~` and `/` escaped for a JSON pointer token.
pub(crate) fn pointer_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The environment variable prefix for a pack label (`my-api` → `MY_API`).
pub(crate) fn env_prefix(label: &str) -> String {
    let up = label.to_ascii_uppercase().replace('-', "_");
    if up.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{up}")
    } else {
        up
    }
}

/// The label of a tag group's pack: `<pack>-<tag>` with the tag in `[a-z0-9-]`, short enough
/// to leave tool names room (at most 24 characters), unique among `used`.
pub(crate) fn group_label(pack: &str, tag: &str, used: &HashSet<String>) -> String {
    let mut slug = String::new();
    for c in tag.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let room = 24usize.saturating_sub(pack.len() + 1).max(4);
    let mut slug: String = slug.trim_end_matches('-').chars().take(room).collect();
    slug = slug.trim_end_matches('-').to_owned();
    if slug.is_empty() {
        slug = "other".into();
    }
    let base = format!("{pack}-{slug}");
    let mut label = base.clone();
    let mut n = 2;
    while used.contains(&label) {
        label = format!("{base}{n}");
        n += 1;
    }
    label
}

/// A simple glob: `*` matches within a path segment, `**` across segments, `?` one character.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some(b'*') if p.get(1) == Some(&b'*') => {
                let rest = &p[2..];
                (0..=t.len()).any(|i| go(rest, &t[i..]))
            }
            Some(b'*') => {
                let rest = &p[1..];
                for i in 0..=t.len() {
                    if go(rest, &t[i..]) {
                        return true;
                    }
                    if i < t.len() && t[i] == b'/' {
                        break;
                    }
                }
                false
            }
            Some(b'?') => !t.is_empty() && t[0] != b'/' && go(&p[1..], &t[1..]),
            Some(&c) => t.first() == Some(&c) && go(&p[1..], &t[1..]),
        }
    }
    go(pattern.as_bytes(), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        assert_eq!(snake("issues/list-for-repo"), "issues_list_for_repo");
        assert_eq!(snake("GetCustomers"), "get_customers");
        assert_eq!(snake("chat_postMessage"), "chat_post_message");
        assert_eq!(
            snake("gmail.users.messages.list"),
            "gmail_users_messages_list"
        );
        assert_eq!(snake("HTMLParser2Go"), "html_parser2_go");
        assert_eq!(snake("--weird__name--"), "weird_name");
        assert_eq!(snake("GetV1Customers"), "get_v1_customers");
    }

    fn namer(label: &str) -> Namer {
        Namer::new(label, &[])
    }

    #[test]
    fn shortening_is_readable_then_hashed() {
        let gh = namer("github");
        let (n, s) = gh.fit("issues_list_for_repo", 43);
        assert_eq!((n.as_str(), s), ("issues_list_for_repo", false));
        let cases = [
            (
                "delete_customers_customer_subscriptions_subscription_exposed_id_discount",
                "delete_customers_subs_exposed_id_discount",
            ),
            // The list and the item stay distinct.
            (
                "get_billing_portal_configurations_configuration",
                "get_billing_portal_configs_configuration",
            ),
            (
                "actions_get_github_actions_default_workflow_permissions_organization",
                "actions_get_default_workflow_perms_org",
            ),
            (
                "packages_get_all_package_versions_for_package_owned_by_authenticated_user",
                "packages_get_versions_owned_auth_user",
            ),
            (
                "post_test_helpers_treasury_outbound_transfers_outbound_transfer_fail",
                "post_test_helpers_treasury_outbound_transfers_fail",
            ),
        ];
        for (raw, want) in cases {
            let (n, s) = gh.fit(raw, 50 - "github_".len().min(7));
            assert!(s, "{raw}");
            assert!(n.len() <= 43 || want.len() > 43, "{n}");
            if want.len() <= 43 {
                assert_eq!(n, want, "{raw}");
            }
        }
        // A frequent middle word goes before a rare one; verbs stay.
        let slack = Namer::new(
            "slack",
            &[
                "admin_conversations_restrict_access_add_group".into(),
                "admin_conversations_list".into(),
            ],
        );
        let (n, _) = slack.fit("admin_conversations_restrict_access_remove_group", 44);
        assert_eq!(n, "admin_conversations_restrict_remove_group");
        let long = "x".repeat(20) + "_" + &"y".repeat(40);
        let (a, _) = gh.fit(&(long.clone() + "_a"), 30);
        let (b, _) = gh.fit(&(long + "_b"), 30);
        assert!(a.len() <= 30 && b.len() <= 30 && a != b, "{a} {b}");
        assert!(!a.contains("__") && !a.starts_with('_'));
    }

    #[test]
    fn disambiguates_within_the_limit() {
        let n = namer("x");
        let taken: HashSet<String> = ["abc".to_owned(), "abc_2".to_owned()].into();
        assert_eq!(n.disambiguate("abc", &taken, 10), "abc_3");
        let taken: HashSet<String> = ["abcdefghij".to_owned()].into();
        let d = n.disambiguate("abcdefghij", &taken, 10);
        assert!(
            d.len() <= 10 && d.ends_with("_2") && !taken.contains(&d),
            "{d}"
        );
    }

    #[test]
    fn property_and_type_names() {
        assert_eq!(property("expand[]"), "expand");
        assert_eq!(property("$.xgafv"), "xgafv");
        assert_eq!(property("created[gte]"), "created_gte");
        assert_eq!(property("Notion-Version"), "Notion-Version");
        assert_eq!(property("@@"), "field");
        assert_eq!(type_name("issue-comment"), "IssueComment");
        assert_eq!(type_name("google.rpc.Status"), "GoogleRpcStatus");
        assert_eq!(type_name("2fa"), "T2fa");
    }

    #[test]
    fn globs() {
        assert!(glob("/repos/*/*/issues", "/repos/{owner}/{repo}/issues"));
        assert!(!glob("/repos/*/issues", "/repos/{owner}/{repo}/issues"));
        assert!(glob("/repos/**", "/repos/{owner}/{repo}/issues"));
        assert!(glob("/v1/customer?", "/v1/customers"));
    }
}
