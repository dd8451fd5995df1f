//! `pagesight mcp` driven by a real MCP client (rmcp's client side) over stdio and over
//! streamable HTTP, against a real headless Chromium on the fixture pages: every tool at least
//! once with its effect checked in the page, chrome-devtools-mcp's calls accepted as its
//! clients send them, bad input answered with tool errors while the server goes on serving,
//! and the tool list kept as a golden file.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use tokio::io::AsyncBufReadExt;
use tokio::process::Command;

type Client = RunningService<RoleClient, ()>;

/// The checkout's root: fixture paths are relative to it.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the cli crate lives in the workspace")
        .to_path_buf()
}

fn fixture_url(path: &str) -> String {
    format!("file://{}", root().join(path).display())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// A client of a new `pagesight mcp` over stdio.
async fn stdio_client() -> Client {
    stdio_client_with(&[]).await
}

/// A client of a new `pagesight mcp ARGS…` over stdio.
async fn stdio_client_with(args: &[&str]) -> Client {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pagesight"));
    command.arg("mcp").args(args).current_dir(root());
    let transport = TokioChildProcess::builder(command)
        .stderr(Stdio::inherit())
        .spawn()
        .map(|(transport, _stderr)| transport)
        .expect("start pagesight mcp");
    ().serve(transport).await.expect("MCP initialise")
}

/// Calls a tool; the result whether or not it is a tool error.
async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object");
    };
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
    tokio::time::timeout(Duration::from_secs(60), client.call_tool(params))
        .await
        .unwrap_or_else(|_| panic!("{tool} did not answer within 60 s"))
        .unwrap_or_else(|e| panic!("{tool} failed at the protocol level: {e}"))
}

/// The text of a result's content.
fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Calls a tool that must succeed; its text.
async fn ok(client: &Client, tool: &str, arguments: Value) -> String {
    let result = call(client, tool, arguments.clone()).await;
    assert_ne!(
        result.is_error,
        Some(true),
        "{tool} {arguments} failed: {}",
        text(&result)
    );
    text(&result)
}

/// Calls a tool that must fail with a tool error; its text.
async fn fails(client: &Client, tool: &str, arguments: Value) -> String {
    let result = call(client, tool, arguments.clone()).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{tool} {arguments} should have failed: {}",
        text(&result)
    );
    text(&result)
}

/// The uid on the first line of a snapshot that contains `needle`.
fn uid_of(snapshot: &str, needle: &str) -> String {
    let line = snapshot
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{snapshot}"));
    let start = line.find("uid=").expect("a uid on the line") + 4;
    line[start..]
        .split(|c: char| c.is_whitespace())
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn actions_change_the_page_over_stdio() {
    runtime().block_on(async {
        let client = stdio_client().await;
        let url = fixture_url("fixtures/pages/actions/forms.html");
        ok(&client, "navigate_page", json!({"type": "url", "url": url})).await;
        let snapshot = ok(&client, "take_snapshot", json!({})).await;
        let name = uid_of(&snapshot, "textbox \"Name\"");
        let agree = uid_of(&snapshot, "checkbox \"I agree\"");
        let color = uid_of(&snapshot, "value=\"Red\"");
        let search = uid_of(&snapshot, "textbox \"Search\"");

        ok(
            &client,
            "fill",
            json!({"uid": name, "value": "Grace Hopper"}),
        )
        .await;
        ok(&client, "fill", json!({"uid": color, "value": "Green"})).await;
        let clicked = ok(&client, "click", json!({"uid": agree})).await;
        // A sentence naming the element, then what changed, as a patch of the snapshot.
        assert!(
            clicked.starts_with(&format!("Clicked checkbox \"I agree\" (uid={agree}).")),
            "{clicked}"
        );
        assert!(clicked.contains("\n@@ -"), "{clicked}");
        ok(&client, "fill", json!({"uid": search, "value": "cobol"})).await;
        ok(&client, "press_key", json!({"key": "Enter"})).await;

        let after = ok(&client, "take_snapshot", json!({})).await;
        let line = |needle: &str| {
            after
                .lines()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("no {needle:?} in:\n{after}"))
                .to_string()
        };
        assert!(line(&format!("uid={name} ")).contains("value=\"Grace Hopper\""));
        assert!(line(&format!("uid={agree} ")).contains("checked"));
        assert!(line(&format!("uid={color} ")).contains("value=\"Green\""));
        assert!(
            after.contains("yes:cobol"),
            "the search was submitted:\n{after}"
        );
        client.cancel().await.expect("close the client");
    });
}

