//! Realistic API answers for the task stubs: GitHub's from the examples of its own OpenAPI
//! document (`openapi/github.json.gz`, `components.examples`), with the fields a task varies set
//! per item; the other providers', whose vendored documents carry no examples, written after the
//! example objects of their API references, with the fields those objects carry.

use std::sync::OnceLock;

use serde_json::{Value, json};

/// GitHub's `components.examples`, read once.
fn github_examples() -> &'static Value {
    static EXAMPLES: OnceLock<Value> = OnceLock::new();
    EXAMPLES.get_or_init(|| {
        let text = charter_testkit::openapi::read("github.json");
        let mut document: Value = serde_json::from_str(&text).unwrap();
        document["components"]["examples"].take()
    })
}

/// One GitHub example's value (the first item of a list example).
fn example(name: &str) -> Value {
    let value = &github_examples()[name]["value"];
    assert!(!value.is_null(), "no GitHub example `{name}`");
    match value {
        Value::Array(items) => items[0].clone(),
        other => other.clone(),
    }
}

/// A GitHub user object (the example's, under another login).
fn github_user(login: &str, id: u64) -> Value {
    let mut user = example("pull-request-simple-items")["user"].clone();
    user["login"] = json!(login);
    user["id"] = json!(id);
    user["avatar_url"] = json!(format!("https://avatars.githubusercontent.com/u/{id}?v=4"));
    user["html_url"] = json!(format!("https://github.com/{login}"));
    user["url"] = json!(format!("https://api.github.com/users/{login}"));
    user
}

/// A pull request as `GET /repos/{owner}/{repo}/pulls` lists it.
pub fn github_pr(number: u64, title: &str, author: &str, reviewers: &[&str]) -> Value {
    let mut pr = example("pull-request-simple-items");
    let url = format!("https://api.github.com/repos/octo-org/hello-world/pulls/{number}");
    pr["number"] = json!(number);
    pr["id"] = json!(1_000_000 + number);
    pr["title"] = json!(title);
    pr["url"] = json!(url);
    pr["html_url"] = json!(format!(
        "https://github.com/octo-org/hello-world/pull/{number}"
    ));
    pr["user"] = github_user(author, 500 + number);
    pr["requested_reviewers"] = json!(
        reviewers
            .iter()
            .enumerate()
            .map(|(k, login)| github_user(login, 900 + k as u64))
            .collect::<Vec<_>>()
    );
    pr["requested_teams"] = json!([]);
    pr["created_at"] = json!(format!("2026-03-{:02}T09:14:00Z", 1 + number % 9));
    pr["updated_at"] = json!(format!("2026-03-{:02}T16:40:00Z", 2 + number % 9));
    pr["head"]["ref"] = json!(format!("feature-{number}"));
    pr
}

/// A submitted review, as `GET .../pulls/{n}/reviews` lists it.
pub fn github_review(id: u64, pr: u64, login: &str, state: &str) -> Value {
    let mut review = example("pull-request-review-items");
    review["id"] = json!(id);
    review["user"] = github_user(login, 700 + id % 100);
    review["state"] = json!(state);
    review["body"] = json!(if state == "APPROVED" {
        "Looks good to me."
    } else {
        "A few comments inline."
    });
    review["html_url"] = json!(format!(
        "https://github.com/octo-org/hello-world/pull/{pr}#pullrequestreview-{id}"
    ));
    review["pull_request_url"] = json!(format!(
        "https://api.github.com/repos/octo-org/hello-world/pulls/{pr}"
    ));
    review
}

/// A workflow run, as `GET .../actions/runs` lists it.
pub fn github_run(id: u64, name: &str, conclusion: &str, created_at: &str) -> Value {
    let runs = &github_examples()["workflow-run-paginated"]["value"]["workflow_runs"];
    let mut run = runs[0].clone();
    run["id"] = json!(id);
    run["name"] = json!(name);
    run["display_title"] = json!(format!("{name} on main"));
    run["run_number"] = json!(id % 1000);
    run["head_branch"] = json!("main");
    run["status"] = json!("completed");
    run["conclusion"] = json!(conclusion);
    run["created_at"] = json!(created_at);
    run["updated_at"] = json!(created_at);
    run["html_url"] = json!(format!(
        "https://github.com/octo-org/hello-world/actions/runs/{id}"
    ));
    run
}

