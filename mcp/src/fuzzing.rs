//! The oracle of the fuzz target `tool_arguments` (`fuzz/`): any JSON, given as the arguments of
//! any tool, reads as that tool's arguments or is refused with `INVALID_ARGUMENT` naming the
//! tool — never a panic, never another code.

use crate::args::{self, OnPage};
use pagesight::command;
use pagesight::{Error, ErrorCode};
use serde_json::Value;

/// Reads `data` as JSON and, when it is, as the arguments of every tool.
pub fn tool_arguments(data: &[u8]) {
    let Ok(arguments) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    fn check<T: serde::de::DeserializeOwned>(tool: &str, arguments: &Value) {
        let read: Result<T, Error> = args::parse(tool, arguments.clone());
        if let Err(e) = read {
            assert_eq!(e.code(), ErrorCode::InvalidArgument, "{tool}: {e}");
            assert!(
                e.message().starts_with(tool),
                "{tool}: the message names another: {e}"
            );
        }
    }
    check::<args::TakeSnapshot>("take_snapshot", &arguments);
    check::<args::TakeScreenshot>("take_screenshot", &arguments);
    check::<args::Click>("click", &arguments);
    check::<args::Hover>("hover", &arguments);
    check::<args::Fill>("fill", &arguments);
    check::<args::FillForm>("fill_form", &arguments);
    check::<args::PressKey>("press_key", &arguments);
    check::<args::UploadFile>("upload_file", &arguments);
    check::<args::HandleDialog>("handle_dialog", &arguments);
    check::<args::Scroll>("scroll", &arguments);
    check::<args::NavigatePage>("navigate_page", &arguments);
    check::<args::Drag>("drag", &arguments);
    check::<args::TypeText>("type_text", &arguments);
    check::<args::WaitFor>("wait_for", &arguments);
    check::<args::ResizePage>("resize_page", &arguments);
    check::<args::NewPage>("new_page", &arguments);
    check::<args::SelectPage>("select_page", &arguments);
    check::<args::ClosePage>("close_page", &arguments);
    check::<args::ExtractMarkdown>("extract_markdown", &arguments);
    check::<OnPage<command::Evaluate>>("evaluate_script", &arguments);
    check::<OnPage<command::ConsoleMessages>>("list_console_messages", &arguments);
    check::<OnPage<command::ConsoleMessage>>("get_console_message", &arguments);
    check::<OnPage<command::NetworkRequests>>("list_network_requests", &arguments);
    check::<OnPage<command::NetworkRequest>>("get_network_request", &arguments);
}

#[cfg(test)]
mod tests {
    /// Every input kept for the target replays: its corpus and its regressions.
    #[test]
    fn the_tool_arguments_corpus_replays() {
        let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
        let mut replayed = 0;
        for folder in ["corpus", "regressions"] {
            let Ok(entries) = std::fs::read_dir(fuzz.join(folder).join("tool_arguments")) else {
                continue;
            };
            for path in entries.flatten().map(|e| e.path()) {
                let bytes = std::fs::read(&path).unwrap_or_default();
                if std::panic::catch_unwind(|| super::tool_arguments(&bytes)).is_err() {
                    panic!("{} fails tool_arguments", path.display());
                }
                replayed += 1;
            }
        }
        assert!(replayed > 0, "no corpus for tool_arguments");
    }
}