#[test]
fn typing_dragging_waiting_and_resizing() {
    runtime().block_on(async {
        let client = stdio_client().await;
        let url = fixture_url("fixtures/pages/actions/forms.html");
        ok(&client, "navigate_page", json!({"url": url})).await;
        let snapshot = ok(&client, "take_snapshot", json!({})).await;
        // The controlled field writes its state, upper-cased, into the page's text.
        let controlled = uid_of(&snapshot, "textbox \"Controlled\"");
        ok(&client, "click", json!({"uid": controlled})).await;
        ok(&client, "type_text", json!({"text": "typed here"})).await;
        let found = ok(
            &client,
            "wait_for",
            json!({"text": ["nothing", "TYPED HERE"]}),
        )
        .await;
        assert!(found.contains("TYPED HERE"), "{found}");
        let missing = fails(
            &client,
            "wait_for",
            json!({"text": ["no such words"], "timeout": 300}),
        )
        .await;
        assert!(missing.starts_with("TIMEOUT"), "{missing}");

        ok(&client, "resize_page", json!({"width": 600, "height": 500})).await;
        let resized = ok(&client, "resize_page", json!({"width": 640, "height": 480})).await;
        assert!(resized.contains("640"), "{resized}");

        let drag = fixture_url("fixtures/pages/actions/drag.html");
        ok(&client, "navigate_page", json!({"url": drag})).await;
        let snapshot = ok(&client, "take_snapshot", json!({})).await;
        let card = uid_of(&snapshot, "button \"Card A\"");
        let done = uid_of(&snapshot, "\"Done\"");
        ok(&client, "drag", json!({"from_uid": card, "to_uid": done})).await;
        ok(
            &client,
            "wait_for",
            json!({"text": "dropped card into done"}),
        )
        .await;
        client.cancel().await.expect("close the client");
    });
}

#[test]
fn screenshots_plain_and_annotated() {
    runtime().block_on(async {
        let client = stdio_client().await;
        let url = fixture_url("fixtures/pages/actions/clicks.html");
        ok(&client, "navigate_page", json!({"url": url})).await;
        let plain = call(
            &client,
            "take_screenshot",
            json!({"format": "jpeg", "quality": 60}),
        )
        .await;
        assert_ne!(plain.is_error, Some(true), "{}", text(&plain));
        let image = plain
            .content
            .iter()
            .find_map(|c| c.as_image())
            .expect("an image");
        assert_eq!(image.mime_type, "image/jpeg");
        assert!(image.data.starts_with("/9j/"), "JPEG bytes in base64");

        let annotated = call(&client, "take_screenshot", json!({"annotate": true})).await;
        let said = text(&annotated);
        let image = annotated
            .content
            .iter()
            .find_map(|c| c.as_image())
            .expect("an image");
        assert!(image.data.starts_with("iVBORw0KGgo"), "PNG bytes in base64");
        // The labels are uids of the snapshot the screenshot took: actions take them at once.
        let labelled = said
            .split("labelled: ")
            .nth(1)
            .unwrap_or_else(|| panic!("the labelled uids are named: {said}"));
        let snapshot = ok(&client, "take_snapshot", json!({})).await;
        let increment = uid_of(&snapshot, "button \"Increment\"");
        assert!(
            labelled
                .split_whitespace()
                .any(|u| u.trim_end_matches('.') == increment),
            "{said}"
        );
        ok(&client, "click", json!({"uid": increment})).await;

        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("shot.png");
        let saved = ok(&client, "take_screenshot", json!({"filePath": path})).await;
        assert!(saved.contains("saved to"), "{saved}");
        let bytes = std::fs::read(&path).expect("the file was written");
        assert!(bytes.starts_with(b"\x89PNG"));
        client.cancel().await.expect("close the client");
    });
}