/// A page of workflow runs.
pub fn github_runs(runs: Vec<Value>) -> Value {
    json!({"total_count": runs.len(), "workflow_runs": runs})
}

/// A job of a run with its steps; `failed` names the step that failed, if any.
pub fn github_job(id: u64, run_id: u64, name: &str, failed: Option<&str>) -> Value {
    let mut job = example("job-paginated");
    if job.get("jobs").is_some() {
        job = job["jobs"][0].clone();
    }
    job["id"] = json!(id);
    job["run_id"] = json!(run_id);
    job["name"] = json!(name);
    job["status"] = json!("completed");
    job["conclusion"] = json!(if failed.is_some() {
        "failure"
    } else {
        "success"
    });
    let steps = [
        "Set up job",
        "Check out code",
        "Build",
        "Test",
        "Complete job",
    ];
    job["steps"] = json!(
        steps
            .iter()
            .enumerate()
            .map(|(k, step)| {
                let conclusion = match failed {
                    Some(f) if f == *step => "failure",
                    Some(_) if k > steps.iter().position(|s| Some(*s) == failed).unwrap_or(9) => {
                        "skipped"
                    }
                    _ => "success",
                };
                json!({"name": step, "status": "completed", "conclusion": conclusion,
                       "number": k + 1, "started_at": "2026-03-10T08:01:00Z",
                       "completed_at": "2026-03-10T08:03:00Z"})
            })
            .collect::<Vec<_>>()
    );
    job["html_url"] = json!(format!(
        "https://github.com/octo-org/hello-world/actions/runs/{run_id}/job/{id}"
    ));
    job
}

/// A page of jobs.
pub fn github_jobs(jobs: Vec<Value>) -> Value {
    json!({"total_count": jobs.len(), "jobs": jobs})
}

/// An issue, as `GET .../issues` lists it.
pub fn github_issue(number: u64, title: &str, assignee: Option<&str>, created_at: &str) -> Value {
    let mut issue = example("issue-items");
    issue["number"] = json!(number);
    issue["id"] = json!(2_000_000 + number);
    issue["title"] = json!(title);
    issue["html_url"] = json!(format!(
        "https://github.com/octo-org/hello-world/issues/{number}"
    ));
    issue["url"] = json!(format!(
        "https://api.github.com/repos/octo-org/hello-world/issues/{number}"
    ));
    issue["labels"] = json!([{"id": 208045946, "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=",
        "url": "https://api.github.com/repos/octo-org/hello-world/labels/bug", "name": "bug",
        "description": "Something isn't working", "color": "f29513", "default": true}]);
    match assignee {
        Some(login) => {
            issue["assignee"] = github_user(login, 800 + number);
            issue["assignees"] = json!([github_user(login, 800 + number)]);
        }
        None => {
            issue["assignee"] = Value::Null;
            issue["assignees"] = json!([]);
        }
    }
    if let Value::Object(map) = &mut issue {
        map.remove("pull_request");
    }
    issue["created_at"] = json!(created_at);
    issue["comments"] = json!(number % 4);
    issue
}

/// A comment on an issue.
pub fn github_comment(id: u64, issue: u64, login: &str, body: &str, created_at: &str) -> Value {
    let mut comment = example("issue-comment-items");
    comment["id"] = json!(id);
    comment["user"] = github_user(login, 600 + id % 100);
    comment["body"] = json!(body);
    comment["created_at"] = json!(created_at);
    comment["updated_at"] = json!(created_at);
    comment["html_url"] = json!(format!(
        "https://github.com/octo-org/hello-world/issues/{issue}#issuecomment-{id}"
    ));
    comment
}

