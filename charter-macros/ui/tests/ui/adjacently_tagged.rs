#[derive(charter::Schema, serde::Deserialize)]
#[serde(tag = "t", content = "c")]
enum Message {
    Ping,
    Text(String),
}

fn main() {}
