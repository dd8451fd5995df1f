//! Turns the Hugo source of a Bootstrap example page (as Debian's `libjs-bootstrap5-doc`
//! installs it: YAML front matter, then the page body with Hugo shortcodes and template
//! actions) into the full HTML document the Bootstrap docs site serves for it.
//!
//! Only what the examples use is understood:
//! - front matter: `title`, `extra_css` (a list of hrefs), `extra_js` (a list of `src:` maps),
//!   `include_js`, `body_class`, `html_class`, `direction`;
//! - shortcodes: `placeholder` (an SVG image), `example` (a `bd-example` box; its markup
//!   listing is not shown), `param` (`docs_version`, `current_version`), `year`, `docsref`, and
//!   the `*.inline` wrappers, whose bodies are templates;
//! - template actions inside those bodies: `range (index $.Site.Data "theme-colors")`, `if`
//!   with `eq` / `or` / `and` / `not` on `.name`, `.name` and `.name | title`, with `{{-` / `-}}`
//!   whitespace trimming.
//!
//! Anything else between `{{` and `}}` is dropped, and counted in [`Rendered::unknown`].

/// The Bootstrap version the examples belong to, as the docs site's `docs_version` parameter.
pub const DOCS_VERSION: &str = "5.2";
/// The full version, the docs site's `current_version` parameter.
pub const CURRENT_VERSION: &str = "5.2.3";

/// Where the served page finds Bootstrap's stylesheet and script bundle.
pub const BOOTSTRAP_CSS_HREF: &str = "/_assets/bootstrap/css/bootstrap.min.css";
pub const BOOTSTRAP_JS_SRC: &str = "/_assets/bootstrap/js/bootstrap.bundle.min.js";

/// The docs site's `theme-colors` data, in its order.
const THEME_COLORS: &[&str] = &[
    "primary",
    "secondary",
    "success",
    "danger",
    "warning",
    "info",
    "light",
    "dark",
];

/// The style every example page carries for its placeholder images.
const PLACEHOLDER_STYLE: &str = ".bd-placeholder-img{font-size:1.125rem;text-anchor:middle;\
-webkit-user-select:none;user-select:none}\
@media (min-width:768px){.bd-placeholder-img-lg{font-size:3.5rem}}";

/// A script of `extra_js`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    pub src: String,
    pub integrity: Option<String>,
    pub is_async: bool,
}

/// The front matter of an example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatter {
    pub title: String,
    pub extra_css: Vec<String>,
    pub extra_js: Vec<Script>,
    pub include_js: bool,
    pub body_class: Option<String>,
    pub html_class: Option<String>,
    pub direction: Option<String>,
}

impl Default for FrontMatter {
    fn default() -> Self {
        FrontMatter {
            title: String::new(),
            extra_css: Vec::new(),
            extra_js: Vec::new(),
            include_js: true,
            body_class: None,
            html_class: None,
            direction: None,
        }
    }
}

/// A rendered page.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub html: String,
    /// Template actions and shortcodes that were not understood (and were dropped).
    pub unknown: Vec<String>,
}

/// Whether `source` looks like a Hugo page (it opens with front matter).
pub fn is_hugo_source(source: &str) -> bool {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    source.starts_with("---\n") || source.starts_with("---\r\n")
}

/// Renders an example page's Hugo source into a full HTML document. `year` fills the `year`
/// shortcode.
pub fn render_example(source: &str, year: i32) -> Rendered {
    let (front, body) = split_front_matter(source);
    let meta = parse_front_matter(front);
    let mut unknown = Vec::new();
    let body = expand_shortcodes(body, year, &mut unknown);
    let body = expand_template(&body, &mut unknown);
    Rendered {
        html: assemble(&meta, &body),
        unknown,
    }
}

/// Splits `---\n<front matter>\n---\n<body>`; a source without front matter is all body.
fn split_front_matter(source: &str) -> (&str, &str) {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    if !is_hugo_source(source) {
        return ("", source);
    }
    let after_open = match source.find('\n') {
        Some(i) => &source[i + 1..],
        None => return ("", ""),
    };
    let mut offset = 0;
    for line in after_open.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (&after_open[..offset], &after_open[offset + line.len()..]);
        }
        offset += line.len();
    }
    (after_open, "")
}