/// The latest release, with its notes.
pub fn github_release() -> Value {
    let mut release = example("release");
    release["tag_name"] = json!("v2.4.0");
    release["name"] = json!("v2.4.0");
    release["body"] = json!(
        "## What's changed\n* Faster cold starts by caching the schema index (#1402)\n\
         * Retry idempotent requests once on a dropped connection (#1398)\n\
         * Fix: pagination cursor lost after a 429 (#1391)\n\n\
         **Full Changelog**: https://github.com/octo-org/hello-world/compare/v2.3.1...v2.4.0"
    );
    release["html_url"] = json!("https://github.com/octo-org/hello-world/releases/tag/v2.4.0");
    release["published_at"] = json!("2026-03-11T15:02:11Z");
    release
}

/// A repository, as `GET /repos/{owner}/{repo}` answers.
pub fn github_repo() -> Value {
    let mut repo = github_examples()["full-repository"]["value"].clone();
    if repo.is_null() {
        repo = example("repository");
    }
    repo["name"] = json!("hello-world");
    repo["full_name"] = json!("octo-org/hello-world");
    repo["stargazers_count"] = json!(1287);
    repo["open_issues_count"] = json!(42);
    repo
}

// --------------------------------------------------------------------------------------------
// Stripe: objects as its API reference shows them.

/// A Stripe list envelope.
pub fn stripe_list(url: &str, data: Vec<Value>, has_more: bool) -> Value {
    json!({"object": "list", "data": data, "has_more": has_more, "url": url})
}

/// An invoice (`object: invoice`).
pub fn stripe_invoice(id: &str, customer: &str, email: &str, due: i64, paid: i64) -> Value {
    json!({
        "id": id, "object": "invoice", "account_country": "US", "account_name": "Acme Corp",
        "account_tax_ids": null, "amount_due": due, "amount_overpaid": 0, "amount_paid": paid,
        "amount_remaining": due - paid, "amount_shipping": 0, "application": null,
        "attempt_count": 1, "attempted": true, "auto_advance": true,
        "automatic_tax": {"disabled_reason": null, "enabled": false, "liability": null, "provider": null, "status": null},
        "automatically_finalizes_at": null, "billing_reason": "subscription_cycle",
        "collection_method": "send_invoice", "created": 1772524800, "currency": "usd",
        "custom_fields": null, "customer": customer, "customer_address": null,
        "customer_email": email, "customer_name": null, "customer_phone": null,
        "customer_shipping": null, "customer_tax_exempt": "none", "customer_tax_ids": [],
        "default_payment_method": null, "default_source": null, "default_tax_rates": [],
        "description": null, "discounts": [], "due_date": 1775116800, "effective_at": 1772524800,
        "ending_balance": 0, "footer": null, "from_invoice": null,
        "hosted_invoice_url": format!("https://invoice.stripe.com/i/acct_1M2JTkLkdIwHu7ix/test_{id}"),
        "invoice_pdf": format!("https://pay.stripe.com/invoice/acct_1M2JTkLkdIwHu7ix/test_{id}/pdf"),
        "issuer": {"type": "self"}, "last_finalization_error": null, "latest_revision": null,
        "lines": {"object": "list", "data": [{
            "id": format!("il_{id}"), "object": "line_item", "amount": due, "currency": "usd",
            "description": "1 × Team plan (at $49.00 / month)", "discountable": true,
            "discounts": [], "livemode": false, "metadata": {},
            "period": {"end": 1775116800, "start": 1772524800},
            "pricing": {"price_details": {"price": "price_1NaRq2LkdIwHu7ix", "product": "prod_OHGmnbH4kk0TwG"},
                        "type": "price_details", "unit_amount_decimal": "4900"},
            "quantity": due / 4900, "taxes": []}],
            "has_more": false, "total_count": 1, "url": format!("/v1/invoices/{id}/lines")},
        "livemode": false, "metadata": {}, "next_payment_attempt": null,
        "number": format!("ACME-{}", &id[id.len() - 4..]), "on_behalf_of": null, "parent": null,
        "payment_settings": {"default_mandate": null, "payment_method_options": null, "payment_method_types": null},
        "period_end": 1772524800, "period_start": 1769846400, "post_payment_credit_notes_amount": 0,
        "pre_payment_credit_notes_amount": 0, "receipt_number": null, "rendering": null,
        "shipping_cost": null, "shipping_details": null, "starting_balance": 0,
        "statement_descriptor": null, "status": "open",
        "status_transitions": {"finalized_at": 1772524800, "marked_uncollectible_at": null, "paid_at": null, "voided_at": null},
        "subtotal": due, "subtotal_excluding_tax": due, "test_clock": null, "total": due,
        "total_discount_amounts": [], "total_excluding_tax": due, "total_taxes": [],
        "webhooks_delivered_at": 1772524800
    })
}

