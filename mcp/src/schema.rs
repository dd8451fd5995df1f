//! The tools' input schemas, generated from their argument types and then made compact: the
//! tool list is sent to the model at the start of every conversation, so what a model does not
//! need to call a tool correctly (the draft's URL, numeric formats, `null` alternatives of
//! optional fields, `$ref` indirections, per-value descriptions of small enums) is left out.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_empty_input, schema_for_input};
use rmcp::model::JsonObject;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The compact input schema of `T`.
pub fn input<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let Ok(full) = schema_for_input::<T>() else {
        return schema_for_empty_input();
    };
    let mut root = Value::Object(full.as_ref().clone());
    let defs = root
        .as_object_mut()
        .and_then(|o| o.remove("$defs"))
        .and_then(|d| d.as_object().cloned())
        .unwrap_or_default();
    compact(&mut root, &defs);
    match root {
        Value::Object(mut object) => {
            object.remove("$schema");
            Arc::new(object)
        }
        _ => schema_for_empty_input(),
    }
}

fn compact(value: &mut Value, defs: &Map<String, Value>) {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.remove("$ref") {
                let name = reference.trim_start_matches("#/$defs/");
                if let Some(Value::Object(def)) = defs.get(name) {
                    for (k, v) in def {
                        if k != "description" || !object.contains_key("description") {
                            object.entry(k.clone()).or_insert_with(|| v.clone());
                        }
                    }
                }
            }
            object.remove("format");
            object.remove("$schema");
            if object.get("default") == Some(&Value::Null) {
                object.remove("default");
            }
            // `["integer", "null"]`: optional fields are simply not required.
            if let Some(Value::Array(types)) = object.get("type") {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if kept.len() == 1 {
                    object.insert("type".into(), kept[0].clone());
                }
            }
            // An enum of constants: their values are enough.
            if let Some(Value::Array(variants)) = object.get("oneOf") {
                let constants: Option<Vec<Value>> =
                    variants.iter().map(|v| v.get("const").cloned()).collect();
                if let Some(constants) = constants {
                    object.remove("oneOf");
                    object.insert("type".into(), Value::String("string".into()));
                    object.insert("enum".into(), Value::Array(constants));
                }
            }
            // `minimum: 0` only restates an unsigned Rust type.
            if object.get("minimum") == Some(&Value::from(0))
                && object.get("type") == Some(&Value::from("integer"))
            {
                object.remove("minimum");
            }
            for v in object.values_mut() {
                compact(v, defs);
            }
        }
        Value::Array(items) => {
            for v in items {
                compact(v, defs);
            }
        }
        _ => {}
    }
}