/// A YAML scalar: quotes removed (with `\"` and `\\` inside double quotes), comments dropped.
fn yaml_scalar(raw: &str) -> String {
    let raw = raw.trim();
    if let Some(inner) = raw.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                _ => out.push(c),
            }
        }
        return out;
    }
    if let Some(inner) = raw.strip_prefix('\'') {
        return inner.split('\'').next().unwrap_or("").to_string();
    }
    match raw.find(" #") {
        Some(i) => raw[..i].trim_end().to_string(),
        None => raw.to_string(),
    }
}

fn yaml_bool(raw: &str) -> Option<bool> {
    match yaml_scalar(raw).as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Reads the few front-matter keys the examples layout uses: top-level `key: value`, lists of
/// scalars (`extra_css`) and lists of one-level maps (`extra_js`).
pub fn parse_front_matter(front: &str) -> FrontMatter {
    let mut meta = FrontMatter::default();
    let mut list_key: Option<String> = None;
    for line in front.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('\t');
        let trimmed = line.trim();
        if !indented {
            list_key = None;
            let Some((key, value)) = trimmed.split_once(':') else {
                continue;
            };
            let key = key.trim();
            let value = value.trim();
            if value.is_empty() {
                list_key = Some(key.to_string());
                continue;
            }
            match key {
                "title" => meta.title = yaml_scalar(value),
                "include_js" => meta.include_js = yaml_bool(value).unwrap_or(true),
                "body_class" => meta.body_class = Some(yaml_scalar(value)),
                "html_class" => meta.html_class = Some(yaml_scalar(value)),
                "direction" => meta.direction = Some(yaml_scalar(value)),
                _ => {}
            }
            continue;
        }
        let Some(key) = list_key.as_deref() else {
            continue;
        };
        let (new_item, entry) = match trimmed.strip_prefix("- ") {
            Some(rest) => (true, rest.trim()),
            None => (false, trimmed),
        };
        match key {
            "extra_css" if new_item => meta.extra_css.push(yaml_scalar(entry)),
            "extra_js" => {
                if new_item {
                    meta.extra_js.push(Script::default());
                }
                let (Some(script), Some((field, value))) =
                    (meta.extra_js.last_mut(), entry.split_once(':'))
                else {
                    continue;
                };
                match field.trim() {
                    "src" => script.src = yaml_scalar(value),
                    "integrity" => script.integrity = Some(yaml_scalar(value)),
                    "async" => script.is_async = yaml_bool(value).unwrap_or(false),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    meta
}

/// Escapes text for an HTML attribute value or text content.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// Whether `url` points off this machine (the served pages stay offline).
fn is_remote(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("//")
}

/// The document around an example's body, like the docs site's examples layout.
fn assemble(meta: &FrontMatter, body: &str) -> String {
    let mut html = String::with_capacity(body.len() + 1024);
    html.push_str("<!doctype html>\n<html lang=\"en\"");
    if let Some(dir) = meta.direction.as_deref().filter(|d| !d.is_empty()) {
        html.push_str(&format!(" dir=\"{}\"", escape(dir)));
    }
    if let Some(class) = meta.html_class.as_deref().filter(|c| !c.is_empty()) {
        html.push_str(&format!(" class=\"{}\"", escape(class)));
    }
    html.push_str(">\n  <head>\n    <meta charset=\"utf-8\">\n");
    html.push_str("    <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    html.push_str(&format!(
        "    <title>{} · Bootstrap v{DOCS_VERSION}</title>\n",
        escape(&meta.title)
    ));
    html.push_str(&format!(
        "    <link href=\"{BOOTSTRAP_CSS_HREF}\" rel=\"stylesheet\">\n"
    ));
    for css in meta.extra_css.iter().filter(|c| !is_remote(c)) {
        html.push_str(&format!(
            "    <link href=\"{}\" rel=\"stylesheet\">\n",
            escape(css)
        ));
    }
    html.push_str(&format!(
        "    <style>{PLACEHOLDER_STYLE}</style>\n  </head>\n  <body"
    ));
    if let Some(class) = meta.body_class.as_deref().filter(|c| !c.is_empty()) {
        html.push_str(&format!(" class=\"{}\"", escape(class)));
    }
    html.push_str(">\n");
    html.push_str(body.trim_matches('\n'));
    html.push('\n');
    if meta.include_js {
        html.push_str(&format!(
            "    <script src=\"{BOOTSTRAP_JS_SRC}\"></script>\n"
        ));
    }
    // Remote scripts (charting and icon libraries from a CDN) are left out: the pages are
    // served offline, and a blocked fetch would only delay the load event.
    for script in meta
        .extra_js
        .iter()
        .filter(|s| !s.src.is_empty() && !is_remote(&s.src))
    {
        html.push_str(&format!("    <script src=\"{}\"", escape(&script.src)));
        if script.is_async {
            html.push_str(" async");
        }
        html.push_str("></script>\n");
    }
    html.push_str("  </body>\n</html>\n");
    html
}

/// The arguments of a shortcode: `key="value"` pairs and positional values, in order.
#[derive(Debug, Default)]
struct Args {
    named: Vec<(String, String)>,
    positional: Vec<String>,
}

impl Args {
    fn get(&self, key: &str) -> Option<&str> {
        self.named
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn parse(text: &str) -> Args {
        let mut args = Args::default();
        let mut rest = text.trim();
        while !rest.is_empty() {
            let (token, after) = take_token(rest);
            rest = after.trim_start();
            if let Some(eq) = token.find('=').filter(|_| !token.starts_with('"')) {
                let key = token[..eq].trim().to_string();
                let value_raw = token[eq + 1..].trim();
                args.named.push((key, unquote(value_raw)));
            } else {
                args.positional.push(unquote(token));
            }
        }
        args
    }
}

/// The next whitespace-separated token, with quoted stretches kept whole.
fn take_token(text: &str) -> (&str, &str) {
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '`' => quote = Some(c),
            None if c.is_whitespace() => return (&text[..i], &text[i..]),
            None => {}
        }
    }
    (text, "")
}

fn unquote(raw: &str) -> String {
    let raw = raw.trim();
    for q in ['"', '`'] {
        if raw.len() >= 2 && raw.starts_with(q) && raw.ends_with(q) {
            return raw[1..raw.len() - 1].to_string();
        }
    }
    raw.to_string()
}

/// Replaces the `{{< … >}}` / `{{% … %}}` shortcodes of the body.
fn expand_shortcodes(body: &str, year: i32, unknown: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(body.len() + body.len() / 4);
    let mut rest = body;
    loop {
        let next = [rest.find("{{<"), rest.find("{{%")]
            .into_iter()
            .flatten()
            .min();
        let Some(start) = next else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..start]);
        let close = if rest[start..].starts_with("{{<") {
            ">}}"
        } else {
            "%}}"
        };
        let inner_start = start + 3;
        let Some(len) = rest[inner_start..].find(close) else {
            // An unclosed shortcode: keep the text as it is.
            out.push_str(&rest[start..]);
            break;
        };
        let inner = rest[inner_start..inner_start + len].trim();
        rest = &rest[inner_start + len + close.len()..];
        out.push_str(&shortcode(inner, year, unknown));
    }
    out
}

