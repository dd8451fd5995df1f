//! `pagesight doctor`: can this machine run the engine, and does its Chromium speak every part of
//! the protocol the engine uses?
//!
//! Why it checks at two levels: `Schema.getDomains` (answered on a page session, not at the
//! browser level) tells which domains the running browser has, but not which commands. For the
//! commands the doctor reads the running browser's own protocol description (`/json/protocol`
//! of its debugging server), which is why the doctor's browser is driven over a WebSocket rather
//! than the pipe. The list of what the engine uses is [`REQUIRED_COMMANDS`], built from the
//! generated bindings' method names, so it cannot name a command the pinned protocol lacks.

use std::collections::BTreeSet;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::browser::{self, Browser, LaunchOptions, LaunchTransport};
use crate::cdp::{
    accessibility, browser as cdp_browser, dom, dom_snapshot, emulation, input, log, network, page,
    runtime, schema, target, Command,
};
use crate::error::Result;

/// Every CDP command the engine sends. Keep this the one list: add a command here when a module
/// starts using it, and `doctor` checks it against the running browser.
pub const REQUIRED_COMMANDS: &[&str] = &[
    // capture
    dom_snapshot::CaptureSnapshotParams::METHOD,
    accessibility::GetFullAXTreeParams::METHOD,
    accessibility::GetPartialAXTreeParams::METHOD,
    page::GetLayoutMetricsParams::METHOD,
    page::GetFrameTreeParams::METHOD,
    dom::GetDocumentParams::METHOD,
    dom::GetNodeForLocationParams::METHOD,
    dom::DescribeNodeParams::METHOD,
    // act
    input::DispatchMouseEventParams::METHOD,
    input::DispatchKeyEventParams::METHOD,
    input::InsertTextParams::METHOD,
    dom::ScrollIntoViewIfNeededParams::METHOD,
    dom::FocusParams::METHOD,
    dom::GetBoxModelParams::METHOD,
    dom::SetFileInputFilesParams::METHOD,
    dom::ResolveNodeParams::METHOD,
    runtime::CallFunctionOnParams::METHOD,
    page::HandleJavaScriptDialogParams::METHOD,
    // pages and navigation
    page::EnableParams::METHOD,
    page::SetLifecycleEventsEnabledParams::METHOD,
    page::NavigateParams::METHOD,
    page::ReloadParams::METHOD,
    page::GetNavigationHistoryParams::METHOD,
    page::NavigateToHistoryEntryParams::METHOD,
    emulation::SetDeviceMetricsOverrideParams::METHOD,
    target::CreateTargetParams::METHOD,
    target::AttachToTargetParams::METHOD,
    target::SetAutoAttachParams::METHOD,
    target::GetTargetsParams::METHOD,
    target::CloseTargetParams::METHOD,
    cdp_browser::GetVersionParams::METHOD,
    cdp_browser::CloseParams::METHOD,
    schema::GetDomainsParams::METHOD,
    // devtools (console and network records, when a session collects them)
    runtime::EnableParams::METHOD,
    log::EnableParams::METHOD,
    network::EnableParams::METHOD,
    network::GetResponseBodyParams::METHOD,
];

/// Domains that exist only at the browser level and are therefore not listed by
/// `Schema.getDomains` on a page session.
const BROWSER_LEVEL_DOMAINS: &[&str] = &["Browser", "Target", "Schema"];

/// The protocol version of the pinned `protocol.json` the bindings were generated from.
pub const PINNED_PROTOCOL_VERSION: (u32, u32) = pinned_version(include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../protocol.json"
)));

/// Reads `"version": {"major": "1", "minor": "3"}` at compile time.
const fn pinned_version(json: &[u8]) -> (u32, u32) {
    (
        number_after(json, b"\"major\""),
        number_after(json, b"\"minor\""),
    )
}

/// The first decimal number after the first occurrence of `key` (0 if none).
const fn number_after(json: &[u8], key: &[u8]) -> u32 {
    let mut i = 0;
    while i + key.len() <= json.len() {
        let mut j = 0;
        while j < key.len() && json[i + j] == key[j] {
            j += 1;
        }
        if j == key.len() {
            let mut k = i + key.len();
            while k < json.len() && !json[k].is_ascii_digit() {
                k += 1;
            }
            let mut value = 0u32;
            while k < json.len() && json[k].is_ascii_digit() {
                value = value * 10 + (json[k] - b'0') as u32;
                k += 1;
            }
            return value;
        }
        i += 1;
    }
    0
}

