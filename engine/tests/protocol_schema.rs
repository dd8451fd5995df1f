//! `docs/protocol.schema.json` is the JSON Schema of the session protocol, generated from the
//! typed commands and results; this test fails while it is stale.
//! Regenerate it with `PAGESIGHT_UPDATE_SCHEMA=1 cargo test -p pagesight --test protocol_schema`.

use std::path::Path;

use pagesight::{Command, Response};

fn generated() -> String {
    let schema = serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pagesight session protocol",
        "description": "One command per line ({\"cmd\": …}); each answered by {\"ok\":true,\"result\":…} or {\"ok\":false,\"error\":{\"code\",\"message\",\"retryable\"}}. See docs/protocol.md.",
        "$defs": {
            "Command": Command::json_schema(),
            "Result": Response::json_schema(),
        }
    });
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema is JSON");
    text.push('\n');
    text
}

#[test]
fn the_checked_in_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/protocol.schema.json");
    let now = generated();
    if std::env::var_os("PAGESIGHT_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &now).expect("write the schema");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == now,
        "docs/protocol.schema.json is stale (or missing): the commands or results changed. \
         Regenerate it with `PAGESIGHT_UPDATE_SCHEMA=1 cargo test -p pagesight --test \
         protocol_schema` and check the diff."
    );
}

#[test]
fn every_example_of_the_docs_is_a_valid_command() {
    for name in Command::names() {
        let example = Command::example(name).expect("an example");
        let command = Command::from_line(example).expect(example);
        assert_eq!(command.name(), name);
    }
}
