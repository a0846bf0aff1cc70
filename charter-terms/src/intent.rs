//! What a search query asks for, read off its first words: to change something (`share my
//! calendar`, `tag a release`), to read (`show open issues`, `who reviewed this`, or a bare noun
//! phrase such as `customer's invoices` or `high priority bugs`), or neither for sure.
//!
//! ToolSearch lets the tools that do what the query asks gain over the tools that share its
//! words but do the other thing (`charges_list` for `charge a card`, `profile_set` for `my slack
//! profile`).

use crate::search::{WRITE_VERBS, is_stop_word};

/// What a query asks a tool to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Change something: the query opens with an action verb.
    Write,
    /// Read: the query is a question, opens with a reading verb, or names things without any
    /// verb.
    Read,
    /// The query holds a verb that can go either way (`open`, `crawl`, `track`) or an action
    /// verb after its first word (`auto reply while on vacation`).
    Unknown,
}

/// Verbs users type for changing something, beyond the verbs of tool names ([`WRITE_VERBS`],
/// which count too): the words of the person asking (`share`, `assign`, `refund`, `mute`).
#[rustfmt::skip] // One verb a line would make the list 60 lines long.
pub const ACTION_WORDS: &[&str] = &[
    "adjust", "allow", "assign", "ban", "block", "book", "bump", "change", "charge", "clone",
    "comment", "connect", "convert", "decrease", "deny", "deploy", "disconnect", "dm", "draft",
    "duplicate", "email", "end", "flag", "fulfil", "fulfill", "give", "grant", "increase",
    "install", "label", "link", "make", "message", "mute", "new", "notify", "protect",
    "publish", "react", "reassign", "refund", "reject", "remind", "reopen", "reschedule", "reset",
    "restore", "retry", "revoke", "rotate", "save", "schedule", "share", "ship", "tag", "text",
    "trigger", "turn", "unassign", "unblock", "undo", "unflag", "uninstall", "unlink", "unmute",
    "unpublish", "unshare", "unwatch", "write",
];

/// Words that open a question: a query opening with one asks to read, not to change. `how`
/// and `can` are left out: `how do I cancel`, `can you refund` ask for the action.
pub const QUESTION_WORDS: &[&str] = &[
    "are", "did", "do", "does", "has", "have", "is", "was", "were", "what", "whats", "when",
    "where", "which", "who", "whose", "why",
];

/// Whether a query's first word opens a question (`what's` counts as `whats`).
pub fn is_question(first_word: &str) -> bool {
    has(QUESTION_WORDS, &plain(first_word))
}

/// Verbs users type for reading.
#[rustfmt::skip]
pub const READ_WORDS: &[&str] = &[
    "browse", "check", "count", "display", "fetch", "find", "get", "list", "look", "lookup",
    "read", "search", "see", "show", "tell", "view",
];

/// Verbs that read or write depending on what follows (`open a PR`, `open the page`), or that
/// read by starting a job a tool name calls `start` (`crawl a site`): a query holding one says
/// nothing for sure.
#[rustfmt::skip]
pub const EITHER_WORDS: &[&str] = &[
    "compare", "crawl", "download", "export", "extract", "map", "monitor", "open", "research",
    "run", "scrape", "summarise", "summarize", "track", "watch",
];

/// Action words that are nouns as often (`email from boss`, `change history`, `archive
/// folder`): one opens an action only when a determiner or a pronoun follows it (`email the
/// team`, `tag a release`).
#[rustfmt::skip]
pub const NOUNS_TOO: &[&str] = &[
    "archive", "block", "book", "change", "charge", "comment", "copy", "dm", "draft", "email",
    "end", "flag", "hold", "import", "invite", "label", "link", "lock", "merge", "message",
    "patch", "pin", "ping", "post", "push", "refund", "reply", "request", "schedule", "set",
    "share", "star", "start", "stop", "sync", "tag", "text", "transfer", "trash", "trigger",
    "update", "upload", "watch",
];

/// Words that make the word before them a verb: `tag a release`, `message my manager`.
#[rustfmt::skip]
const OBJECT_OPENERS: &[&str] = &[
    "a", "all", "an", "everyone", "her", "him", "it", "me", "my", "our", "someone", "that", "the",
    "their", "them", "these", "this", "those", "us", "your",
];