#[test]
fn console_messages_and_scripts() {
    runtime().block_on(async {
        let client = stdio_client_with(&["--allowEvaluate"]).await;
        let url = fixture_url("fixtures/pages/devtools/console-network.html");
        ok(&client, "navigate_page", json!({"url": url})).await;
        let listed = ok(
            &client,
            "list_console_messages",
            json!({"types": ["error", "warn"]}),
        )
        .await;
        assert!(listed.contains("[warn] careful"), "{listed}");
        assert!(listed.contains("[error] bad thing"), "{listed}");
        assert!(!listed.contains("fyi"), "filtered by type: {listed}");
        let id = listed
            .split("msgid=")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .expect("a msgid");
        let one = ok(
            &client,
            "get_console_message",
            json!({"msgid": id.parse::<u64>().expect("a number")}),
        )
        .await;
        assert!(
            one.contains("careful") || one.contains("bad thing"),
            "{one}"
        );
        let requests = ok(&client, "list_network_requests", json!({})).await;
        assert!(requests.contains("console-network.html"), "{requests}");

        let snapshot = ok(&client, "take_snapshot", json!({})).await;
        let heading = uid_of(&snapshot, "heading");
        let title = ok(
            &client,
            "evaluate_script",
            json!({"function": "() => document.title"}),
        )
        .await;
        assert!(title.starts_with('"'), "a JSON string: {title}");
        let tag = ok(
            &client,
            "evaluate_script",
            json!({"function": "(el) => el.tagName", "args": [heading]}),
        )
        .await;
        assert!(tag.starts_with("\"H"), "{tag}");
        client.cancel().await.expect("close the client");

        // Without the flag, scripts are refused with a message saying how to allow them.
        let client = stdio_client().await;
        ok(&client, "navigate_page", json!({"url": url})).await;
        let refused = fails(&client, "evaluate_script", json!({"function": "() => 1"})).await;
        assert!(refused.contains("allow-evaluate"), "{refused}");
        client.cancel().await.expect("close the client");
    });
}

#[test]
fn long_pages_are_budgeted_and_subtrees_cost_only_themselves() {
    runtime().block_on(async {
        let client = stdio_client().await;
        let url = fixture_url("fixtures/pages/budget/long-reference.html");
        ok(&client, "navigate_page", json!({"url": url})).await;
        let whole = ok(&client, "take_snapshot", json!({})).await;
        assert!(
            whole.chars().count() <= 40_000,
            "{} characters",
            whole.chars().count()
        );
        let marker = whole
            .lines()
            .find(|l| l.contains("more lines inside uid="))
            .unwrap_or_else(|| panic!("a marker names what was left out:\n{whole}"));
        let uid = marker
            .split("uid=")
            .nth(1)
            .and_then(|t| t.split(':').next())
            .expect("the marker's uid")
            .to_string();
        let small = ok(
            &client,
            "take_snapshot",
            json!({"uid": uid, "maxChars": 2000}),
        )
        .await;
        assert!(small.starts_with(&format!("uid={uid} ")), "{small}");
        assert!(small.chars().count() <= 2000);
        let tiny = fails(&client, "take_snapshot", json!({"maxChars": 5})).await;
        assert!(tiny.starts_with("INVALID_ARGUMENT"), "{tiny}");
        client.cancel().await.expect("close the client");
    });
}