/// A customer (`object: customer`).
pub fn stripe_customer(id: &str, name: &str, email: &str) -> Value {
    json!({
        "id": id, "object": "customer",
        "address": {"city": "San Francisco", "country": "US", "line1": "510 Townsend St", "line2": null, "postal_code": "94103", "state": "CA"},
        "balance": 0, "created": 1680893993, "currency": "usd", "default_source": null,
        "delinquent": false, "description": null, "discount": null, "email": email,
        "invoice_prefix": "0759376C",
        "invoice_settings": {"custom_fields": null, "default_payment_method": null, "footer": null, "rendering_options": null},
        "livemode": false, "metadata": {}, "name": name, "next_invoice_sequence": 1,
        "phone": null, "preferred_locales": [], "shipping": null, "tax_exempt": "none",
        "test_clock": null
    })
}

/// A charge (`object: charge`); `failure` is the failure message of a failed one.
pub fn stripe_charge(id: &str, amount: i64, customer: &str, failure: Option<&str>) -> Value {
    let status = if failure.is_some() {
        "failed"
    } else {
        "succeeded"
    };
    json!({
        "id": id, "object": "charge", "amount": amount, "amount_captured": if failure.is_some() { 0 } else { amount },
        "amount_refunded": 0, "application": null, "application_fee": null,
        "application_fee_amount": null, "balance_transaction": if failure.is_some() { Value::Null } else { json!(format!("txn_{id}")) },
        "billing_details": {"address": {"city": null, "country": null, "line1": null, "line2": null, "postal_code": null, "state": null}, "email": null, "name": null, "phone": null},
        "calculated_statement_descriptor": "ACME CORP", "captured": failure.is_none(),
        "created": 1772870400, "currency": "usd", "customer": customer,
        "description": "Subscription update", "disputed": false,
        "failure_balance_transaction": null,
        "failure_code": if failure.is_some() { json!("card_declined") } else { Value::Null },
        "failure_message": failure, "fraud_details": {}, "livemode": false, "metadata": {},
        "on_behalf_of": null,
        "outcome": {"network_status": if failure.is_some() { "declined_by_network" } else { "approved_by_network" },
                    "reason": if failure.is_some() { json!("generic_decline") } else { Value::Null },
                    "risk_level": "normal", "risk_score": 32, "seller_message": if failure.is_some() { "The bank did not return any further details with this decline." } else { "Payment complete." },
                    "type": if failure.is_some() { "issuer_declined" } else { "authorized" }},
        "paid": failure.is_none(), "payment_intent": format!("pi_{}", &id[3..]),
        "payment_method": "pm_1MqLiJLkdIwHu7ixUEgbFdYF",
        "payment_method_details": {"card": {"brand": "visa", "checks": {"address_line1_check": null, "address_postal_code_check": null, "cvc_check": "pass"},
            "country": "US", "exp_month": 3, "exp_year": 2027, "fingerprint": "mToisGZ01V71BCos", "funding": "credit",
            "installments": null, "last4": "4242", "mandate": null, "network": "visa", "three_d_secure": null, "wallet": null}, "type": "card"},
        "receipt_email": null, "receipt_number": null,
        "receipt_url": format!("https://pay.stripe.com/receipts/payment/{id}"),
        "refunded": false, "review": null, "shipping": null, "source_transfer": null,
        "statement_descriptor": null, "statement_descriptor_suffix": null, "status": status,
        "transfer_data": null, "transfer_group": null
    })
}