/// One shortcode's output (`inner` is what is between the delimiters).
fn shortcode(inner: &str, year: i32, unknown: &mut Vec<String>) -> String {
    let (name, args) = match inner.find(char::is_whitespace) {
        Some(i) => (&inner[..i], Args::parse(&inner[i..])),
        None => (inner, Args::default()),
    };
    match name {
        "placeholder" => placeholder(&args),
        "example" => {
            let mut class = String::from("bd-example");
            if let Some(extra) = args.get("class").filter(|c| !c.is_empty()) {
                class.push(' ');
                class.push_str(extra);
            }
            format!("<div class=\"{}\">", escape(&class))
        }
        "/example" => "</div>".to_string(),
        "year" => year.to_string(),
        "param" => match args.positional.first().map(String::as_str) {
            Some("docs_version") => DOCS_VERSION.to_string(),
            Some("current_version") => CURRENT_VERSION.to_string(),
            _ => {
                unknown.push(format!("{{{{< {inner} >}}}}"));
                String::new()
            }
        },
        "docsref" => {
            let target = args.positional.first().map(String::as_str).unwrap_or("");
            let (path, fragment) = match target.split_once('#') {
                Some((p, f)) => (p, Some(f)),
                None => (target, None),
            };
            let path = path.trim_matches('/');
            let mut href = format!("/docs/{DOCS_VERSION}/");
            if !path.is_empty() {
                href.push_str(path);
                href.push('/');
            }
            if let Some(fragment) = fragment {
                href.push('#');
                href.push_str(fragment);
            }
            href
        }
        // The body of an inline shortcode is a template; it is expanded in the next pass.
        n if n.ends_with(".inline") => String::new(),
        _ => {
            unknown.push(format!("{{{{< {inner} >}}}}"));
            String::new()
        }
    }
}

