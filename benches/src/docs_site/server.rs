//! A small static HTTP/1.1 server for the documentation trees Debian installs, on loopback.
//!
//! `GET` and `HEAD` only, one request per connection (`Connection: close`). A request path is
//! percent-decoded, refused if it has a `..` segment, mapped through the site's mounts, and
//! served only if the file it finally resolves to (symbolic links followed) lies under one of
//! the site's allowed roots. Directories serve their `index.html`. Pages whose source opens
//! with Hugo front matter (Bootstrap's examples) are rendered into full documents on the way
//! out ([`super::hugo`]). A client gets [`READ_TIMEOUT`] to send its request and
//! [`WRITE_TIMEOUT`] to take the response; a stalled one is dropped.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::hugo;

/// How long a client may take to send its request line and headers.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client may take to receive the response.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest request head accepted.
const MAX_HEAD: usize = 16 * 1024;

/// What the server serves: URL prefixes mapped onto directories, and the roots every served
/// file must resolve into.
#[derive(Debug, Clone)]
pub struct Site {
    mounts: Vec<(String, PathBuf)>,
    allowed: Vec<PathBuf>,
    year: i32,
}

/// A response before it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    fn error(status: u16) -> Response {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: format!("{status} {}\n", reason(status)).into_bytes(),
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Internal Server Error",
    }
}

impl Site {
    /// Debian's layout: `/usr/share/doc/…` as it is on disk (Python's documentation links
    /// its scripts into `/usr/share/javascript`), and `/_assets/bootstrap/…` onto
    /// `libjs-bootstrap5`'s `/usr/share/bootstrap-html/`.
    pub fn debian() -> Site {
        Site::new(
            vec![
                ("/usr/share/doc/".into(), PathBuf::from("/usr/share/doc")),
                (
                    "/_assets/bootstrap/".into(),
                    PathBuf::from("/usr/share/bootstrap-html"),
                ),
            ],
            vec![
                PathBuf::from("/usr/share/doc"),
                PathBuf::from("/usr/share/javascript"),
                PathBuf::from("/usr/share/bootstrap-html"),
            ],
        )
    }

    /// A site of `mounts` (URL prefix ending in `/` → directory); served files must resolve
    /// under one of `allowed` (roots that do not exist are ignored).
    pub fn new(mounts: Vec<(String, PathBuf)>, allowed: Vec<PathBuf>) -> Site {
        Site {
            mounts,
            allowed: allowed
                .iter()
                .filter_map(|root| root.canonicalize().ok())
                .collect(),
            year: current_year(),
        }
    }

    /// The file a request target (path, maybe with a query) is served from.
    pub fn resolve(&self, target: &str) -> Result<PathBuf, u16> {
        let path = target.split(['?', '#']).next().unwrap_or("");
        if !path.starts_with('/') {
            return Err(400);
        }
        let decoded = percent_decode(path).ok_or(400u16)?;
        if decoded.contains('\0') {
            return Err(400);
        }
        if decoded.split('/').any(|segment| segment == "..") {
            return Err(403);
        }
        let (prefix, dir) = self
            .mounts
            .iter()
            .find(|(prefix, _)| decoded.starts_with(prefix.as_str()))
            .ok_or(404u16)?;
        let relative = decoded[prefix.len()..].trim_start_matches('/');
        let mut file = dir.join(relative);
        if file.is_dir() {
            file = file.join("index.html");
        }
        let real = file.canonicalize().map_err(|_| 404u16)?;
        if !self.allowed.iter().any(|root| real.starts_with(root)) {
            return Err(403);
        }
        if !real.is_file() {
            return Err(404);
        }
        Ok(real)
    }

