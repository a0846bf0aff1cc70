//! Tasks over the Stripe pack.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::code_tasks::harness::{Direct, Task};
use crate::code_tasks::payloads::*;
use crate::code_tasks::{not_found, query};
use charter_testkit::stub::Recorded;

pub const TASKS: &[Task] = &[
    Task {
        name: "invoices_due_per_customer",
        question: "What is the total still due on each customer's open invoices?",
        packs: &["stripe"],
        searches: &["open invoices", "get a customer"],
        api: invoices,
        direct: |m| Box::pin(invoices_due(m)),
        program: include_str!("../programs/invoices_due_per_customer.js"),
        answer: || {
            let mut due = vec![0i64; CUSTOMERS.len()];
            for k in 0..INVOICES {
                let (_, c, amount, paid) = invoice(k);
                due[c] += amount - paid;
            }
            let mut rows: Vec<(i64, Value)> = CUSTOMERS
                .iter()
                .zip(due)
                .filter(|(_, cents)| *cents > 0)
                .map(|((_, name, email), cents)| {
                    (
                        cents,
                        json!({"customer": name, "email": email, "due": cents as f64 / 100.0}),
                    )
                })
                .collect();
            rows.sort_by_key(|row| std::cmp::Reverse(row.0));
            Value::Array(rows.into_iter().map(|(_, row)| row).collect())
        },
    },
    Task {
        name: "failed_payments",
        question: "Which payments failed in the last 7 days? The customer's email, the amount and why.",
        packs: &["stripe"],
        searches: &["list charges", "get a customer"],
        api: charges,
        direct: |m| Box::pin(failed_payments(m)),
        program: include_str!("../programs/failed_payments.js"),
        answer: || {
            let failed = (0..CHARGES).filter_map(|k| {
                let (_, c, amount, failure) = charge(k);
                failure.map(|reason| {
                    json!({"email": CUSTOMERS[c].2, "amount": amount as f64 / 100.0, "reason": reason})
                })
            });
            Value::Array(failed.collect())
        },
    },
];

const CUSTOMERS: &[(&str, &str, &str)] = &[
    (
        "cus_NffrFeUfNV2Hib",
        "Globex Corporation",
        "ap@globex.example",
    ),
    ("cus_Ng3rT8cPq1LmZx", "Initech", "billing@initech.example"),
    (
        "cus_NhQ2w9KdVb7YtE",
        "Umbrella Health",
        "finance@umbrella.example",
    ),
    ("cus_Nj8uE4rTy6OpLa", "Hooli", "payables@hooli.example"),
    (
        "cus_NkL5m2QwErTy7U",
        "Stark Industries",
        "accounts@stark.example",
    ),
    (
        "cus_NmP0o9IuYtRe3W",
        "Wayne Enterprises",
        "ap@wayne.example",
    ),
    ("cus_NnA1s2DfGhJk4L", "Soylent", "billing@soylent.example"),
    (
        "cus_NpZ3x4CvBnMq5W",
        "Cyberdyne Systems",
        "finance@cyberdyne.example",
    ),
    (
        "cus_NqE6r7TyUiOp8A",
        "Tyrell Corporation",
        "payables@tyrell.example",
    ),
    (
        "cus_NrS9d0FgHjKl1Z",
        "Vandelay Industries",
        "art@vandelay.example",
    ),
    (
        "cus_NsX2c3VbNmQw4E",
        "Pied Piper",
        "richard@piedpiper.example",
    ),
    (
        "cus_NtR5t6YuIoPa7S",
        "Massive Dynamic",
        "ap@massive.example",
    ),
];

fn customer(r: &Recorded) -> Option<(u16, Value)> {
    let id = r.path.strip_prefix("/v1/customers/")?;
    let (id, name, email) = CUSTOMERS.iter().find(|c| c.0 == id)?;
    Some((200, stripe_customer(id, name, email)))
}

/// Open invoice `k`: its id, customer index, amount due and amount paid, in cents.
fn invoice(k: usize) -> (String, usize, i64, i64) {
    let customer = (k * 5 + k / 3) % CUSTOMERS.len();
    let due = 4900 * (1 + (k as i64 * 7) % 11);
    let paid = if k % 6 == 2 { due / 2 } else { 0 };
    (format!("in_1OqK2aLkdIwHu7ix{k:04}"), customer, due, paid)
}

