//! The result budget (docs/results.md, "Budgets"): how much text one tool answer may hand the
//! model, and what an answer over it becomes.
//!
//! A JSON answer over the budget keeps the leading items of its largest list that fit and stays
//! whole JSON, so it still conforms to the tool's declared result (a shorter list is as valid
//! as the full one). A notice after it says how many items were left out and how to get them:
//! the call's arguments for the next items when the pagination can resume at any item (a
//! cursor read from the last item, an offset), else which argument asks for smaller pages.
//! Anything else over the budget (text, an answer without a list, one whose other parts alone
//! are over) is the caller's to cut.

use serde_json::{Map, Value};

use crate::table::{Pagination, ToolOutput};

/// The default budget: 32,000 bytes of text, about 8,000 tokens. A byte is at most a
/// character, so it is also the most characters a client must keep
/// (`_meta["anthropic/maxResultSizeChars"]`).
pub const DEFAULT_RESULT_BUDGET: usize = 32_000;

/// How deep under the root the list to shorten is looked for (`data.issues.nodes` is 3).
const LIST_DEPTH: usize = 3;

/// Room kept for the notice; a notice is one sentence and the next call's arguments.
const NOTICE_ROOM: usize = 600;

/// How many lists of one answer may be shortened (each is named in the notice).
const MAX_LISTS: usize = 4;

/// The answer of a call of `tool` with `arguments`, fitted to `budget` bytes: `output` itself
/// when it fits, or when no shorter list makes it fit (the caller then cuts its text).
///
/// ```
/// use charter_runtime::ToolOutput;
/// use charter_runtime::budget::fit;
/// use charter_runtime::table::Pagination;
/// use serde_json::json;
///
/// let items: Vec<_> = (0..100).map(|i| json!({"id": format!("cus_{i}"), "note": "x".repeat(50)})).collect();
/// let page = json!({"data": items, "has_more": true});
/// let cursor = Pagination::Cursor { next: "data.-1.id", param: "starting_after" };
/// let fitted = fit("stripe_customers_list", Some(&cursor), &json!({"limit": 100}), ToolOutput::json(page), 2_000);
/// assert!(fitted.text.len() <= 2_000);
/// let kept = fitted.structured.as_ref().unwrap()["data"].as_array().unwrap().len();
/// let last = format!("cus_{}", kept - 1);
/// assert!(fitted.text.contains(&format!(r#"{{"limit":100,"starting_after":"{last}"}}"#)));
/// ```
pub fn fit(
    tool: &str,
    pagination: Option<&Pagination>,
    arguments: &Value,
    output: ToolOutput,
    budget: usize,
) -> ToolOutput {
    match plan(tool, pagination, arguments, &output, budget) {
        Some((value, notice)) => ToolOutput {
            text: format!("{value}\n\n{notice}"),
            structured: Some(value),
        },
        None => output,
    }
}

/// One list shortened: where, how many items it keeps, how many it had.
struct Shortened {
    path: Vec<String>,
    kept: usize,
    all: usize,
}

/// The answer with its lists shortened to fit, and the notice; `None` when the answer fits, is
/// not JSON, has no list, or is over without its lists. The largest list is shortened first
/// (the page's items), then, while the answer is still over, the next largest (a customer's
/// `subscriptions.data` beside its `sources.data`), at most [`MAX_LISTS`] of them.
fn plan(
    tool: &str,
    pagination: Option<&Pagination>,
    arguments: &Value,
    output: &ToolOutput,
    budget: usize,
) -> Option<(Value, String)> {
    let total = output.text.len();
    if total <= budget {
        return None;
    }
    let original = output.structured.as_ref()?;
    let mut limit = budget.checked_sub(NOTICE_ROOM)?;
    // A notice longer than its room (long arguments to repeat) takes the room from the lists.
    for _ in 0..3 {
        let (value, cuts) = shorten(original.clone(), limit)?;
        let first = &cuts[0];
        let next = match list_ref(&value, &first.path) {
            Some(list) => continuation(pagination, arguments, list, &first.path, first.kept),
            None => Next::Narrow,
        };
        let notice = notice(tool, &cuts, total, budget, next);
        let text = json_len(&value) + 2 + notice.len();
        if text <= budget {
            return Some((value, notice));
        }
        // The room the notice leaves; less than before, as the notice's own numbers may grow.
        limit = budget
            .checked_sub(2 + notice.len())?
            .min(limit.checked_sub(1)?);
    }
    None
}

