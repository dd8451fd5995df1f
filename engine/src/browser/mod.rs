//! The browser: launching Chromium (or connecting to a running one) and opening pages.
//!
//! Why launched and connected browsers are one type: everything after the connection is the
//! same. The difference is ownership — a browser this program launched is killed (whole process
//! group) and its temporary profile removed on [`Browser::close`] or on drop; a browser it
//! connected to belongs to someone else and is only disconnected from.
//!
//! Launch uses `--remote-debugging-pipe` by default: no TCP port is opened, so nothing else on
//! the machine can drive the browser, and the browser's death is seen at once as EOF.

mod connect;
mod frames;
mod launch;
mod navigation;
mod page;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cdp::{browser as cdp_browser, target};
use crate::error::{Error, ErrorCode, Result};
use crate::transport::{Connection, ConnectionOptions};

pub use frames::FrameTarget;
pub use launch::{
    exit_on_signals_with_cleanup, find_chromium, kill_launched_browsers, PipeBrowser,
    CHROMIUM_FLAGS, CHROMIUM_NAMES,
};
pub use navigation::WaitUntil;
pub use page::{create_world, LoadOutcome, Page, HTTP_ERROR_PAGE};

pub(crate) use connect::{http_get, websocket_authority};

/// The size of the page area pagesight lays out, in CSS pixels, and the device pixel ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub width: u32,
    pub height: u32,
    pub device_scale_factor: f64,
}

impl Default for Viewport {
    /// 1280x800 at device pixel ratio 1 (docs/protocol.md).
    fn default() -> Self {
        Viewport {
            width: 1280,
            height: 800,
            device_scale_factor: 1.0,
        }
    }
}

/// How a launched browser is driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LaunchTransport {
    /// `--remote-debugging-pipe` (default): no port is opened.
    #[default]
    Pipe,
    /// `--remote-debugging-port=0`: a WebSocket on a free localhost port, which other tools
    /// can attach to as well (see [`Browser::websocket_url`]).
    WebSocket,
    /// Driven over the pipe, with a WebSocket for other tools as well. Why not the WebSocket
    /// alone when one is wanted: Chromium answers over it more slowly than over the pipe
    /// (python's `stdtypes`, default view: about 24 ms more per snapshot, and 1.3 ms more of
    /// the engine's CPU to read it), and on a small page it costs the engine a sixth more CPU.
    PipeAndWebSocket,
}

/// Options for [`Browser::launch`].
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// The Chromium executable; `None` looks at `CHROME`, then on `PATH`.
    pub executable: Option<PathBuf>,
    pub transport: LaunchTransport,
    /// The viewport of pages opened with [`Browser::new_page`].
    pub viewport: Viewport,
    /// How long Chromium may take to start answering. Default 30 s.
    pub launch_timeout: Duration,
    pub connection: ConnectionOptions,
    /// Run without a window (the default). A headed browser needs a display.
    pub headless: bool,
    /// Use and keep this profile folder instead of a fresh temporary one (which is removed
    /// when the browser closes).
    pub user_data_dir: Option<PathBuf>,
    /// More Chromium flags (`--proxy-server=…`), after pagesight's own.
    pub args: Vec<String>,
}

impl Default for LaunchOptions {
    fn default() -> Self {
        LaunchOptions {
            executable: None,
            transport: LaunchTransport::Pipe,
            viewport: Viewport::default(),
            launch_timeout: Duration::from_secs(30),
            connection: ConnectionOptions::default(),
            headless: true,
            user_data_dir: None,
            args: Vec::new(),
        }
    }
}

/// A page target as listed by [`Browser::pages`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageInfo {
    pub target_id: String,
    pub url: String,
    pub title: String,
    /// Whether some client (possibly this one) is attached to it.
    pub attached: bool,
}

/// A Chromium browser, launched by this program or connected to.
pub struct Browser {
    connection: Connection,
    /// Set for a launched browser; `None` for a connected one.
    process: Option<launch::BrowserProcess>,
    websocket_url: Option<String>,
    viewport: Viewport,
    /// A handle made by [`Browser::share`]: closing it leaves the connection open.
    shared: bool,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("pid", &self.pid())
            .field("websocket_url", &self.websocket_url)
            .field("viewport", &self.viewport)
            .finish()
    }
}