/// The id list_pages gives the page whose line names `needle`.
fn page_id(pages: &str, needle: &str) -> u64 {
    pages
        .lines()
        .find(|l| l.contains(needle))
        .and_then(|l| l.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no page {needle:?} in:\n{pages}"))
}

/// chrome-devtools-mcp's calls as its clients send them (every argument its reference shows,
/// `pageId` on each), each accepted and answered with the same kind of content; with the
/// tools the other tests leave out, each effect checked in the page.
#[test]
fn chrome_devtools_mcp_calls_are_accepted() {
    runtime().block_on(async {
        let client = stdio_client().await;
        let forms = fixture_url("fixtures/pages/actions/forms.html");
        let opened = ok(
            &client,
            "new_page",
            json!({"url": forms, "background": false, "timeout": 0}),
        )
        .await;
        assert!(opened.starts_with("Page "), "{opened}");
        let pages = ok(&client, "list_pages", json!({})).await;
        let id = page_id(&pages, "actions/forms.html");
        let snapshot = ok(&client, "take_snapshot", json!({"pageId": id, "verbose": false})).await;
        let name = uid_of(&snapshot, "textbox \"Name\"");
        let agree = uid_of(&snapshot, "checkbox \"I agree\"");
        let news = uid_of(&snapshot, "checkbox \"News\"");
        let filled = ok(
            &client,
            "fill_form",
            json!({"pageId": id, "elements": [
                {"uid": name, "value": "Ada"},
                {"uid": agree, "value": "true"},
                {"uid": news, "value": "false"}
            ], "includeSnapshot": true}),
        )
        .await;
        assert!(filled.contains("RootWebArea"), "the new snapshot is included: {filled}");
        let line = |text: &str, uid: &str| {
            text.lines()
                .find(|l| l.contains(&format!("uid={uid} ")))
                .unwrap_or_default()
                .to_string()
        };
        assert!(line(&filled, &name).contains("value=\"Ada\""), "{filled}");
        assert!(line(&filled, &agree).contains("checked"), "{filled}");
        assert!(!line(&filled, &news).contains("checked"), "{filled}");
        let hovered = ok(&client, "hover", json!({"pageId": id, "uid": name, "includeSnapshot": false})).await;
        assert!(hovered.contains(&name), "{hovered}");
        ok(&client, "click", json!({"pageId": id, "uid": name, "dblClick": false, "includeSnapshot": false})).await;
        ok(&client, "press_key", json!({"pageId": id, "key": "Control+A", "includeSnapshot": false})).await;
        ok(&client, "resize_page", json!({"pageId": id, "width": 800, "height": 600})).await;
        ok(&client, "list_console_messages", json!({"pageId": id, "pageSize": 10, "pageIdx": 0, "types": ["log"], "includePreservedMessages": false, "includeStackTraces": false})).await;
        let requests = ok(&client, "list_network_requests", json!({"pageId": id, "pageSize": 10, "pageIdx": 0, "resourceTypes": ["document"], "includePreservedRequests": false})).await;
        let reqid: u64 = requests
            .split("reqid=")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("the document's request is listed: {requests}"));
        let request = ok(&client, "get_network_request", json!({"pageId": id, "reqid": reqid})).await;
        assert!(request.contains("forms.html"), "{request}");
        let shot = call(&client, "take_screenshot", json!({"pageId": id, "format": "png", "fullPage": false})).await;
        assert!(shot.content.iter().any(|c| c.as_image().is_some()));

        // Dialogs: a click that opens one says so, and handle_dialog answers it.
        let dialogs = fixture_url("fixtures/pages/actions/dialogs.html");
        ok(&client, "navigate_page", json!({"pageId": id, "type": "url", "url": dialogs, "ignoreCache": false, "handleBeforeUnload": "accept", "timeout": 0})).await;
        let snapshot = ok(&client, "take_snapshot", json!({"pageId": id})).await;
        let prompt = uid_of(&snapshot, "button \"Prompt\"");
        let clicked = ok(&client, "click", json!({"pageId": id, "uid": prompt})).await;
        assert!(clicked.contains("prompt dialog opened"), "{clicked}");
        let blocked = fails(&client, "take_snapshot", json!({"pageId": id})).await;
        assert!(blocked.starts_with("OCCLUDED"), "{blocked}");
        ok(&client, "handle_dialog", json!({"pageId": id, "action": "accept", "promptText": "forty-two"})).await;
        ok(&client, "wait_for", json!({"pageId": id, "text": ["forty-two"], "timeout": 0})).await;

        // Uploads, scrolling, history, the main content.
        let upload = fixture_url("fixtures/pages/actions/upload.html");
        ok(&client, "navigate_page", json!({"pageId": id, "url": upload})).await;
        let snapshot = ok(&client, "take_snapshot", json!({"pageId": id})).await;
        let pick = uid_of(&snapshot, "Choose a file");
        let file = root().join("fixtures/pages/actions/README.md");
        ok(&client, "upload_file", json!({"pageId": id, "uid": pick, "filePaths": [file], "includeSnapshot": false})).await;
        ok(&client, "wait_for", json!({"pageId": id, "text": ["README.md"]})).await;
        let scroll = fixture_url("fixtures/pages/actions/scroll.html");
        ok(&client, "navigate_page", json!({"pageId": id, "url": scroll})).await;
        let scrolled = ok(&client, "scroll", json!({"pageId": id, "direction": "down", "pixels": 300})).await;
        assert!(scrolled.contains("300"), "{scrolled}");
        ok(&client, "navigate_page", json!({"pageId": id, "type": "back"})).await;
        let back = ok(&client, "take_snapshot", json!({"pageId": id})).await;
        assert!(back.contains("upload.html"), "{back}");
        ok(&client, "navigate_page", json!({"pageId": id, "type": "forward"})).await;
        ok(&client, "navigate_page", json!({"pageId": id, "type": "reload", "ignoreCache": true})).await;
        let article = fixture_url("fixtures/pages/long-page.html");
        ok(&client, "navigate_page", json!({"pageId": id, "url": article})).await;
        let markdown = ok(&client, "extract_markdown", json!({"pageId": id})).await;
        assert!(!markdown.trim().is_empty());

        // Pages: select another, close this one.
        let pages = ok(&client, "list_pages", json!({})).await;
        let other = pages
            .lines()
            .filter_map(|l| l.split(':').next()?.trim().parse::<u64>().ok())
            .find(|p| *p != id)
            .unwrap_or_else(|| panic!("the first tab is listed too: {pages}"));
        let selected = ok(&client, "select_page", json!({"pageId": other, "bringToFront": true})).await;
        assert!(selected.contains(&other.to_string()), "{selected}");
        ok(&client, "close_page", json!({"pageId": id})).await;
        let pages = ok(&client, "list_pages", json!({})).await;
        assert!(!pages.contains("long-page.html"), "{pages}");
        let gone = fails(&client, "take_snapshot", json!({"pageId": id})).await;
        assert!(gone.contains("gone") || gone.contains("closed"), "{gone}");
        client.cancel().await.expect("close the client");
    });
}

