//! Resolving a link or image address against its document's base URL.
//!
//! Why here: markdown taken out of a page must stand on its own, so every link and image is
//! written with an absolute URL. The engine has no URL crate and needs only RFC 3986's
//! reference resolution (scheme, authority, path with dot segments, query, fragment), so it is
//! written out in a few lines rather than pulled in.

/// The base URL links of `id`'s document resolve against: its `<base href>`, else the
/// document's URL.
pub(crate) fn base_of(model: &crate::model::Model, id: crate::model::NodeId) -> &str {
    let d = model.doc(model.node(id).doc);
    model
        .opt_str(d.base_url)
        .or_else(|| model.opt_str(d.url))
        .unwrap_or(&model.url)
}

/// `href` resolved against `base`; `None` for an empty reference or a `javascript:` one (which
/// is not a place to go).
pub(crate) fn resolve(base: &str, href: &str) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    if let Some(scheme) = scheme_of(href) {
        if scheme.eq_ignore_ascii_case("javascript") {
            return None;
        }
        return Some(href.to_string());
    }
    let Some(base_scheme) = scheme_of(base) else {
        return Some(href.to_string());
    };
    let rest = &base[base_scheme.len() + 1..];
    // Split the base into authority, path and query (its fragment is dropped).
    let rest = rest.split('#').next().unwrap_or("");
    let (authority, after) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find(['/', '?']).unwrap_or(r.len());
            (Some(&r[..end]), &r[end..])
        }
        None => (None, rest),
    };
    let (path, query) = match after.find('?') {
        Some(q) => (&after[..q], Some(&after[q..])),
        None => (after, None),
    };
    let prefix = match authority {
        Some(a) => format!("{base_scheme}://{a}"),
        None => format!("{base_scheme}:"),
    };
    if let Some(r) = href.strip_prefix("//") {
        return Some(format!("{base_scheme}://{r}"));
    }
    if href.starts_with('#') {
        return Some(format!("{prefix}{path}{}{href}", query.unwrap_or("")));
    }
    if href.starts_with('?') {
        return Some(format!("{prefix}{path}{href}"));
    }
    let (ref_path, tail) = match href.find(['?', '#']) {
        Some(i) => (&href[..i], &href[i..]),
        None => (href, ""),
    };
    let merged = if ref_path.starts_with('/') {
        ref_path.to_string()
    } else {
        let dir = match path.rfind('/') {
            Some(i) => &path[..=i],
            None if authority.is_some() => "/",
            None => "",
        };
        format!("{dir}{ref_path}")
    };
    Some(format!("{prefix}{}{tail}", remove_dot_segments(&merged)))
}

/// The scheme of an absolute URL (`https` of `https://…`), if it has one.
fn scheme_of(url: &str) -> Option<&str> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// RFC 3986 section 5.2.4, on a path made of `/`-separated segments.
fn remove_dot_segments(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len().saturating_sub(1);
    let mut trailing_slash = false;
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => trailing_slash = i == last,
            ".." => {
                if out.len() > usize::from(absolute) {
                    out.pop();
                }
                trailing_slash = i == last;
            }
            s => {
                out.push(s);
                trailing_slash = false;
            }
        }
    }
    let mut joined = out.join("/");
    if absolute && !joined.starts_with('/') {
        joined.insert(0, '/');
    }
    if trailing_slash && !joined.ends_with('/') {
        joined.push('/');
    }
    joined
}

/// A URL as it may stand inside markdown's `(…)`: spaces, parentheses and angle brackets
/// percent-encoded, so that no address can end the link early or open HTML.
pub(crate) fn for_markdown(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '\n' | '\r' | '\t' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_resolve_as_rfc_3986_says() {
        let base = "http://a/b/c/d;p?q";
        for (href, want) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("g#s", "http://a/b/c/g#s"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../../g", "http://a/g"),
            ("https://x.test/y", "https://x.test/y"),
        ] {
            assert_eq!(resolve(base, href).as_deref(), Some(want), "{href}");
        }
        assert_eq!(resolve(base, "javascript:void(0)"), None);
        assert_eq!(resolve(base, "  "), None);
        assert_eq!(
            resolve("file:///home/ada/pages/a.html", "img/x.png").as_deref(),
            Some("file:///home/ada/pages/img/x.png")
        );
    }

    #[test]
    fn urls_cannot_end_a_markdown_link() {
        assert_eq!(for_markdown("http://x/a b)(c"), "http://x/a%20b%29%28c");
    }
}