    /// The response to `GET target`.
    pub async fn respond(&self, target: &str) -> Response {
        let file = match self.resolve(target) {
            Ok(file) => file,
            Err(status) => return Response::error(status),
        };
        let body = match tokio::fs::read(&file).await {
            Ok(body) => body,
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                return Response::error(403)
            }
            Err(_) => return Response::error(404),
        };
        let content_type = content_type(&file);
        if content_type.starts_with("text/html") {
            if let Ok(source) = std::str::from_utf8(&body) {
                if hugo::is_hugo_source(source) {
                    let page = hugo::render_example(source, self.year);
                    return Response {
                        status: 200,
                        content_type,
                        body: page.html.into_bytes(),
                    };
                }
            }
        }
        Response {
            status: 200,
            content_type,
            body,
        }
    }
}

/// The Content-Type of a file, by its extension.
pub fn content_type(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "txt" | "md" | "rst" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        _ => "application/octet-stream",
    }
}

/// `%XX` decoding; `None` for a malformed escape or a result that is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The current year (UTC), for the examples' copyright lines.
pub fn current_year() -> i32 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut days = secs / 86_400;
    let mut year = 1970;
    loop {
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let length = if leap { 366 } else { 365 };
        if days < length {
            return year;
        }
        days -= length;
        year += 1;
    }
}

/// A running server; dropping it stops accepting connections.
pub struct DocsServer {
    addr: SocketAddr,
    accept: JoinHandle<()>,
}

impl DocsServer {
    /// Binds `127.0.0.1:port` (0: any free port) and serves `site` until dropped.
    pub async fn start(site: Site, port: u16) -> std::io::Result<DocsServer> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let site = Arc::new(site);
        let accept = tokio::spawn(async move {
            loop {
                match listener.accept().await {
                    Ok((stream, _)) => {
                        let site = Arc::clone(&site);
                        tokio::spawn(async move {
                            let _ = serve_connection(stream, &site).await;
                        });
                    }
                    // Out of file descriptors and the like: back off briefly.
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                }
            }
        });
        Ok(DocsServer { addr, accept })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL of `path` (which starts with `/`) on this server.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for DocsServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Reads one request head, answers it, closes.
async fn serve_connection(mut stream: TcpStream, site: &Site) -> std::io::Result<()> {
    let head = match tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream)).await {
        Ok(Ok(Some(head))) => head,
        Ok(Ok(None)) => {
            let response = Response::error(431);
            return write_response(&mut stream, &response, true).await;
        }
        // A stalled or broken client.
        Ok(Err(e)) => return Err(e),
        Err(_) => return Ok(()),
    };
    let head = String::from_utf8_lossy(&head);
    let mut parts = head.lines().next().unwrap_or("").split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let response = match method {
        "GET" | "HEAD" => site.respond(target).await,
        "" => Response::error(400),
        _ => Response::error(405),
    };
    write_response(&mut stream, &response, method != "HEAD").await
}

/// The request head (up to the blank line); `None` if it is too large. An early end of stream
/// is an error.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<Vec<u8>>> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let searched_from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf[searched_from..]
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
        {
            buf.truncate(searched_from + end);
            return Ok(Some(buf));
        }
        if buf.len() > MAX_HEAD {
            return Ok(None);
        }
    }
}