#[test]
fn bad_input_is_a_tool_error_and_the_server_goes_on() {
    runtime().block_on(async {
        let client = stdio_client().await;
        let url = fixture_url("fixtures/pages/actions/clicks.html");
        ok(&client, "navigate_page", json!({"url": url})).await;

        let missing = fails(&client, "click", json!({})).await;
        assert!(missing.contains("uid"), "{missing}");
        let mistyped = fails(&client, "click", json!({"uid": 5})).await;
        assert!(mistyped.contains("uid"), "{mistyped}");
        let before_snapshot = fails(&client, "click", json!({"uid": "1_3"})).await;
        assert!(
            before_snapshot.starts_with("NO_SNAPSHOT"),
            "{before_snapshot}"
        );
        ok(&client, "take_snapshot", json!({})).await;
        let unknown = fails(&client, "click", json!({"uid": "9_999"})).await;
        assert!(unknown.starts_with("UNKNOWN_UID"), "{unknown}");
        let no_page = fails(&client, "click", json!({"uid": "1_1", "pageId": 42})).await;
        assert!(no_page.contains("list_pages"), "{no_page}");
        let no_url = fails(&client, "navigate_page", json!({"type": "url"})).await;
        assert!(no_url.contains("url"), "{no_url}");

        let unknown_tool = client
            .call_tool(CallToolRequestParams::new("no_such_tool"))
            .await;
        assert!(unknown_tool.is_err() || unknown_tool.is_ok_and(|r| r.is_error == Some(true)));

        // A value far longer than any field needs is refused before anything is typed.
        let snapshot = ok(&client, "take_snapshot", json!({})).await;
        let button = uid_of(&snapshot, "button \"Increment\"");
        let huge = "x".repeat(2_000_000);
        let refused = fails(&client, "fill", json!({"uid": button, "value": huge})).await;
        assert!(
            refused.starts_with("INVALID_ARGUMENT"),
            "{}",
            &refused[..refused.len().min(300)]
        );
        assert!(refused.len() < 1000, "the error does not echo the value");

        let pages = ok(&client, "list_pages", json!({})).await;
        assert!(pages.contains("clicks.html"), "{pages}");
        client.cancel().await.expect("close the client");
    });
}