/// The docs site's placeholder image: an SVG box with a title and a centred caption.
fn placeholder(args: &Args) -> String {
    let width = args.get("width").unwrap_or("100%");
    let height = args.get("height").unwrap_or("180");
    let title = args.get("title").unwrap_or("Placeholder");
    let text = args
        .get("text")
        .map(str::to_string)
        .unwrap_or_else(|| format!("{width}x{height}"));
    let background = args.get("background").unwrap_or("#868e96");
    let color = args.get("color").unwrap_or("#dee2e6");
    let show_title = title != "false";
    let show_text = text != "false";

    let mut class = String::from("bd-placeholder-img");
    if let Some(extra) = args.get("class").filter(|c| !c.is_empty()) {
        class.push(' ');
        class.push_str(extra);
    }
    let mut svg = format!(
        "<svg class=\"{}\" width=\"{}\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\"",
        escape(&class),
        escape(width),
        escape(height)
    );
    if show_title || show_text {
        let label = match (show_title, show_text) {
            (true, true) => format!("{title}: {text}"),
            (true, false) => title.to_string(),
            _ => text.clone(),
        };
        svg.push_str(&format!(" role=\"img\" aria-label=\"{}\"", escape(&label)));
    } else {
        svg.push_str(" aria-hidden=\"true\"");
    }
    svg.push_str(" preserveAspectRatio=\"xMidYMid slice\" focusable=\"false\">");
    if show_title {
        svg.push_str(&format!("<title>{}</title>", escape(title)));
    }
    svg.push_str(&format!(
        "<rect width=\"100%\" height=\"100%\" fill=\"{}\"/>",
        escape(background)
    ));
    if show_text {
        svg.push_str(&format!(
            "<text x=\"50%\" y=\"50%\" fill=\"{}\" dy=\".3em\">{}</text>",
            escape(color),
            escape(&text)
        ));
    }
    svg.push_str("</svg>");
    svg
}

/// A piece of a parsed template.
#[derive(Debug)]
enum Node {
    Text(String),
    /// `{{ expr }}`: a value.
    Value(String),
    /// `{{ range … }} … {{ end }}` over the theme colours (`None`: an unknown collection).
    Range(Option<&'static [&'static str]>, Vec<Node>),
    /// `{{ if cond }} … {{ else }} … {{ end }}`.
    If(String, Vec<Node>, Vec<Node>),
}