/// `value` with its largest lists shortened until it is at most `limit` bytes.
fn shorten(mut value: Value, limit: usize) -> Option<(Value, Vec<Shortened>)> {
    let mut len = json_len(&value);
    let mut cuts: Vec<Shortened> = Vec::new();
    while len > limit {
        let (_, path) = largest_list(&value, &mut Vec::new(), 0)?;
        let known = cuts.iter().position(|c| c.path == path);
        if known.is_none() && cuts.len() == MAX_LISTS {
            return None;
        }
        let list = list_at(&mut value, &path)?;
        let all = list.len();
        let (mut kept, mut dropped) = (all, 0);
        while kept > 0 && dropped < len - limit {
            kept -= 1;
            dropped += json_len(&list[kept]) + 1;
        }
        list.truncate(kept);
        match known {
            Some(i) => cuts[i].kept = kept,
            None => cuts.push(Shortened { path, kept, all }),
        }
        len = json_len(&value);
    }
    (!cuts.is_empty()).then_some((value, cuts))
}

/// The longest list at most [`LIST_DEPTH`] object members down (the root first when it is
/// one): its serialised length and where it is.
fn largest_list(value: &Value, at: &mut Vec<String>, depth: usize) -> Option<(usize, Vec<String>)> {
    match value {
        Value::Array(items) if !items.is_empty() => Some((json_len(value), at.clone())),
        Value::Object(map) if depth < LIST_DEPTH => {
            let mut best: Option<(usize, Vec<String>)> = None;
            for (key, member) in map {
                at.push(key.clone());
                if let Some(found) = largest_list(member, at, depth + 1)
                    && best.as_ref().is_none_or(|b| found.0 > b.0)
                {
                    best = Some(found);
                }
                at.pop();
            }
            best
        }
        _ => None,
    }
}

fn list_ref<'v>(value: &'v Value, path: &[String]) -> Option<&'v Vec<Value>> {
    let mut current = value;
    for key in path {
        current = current.as_object()?.get(key)?;
    }
    current.as_array()
}

fn list_at<'v>(value: &'v mut Value, path: &[String]) -> Option<&'v mut Vec<Value>> {
    let mut current = value;
    for key in path {
        current = current.as_object_mut()?.get_mut(key)?;
    }
    current.as_array_mut()
}

fn json_len(value: &Value) -> usize {
    serde_json::to_vec(value).map_or(0, |v| v.len())
}

/// How a tool's answer over the budget tells the model to get the rest, by its pagination:
/// `cursor` (the next call's arguments, the cursor read from the last item kept), `offset` (the
/// next call's offset), `first-page` (a first page resumes with pages the size kept; later
/// ones say which argument asks for smaller pages) or `narrow` (a cursor the API mints per
/// page, a `Link` header, no pagination: the notice asks for a narrower call).
///
/// ```
/// use charter_runtime::budget::resumes;
/// use charter_runtime::table::Pagination;
///
/// let stripe = Pagination::Cursor { next: "data.-1.id", param: "starting_after" };
/// assert_eq!(resumes(Some(&stripe)), "cursor");
/// assert_eq!(resumes(None), "narrow");
/// ```
pub fn resumes(pagination: Option<&Pagination>) -> &'static str {
    match pagination {
        Some(Pagination::Cursor { next, .. })
            if charter_terms::http::path_segments(next).contains(&"-1") =>
        {
            "cursor"
        }
        Some(Pagination::Offset { .. }) => "offset",
        Some(Pagination::Page {
            size_param: Some(_),
            ..
        }) => "first-page",
        _ => "narrow",
    }
}

