//! The search-term pipeline, shared by everything that makes or reads ToolSearch terms.
//!
//! The pack compiler and `#[charter::tool]` turn a tool's name, hints, description and parameter
//! names into stemmed terms at build time; ToolSearch turns the query into terms with the very
//! same functions at run time. A term matches only a whole term: `pr` never matches inside
//! `spreadsheet`, and `events` matches `event` because both stem to the same term.

/// Where in a tool a term occurs, as bits of [`Fields`]. A term may occur in several.
pub mod field {
    /// A part of the tool's own name (`pulls_list` has `pull` and `list`).
    pub const NAME: u8 = 1;
    /// A declared search hint.
    pub const HINT: u8 = 2;
    /// The description.
    pub const DESCRIPTION: u8 = 4;
    /// A top-level parameter name.
    pub const PARAM: u8 = 8;
    /// The pack label (added when a session indexes its catalogue, since a `#[charter::tool]`
    /// does not know its pack).
    pub const PACK: u8 = 16;
    /// The description's first word when it is not a stop word: the verb of a description
    /// written in the imperative ("Share a calendar with...", "Comment on an issue..."),
    /// which a query's first word often is too.
    pub const LEAD: u8 = 32;
}

/// A set of [`field`] bits.
pub type Fields = u8;

/// Words too common to say anything about which tool is meant. Dropped from tool text and from
/// queries alike, before stemming. `my`, `me`, `who` and `all` are kept: hints use them
/// ("my tickets", "who am I") and they tell tools apart.
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "been", "being", "but", "by", "can",
    "could", "did", "do", "does", "e", "eg", "etc", "for", "from", "g", "had", "has", "have", "he",
    "her", "here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "of",
    "on", "onto", "or", "our", "she", "should", "so", "such", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "too", "us", "via", "was",
    "we", "were", "what", "when", "where", "which", "will", "with", "would", "you", "your",
];

/// Whether a lowercase word is a stop word.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Splits text into words: runs of ASCII letters and digits (anything else separates, so
/// `pull_request`, `pull-request` and `pull/request` are two words), with camelCase split too
/// (`PaymentIntent` is `Payment` `Intent`). Non-ASCII letters are kept inside words.
pub fn words(text: &str) -> impl Iterator<Item = &str> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0usize;
    std::iter::from_fn(move || {
        // Skip separators.
        while at < bytes.len() && !is_word_byte(bytes[at]) {
            at += 1;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        at += 1;
        while at < bytes.len() && is_word_byte(bytes[at]) {
            // A lowercase letter or digit followed by an uppercase one starts a new word.
            if bytes[at].is_ascii_uppercase()
                && (bytes[at - 1].is_ascii_lowercase() || bytes[at - 1].is_ascii_digit())
            {
                break;
            }
            at += 1;
        }
        Some(&text[start..at])
    })
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// The terms of a text: its [`words`], lowercased, stop words and one-character words dropped,
/// each [`stem`]med, in order (repeats kept).
pub fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    words(text).filter_map(|w| {
        let lower = w.to_lowercase();
        if lower.chars().count() < 2 || is_stop_word(&lower) {
            None
        } else {
            Some(stem(&lower))
        }
    })
}

/// Words that look inflected and are not (`news` is not the plural of `new`).
const UNSTEMMED: &[&str] = &["news", "series", "species"];

/// Endings of plurals of words ending in `i` (`emojis`, `wikis`, `APIs`, `KPIs`): a word ending
/// in `is` keeps its `s` (`analysis`, `this`, `axis`, `tennis`), except after these letters,
/// after which English has almost no `-is` singular.
const PLURAL_IS: &[&str] = &["jis", "kis", "pis"];