const INVOICES: usize = 40;

fn invoices(r: &Recorded) -> (u16, Value) {
    if let Some(answer) = customer(r) {
        return answer;
    }
    if r.path != "/v1/invoices" || query(r, "status").as_deref() != Some("open") {
        return not_found(r);
    }
    let data = (0..INVOICES).map(|k| {
        let (id, c, due, paid) = invoice(k);
        let (customer, _, email) = CUSTOMERS[c];
        stripe_invoice(&id, customer, email, due, paid)
    });
    (200, stripe_list("/v1/invoices", data.collect(), false))
}

async fn invoices_due(m: &mut Direct) -> Value {
    let invoices = m
        .call(
            "stripe_invoices_list",
            json!({"status": "open", "limit": 100}),
        )
        .await;
    let mut due: Vec<(String, i64)> = Vec::new();
    for invoice in invoices["data"].as_array().unwrap() {
        let customer = invoice["customer"].as_str().unwrap();
        let remaining = invoice["amount_remaining"].as_i64().unwrap();
        match due.iter_mut().find(|(c, _)| c == customer) {
            Some((_, total)) => *total += remaining,
            None => due.push((customer.to_owned(), remaining)),
        }
    }
    let calls = due
        .iter()
        .map(|(id, _)| ("stripe_customers_get", json!({"customer": id})))
        .collect();
    let customers = m.turn(calls).await;
    let mut answer: Vec<(i64, Value)> = customers
        .iter()
        .zip(&due)
        .map(|(c, (_, cents))| {
            let row =
                json!({"customer": c["name"], "email": c["email"], "due": *cents as f64 / 100.0});
            (*cents, row)
        })
        .collect();
    answer.sort_by_key(|row| std::cmp::Reverse(row.0));
    Value::Array(answer.into_iter().map(|(_, row)| row).collect())
}

// --------------------------------------------------------------------------------------------

const FAILURES: &[&str] = &[
    "Your card was declined.",
    "Your card has insufficient funds.",
    "Your card has expired.",
    "Your card's security code is incorrect.",
];

/// Charge `k` of the last seven days: its id, customer index, amount and failure, if it failed.
fn charge(k: usize) -> (String, usize, i64, Option<&'static str>) {
    let customer = (k * 7 + 3) % CUSTOMERS.len();
    let failure = (k % 10 == 3).then(|| FAILURES[(k / 10) % FAILURES.len()]);
    (
        format!("ch_3OrA1bLkdIwHu7ix{k:04}"),
        customer,
        4900 * (1 + (k as i64 * 3) % 8),
        failure,
    )
}

const CHARGES: usize = 60;

fn charges(r: &Recorded) -> (u16, Value) {
    if let Some(answer) = customer(r) {
        return answer;
    }
    if r.path != "/v1/charges" || query(r, "created[gte]").as_deref() != Some("1772841600") {
        return not_found(r);
    }
    let data = (0..CHARGES).map(|k| {
        let (id, c, amount, failure) = charge(k);
        stripe_charge(&id, amount, CUSTOMERS[c].0, failure)
    });
    (200, stripe_list("/v1/charges", data.collect(), false))
}

async fn failed_payments(m: &mut Direct) -> Value {
    let charges = m
        .call(
            "stripe_charges_list",
            json!({"created_gte": 1772841600, "limit": 100}),
        )
        .await;
    let failed: Vec<&Value> = charges["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "failed")
        .collect();
    let mut ids: Vec<&str> = Vec::new();
    for charge in &failed {
        let id = charge["customer"].as_str().unwrap();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let calls = ids
        .iter()
        .map(|id| ("stripe_customers_get", json!({"customer": id})))
        .collect();
    let customers = m.turn(calls).await;
    let email: BTreeMap<&str, &Value> = customers
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), &c["email"]))
        .collect();
    let answer = failed.iter().map(|c| {
        json!({
            "email": email[c["customer"].as_str().unwrap()],
            "amount": c["amount"].as_i64().unwrap() as f64 / 100.0,
            "reason": c["failure_message"],
        })
    });
    Value::Array(answer.collect())
}