/// A lexed template piece: text, or an action with its trim markers.
enum Token<'a> {
    Text(&'a str),
    Action(&'a str),
}

/// Splits a template into text and actions, applying `{{-` / `-}}` trimming to the text.
fn lex(template: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut rest = template;
    let mut trim_next = false;
    loop {
        let Some(start) = rest.find("{{") else {
            let text = if trim_next { rest.trim_start() } else { rest };
            tokens.push(Token::Text(text));
            break;
        };
        let Some(len) = rest[start + 2..].find("}}") else {
            let text = if trim_next { rest.trim_start() } else { rest };
            tokens.push(Token::Text(text));
            break;
        };
        let mut text = &rest[..start];
        if trim_next {
            text = text.trim_start();
        }
        let mut action = &rest[start + 2..start + 2 + len];
        if let Some(a) = action.strip_prefix('-') {
            text = text.trim_end();
            action = a;
        }
        trim_next = false;
        if let Some(a) = action.strip_suffix('-') {
            trim_next = true;
            action = a;
        }
        tokens.push(Token::Text(text));
        tokens.push(Token::Action(action.trim()));
        rest = &rest[start + 2 + len + 2..];
    }
    tokens
}

/// Parses tokens up to an `end` (or `else`) at this level; returns the nodes and what ended them.
fn parse_nodes<'a, I>(tokens: &mut I, unknown: &mut Vec<String>) -> (Vec<Node>, &'static str)
where
    I: Iterator<Item = Token<'a>>,
{
    let mut nodes = Vec::new();
    while let Some(token) = tokens.next() {
        match token {
            Token::Text(text) => {
                if !text.is_empty() {
                    nodes.push(Node::Text(text.to_string()));
                }
            }
            Token::Action(action) => {
                if action == "end" {
                    return (nodes, "end");
                }
                if action == "else" {
                    return (nodes, "else");
                }
                if action.starts_with("/*") {
                    continue;
                }
                if let Some(what) = action.strip_prefix("range ") {
                    let collection = if what.contains("\"theme-colors\"") {
                        Some(THEME_COLORS)
                    } else {
                        unknown.push(format!("{{{{ {action} }}}}"));
                        None
                    };
                    let (body, _) = parse_nodes(tokens, unknown);
                    nodes.push(Node::Range(collection, body));
                } else if let Some(cond) = action.strip_prefix("if ") {
                    let (then, ended) = parse_nodes(tokens, unknown);
                    let otherwise = if ended == "else" {
                        parse_nodes(tokens, unknown).0
                    } else {
                        Vec::new()
                    };
                    nodes.push(Node::If(cond.trim().to_string(), then, otherwise));
                } else {
                    nodes.push(Node::Value(action.to_string()));
                }
            }
        }
    }
    (nodes, "")
}