/// `tools/list` as a golden file: a change to the public surface is a visible diff, and the
/// whole list stays well under chrome-devtools-mcp's (30,801 characters of JSON for 1.11).
#[test]
fn files_outside_the_allowed_folders_are_refused_and_the_server_goes_on() {
    runtime().block_on(async {
        let extra = tempfile::tempdir().expect("a temporary folder");
        let extra_dir = extra.path().to_string_lossy().into_owned();
        let client = stdio_client_with(&["--allow-dir", &extra_dir]).await;
        let url = fixture_url("fixtures/pages/actions/upload.html");
        ok(&client, "navigate_page", json!({"url": url})).await;
        // Neither the checkout (the server's current directory) nor a temporary folder.
        let outside = PathBuf::from(format!("/pagesight-outside-{}", std::process::id()));

        let snapshot_path = outside.join("snapshot.txt");
        let refused = fails(&client, "take_snapshot", json!({"filePath": snapshot_path})).await;
        assert!(refused.starts_with("INVALID_ARGUMENT"), "{refused}");
        assert!(refused.contains("snapshot.txt"), "{refused}");
        assert!(refused.contains("--allow-dir"), "{refused}");
        let shot_path = outside.join("shot.png");
        let refused = fails(&client, "take_screenshot", json!({"filePath": shot_path})).await;
        assert!(
            refused.contains("shot.png") && refused.contains("--allow-dir"),
            "{refused}"
        );
        let escape = extra.path().join("../../pagesight-escape.txt");
        let refused = fails(&client, "take_snapshot", json!({"filePath": escape})).await;
        assert!(refused.contains("outside the folders"), "{refused}");

        let snapshot = ok(&client, "take_snapshot", json!({})).await;
        let pick = uid_of(&snapshot, "Choose a file");
        let secret = outside.join("secret.txt");
        let refused = fails(
            &client,
            "upload_file",
            json!({"uid": pick, "filePath": secret}),
        )
        .await;
        assert!(
            refused.contains("secret.txt") && refused.contains("--allow-dir"),
            "{refused}"
        );

        // The server goes on serving, and writes inside the allowed folders.
        let saved = extra.path().join("snapshot.txt");
        let said = ok(&client, "take_snapshot", json!({"filePath": saved})).await;
        assert!(said.contains("Saved the snapshot"), "{said}");
        let text = std::fs::read_to_string(&saved).expect("the snapshot was written");
        assert!(text.contains("Choose a file"), "{text}");
        let names: Vec<_> = std::fs::read_dir(extra.path())
            .expect("list")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("snapshot.txt")]);
        let missing = extra.path().join("no-such-folder/shot.png");
        let refused = fails(&client, "take_screenshot", json!({"filePath": missing})).await;
        assert!(refused.contains("does not exist"), "{refused}");
        client.cancel().await.expect("close the client");
    });
}