/// A small suffix stemmer for lowercase English words, applied identically to tool text at build
/// time and to queries: plurals (`issues`, `branches`, `entries`), `-ing` and `-ed` forms and a
/// final silent `e` all reduce to one stem, so `create`, `creates`, `created` and `creating`
/// are the term `creat`. It conflates inflections, nothing more (no derivational suffixes); words
/// of three letters lose only a plural `s` (`prs`, `ids`), and a suffix is kept when what would
/// remain has no vowel (`string`).
pub fn stem(word: &str) -> String {
    if !word.is_ascii() || UNSTEMMED.contains(&word) {
        return word.to_owned();
    }
    if word.len() <= 3 {
        // Short plurals of abbreviations: `prs`, `ids`, `dms` (but `bus`, `gis`, `css`).
        return match word.strip_suffix('s') {
            Some(base) if base.len() == 2 && !matches!(base.as_bytes()[1], b's' | b'u' | b'i') => {
                base.to_owned()
            }
            _ => word.to_owned(),
        };
    }
    let mut w = word.to_owned();
    let vowel = |s: &str| s.bytes().any(|b| b"aeiouy".contains(&b));
    // Plurals and third person.
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if let Some(base) = w.strip_suffix("sses") {
        w = format!("{base}ss");
    } else if let Some(base) = ["ches", "shes", "xes", "zes"]
        .iter()
        .find_map(|suffix| w.strip_suffix(suffix).map(|b| (b, suffix)))
        .map(|(b, suffix)| format!("{b}{}", &suffix[..suffix.len() - 2]))
    {
        w = base;
    } else if w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && (!w.ends_with("is") || PLURAL_IS.iter().any(|p| w.ends_with(p)))
    {
        w.pop();
    }
    // -ly, -ction, -ee on long words: `recently`/`recent`, `extraction`/`extract`,
    // `assignee`/`assign`, `attendees`/`attend` (a search for one means the other).
    if let Some(base) = w.strip_suffix("ly").filter(|b| b.len() >= 5) {
        w = base.to_owned();
    } else if w.len() >= 8 && w.ends_with("ction") {
        w.truncate(w.len() - 3);
    } else if let Some(base) = w.strip_suffix("ee").filter(|b| b.len() >= 5) {
        w = base.to_owned();
    }
    // -ing, -ed (`settings` is `setting` by now, then `set`).
    let mut stripped = false;
    if let Some(base) = w.strip_suffix("ied").filter(|b| b.len() >= 2) {
        w = format!("{base}y");
    } else if let Some(base) = w
        .strip_suffix("ing")
        .filter(|b| b.len() >= 3 && vowel(b))
        .map(str::to_owned)
    {
        w = base;
        stripped = true;
    } else if let Some(base) = w
        .strip_suffix("ed")
        .filter(|b| b.len() >= 3 && vowel(b) && !b.ends_with('e'))
        .map(str::to_owned)
    {
        w = base;
        stripped = true;
    }
    if stripped {
        // `shipp` -> `ship`, `mapp` -> `map`; but `pull`, `pass`, `add` keep their double.
        let b = w.as_bytes();
        let n = b.len();
        if n >= 2 && b[n - 1] == b[n - 2] && !b"aeiouylsdzf".contains(&b[n - 1]) {
            w.pop();
        }
    }
    // A final silent e: `release`/`releas(es)`, `merge`/`merg(ed)`, `scrape`/`scrap(ing)`.
    if w.len() >= 4 && w.ends_with('e') && !w.ends_with("ee") {
        w.pop();
    }
    w
}

/// Whether a lowercase word is a plural the stemmer reduces (`issues`, `prs`, `entries`), as
/// opposed to a word that merely ends in `s` (`status`, `address`, `news`).
pub fn is_plural(word: &str) -> bool {
    let Some(singular) = word.strip_suffix('s') else {
        return false;
    };
    if word.ends_with("ss") || singular.is_empty() {
        return false;
    }
    let stemmed = stem(word);
    if stemmed == word {
        return false;
    }
    stemmed == stem(singular)
        || word
            .strip_suffix("ies")
            .is_some_and(|base| stemmed == stem(&format!("{base}y")))
}

/// The terms of a tool as build time records them: every stem with the fields it occurs in,
/// each stem once, sorted by stem.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ToolTerms {
    terms: Vec<(String, Fields)>,
}

impl ToolTerms {
    /// Collects the terms of one tool. `name` is the tool's own name (without the pack).
    pub fn new<'a>(
        name: &str,
        hints: impl IntoIterator<Item = &'a str>,
        description: &str,
        params: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let mut out = ToolTerms::default();
        out.add(name, field::NAME);
        for hint in hints {
            out.add(hint, field::HINT);
        }
        out.add(description, field::DESCRIPTION);
        if let Some(first) = words(description).next() {
            let first = first.to_lowercase();
            if first.chars().count() >= 2 && !is_stop_word(&first) {
                out.add(&first, field::LEAD);
            }
        }
        for param in params {
            out.add(param, field::PARAM);
        }
        out
    }

    /// Adds the terms of `text` under `fields`.
    pub fn add(&mut self, text: &str, fields: Fields) {
        for term in terms(text) {
            match self.terms.binary_search_by(|(t, _)| t.as_str().cmp(&term)) {
                Ok(i) => self.terms[i].1 |= fields,
                Err(i) => self.terms.insert(i, (term, fields)),
            }
        }
    }

    /// The stems with their fields, sorted by stem.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Fields)> + '_ {
        self.terms.iter().map(|(t, f)| (t.as_str(), *f))
    }

    /// The stems joined by single spaces, sorted: the form a `SearchData` stores.
    pub fn joined(&self) -> String {
        let mut out = String::new();
        for (i, (t, _)) in self.terms.iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(t);
        }
        out
    }

    /// The fields of each stem, in the order of [`joined`](Self::joined).
    pub fn fields(&self) -> Vec<Fields> {
        self.terms.iter().map(|(_, f)| *f).collect()
    }
}

