//! What a tool answers: a short text the model reads, and the engine's typed result as
//! structured content for a program. Errors are tool errors (`isError: true`) whose text is the
//! engine's message, which already says what to do next, headed by its code.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::{json, Value};

use pagesight::Error;

/// A tool error from an engine error.
pub fn error(e: &Error) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
        "{}: {}",
        e.code().as_str(),
        e.message()
    ))]);
    result.structured_content = Some(json!({
        "code": e.code().as_str(),
        "message": e.message(),
        "retryable": e.retryable(),
    }));
    result
}

/// A success: `text` for the model, `typed` as structured content.
pub fn success<T: Serialize>(text: String, typed: &T) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    // Structured content must be an object; the engine's results are.
    if let Ok(value @ Value::Object(_)) = serde_json::to_value(typed) {
        result.structured_content = Some(value);
    }
    result
}

/// A success with only text.
pub fn text(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// Unwraps an engine result, or returns its tool error from the calling tool.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Ok($crate::answer::error(&e)),
        }
    };
}
pub(crate) use tri;