// --------------------------------------------------------------------------------------------
// Google.

/// A Calendar event resource.
pub fn gcal_event(id: &str, summary: &str, start: &str, end: &str, attendees: &[&str]) -> Value {
    json!({
        "kind": "calendar#event", "etag": format!("\"3420{}\"", id.len()), "id": id,
        "status": "confirmed",
        "htmlLink": format!("https://www.google.com/calendar/event?eid={id}"),
        "created": "2026-02-20T10:00:00.000Z", "updated": "2026-03-02T08:30:00.000Z",
        "summary": summary, "description": format!("Agenda: {summary}."),
        "location": "Room 4B / Google Meet",
        "creator": {"email": "ada@example.com", "self": true},
        "organizer": {"email": "ada@example.com", "self": true},
        "start": {"dateTime": start, "timeZone": "Europe/London"},
        "end": {"dateTime": end, "timeZone": "Europe/London"},
        "iCalUID": format!("{id}@google.com"), "sequence": 0,
        "attendees": attendees.iter().map(|email| json!({"email": email, "responseStatus": "accepted"})).collect::<Vec<_>>(),
        "hangoutLink": "https://meet.google.com/abc-defg-hij",
        "conferenceData": {"entryPoints": [{"entryPointType": "video", "uri": "https://meet.google.com/abc-defg-hij", "label": "meet.google.com/abc-defg-hij"}],
            "conferenceSolution": {"key": {"type": "hangoutsMeet"}, "name": "Google Meet", "iconUri": "https://fonts.gstatic.com/s/i/productlogos/meet_2020q4/v6/web-512dp/logo_meet_2020q4_color_2x_web_512dp.png"},
            "conferenceId": "abc-defg-hij"},
        "reminders": {"useDefault": true}, "eventType": "default"
    })
}

/// A page of Calendar events.
pub fn gcal_events(items: Vec<Value>) -> Value {
    json!({
        "kind": "calendar#events", "etag": "\"p33k9rvfs4tqq40g\"", "summary": "ada@example.com",
        "description": "", "updated": "2026-03-09T07:12:44.172Z", "timeZone": "Europe/London",
        "accessRole": "owner", "defaultReminders": [{"method": "popup", "minutes": 10}],
        "nextSyncToken": "CPDAlvWDx4QDEPDAlvWDx4QDGAUggICAgICAgIAB", "items": items
    })
}

/// Gmail's answer to `messages.list`.
pub fn gmail_list(ids: &[&str]) -> Value {
    json!({
        "messages": ids.iter().map(|id| json!({"id": id, "threadId": id})).collect::<Vec<_>>(),
        "resultSizeEstimate": ids.len()
    })
}

/// A message in `format=metadata` with its headers.
pub fn gmail_message(id: &str, from: &str, subject: &str, date: &str) -> Value {
    json!({
        "id": id, "threadId": id, "labelIds": ["UNREAD", "IMPORTANT", "CATEGORY_PERSONAL", "INBOX"],
        "snippet": format!("{subject} — hi Ada, following up on our conversation from last week about the"),
        "sizeEstimate": 12_871, "historyId": "4412093", "internalDate": "1773043200000",
        "payload": {"partId": "", "mimeType": "multipart/alternative", "filename": "",
            "headers": [
                {"name": "Delivered-To", "value": "ada@example.com"},
                {"name": "Received", "value": "by 2002:a05:7300:d60a:b0:12e:4c7e:19b with SMTP id v10csp1187521dyb; Mon, 9 Mar 2026 08:12:44 -0700 (PDT)"},
                {"name": "Date", "value": date},
                {"name": "From", "value": from},
                {"name": "To", "value": "Ada Lovelace <ada@example.com>"},
                {"name": "Subject", "value": subject},
                {"name": "Message-ID", "value": format!("<{id}@mail.example.com>")},
                {"name": "MIME-Version", "value": "1.0"},
                {"name": "Content-Type", "value": "multipart/alternative; boundary=\"000000000000b1c2d3e4f5\""}
            ]}
    })
}