/// What to examine.
#[derive(Debug, Clone, Default)]
pub struct DoctorOptions {
    /// A running browser to examine (`ws://…` or `http://host:port`) instead of launching one.
    pub endpoint: Option<String>,
    /// The Chromium to launch; `None` looks at `CHROME`, then on `PATH`.
    pub executable: Option<PathBuf>,
}

/// Where the command-level check got the browser's command list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandSource {
    /// The running browser's `/json/protocol`.
    RunningBrowser,
    /// Not available (e.g. a `ws://` endpoint whose server does not serve it): only the
    /// domains were checked.
    Unavailable,
}

/// The result of [`doctor`].
#[derive(Debug, Clone)]
pub struct DoctorReport {
    /// The executable launched (`None` when an endpoint was given).
    pub executable: Option<PathBuf>,
    /// The endpoint examined (`None` when a browser was launched).
    pub endpoint: Option<String>,
    /// E.g. `Chrome/156.0.8078.108` (`Browser.getVersion`).
    pub product: String,
    /// The browser's user agent.
    pub user_agent: String,
    /// The V8 version.
    pub js_version: String,
    /// The protocol version the browser reports.
    pub browser_protocol_version: String,
    /// The protocol version the engine's bindings were generated from.
    pub pinned_protocol_version: String,
    /// Domains the engine uses that the browser does not list.
    pub missing_domains: Vec<String>,
    /// Commands the engine uses that the browser does not describe.
    pub missing_commands: Vec<String>,
    /// Where the browser's list of commands came from.
    pub commands_checked_against: CommandSource,
    /// How many domains and commands were checked.
    pub domains_checked: usize,
    /// How many commands were checked.
    pub commands_checked: usize,
}

impl DoctorReport {
    /// No missing domain or command.
    pub fn ok(&self) -> bool {
        self.missing_domains.is_empty() && self.missing_commands.is_empty()
    }
}

impl fmt::Display for DoctorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.executable, &self.endpoint) {
            (Some(path), _) => writeln!(f, "browser:          {}", path.display())?,
            (None, Some(endpoint)) => writeln!(f, "browser:          {endpoint}")?,
            (None, None) => {}
        }
        writeln!(
            f,
            "version:          {} (V8 {})",
            self.product, self.js_version
        )?;
        writeln!(f, "user agent:       {}", self.user_agent)?;
        writeln!(
            f,
            "protocol:         browser {}, pagesight pinned {}",
            self.browser_protocol_version, self.pinned_protocol_version
        )?;
        if self.missing_domains.is_empty() {
            writeln!(
                f,
                "domains:          all {} domains pagesight uses are available",
                self.domains_checked
            )?;
        } else {
            writeln!(
                f,
                "domains:          MISSING {}",
                self.missing_domains.join(", ")
            )?;
        }
        match self.commands_checked_against {
            CommandSource::RunningBrowser if self.missing_commands.is_empty() => writeln!(
                f,
                "commands:         all {} commands pagesight uses are available",
                self.commands_checked
            )?,
            CommandSource::RunningBrowser => writeln!(
                f,
                "commands:         MISSING {}",
                self.missing_commands.join(", ")
            )?,
            CommandSource::Unavailable => writeln!(
                f,
                "commands:         not checked (the browser does not serve /json/protocol)"
            )?,
        }
        if self.ok() {
            write!(f, "status:           OK")
        } else {
            write!(
                f,
                "status:           PROBLEMS: this Chromium lacks parts of the protocol pagesight \
                 uses; install a newer Chromium or point CHROME at one"
            )
        }
    }
}

/// Launches (or connects to) Chromium and checks it against what the engine needs.
pub async fn doctor(options: DoctorOptions) -> Result<DoctorReport> {
    let browser = match &options.endpoint {
        Some(endpoint) => Browser::connect(endpoint).await?,
        None => {
            Browser::launch(LaunchOptions {
                executable: options.executable.clone(),
                transport: LaunchTransport::WebSocket,
                ..LaunchOptions::default()
            })
            .await?
        }
    };
    let report = examine(&browser, &options).await;
    browser.close().await?;
    report
}