impl Browser {
    /// Launches a headless Chromium with a fresh temporary profile and waits until it answers.
    pub async fn launch(options: LaunchOptions) -> Result<Browser> {
        let executable = find_chromium(options.executable.as_deref())?;
        let flags = launch::LaunchFlags {
            headless: options.headless,
            user_data_dir: options.user_data_dir.clone(),
            args: options.args.clone(),
        };
        let (process, transport) = launch::spawn(executable, options.transport, &flags)?;
        // From here on, dropping `process` kills the browser and removes its profile.
        let listening = async |url| {
            let exited = process.exit.wait(options.launch_timeout);
            tokio::select! {
                url = tokio::time::timeout(options.launch_timeout, url) => match url {
                    Ok(Ok(url)) => Ok(url),
                    Ok(Err(_)) => Err(process.failure("Chromium closed stderr without printing its DevTools address")),
                    Err(_) => Err(process.failure("Chromium did not print its DevTools address in time")),
                },
                true = exited => Err(process.failure("Chromium exited during start-up")),
            }
        };
        let (connection, websocket_url) = match transport {
            launch::DebuggingTransport::Pipe {
                commands,
                replies,
                url,
            } => {
                let to_browser = tokio::net::unix::pipe::Sender::from_owned_fd(commands);
                let from_browser = tokio::net::unix::pipe::Receiver::from_owned_fd(replies);
                let connection = match (from_browser, to_browser) {
                    (Ok(reader), Ok(writer)) => {
                        Connection::over_pipe(reader, writer, options.connection.clone())
                    }
                    (Err(e), _) | (_, Err(e)) => {
                        return Err(process.failure(&format!("could not use the pipe: {e}")))
                    }
                };
                let url = match url {
                    Some(url) => Some(listening(url).await?),
                    None => None,
                };
                (connection, url)
            }
            launch::DebuggingTransport::WebSocket { url } => {
                let url = listening(url).await?;
                let connection =
                    Connection::connect_websocket(&url, options.connection.clone()).await?;
                (connection, Some(url))
            }
        };
        process.exit.close_on_exit(&connection);
        let browser = Browser {
            connection,
            process: Some(process),
            websocket_url,
            viewport: options.viewport,
            shared: false,
        };
        match browser
            .connection
            .send_with_timeout(
                None,
                &cdp_browser::GetVersionParams {},
                options.launch_timeout,
            )
            .await
        {
            Ok(_) => Ok(browser),
            Err(e) => {
                let error = match &browser.process {
                    Some(process) => process.failure(&format!(
                        "Chromium started but did not answer ({})",
                        e.message()
                    )),
                    None => e,
                };
                Err(error)
            }
        }
    }

    /// Connects to a running browser: `ws://host:port/devtools/browser/<id>`, or
    /// `http://host:port` (its `/json/version` names the WebSocket). The browser is never
    /// closed or killed by this program.
    pub async fn connect(endpoint: &str) -> Result<Browser> {
        Browser::connect_with(endpoint, ConnectionOptions::default()).await
    }

    /// [`Browser::connect`] with connection options.
    pub async fn connect_with(endpoint: &str, options: ConnectionOptions) -> Result<Browser> {
        let url = match connect::parse_endpoint(endpoint)? {
            connect::Endpoint::WebSocket(url) => url,
            connect::Endpoint::Http { authority } => connect::websocket_url(&authority).await?,
        };
        let connection = Connection::connect_websocket(&url, options).await?;
        Ok(Browser {
            connection,
            process: None,
            websocket_url: Some(url),
            viewport: Viewport::default(),
            shared: false,
        })
    }