/// A Drive file (the fields `files.list` returns with `fields=*`).
pub fn drive_file(id: &str, name: &str, modified: &str) -> Value {
    json!({
        "kind": "drive#file", "id": id, "name": name,
        "mimeType": "application/vnd.google-apps.spreadsheet", "starred": false,
        "trashed": false, "explicitlyTrashed": false, "parents": ["0AEa4mW_i7XbVUk9PVA"],
        "spaces": ["drive"], "version": "84", "webViewLink": format!("https://docs.google.com/spreadsheets/d/{id}/edit?usp=drivesdk"),
        "iconLink": "https://drive-thirdparty.googleusercontent.com/16/type/application/vnd.google-apps.spreadsheet",
        "hasThumbnail": true, "thumbnailLink": format!("https://lh3.googleusercontent.com/drive-storage/{id}=s220"),
        "thumbnailVersion": "3", "viewedByMe": true, "viewedByMeTime": modified,
        "createdTime": "2025-11-03T09:12:00.000Z", "modifiedTime": modified, "modifiedByMeTime": modified,
        "modifiedByMe": true,
        "owners": [{"kind": "drive#user", "displayName": "Ada Lovelace", "photoLink": "https://lh3.googleusercontent.com/a/default-user=s64", "me": true, "permissionId": "07160392417416466542", "emailAddress": "ada@example.com"}],
        "lastModifyingUser": {"kind": "drive#user", "displayName": "Ada Lovelace", "me": true, "permissionId": "07160392417416466542", "emailAddress": "ada@example.com"},
        "shared": true, "ownedByMe": true,
        "capabilities": {"canAddChildren": false, "canComment": true, "canCopy": true, "canDelete": true, "canDownload": true, "canEdit": true, "canListChildren": false, "canModifyContent": true, "canRename": true, "canShare": true, "canTrash": true},
        "viewersCanCopyContent": true, "copyRequiresWriterPermission": false,
        "writersCanShare": true, "permissionIds": ["07160392417416466542", "anyoneWithLink"],
        "quotaBytesUsed": "1024", "isAppAuthorized": false, "linkShareMetadata": {"securityUpdateEligible": false, "securityUpdateEnabled": true}
    })
}

/// A spreadsheet's structure, without grid data; `sheets` as (title, rows, columns).
pub fn spreadsheet(id: &str, title: &str, sheets: &[(&str, u32, u32)]) -> Value {
    json!({
        "spreadsheetId": id,
        "properties": {"title": title, "locale": "en_GB", "autoRecalc": "ON_CHANGE", "timeZone": "Europe/London",
            "defaultFormat": {"backgroundColor": {"red": 1, "green": 1, "blue": 1}, "padding": {"top": 2, "right": 3, "bottom": 2, "left": 3},
                "verticalAlignment": "BOTTOM", "wrapStrategy": "OVERFLOW_CELL",
                "textFormat": {"foregroundColor": {}, "fontFamily": "arial,sans,sans-serif", "fontSize": 10, "bold": false, "italic": false, "strikethrough": false, "underline": false}},
            "spreadsheetTheme": {"primaryFontFamily": "Arial", "themeColors": [{"colorType": "TEXT", "color": {"rgbColor": {}}}, {"colorType": "BACKGROUND", "color": {"rgbColor": {"red": 1, "green": 1, "blue": 1}}}]}},
        "sheets": sheets.iter().enumerate().map(|(k, (name, rows, cols))| json!({
            "properties": {"sheetId": 1000 * k, "title": name, "index": k, "sheetType": "GRID",
                "gridProperties": {"rowCount": rows, "columnCount": cols, "frozenRowCount": 1}}
        })).collect::<Vec<_>>(),
        "spreadsheetUrl": format!("https://docs.google.com/spreadsheets/d/{id}/edit")
    })
}