async fn write_response(
    stream: &mut TcpStream,
    response: &Response,
    with_body: bool,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    let write = async {
        stream.write_all(head.as_bytes()).await?;
        if with_body {
            stream.write_all(&response.body).await?;
        }
        stream.flush().await?;
        stream.shutdown().await
    };
    match tokio::time::timeout(WRITE_TIMEOUT, write).await {
        Ok(result) => result,
        Err(_) => Err(std::io::ErrorKind::TimedOut.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A site over a temporary tree: `<tmp>/root/{a.css,dir/index.html,page.html}` mounted at
    /// `/site/`, and `<tmp>/secret.txt` outside it with a link to it inside.
    fn temp_site() -> (PathBuf, Site) {
        let base = std::env::temp_dir().join(format!(
            "pagesight-docs-site-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let root = base.join("root");
        let _ = std::fs::create_dir_all(root.join("dir"));
        let _ = std::fs::write(root.join("a.css"), "body{}");
        let _ = std::fs::write(root.join("dir/index.html"), "<p>index</p>");
        let _ = std::fs::write(
            root.join("page.html"),
            "---\ntitle: T\n---\n<p>{{< year >}}</p>\n",
        );
        let _ = std::fs::write(base.join("secret.txt"), "secret");
        let _ = std::os::unix::fs::symlink(base.join("secret.txt"), root.join("link.txt"));
        let site = Site::new(vec![("/site/".into(), root.clone())], vec![root]);
        (base, site)
    }

    #[test]
    fn resolves_and_refuses() {
        let (base, site) = temp_site();
        assert!(site.resolve("/site/a.css").is_ok());
        assert!(site.resolve("/site/a.css?v=1").is_ok());
        assert!(site
            .resolve("/site/dir/")
            .is_ok_and(|p| p.ends_with("dir/index.html")));
        assert!(site.resolve("/site/%61.css").is_ok());
        assert_eq!(site.resolve("/site/../secret.txt"), Err(403));
        assert_eq!(site.resolve("/site/%2e%2e/secret.txt"), Err(403));
        assert_eq!(site.resolve("/site/dir/..%2f..%2fsecret.txt"), Err(403));
        assert_eq!(site.resolve("/site/link.txt"), Err(403));
        assert_eq!(site.resolve("/site/missing.css"), Err(404));
        assert_eq!(site.resolve("/elsewhere/a.css"), Err(404));
        assert_eq!(site.resolve("/site/%zz"), Err(400));
        assert_eq!(site.resolve("site/a.css"), Err(400));
        let _ = std::fs::remove_dir_all(base);
    }

    #[test]
    fn serves_over_http_and_drops_stalled_clients() {
        let (base, site) = temp_site();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        let Ok(runtime) = runtime else {
            panic!("no runtime");
        };
        runtime.block_on(async {
            let server = DocsServer::start(site, 0).await;
            let Ok(server) = server else {
                panic!("cannot bind");
            };
            let get = |request: &'static str| {
                let addr = server.addr();
                async move {
                    let mut stream = TcpStream::connect(addr).await.ok()?;
                    stream.write_all(request.as_bytes()).await.ok()?;
                    let mut out = Vec::new();
                    stream.read_to_end(&mut out).await.ok()?;
                    String::from_utf8(out).ok()
                }
            };
            // A client that connects and says nothing does not hold up the others.
            let _stalled = TcpStream::connect(server.addr()).await;
            let css = get("GET /site/a.css HTTP/1.1\r\nHost: x\r\n\r\n").await;
            let css = css.unwrap_or_default();
            assert!(css.starts_with("HTTP/1.1 200 OK\r\n"), "{css}");
            assert!(css.contains("Content-Type: text/css"));
            assert!(css.ends_with("body{}"));
            let page = get("GET /site/page.html HTTP/1.1\r\n\r\n").await;
            let page = page.unwrap_or_default();
            assert!(page.contains("<title>T · Bootstrap v5.2</title>"), "{page}");
            assert!(page.contains(&format!("<p>{}</p>", current_year())));
            let up = get("GET /site/../secret.txt HTTP/1.1\r\n\r\n").await;
            assert!(up.unwrap_or_default().starts_with("HTTP/1.1 403"));
            let post = get("POST /site/a.css HTTP/1.1\r\n\r\n").await;
            assert!(post.unwrap_or_default().starts_with("HTTP/1.1 405"));
            let head = get("HEAD /site/a.css HTTP/1.1\r\n\r\n").await;
            let head = head.unwrap_or_default();
            assert!(head.contains("Content-Length: 6\r\n") && head.ends_with("\r\n\r\n"));
        });
        let _ = std::fs::remove_dir_all(base);
    }
}
