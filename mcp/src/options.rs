//! The server's command-line options, named as chrome-devtools-mcp names them, so an agent
//! host's configuration can swap one server for the other without renaming anything.

use std::path::PathBuf;

use clap::Args;
use pagesight::transport::ConnectionOptions;
use pagesight::{AllowedFolders, Browser, Error, LaunchOptions, Viewport};

/// Which browser the server drives, and how it is started.
#[derive(Args, Debug, Clone, Default)]
pub struct BrowserOptions {
    /// Connect to a running browser at http://host:port (its DevTools HTTP endpoint).
    #[arg(
        short = 'u',
        long = "browserUrl",
        alias = "browser-url",
        value_name = "URL"
    )]
    pub browser_url: Option<String>,
    /// Connect to a running browser's DevTools WebSocket (ws://…).
    #[arg(
        short = 'w',
        long = "wsEndpoint",
        alias = "ws-endpoint",
        value_name = "URL",
        conflicts_with = "browser_url"
    )]
    pub ws_endpoint: Option<String>,
    /// Headers for the WebSocket handshake, as a JSON object ({"Authorization":"Bearer …"}).
    #[arg(long = "wsHeaders", alias = "ws-headers", value_name = "JSON")]
    pub ws_headers: Option<String>,
    /// Run the launched browser without a window (the default; `--headless=false` for a window).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1,
          default_missing_value = "true", value_name = "BOOL")]
    pub headless: bool,
    /// The Chromium to launch (default: the `CHROME` variable, else chromium or Chrome on PATH).
    #[arg(
        long = "executablePath",
        alias = "executable-path",
        value_name = "PATH"
    )]
    pub executable_path: Option<PathBuf>,
    /// Launch with a fresh temporary profile, removed afterwards (the default; a given
    /// `--userDataDir` turns it off).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1,
          default_missing_value = "true", value_name = "BOOL")]
    pub isolated: bool,
    /// Launch with this profile folder, and keep it.
    #[arg(long = "userDataDir", alias = "user-data-dir", value_name = "DIR")]
    pub user_data_dir: Option<PathBuf>,
    /// The viewport of pages, as WIDTHxHEIGHT in CSS px (default 1280x800).
    #[arg(long, value_name = "WxH", value_parser = parse_viewport)]
    pub viewport: Option<(u32, u32)>,
    /// One more Chromium flag for the launched browser (repeatable).
    #[arg(
        long = "chromeArg",
        alias = "chrome-arg",
        value_name = "FLAG",
        allow_hyphen_values = true
    )]
    pub chrome_arg: Vec<String>,
    /// Accept invalid TLS certificates (self-signed test servers).
    #[arg(long = "acceptInsecureCerts", alias = "accept-insecure-certs")]
    pub accept_insecure_certs: bool,
    /// Send the launched browser's traffic through this proxy (`http://host:port`,
    /// `socks5://host:port`).
    #[arg(long = "proxyServer", alias = "proxy-server", value_name = "URL")]
    pub proxy_server: Option<String>,
    /// Let `evaluate_script` run the caller's JavaScript in pages (off: it is refused).
    #[arg(long = "allowEvaluate", alias = "allow-evaluate")]
    pub allow_evaluate: bool,
    /// One more folder whose files tools may read (`upload_file`) and write (`filePath`),
    /// besides the current directory and the temporary folder (repeatable).
    #[arg(long = "allow-dir", alias = "allowDir", value_name = "DIR")]
    pub allow_dir: Vec<PathBuf>,
}

/// Parses `WIDTHxHEIGHT`.
pub fn parse_viewport(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected WIDTHxHEIGHT in CSS px, like 1280x800, not {text:?}");
    let (w, h) = text.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=10_000).contains(&w) || !(1..=10_000).contains(&h) {
        return Err(format!(
            "the viewport {w}x{h} is out of range (1 to 10000 px each way)"
        ));
    }
    Ok((w, h))
}

impl BrowserOptions {
    /// The viewport of pages the server opens.
    pub fn viewport(&self) -> Viewport {
        let mut viewport = Viewport::default();
        if let Some((width, height)) = self.viewport {
            viewport.width = width;
            viewport.height = height;
        }
        viewport
    }

    /// The folders tools may read and write files in: the current directory, the temporary
    /// folder and every `--allow-dir` (each must exist).
    pub fn allowed_folders(&self) -> Result<AllowedFolders, Error> {
        AllowedFolders::with_defaults(&self.allow_dir)
    }

    /// Connects to the browser these options name, or launches one over a pipe (no debugging
    /// port is opened).
    pub async fn start(&self) -> Result<Browser, Error> {
        if let Some(endpoint) = self.ws_endpoint.as_ref().or(self.browser_url.as_ref()) {
            let connection = ConnectionOptions {
                headers: self.headers()?,
                ..ConnectionOptions::default()
            };
            return Browser::connect_with(endpoint, connection).await;
        }
        if self.ws_headers.is_some() {
            return Err(Error::invalid_argument(
                "--wsHeaders only applies with --wsEndpoint or --browserUrl",
            ));
        }
        let mut args = self.chrome_arg.clone();
        if self.accept_insecure_certs {
            args.push("--ignore-certificate-errors".into());
        }
        if let Some(proxy) = &self.proxy_server {
            args.push(format!("--proxy-server={proxy}"));
        }
        if !self.isolated && self.user_data_dir.is_none() {
            return Err(Error::invalid_argument(
                "--isolated=false needs a profile to keep: give it with --userDataDir DIR",
            ));
        }
        Browser::launch(LaunchOptions {
            executable: self.executable_path.clone(),
            viewport: self.viewport(),
            headless: self.headless,
            user_data_dir: self.user_data_dir.clone(),
            args,
            ..LaunchOptions::default()
        })
        .await
    }

    fn headers(&self) -> Result<Vec<(String, String)>, Error> {
        let Some(text) = &self.ws_headers else {
            return Ok(Vec::new());
        };
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|e| {
                Error::invalid_argument(format!(
                    "--wsHeaders must be a JSON object of header names to strings \
                     ({{\"Authorization\":\"Bearer …\"}}): {e}"
                ))
            })?;
        map.into_iter()
            .map(|(name, value)| match value {
                serde_json::Value::String(v) => Ok((name, v)),
                other => Err(Error::invalid_argument(format!(
                    "--wsHeaders: the value of {name} must be a string, not {other}"
                ))),
            })
            .collect()
    }
}