/// Verbs that make a tool the plain operation on its resource (`events_list`, `issues_get`,
/// `customers_create`) rather than a variant of it (`events_import`, `pulls_list_files`):
/// ToolSearch prefers the plain tool when two tools score the same.
///
/// `add` is the create verb of APIs that attach one thing to another (`reactions_add`,
/// `pins_add`, `tags_add`): adding is what creating one of those is, when it follows the
/// resource directly (`events_quick_add` is a variant).
pub const PLAIN_VERBS: &[&str] = &[
    "add", "create", "get", "insert", "list", "retrieve", "search",
];

/// Verbs that change or remove one item of a resource (`customers_delete`, `events_patch`).
pub const ITEM_VERBS: &[&str] = &["delete", "edit", "modify", "patch", "remove", "update"];

/// Verbs that change something: a tool whose name holds one writes (`issues_update`,
/// `cycles_start_today`, `pulls_merge`); a tool whose name holds none reads (`issues_history`,
/// `pulls_check_merged`, `users_get_presence`). A question (`when does the sprint end`, `is
/// the PR merged`) asks to read.
#[rustfmt::skip] // One verb a line would make the list 90 lines long.
pub const WRITE_VERBS: &[&str] = &[
    "accept", "add", "append", "approve", "archive", "attach", "cancel", "capture", "clear",
    "close", "complete", "confirm", "copy", "create", "deactivate", "decline", "delete", "detach",
    "disable", "dismiss", "dispatch", "edit", "enable", "execute", "expire", "finalize", "follow",
    "fork", "forward", "hide", "hold", "import", "insert", "invite", "join", "kick", "leave",
    "lock", "mark", "merge", "modify", "move", "open", "patch", "pay", "pin", "ping", "post",
    "push", "put", "remove", "rename", "renew", "replace", "reply", "request", "rerequest",
    "rerun", "resolve", "resume", "reverse", "send", "set", "snooze", "star", "start", "stop",
    "submit", "subscribe", "sync", "transfer", "trash", "unarchive", "unfollow", "unhide",
    "unlock", "unpin", "unresolve", "unstar", "unsubscribe", "untrash", "update", "upload",
    "verify", "void", "watch",
];

/// Whether a tool's own name holds a verb that changes something ([`WRITE_VERBS`]).
pub fn writes(tool: &str) -> bool {
    tool.split('_')
        .any(|p| WRITE_VERBS.binary_search(&p).is_ok())
}