    /// The browser-level connection (pages share it through their sessions).
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// The process id (also the process group id) of a launched browser.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.pid)
    }

    /// The temporary profile directory of a launched browser.
    pub fn profile_dir(&self) -> Option<&Path> {
        self.process.as_ref().and_then(|p| p.profile_dir())
    }

    /// The executable of a launched browser.
    pub fn executable(&self) -> Option<&Path> {
        self.process.as_ref().map(|p| p.executable.as_path())
    }

    /// The DevTools WebSocket URL, when the browser is driven over a WebSocket.
    pub fn websocket_url(&self) -> Option<&str> {
        self.websocket_url.as_deref()
    }

    /// The viewport given to pages opened by [`Browser::new_page`].
    pub fn default_viewport(&self) -> Viewport {
        self.viewport
    }

    /// `Browser.getVersion`.
    pub async fn version(&self) -> Result<cdp_browser::GetVersionReturns> {
        self.connection
            .send(None, &cdp_browser::GetVersionParams {})
            .await
    }

    /// Opens a new `about:blank` page with the default viewport.
    pub async fn new_page(&self) -> Result<Page> {
        self.new_page_with_viewport(self.viewport).await
    }

    /// Opens a new `about:blank` page with `viewport`.
    pub async fn new_page_with_viewport(&self, viewport: Viewport) -> Result<Page> {
        self.new_page_in(None, viewport).await
    }

    /// Opens a new `about:blank` page with `viewport` in browser context `context` (one made
    /// by [`Browser::new_context`]), or in the browser's default context.
    pub async fn new_page_in(&self, context: Option<&str>, viewport: Viewport) -> Result<Page> {
        let mut params = target::CreateTargetParams::new("about:blank".to_owned());
        params.browser_context_id = context.map(str::to_owned);
        let created = self.connection.send(None, &params).await?;
        Page::attach(&self.connection, &created.target_id, Some(viewport)).await
    }

    /// Creates a browser context: a profile of its own inside the browser (cookies, storage,
    /// cache), like an incognito window, so pages opened in it share nothing with pages of
    /// other contexts. Its id is for [`Browser::new_page_in`] and
    /// [`Browser::dispose_context`].
    pub async fn new_context(&self) -> Result<String> {
        let created = self
            .connection
            .send(None, &target::CreateBrowserContextParams::default())
            .await?;
        Ok(created.browser_context_id)
    }

    /// Disposes of a browser context made by [`Browser::new_context`], closing its pages
    /// (without their `beforeunload` handlers) and dropping its cookies and storage.
    pub async fn dispose_context(&self, context: &str) -> Result<()> {
        self.connection
            .send(
                None,
                &target::DisposeBrowserContextParams {
                    browser_context_id: context.to_owned(),
                },
            )
            .await?;
        Ok(())
    }

    /// Attaches to an existing page target (e.g. one listed by [`Browser::pages`]). Its
    /// viewport is left as it is.
    pub async fn attach_page(&self, target_id: &str) -> Result<Page> {
        Page::attach(&self.connection, target_id, None).await
    }

    /// The page targets of the browser, in Chromium's order.
    pub async fn pages(&self) -> Result<Vec<PageInfo>> {
        let targets = self
            .connection
            .send(None, &target::GetTargetsParams::default())
            .await?;
        Ok(targets
            .target_infos
            .into_iter()
            .filter(|t| t.type_ == "page")
            .map(|t| PageInfo {
                target_id: t.target_id,
                url: t.url,
                title: t.title,
                attached: t.attached,
            })
            .collect())
    }

    /// Another handle on this browser, over the same connection: for a second
    /// [`crate::session::Session`] driving other pages of it (the C ABI opens each page as a
    /// session of its own). Closing or dropping it closes neither the connection nor the
    /// browser; the handle it was made from does, and this one's calls then fail with
    /// `BROWSER_CLOSED`.
    pub fn share(&self) -> Browser {
        Browser {
            connection: self.connection.clone(),
            process: None,
            websocket_url: self.websocket_url.clone(),
            viewport: self.viewport,
            shared: true,
        }
    }

    /// Closes the browser. A launched browser gets `Browser.close`, a short grace period, then
    /// SIGKILL for its whole process group; it is reaped and its profile removed. A connected
    /// browser is only disconnected from; a handle made by [`Browser::share`] is only let go.
    pub async fn close(mut self) -> Result<()> {
        if self.shared {
            return Ok(());
        }
        let Some(mut process) = self.process.take() else {
            self.connection.close();
            return Ok(());
        };
        if !process.exit.has_exited() {
            let _ = self
                .connection
                .send_with_timeout(None, &cdp_browser::CloseParams {}, Duration::from_secs(2))
                .await;
            process.exit.wait(Duration::from_secs(3)).await;
        }
        self.connection.close();
        // Kills what is left of the group (helpers), reaps, removes the profile. The process is
        // already gone or dying, so this does not block for long.
        tokio::task::spawn_blocking(move || process.kill_and_clean())
            .await
            .map_err(|e| {
                Error::new(
                    ErrorCode::BrowserClosed,
                    format!("cleaning up the browser failed: {e}"),
                )
            })
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if self.process.is_some() {
            self.connection.close();
        }
        // `BrowserProcess::drop` kills the process group and removes the profile.
    }
}
