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
    let mut command = Command::new(env!("CARGO_BIN_EXE_pagesight"));
    command.arg("mcp").current_dir(root());
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
        let color = uid_of(&snapshot, "combobox \"Color\"");
        let search = uid_of(&snapshot, "textbox \"Search\"");

        ok(
            &client,
            "fill",
            json!({"uid": name, "value": "Grace Hopper"}),
        )
        .await;
        ok(&client, "fill", json!({"uid": color, "value": "Green"})).await;
        ok(&client, "click", json!({"uid": agree})).await;
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

        let pages = ok(&client, "list_pages", json!({})).await;
        assert!(pages.contains("clicks.html"), "{pages}");
        client.cancel().await.expect("close the client");
    });
}

/// `tools/list` as a golden file: a change to the public surface is a visible diff, and the
/// whole list stays well under chrome-devtools-mcp's (30,801 characters of JSON for 1.11).
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
        assert!(
            compact.len() < 30_801 / 2,
            "the tool list takes {} characters",
            compact.len()
        );
        let mut pretty = serde_json::to_string_pretty(&listed).expect("JSON");
        pretty.push('\n');
        let golden = root().join("cli/tests/goldens/mcp-tools.json");
        if std::env::var_os("PAGESIGHT_UPDATE_GOLDENS").is_some() {
            std::fs::create_dir_all(golden.parent().expect("a folder")).expect("mkdir");
            std::fs::write(&golden, &pretty).expect("write the golden");
        }
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

        let client = http_client(&address).await;
        let url = fixture_url("fixtures/pages/actions/clicks.html");
        ok(&client, "navigate_page", json!({"url": url})).await;
        let snapshot = ok(&client, "take_snapshot", json!({})).await;
        assert!(snapshot.contains("RootWebArea"), "{snapshot}");
        client.cancel().await.expect("close the client");

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