/// How the model gets the items left out.
enum Next {
    /// The arguments of the call that answers them.
    Call(Map<String, Value>),
    /// The argument that asks for smaller pages, and a size that fits.
    Smaller(&'static str, usize),
    /// Nothing the pack declares resumes inside a page.
    Narrow,
}

fn continuation(
    pagination: Option<&Pagination>,
    arguments: &Value,
    list: &[Value],
    path: &[String],
    kept: usize,
) -> Next {
    let mut call = arguments.as_object().cloned().unwrap_or_default();
    match pagination {
        // A cursor read from the last item (`data.-1.id`) of this list: the last item kept.
        Some(Pagination::Cursor { next, param }) => {
            let segments = charter_terms::http::path_segments(next);
            let Some(minus) = segments.iter().position(|s| *s == "-1") else {
                return Next::Narrow;
            };
            if segments[..minus] != *path || kept == 0 {
                return Next::Narrow;
            }
            let mut cursor = &list[kept - 1];
            for key in &segments[minus + 1..] {
                cursor = &cursor[*key];
            }
            match cursor {
                Value::String(_) | Value::Number(_) => {
                    call.insert((*param).to_owned(), cursor.clone());
                    Next::Call(call)
                }
                _ => Next::Narrow,
            }
        }
        Some(Pagination::Offset { param, .. }) => {
            let offset = call.get(*param).and_then(Value::as_u64).unwrap_or(0);
            call.insert((*param).to_owned(), Value::from(offset + kept as u64));
            Next::Call(call)
        }
        // A page number resumes exactly only on the first page, with pages the size kept.
        Some(Pagination::Page {
            param,
            size_param: Some(size),
        }) if kept > 0 => {
            let page = call.get(*param).and_then(Value::as_u64).unwrap_or(1);
            if page == 1 {
                call.insert((*param).to_owned(), Value::from(2));
                call.insert((*size).to_owned(), Value::from(kept as u64));
                Next::Call(call)
            } else {
                Next::Smaller(size, kept)
            }
        }
        _ => Next::Narrow,
    }
}

fn notice(tool: &str, cuts: &[Shortened], total: usize, budget: usize, next: Next) -> String {
    let name = |path: &[String]| match path.len() {
        0 => "the answer's list".to_owned(),
        _ => format!("`{}`", path.join(".")),
    };
    let mut head = format!(
        "[fitted: the answer is {total} bytes, over the result budget of {budget}; {} shows \
         its first {} of {} items",
        name(&cuts[0].path),
        cuts[0].kept,
        cuts[0].all
    );
    for c in &cuts[1..] {
        head.push_str(&format!(
            ", {} its first {} of {}",
            name(&c.path),
            c.kept,
            c.all
        ));
    }
    head.push('.');
    match next {
        Next::Call(call) => format!(
            "{head} The rest: call `{tool}` with {}]",
            Value::Object(call)
        ),
        Next::Smaller(size, n) => format!(
            "{head} Ask for pages of at most {n} items (`{size}`) and walk from the start to see \
             the rest]"
        ),
        Next::Narrow => format!(
            "{head} Narrow the call to see the rest: a smaller page size (a limit argument), \
             filters, or fewer fields]"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn page(n: usize) -> Value {
        json!({
            "data": (0..n).map(|i| json!({"id": format!("id_{i}"), "body": "x".repeat(80)})).collect::<Vec<_>>(),
            "has_more": true,
            "meta": {"tiny": [1, 2]},
        })
    }

    #[test]
    fn an_answer_that_fits_is_left_alone() {
        let out = ToolOutput::json(page(3));
        let text = out.text.clone();
        assert_eq!(
            fit("t", None, &json!({}), out, DEFAULT_RESULT_BUDGET).text,
            text
        );
    }

    #[test]
    fn a_cursor_from_the_last_item_resumes_after_the_last_item_kept() {
        let cursor = Pagination::Cursor {
            next: "data.-1.id",
            param: "starting_after",
        };
        let at_3000 = |args: &Value| {
            let out = fit(
                "t_list",
                Some(&cursor),
                args,
                ToolOutput::json(page(100)),
                3_000,
            );
            assert!(out.text.len() <= 3_000, "{}", out.text.len());
            out
        };
        let out = at_3000(&json!({"limit": 100, "customer": "cus_1"}));
        let value = out.structured.unwrap();
        let kept = value["data"].as_array().unwrap().len();
        assert!(kept > 5 && kept < 100, "{kept}");
        // The rest of the answer is whole, and the text is that JSON, then the notice.
        assert_eq!(value["has_more"], true);
        assert_eq!(value["meta"], json!({"tiny": [1, 2]}));
        let (json_text, notice) = out.text.split_once("\n\n").unwrap();
        assert_eq!(serde_json::from_str::<Value>(json_text).unwrap(), value);
        assert!(
            notice.contains(&format!("`data` shows its first {kept} of 100 items")),
            "{notice}"
        );
        let last = format!("id_{}", kept - 1);
        assert!(
            notice.contains(&format!(
                r#"call `t_list` with {{"limit":100,"customer":"cus_1","starting_after":"{last}"}}"#
            )),
            "{notice}"
        );
        // Arguments longer than the notice's room (the notice repeats them) take it from the list.
        let out = at_3000(&json!({"limit": 100, "query": "q".repeat(900)}));
        assert!(out.text.contains("starting_after"), "{}", out.text);
    }

    #[test]
    fn offsets_and_first_pages_resume_later_pages_say_how_to_ask_for_less() {
        let offset = Pagination::Offset {
            param: "offset",
            size_param: Some("limit"),
        };
        let list = Value::Array(page(50)["data"].as_array().unwrap().clone());
        let out = fit(
            "t",
            Some(&offset),
            &json!({"offset": 40}),
            ToolOutput::json(list.clone()),
            2_000,
        );
        let kept = out.structured.as_ref().unwrap().as_array().unwrap().len();
        assert!(out.text.contains("the answer's list shows"), "{}", out.text);
        assert!(
            out.text.contains(&format!(r#"{{"offset":{}}}"#, 40 + kept)),
            "{}",
            out.text
        );

        let pages = Pagination::Page {
            param: "page",
            size_param: Some("per_page"),
        };
        let first = fit(
            "t",
            Some(&pages),
            &json!({}),
            ToolOutput::json(list.clone()),
            2_000,
        );
        assert!(
            first
                .text
                .contains(&format!(r#"{{"page":2,"per_page":{kept}}}"#))
        );
        let third = fit(
            "t",
            Some(&pages),
            &json!({"page": 3}),
            ToolOutput::json(list),
            2_000,
        );
        assert!(
            third
                .text
                .contains(&format!("pages of at most {kept} items (`per_page`)"))
        );
    }

    #[test]
    fn a_cursor_elsewhere_or_no_pagination_says_narrow_the_call() {
        let relay = Pagination::Cursor {
            next: "data.issues.pageInfo.endCursor",
            param: "after",
        };
        let answer = json!({"data": {"issues": {"nodes": page(60)["data"], "pageInfo": {"endCursor": "c"}}}});
        let out = fit(
            "t",
            Some(&relay),
            &json!({}),
            ToolOutput::json(answer),
            2_500,
        );
        assert!(
            out.text.contains("`data.issues.nodes` shows"),
            "{}",
            out.text
        );
        assert!(out.text.contains("Narrow the call"), "{}", out.text);
        assert!(out.text.len() <= 2_500);
    }

    #[test]
    fn several_lists_are_shortened_largest_first_and_each_is_named() {
        let item = |i: usize| json!({"id": format!("sub_{i}"), "note": "x".repeat(60)});
        let customer = json!({
            "id": "cus_1",
            "subscriptions": {"data": (0..30).map(item).collect::<Vec<_>>()},
            "sources": {"data": (0..20).map(item).collect::<Vec<_>>()},
        });
        let out = fit(
            "t_customers_get",
            None,
            &json!({"customer": "cus_1"}),
            ToolOutput::json(customer),
            1_500,
        );
        assert!(out.text.len() <= 1_500, "{}", out.text.len());
        let value = out.structured.as_ref().unwrap();
        let subs = value["subscriptions"]["data"].as_array().unwrap().len();
        let sources = value["sources"]["data"].as_array().unwrap().len();
        assert!(subs < 30 && sources < 20, "{subs} {sources}");
        assert!(
            out.text.contains(&format!("`subscriptions.data` shows its first {subs} of 30 items, `sources.data` its first {sources} of 20.")),
            "{}",
            out.text
        );
        assert!(out.text.contains("Narrow the call"), "{}", out.text);
    }

    #[test]
    fn what_no_shorter_list_fits_is_left_to_the_cut() {
        // Text, an object without a list, and an answer whose other parts alone are over.
        let heavy = json!({"body": "x".repeat(5_000), "items": [1, 2, 3]});
        for out in [
            ToolOutput::text("x".repeat(5_000)),
            ToolOutput::json(json!({"body": "x".repeat(5_000)})),
            ToolOutput::json(heavy),
        ] {
            let (text, structured) = (out.text.clone(), out.structured.clone());
            let same = fit("t", None, &json!({}), out, 1_000);
            assert_eq!((same.text, same.structured), (text, structured));
        }
    }
}