fn has(list: &[&str], word: &str) -> bool {
    list.binary_search(&word).is_ok()
}

fn plain(word: &str) -> String {
    word.chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase()
}

/// What a query asks for, from its words as typed (`share`, `my`, `calendar`).
pub fn intent<'a>(words: impl IntoIterator<Item = &'a str>) -> Intent {
    intent_with(words, |_| false)
}

/// [`intent`], told which words are names or values no tool holds (`email sam the notes`,
/// `refund $45`): like a determiner, one after an action word that is a noun too makes it a
/// verb.
pub fn intent_with<'a>(
    words: impl IntoIterator<Item = &'a str>,
    is_name: impl Fn(&str) -> bool,
) -> Intent {
    let typed: Vec<&str> = words.into_iter().collect();
    let words: Vec<String> = typed.iter().map(|w| plain(w)).collect();
    let mut first = true;
    let mut verbs = false;
    for (i, w) in words.iter().enumerate() {
        if first && has(QUESTION_WORDS, w) {
            return Intent::Read;
        }
        if w.len() < 2 || is_stop_word(w) || w == "please" {
            continue;
        }
        let action = has(ACTION_WORDS, w) || has(WRITE_VERBS, w);
        let either = has(EITHER_WORDS, w);
        if first {
            if has(READ_WORDS, w) {
                return Intent::Read;
            }
            let object_next = || {
                words.get(i + 1).is_some_and(|n| has(OBJECT_OPENERS, n))
                    || typed.get(i + 1).is_some_and(|n| is_name(n))
            };
            if action && !either && (!has(NOUNS_TOO, w) || object_next()) {
                return Intent::Write;
            }
            // `open a PR`, `open an issue` create; `open the page` reads.
            let new_next = words
                .get(i + 1)
                .is_some_and(|n| n == "a" || n == "an" || n == "new");
            if w == "open" && new_next {
                return Intent::Write;
            }
        }
        first = false;
        verbs |= action || either;
    }
    if verbs || first {
        Intent::Unknown
    } else {
        Intent::Read
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(q: &str) -> Intent {
        intent(q.split(' '))
    }

    #[test]
    fn lists_are_sorted_for_binary_search() {
        for list in [
            QUESTION_WORDS,
            ACTION_WORDS,
            READ_WORDS,
            EITHER_WORDS,
            NOUNS_TOO,
            OBJECT_OPENERS,
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn the_first_word_says_what_is_asked() {
        assert_eq!(of("share my calendar"), Intent::Write);
        assert_eq!(of("please tag a release"), Intent::Write);
        assert_eq!(of("close stale issues"), Intent::Write);
        assert_eq!(of("show open issues"), Intent::Read);
        assert_eq!(of("who reviewed this PR"), Intent::Read);
        assert_eq!(of("what's on today"), Intent::Read);
        assert!(is_question("When") && is_question("what's") && !is_question("close"));
    }

    #[test]
    fn a_noun_phrase_reads_unless_it_holds_a_verb() {
        assert_eq!(of("customer's invoices"), Intent::Read);
        assert_eq!(of("high priority bugs"), Intent::Read);
        assert_eq!(of("my slack profile"), Intent::Read);
        assert_eq!(of("auto reply while on vacation"), Intent::Unknown);
        assert_eq!(of("crawl a whole site"), Intent::Unknown);
        assert_eq!(of("email from boss"), Intent::Unknown);
        assert_eq!(of("email the team"), Intent::Write);
        assert_eq!(of("change history"), Intent::Unknown);
        let names = |w: &str| w == "sam";
        assert_eq!(
            intent_with("email sam the notes".split(' '), names),
            Intent::Write
        );
        assert_eq!(
            intent_with("email from sam".split(' '), names),
            Intent::Unknown
        );
        assert_eq!(of("open the page"), Intent::Unknown);
        assert_eq!(of("open an issue about the crash"), Intent::Write);
        assert_eq!(of("the"), Intent::Unknown);
    }
}