#[test]
fn the_tool_list_is_as_recorded() {
    runtime().block_on(async {
        let client = stdio_client().await;
        let tools = client.list_all_tools().await.expect("tools/list");
        let listed: Vec<Value> = tools
            .iter()
            .map(|t| serde_json::to_value(t).expect("a tool serialises"))
            .collect();
        let compact = serde_json::to_string(&listed).expect("JSON");
        let mut pretty = serde_json::to_string_pretty(&listed).expect("JSON");
        pretty.push('\n');
        let golden = root().join("cli/tests/goldens/mcp-tools.json");
        if std::env::var_os("PAGESIGHT_UPDATE_GOLDENS").is_some() {
            std::fs::create_dir_all(golden.parent().expect("a folder")).expect("mkdir");
            std::fs::write(&golden, &pretty).expect("write the golden");
        }
        assert!(
            compact.len() < 30_801 / 2,
            "the tool list takes {} characters",
            compact.len()
        );
        let recorded = std::fs::read_to_string(&golden).unwrap_or_default();
        assert!(
            recorded == pretty,
            "the tool list changed; if that is meant, run with PAGESIGHT_UPDATE_GOLDENS=1 and \
             review the diff of {}",
            golden.display()
        );
        client.cancel().await.expect("close the client");
    });
}

/// Over streamable HTTP: the server prints its address, and clients connect to it.
#[test]
fn serves_over_http() {
    runtime().block_on(async {
        let mut server = Command::new(env!("CARGO_BIN_EXE_pagesight"))
            .args(["mcp", "--http", "127.0.0.1:0"])
            .current_dir(root())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start pagesight mcp --http");
        let stderr = server.stderr.take().expect("stderr");
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        let address = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(at) = line.find("http://") {
                    return line[at..].trim().to_string();
                }
            }
            panic!("pagesight mcp --http ended without printing its address");
        })
        .await
        .expect("the address within 30 s");

        // Two agents on one server: each has its own selected page, and a pageId addresses
        // a page without selecting it.
        let a = http_client(&address).await;
        let b = http_client(&address).await;
        let clicks = fixture_url("fixtures/pages/actions/clicks.html");
        let forms = fixture_url("fixtures/pages/actions/forms.html");
        ok(&a, "navigate_page", json!({"url": clicks})).await;
        let opened = ok(&b, "new_page", json!({"url": forms})).await;
        let b_page: u32 = opened
            .strip_prefix("Page ")
            .and_then(|t| t.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("new_page names the page's id: {opened}"));
        let a_snapshot = ok(&a, "take_snapshot", json!({})).await;
        assert!(a_snapshot.contains("clicks.html"), "{a_snapshot}");
        let b_snapshot = ok(&b, "take_snapshot", json!({})).await;
        assert!(b_snapshot.contains("actions/forms.html"), "{b_snapshot}");
        let by_id = ok(&a, "take_snapshot", json!({"pageId": b_page})).await;
        assert!(by_id.contains("actions/forms.html"), "{by_id}");
        let still = ok(&a, "take_snapshot", json!({})).await;
        assert!(
            still.contains("clicks.html"),
            "a pageId does not select: {still}"
        );
        let pages = ok(&a, "list_pages", json!({})).await;
        assert!(
            pages.contains("clicks.html") && pages.contains("forms.html"),
            "{pages}"
        );
        a.cancel().await.expect("close a client");
        b.cancel().await.expect("close a client");

        // SIGTERM: the server closes its browser and exits.
        let pid = server
            .id()
            .and_then(|p| i32::try_from(p).ok())
            .expect("a pid");
        // SAFETY: plain syscall, on the child this test started.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let status = tokio::time::timeout(Duration::from_secs(10), server.wait())
            .await
            .expect("the server exits within 10 s of SIGTERM")
            .expect("wait");
        assert!(status.success(), "{status}");
    });
}

async fn http_client(address: &str) -> Client {
    use rmcp::transport::StreamableHttpClientTransport;
    let transport = StreamableHttpClientTransport::from_uri(address.to_string());
    ().serve(transport).await.expect("MCP initialise over HTTP")
}
