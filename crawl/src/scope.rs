//! Which URLs are the same page, and which links a crawl follows.
//!
//! Two addresses are one page when they differ only in what the `url` crate's parsing already
//! evens out (the scheme's and host's case, a default port, an empty path, percent-encoding
//! of characters that need none) or in their `#fragment`, which names a place in a page and
//! never a page. Query strings are kept as written: their order can matter to the server.

use url::Url;

/// The key a crawl deduplicates URLs by: the URL parsed, without its fragment; `None` for
/// text that is not an absolute URL.
pub fn normalize(url: &str) -> Option<String> {
    let mut parsed = Url::parse(url.trim()).ok()?;
    parsed.set_fragment(None);
    Some(parsed.into())
}

/// What a crawl opens for a URL or local file as given (`docs/a.html`: its `file://` URL),
/// and the normalised form it is known by; an error when it is neither.
pub(crate) fn address_of(given: &str) -> Result<(String, String), String> {
    let address = pagesight::session::normalize_url(given).map_err(|e| e.message().to_owned())?;
    match normalize(&address) {
        Some(key) => Ok((address, key)),
        None => Err(format!("{given} is not a URL a page can be opened at")),
    }
}

/// Which links of a page a crawl follows, relative to the seed the page was reached from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Follow {
    /// Links on the same site: the same registrable domain (`docs.example.com` and
    /// `www.example.com` are one site, by the public suffix list), any scheme or port. A host
    /// given as an IP address or without a dot (`localhost`) is a site of its own.
    SameSite,
    /// Links with the seed's scheme, host and port.
    SameOrigin,
    /// Links whose URL starts with this text.
    Prefix(String),
}

impl Follow {
    /// `same-site`, `same-origin`, or a URL prefix (`https://example.com/docs/`).
    pub fn parse(text: &str) -> Result<Follow, String> {
        match text {
            "same-site" => Ok(Follow::SameSite),
            "same-origin" => Ok(Follow::SameOrigin),
            prefix if Url::parse(prefix).is_ok() => Ok(Follow::Prefix(prefix.to_string())),
            other => Err(format!(
                "--follow takes same-site, same-origin or an absolute URL prefix \
                 (https://example.com/docs/), not {other:?}"
            )),
        }
    }

    /// Whether a link to `url` (normalised) found on a page reached from `seed` is followed.
    /// Only `http:`, `https:` and `file:` pages are crawled.
    pub fn allows(&self, seed: &Url, url: &str) -> bool {
        let Ok(link) = Url::parse(url) else {
            return false;
        };
        if !matches!(link.scheme(), "http" | "https" | "file") {
            return false;
        }
        match self {
            Follow::SameOrigin => link.origin() == seed.origin() && same_file_tree(seed, &link),
            Follow::SameSite => match (site(seed), site(&link)) {
                (Some(a), Some(b)) => a == b,
                // file: URLs have no host: the same scheme is the same "site".
                (None, None) => seed.scheme() == link.scheme(),
                _ => false,
            },
            Follow::Prefix(prefix) => url.starts_with(prefix.as_str()),
        }
    }
}

/// `file:` URLs all have the same opaque origin in the `url` crate; among them, one origin
/// is taken as "the same folder tree as the seed".
fn same_file_tree(seed: &Url, link: &Url) -> bool {
    if seed.scheme() != "file" {
        return true;
    }
    let folder = seed.path().rsplit_once('/').map_or("", |(dir, _)| dir);
    link.scheme() == "file" && link.path().starts_with(folder)
}

/// The registrable domain of a URL's host (`example.co.uk` for `www.example.co.uk`), the host
/// itself for an IP address or a name with no registrable domain (`localhost`).
fn site(url: &Url) -> Option<String> {
    let host = url.host_str()?.to_ascii_lowercase();
    if matches!(url.host(), Some(url::Host::Ipv4(_) | url::Host::Ipv6(_))) {
        return Some(host);
    }
    let registrable = psl::domain_str(&host).map(str::to_owned);
    Some(registrable.unwrap_or(host))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).expect("a test URL")
    }

    #[test]
    fn normalising_evens_out_what_names_the_same_page() {
        assert_eq!(
            normalize("HTTP://Example.COM:80/a?b=1#top").as_deref(),
            Some("http://example.com/a?b=1")
        );
        assert_eq!(
            normalize("https://example.com").as_deref(),
            Some("https://example.com/")
        );
        assert_eq!(
            normalize("https://example.com/?b=2&a=1").as_deref(),
            Some("https://example.com/?b=2&a=1"),
            "query order is the server's business"
        );
        assert_eq!(normalize("not a url"), None);
        assert_eq!(normalize("/relative/path"), None);
    }

    #[test]
    fn same_site_spans_subdomains_but_not_other_sites() {
        let seed = url("https://www.example.co.uk/start");
        let follow = Follow::SameSite;
        assert!(follow.allows(&seed, "https://docs.example.co.uk/x"));
        assert!(follow.allows(&seed, "http://example.co.uk/"));
        assert!(!follow.allows(&seed, "https://other.co.uk/"));
        assert!(!follow.allows(&seed, "mailto:a@example.co.uk"));
        let local = url("http://127.0.0.1:8000/");
        assert!(follow.allows(&local, "http://127.0.0.1:9000/x"));
        assert!(!follow.allows(&local, "http://127.0.0.2:8000/x"));
    }

    #[test]
    fn same_origin_needs_scheme_host_and_port() {
        let seed = url("http://127.0.0.1:8000/a/");
        let follow = Follow::SameOrigin;
        assert!(follow.allows(&seed, "http://127.0.0.1:8000/b"));
        assert!(!follow.allows(&seed, "http://127.0.0.1:8001/b"));
        assert!(!follow.allows(&seed, "https://127.0.0.1:8000/b"));
    }

    #[test]
    fn a_prefix_is_matched_as_text() {
        let seed = url("https://example.com/docs/");
        let follow = Follow::parse("https://example.com/docs/").expect("a prefix");
        assert!(follow.allows(&seed, "https://example.com/docs/a"));
        assert!(!follow.allows(&seed, "https://example.com/blog/a"));
        assert!(Follow::parse("docs").is_err());
    }
}