async fn examine(browser: &Browser, options: &DoctorOptions) -> Result<DoctorReport> {
    let version = browser.version().await?;
    let page = browser.new_page().await?;
    let domains = page.send(&schema::GetDomainsParams {}).await;
    let _ = page.clone().close().await;
    let domains = domains?;
    let available: BTreeSet<&str> = domains.domains.iter().map(|d| d.name.as_str()).collect();

    let missing_domains = missing_domains(&available);
    let (commands_checked_against, missing_commands) = match browser_commands(browser).await {
        Some(commands) => (CommandSource::RunningBrowser, missing_commands(&commands)),
        None => (CommandSource::Unavailable, Vec::new()),
    };

    let (major, minor) = PINNED_PROTOCOL_VERSION;
    Ok(DoctorReport {
        executable: browser.executable().map(|p| p.to_path_buf()),
        endpoint: options.endpoint.clone(),
        product: version.product,
        user_agent: version.user_agent,
        js_version: version.js_version,
        browser_protocol_version: version.protocol_version,
        pinned_protocol_version: format!("{major}.{minor}"),
        missing_domains,
        missing_commands,
        commands_checked_against,
        domains_checked: required_domains().len(),
        commands_checked: REQUIRED_COMMANDS.len(),
    })
}

/// The domains of [`REQUIRED_COMMANDS`].
fn required_domains() -> BTreeSet<&'static str> {
    REQUIRED_COMMANDS
        .iter()
        .filter_map(|c| c.split_once('.').map(|(domain, _)| domain))
        .collect()
}

/// Required domains a page session does not list (browser-level domains are not listed there).
fn missing_domains(available: &BTreeSet<&str>) -> Vec<String> {
    required_domains()
        .into_iter()
        .filter(|d| !BROWSER_LEVEL_DOMAINS.contains(d) && !available.contains(d))
        .map(str::to_owned)
        .collect()
}

/// Required commands the browser does not describe.
fn missing_commands(described: &BTreeSet<String>) -> Vec<String> {
    REQUIRED_COMMANDS
        .iter()
        .filter(|c| !described.contains(**c))
        .map(|c| c.to_string())
        .collect()
}

/// `Domain.command` for every command the running browser describes, if it serves
/// `/json/protocol`.
async fn browser_commands(browser: &Browser) -> Option<BTreeSet<String>> {
    #[derive(Deserialize)]
    struct Protocol {
        domains: Vec<Domain>,
    }
    #[derive(Deserialize)]
    struct Domain {
        domain: String,
        #[serde(default)]
        commands: Vec<Named>,
    }
    #[derive(Deserialize)]
    struct Named {
        name: String,
    }
    let authority = browser::websocket_authority(browser.websocket_url()?)?;
    let body = browser::http_get(authority, "/json/protocol", Duration::from_secs(10))
        .await
        .ok()?;
    let protocol: Protocol = serde_json::from_slice(&body).ok()?;
    Some(
        protocol
            .domains
            .into_iter()
            .flat_map(|d| {
                let domain = d.domain;
                d.commands
                    .into_iter()
                    .map(move |c| format!("{domain}.{}", c.name))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_version_is_read_at_compile_time() {
        assert_ne!(PINNED_PROTOCOL_VERSION, (0, 0));
        assert_eq!(
            pinned_version(br#"{"version": {"major": "12", "minor": "34"}, "domains": []}"#),
            (12, 34)
        );
    }

    #[test]
    fn missing_parts_are_reported() {
        let mut available: BTreeSet<&str> = required_domains();
        assert!(missing_domains(&available).is_empty());
        available.remove("DOMSnapshot");
        available.remove("Target"); // browser level: not listed on a page session
        assert_eq!(missing_domains(&available), vec!["DOMSnapshot".to_owned()]);

        let mut described: BTreeSet<String> =
            REQUIRED_COMMANDS.iter().map(|c| c.to_string()).collect();
        assert!(missing_commands(&described).is_empty());
        described.remove("Accessibility.getFullAXTree");
        assert_eq!(
            missing_commands(&described),
            vec!["Accessibility.getFullAXTree".to_owned()]
        );
    }

    #[test]
    fn required_commands_are_domain_dot_command() {
        for command in REQUIRED_COMMANDS {
            let (domain, name) = command.split_once('.').unwrap_or_default();
            assert!(!domain.is_empty() && !name.is_empty(), "{command}");
        }
    }
}