/// `primary` -> `Primary`.
fn title_case(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A value expression: `.name`, `.name | title`, or a quoted string.
fn eval_value(expr: &str, name: Option<&str>) -> Option<String> {
    let mut parts = expr.split('|').map(str::trim);
    let head = parts.next()?;
    let mut value = if head == ".name" {
        name?.to_string()
    } else if head.len() >= 2 && head.starts_with('"') && head.ends_with('"') {
        head[1..head.len() - 1].to_string()
    } else {
        return None;
    };
    for filter in parts {
        value = match filter {
            "title" => title_case(&value),
            "lower" => value.to_lowercase(),
            "upper" => value.to_uppercase(),
            _ => return None,
        };
    }
    Some(value)
}

/// Splits `(a b) c "d"` into its top-level terms.
fn terms(expr: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut in_quote = false;
    let mut start: Option<usize> = None;
    for (i, c) in expr.char_indices() {
        if in_quote {
            if c == '"' {
                in_quote = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_quote = true;
                start.get_or_insert(i);
            }
            '(' => {
                depth += 1;
                start.get_or_insert(i);
            }
            ')' => depth = depth.saturating_sub(1),
            c if c.is_whitespace() && depth == 0 => {
                if let Some(s) = start.take() {
                    out.push(&expr[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        out.push(&expr[s..]);
    }
    out
}

/// A condition: `eq A B`, `ne A B`, `or …`, `and …`, `not X`, parenthesised terms, values.
fn eval_cond(expr: &str, name: Option<&str>) -> Option<bool> {
    let expr = expr.trim();
    if let Some(inner) = expr.strip_prefix('(').and_then(|e| e.strip_suffix(')')) {
        return eval_cond(inner, name);
    }
    let parts = terms(expr);
    let (&op, operands) = parts.split_first()?;
    match op {
        "eq" | "ne" => {
            let [a, b] = operands else { return None };
            let equal = eval_value(a, name)? == eval_value(b, name)?;
            Some(if op == "eq" { equal } else { !equal })
        }
        "or" => {
            let mut any = false;
            for operand in operands {
                any |= eval_cond(operand, name)?;
            }
            Some(any)
        }
        "and" => {
            let mut all = true;
            for operand in operands {
                all &= eval_cond(operand, name)?;
            }
            Some(all)
        }
        "not" => {
            let [a] = operands else { return None };
            Some(!eval_cond(a, name)?)
        }
        _ if operands.is_empty() => eval_value(op, name).map(|v| !v.is_empty()),
        _ => None,
    }
}

fn eval_nodes(nodes: &[Node], name: Option<&str>, out: &mut String, unknown: &mut Vec<String>) {
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Value(expr) => match eval_value(expr, name) {
                Some(value) => out.push_str(&value),
                None => unknown.push(format!("{{{{ {expr} }}}}")),
            },
            Node::Range(items, body) => {
                for item in items.unwrap_or(&[]) {
                    eval_nodes(body, Some(item), out, unknown);
                }
            }
            Node::If(cond, then, otherwise) => match eval_cond(cond, name) {
                Some(true) => eval_nodes(then, name, out, unknown),
                Some(false) => eval_nodes(otherwise, name, out, unknown),
                None => unknown.push(format!("{{{{ if {cond} }}}}")),
            },
        }
    }
}

/// Expands the `{{ … }}` template actions left after the shortcodes.
fn expand_template(body: &str, unknown: &mut Vec<String>) -> String {
    if !body.contains("{{") {
        return body.to_string();
    }
    let mut tokens = lex(body).into_iter();
    let mut nodes = Vec::new();
    loop {
        let (mut part, ended) = parse_nodes(&mut tokens, unknown);
        nodes.append(&mut part);
        if ended.is_empty() {
            break;
        }
        // A stray `end` / `else` at the top level.
        unknown.push(format!("{{{{ {ended} }}}}"));
    }
    let mut out = String::with_capacity(body.len() * 2);
    eval_nodes(&nodes, None, &mut out, unknown);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "---\nlayout: examples\ntitle: Checkout example\nextra_css:\n  - \"form-validation.css\"\nextra_js:\n  - src: \"form-validation.js\"\n  - src: \"https://cdn.example/x.js\"\n    integrity: \"sha384-abc\"\n    async: true\nbody_class: \"bg-light\"\nhtml_class: h-100\n---\n\n<img src=\"/docs/{{< param docs_version >}}/logo.svg\" alt=\"\">\n<a href=\"{{< docsref \"/components/navbar\" >}}\">docs</a>\n<p>&copy; {{< year >}}</p>\n";

    #[test]
    fn front_matter() {
        let (front, body) = split_front_matter(SOURCE);
        let meta = parse_front_matter(front);
        assert_eq!(meta.title, "Checkout example");
        assert_eq!(meta.extra_css, vec!["form-validation.css".to_string()]);
        assert_eq!(meta.extra_js.len(), 2);
        assert_eq!(meta.extra_js[0].src, "form-validation.js");
        assert!(meta.extra_js[1].is_async);
        assert_eq!(meta.extra_js[1].integrity.as_deref(), Some("sha384-abc"));
        assert!(meta.include_js);
        assert_eq!(meta.body_class.as_deref(), Some("bg-light"));
        assert_eq!(meta.html_class.as_deref(), Some("h-100"));
        assert!(body.starts_with("\n<img"));
        assert!(!parse_front_matter("include_js: false\n").include_js);
    }

    #[test]
    fn full_document() {
        let page = render_example(SOURCE, 2024);
        assert!(page.unknown.is_empty(), "{:?}", page.unknown);
        let html = page.html;
        assert!(html.starts_with("<!doctype html>\n<html lang=\"en\" class=\"h-100\">"));
        assert!(html.contains("<title>Checkout example · Bootstrap v5.2</title>"));
        assert!(html.contains("<link href=\"form-validation.css\" rel=\"stylesheet\">"));
        assert!(html.contains("<body class=\"bg-light\">"));
        assert!(html.contains("src=\"/docs/5.2/logo.svg\""));
        assert!(html.contains("href=\"/docs/5.2/components/navbar/\""));
        assert!(html.contains("&copy; 2024"));
        assert!(html.contains("<script src=\"form-validation.js\"></script>"));
        assert!(!html.contains("cdn.example"));
        let bundle = html.find(BOOTSTRAP_JS_SRC).unwrap_or(0);
        let extra = html.find("form-validation.js\"></script>").unwrap_or(0);
        assert!(bundle > 0 && bundle < extra);
    }

    #[test]
    fn placeholder_shortcode() {
        let mut unknown = Vec::new();
        let svg = expand_shortcodes(
            "{{< placeholder width=\"100%\" height=\"225\" background=\"#55595c\" class=\"card-img-top\" text=\"Thumbnail\" >}}",
            2024,
            &mut unknown,
        );
        assert!(svg.starts_with(
            "<svg class=\"bd-placeholder-img card-img-top\" width=\"100%\" height=\"225\""
        ));
        assert!(svg.contains("aria-label=\"Placeholder: Thumbnail\""));
        assert!(svg.contains("<title>Placeholder</title>"));
        assert!(svg.contains("fill=\"#55595c\""));
        assert!(svg.contains(">Thumbnail</text></svg>"));
        let hidden = expand_shortcodes(
            "{{< placeholder width=\"20\" height=\"20\" text=\"false\" title=\"false\" >}}",
            2024,
            &mut unknown,
        );
        assert!(hidden.contains("aria-hidden=\"true\""));
        assert!(!hidden.contains("<title>") && !hidden.contains("<text"));
        assert!(unknown.is_empty());
    }

    #[test]
    fn example_and_inline_templates() {
        let body = "{{< example show_markup=\"false\" class=\"tooltip-demo\" >}}\n{{< buttons.inline >}}\n{{- range (index $.Site.Data \"theme-colors\") }}\n<button class=\"btn btn-{{ .name }}\">{{ .name | title }}</button>\n{{- end -}}\n{{< /buttons.inline >}}\n<span class=\"{{ if or (eq .name \"light\") (eq .name \"warning\") }}text-{{ end }}x\"></span>\n{{< /example >}}";
        let mut unknown = Vec::new();
        let html = expand_template(&expand_shortcodes(body, 2024, &mut unknown), &mut unknown);
        assert!(html.starts_with("<div class=\"bd-example tooltip-demo\">"));
        assert!(html.contains("<button class=\"btn btn-primary\">Primary</button>\n<button class=\"btn btn-secondary\">Secondary</button>"));
        assert!(html.contains("<button class=\"btn btn-dark\">Dark</button>"));
        assert!(html.ends_with("</div>"));
        // `.name` outside a range is unknown: recorded, not printed.
        assert!(!unknown.is_empty());

        let mut unknown = Vec::new();
        let badges = expand_template(
            "{{- range (index $.Site.Data \"theme-colors\") }}<b class=\"{{ if or (eq .name \"light\") (eq .name \"warning\") (eq .name \"info\") }}text-{{ end }}bg-{{ .name }}\"></b>{{- end -}}",
            &mut unknown,
        );
        assert!(unknown.is_empty(), "{unknown:?}");
        assert!(badges.contains("<b class=\"bg-primary\"></b>"));
        assert!(badges.contains("<b class=\"text-bg-warning\"></b>"));
        assert!(badges.contains("<b class=\"text-bg-info\"></b>"));
    }

    #[test]
    fn every_installed_example_renders_cleanly() {
        let dir = std::path::Path::new("/usr/share/doc/libjs-bootstrap5/examples");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return; // libjs-bootstrap5-doc is not installed
        };
        for entry in entries.flatten() {
            let Ok(source) = std::fs::read_to_string(entry.path().join("index.html")) else {
                continue;
            };
            let page = render_example(&source, 2024);
            assert!(
                page.unknown.is_empty(),
                "{}: {:?}",
                entry.path().display(),
                page.unknown
            );
            assert!(!page.html.contains("{{"), "{}", entry.path().display());
        }
    }
}