// --------------------------------------------------------------------------------------------
// Slack, Linear, Notion.

/// A channel as `conversations.list` lists it.
pub fn slack_channel(id: &str, name: &str, purpose: &str, members: u32) -> Value {
    json!({
        "id": id, "name": name, "is_channel": true, "is_group": false, "is_im": false,
        "is_mpim": false, "is_private": false, "created": 1449252889, "is_archived": false,
        "is_general": name == "general", "unlinked": 0, "name_normalized": name,
        "is_shared": false, "is_org_shared": false, "is_pending_ext_shared": false,
        "pending_shared": [], "context_team_id": "T061EG9R6", "updated": 1678229664302_u64,
        "parent_conversation": null, "creator": "U061F7AUR", "is_ext_shared": false,
        "shared_team_ids": ["T061EG9R6"], "pending_connected_team_ids": [], "is_member": true,
        "topic": {"value": format!("#{name} — {purpose}"), "creator": "U061F7AUR", "last_set": 1449252889},
        "purpose": {"value": purpose, "creator": "U061F7AUR", "last_set": 1449252889},
        "previous_names": [], "num_members": members
    })
}

/// A message as `conversations.history` lists it.
pub fn slack_message(ts: &str, user: &str, text: &str) -> Value {
    json!({
        "type": "message", "user": user, "text": text, "ts": ts,
        "client_msg_id": format!("{}-4b7a-4a3b-9c1e-0f1e2d3c4b5a", &ts[..8]),
        "team": "T061EG9R6",
        "blocks": [{"type": "rich_text", "block_id": "Bx4h", "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}]}]
    })
}

/// A Linear issue node as `activeCycle.issues` lists it.
pub fn linear_issue(n: u32, title: &str, state: &str, assignee: Option<&str>) -> Value {
    let kind = match state {
        "Todo" => "unstarted",
        "In Progress" | "In Review" => "started",
        "Done" => "completed",
        _ => "backlog",
    };
    let priority = ["No priority", "Urgent", "High", "Medium", "Low"][n as usize % 5];
    json!({
        "id": format!("8e1f{n:04}-2c5d-4f7e-9a1b-3c4d5e6f7a8b"),
        "identifier": format!("ENG-{n}"), "title": title,
        "priorityLabel": priority,
        "state": {"name": state, "type": kind},
        "assignee": assignee.map(|name| json!({"name": name}))
    })
}

/// A Notion page as `search` finds it.
pub fn notion_page(id: &str, title: &str, parent: Value) -> Value {
    json!({
        "object": "page", "id": id, "created_time": "2026-01-05T09:00:00.000Z",
        "last_edited_time": "2026-03-06T17:20:00.000Z",
        "created_by": {"object": "user", "id": "c2f20311-9e54-4d11-8c79-7398424ae41e"},
        "last_edited_by": {"object": "user", "id": "c2f20311-9e54-4d11-8c79-7398424ae41e"},
        "cover": null, "icon": {"type": "emoji", "emoji": "🗓️"}, "parent": parent,
        "archived": false, "in_trash": false,
        "properties": {"title": {"id": "title", "type": "title", "title": [{"type": "text",
            "text": {"content": title, "link": null},
            "annotations": {"bold": false, "italic": false, "strikethrough": false, "underline": false, "code": false, "color": "default"},
            "plain_text": title, "href": null}]}},
        "url": format!("https://www.notion.so/{}-{}", title.replace(' ', "-"), id.replace('-', "")),
        "public_url": null
    })
}