/// How far a tool name is from the plain operation on its resource, for tie-breaks: 0 for the
/// plain list/get/create/search ([`PLAIN_VERBS`]), 1 for the plain update/delete of one item
/// ([`ITEM_VERBS`]), 2 for anything else (`events_import`, `customers_delete_discount`).
pub fn variant_tier(tool: &str) -> u8 {
    let (rest, last) = tool.rsplit_once('_').unwrap_or(("", tool));
    let before = rest.rsplit('_').next().unwrap_or_default();
    let plain = PLAIN_VERBS.contains(&last) && (last != "add" || is_plural(before));
    if !tool.contains('_') || plain {
        0
    } else if ITEM_VERBS.contains(&last) {
        1
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn words_split_on_punctuation_and_camel_case() {
        let got: Vec<&str> = words("PaymentIntent pull_request, e-mail (v2)/ABC x").collect();
        assert_eq!(
            got,
            [
                "Payment", "Intent", "pull", "request", "e", "mail", "v2", "ABC", "x"
            ]
        );
        assert_eq!(words("  ").count(), 0);
        assert_eq!(words("café naïve").collect::<Vec<_>>(), ["café", "naïve"]);
    }

    #[test]
    fn stems_conflate_inflections() {
        let same = |forms: &[&str]| {
            let stems: Vec<String> = forms.iter().map(|f| stem(f)).collect();
            assert!(
                stems.windows(2).all(|w| w[0] == w[1]),
                "{forms:?} -> {stems:?}"
            );
            stems[0].clone()
        };
        assert_eq!(same(&["create", "creates", "created", "creating"]), "creat");
        assert_eq!(same(&["issue", "issues"]), "issu");
        assert_eq!(same(&["branch", "branches"]), "branch");
        assert_eq!(same(&["entry", "entries"]), "entry");
        assert_eq!(same(&["reply", "replies", "replied"]), "reply");
        assert_eq!(same(&["merge", "merged", "merges", "merging"]), "merg");
        assert_eq!(same(&["ship", "shipped", "shipping"]), "ship");
        assert_eq!(same(&["map", "mapping"]), "map");
        assert_eq!(same(&["pull", "pulls", "pulling"]), "pull");
        assert_eq!(same(&["address", "addresses"]), "address");
        assert_eq!(same(&["status", "statuses"]), "status");
        assert_eq!(same(&["message", "messages"]), "messag");
        assert_eq!(same(&["setting", "settings"]), "set");
        assert_eq!(same(&["scrape", "scraping", "scraped"]), "scrap");
        assert_eq!(same(&["add", "added", "adding"]), "add");
        assert_eq!(same(&["box", "boxes"]), "box");
        assert_eq!(same(&["recent", "recently"]), "recent");
        assert_eq!(same(&["extract", "extraction", "extractions"]), "extract");
        assert_eq!(
            same(&["assign", "assignee", "assignees", "assigned"]),
            "assign"
        );
        assert_eq!(same(&["attend", "attendees"]), "attend");
    }

    #[test]
    fn short_and_vowelless_words_are_left_alone() {
        for w in [
            "pr", "dm", "id", "bus", "css", "string", "thing", "need", "feed",
        ] {
            assert_eq!(stem(w), w);
        }
        assert_eq!(stem("prs"), "pr");
        assert_eq!(stem("emojis"), "emoji");
        assert_eq!(stem("wikis"), "wiki");
        assert_eq!(stem("apis"), "api");
        assert_eq!(stem("analysis"), "analysis");
        assert_eq!(stem("this"), "this");
        assert_eq!(stem("ids"), "id");
        assert_eq!(stem("urls"), "url");
    }

    #[test]
    fn terms_drop_stop_words_and_single_letters() {
        let got: Vec<String> = terms("Open a new Pull-Request in the repo").collect();
        assert_eq!(got, ["open", "new", "pull", "request", "repo"]);
        assert_eq!(terms("the a of I").count(), 0);
        assert_eq!(terms("my tickets").collect::<Vec<_>>(), ["my", "ticket"]);
    }

    #[test]
    fn tool_terms_merge_fields_and_sort() {
        let t = ToolTerms::new(
            "pulls_list",
            ["PRs", "open PRs"],
            "List pull requests of a repository.",
            ["owner", "repo", "per_page"],
        );
        let got: Vec<(&str, Fields)> = t.iter().collect();
        assert_eq!(
            got,
            [
                ("list", field::NAME | field::DESCRIPTION | field::LEAD),
                ("open", field::HINT),
                ("owner", field::PARAM),
                ("pag", field::PARAM),
                ("per", field::PARAM),
                ("pr", field::HINT),
                ("pull", field::NAME | field::DESCRIPTION),
                ("repo", field::PARAM),
                ("repository", field::DESCRIPTION),
                ("request", field::DESCRIPTION),
            ]
        );
        assert_eq!(t.joined().split(' ').count(), t.fields().len());
    }

    #[test]
    fn plurals() {
        for w in [
            "issues", "prs", "entries", "branches", "ids", "details", "messages", "emojis",
        ] {
            assert!(is_plural(w), "{w}");
        }
        for w in [
            "status", "address", "news", "bus", "issue", "pr", "analysis", "s",
        ] {
            assert!(!is_plural(w), "{w}");
        }
    }

    #[test]
    fn writers() {
        assert!(WRITE_VERBS.windows(2).all(|w| w[0] < w[1]));
        assert!(writes("cycles_update") && writes("pulls_merge") && writes("tags_add"));
        assert!(!writes("issues_history") && !writes("pulls_check_merged"));
    }

    #[test]
    fn variant_tiers() {
        assert_eq!(variant_tier("events_list"), 0);
        assert_eq!(variant_tier("reactions_add"), 0);
        assert_eq!(variant_tier("events_quick_add"), 2);
        assert_eq!(variant_tier("payment_intents_create"), 0);
        assert_eq!(variant_tier("search"), 0);
        assert_eq!(variant_tier("customers_delete"), 1);
        assert_eq!(variant_tier("events_patch"), 1);
        assert_eq!(variant_tier("events_import"), 2);
        assert_eq!(variant_tier("pulls_list_files"), 2);
        assert_eq!(variant_tier("customers_delete_discount"), 2);
    }
}
