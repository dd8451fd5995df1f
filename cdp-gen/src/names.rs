//! Naming rules: how protocol names become Rust identifiers.
//!
//! Other crates write code against these names, so the rules are part of the public contract
//! and are kept small and predictable:
//!
//! * modules, cargo features and fields are `snake_case` with acronyms folded into one word
//!   (`DOMSnapshot` -> `dom_snapshot`, `backendDOMNodeId` -> `backend_dom_node_id`);
//! * type names are the protocol `id` verbatim; command and event names get their first letter
//!   upper-cased and nothing else changed (`getFullAXTree` -> `GetFullAXTree`);
//! * enum variants are the wire value in PascalCase, split at every non-alphanumeric character
//!   (`user-agent` -> `UserAgent`);
//! * anything that would be a Rust keyword (or the reserved `Unknown` variant) gets a trailing
//!   underscore (`type` -> `type_`, `Self` -> `Self_`).

/// Rust keywords (strict, reserved and the 2018+/2024 ones), which get a trailing `_`.
const KEYWORDS: &[&str] = &[
    "Self", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if",
    "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Appends `_` to Rust keywords, leaves everything else alone.
pub fn escape_keyword(ident: String) -> String {
    if KEYWORDS.contains(&ident.as_str()) {
        ident + "_"
    } else {
        ident
    }
}

/// `camelCase`/`PascalCase` with acronyms -> `snake_case`.
///
/// A word starts at an upper-case letter that follows a lower-case letter or a digit, and at the
/// last upper-case letter of an acronym that is followed by a lower-case letter (`DOMNode` ->
/// `dom_node`). Digits stay with the word before them. Non-alphanumeric characters separate words.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary && !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// Module (and cargo feature) name of a domain.
pub fn module_name(domain: &str) -> String {
    escape_keyword(snake_case(domain))
}

/// Rust field name of a wire property name.
pub fn field_name(wire: &str) -> String {
    escape_keyword(snake_case(wire))
}

/// Upper-cases the first character only: `getFullAXTree` -> `GetFullAXTree`.
pub fn upper_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// Enum variant name of a wire value: PascalCase of its alphanumeric runs.
///
/// Runs are joined directly except digit-to-digit joins, which keep a `_` so `ctap2_0` does not
/// read as `Ctap20`. An empty value becomes `Empty`, a leading digit gets a `V` prefix, keywords
/// and the reserved fallback name `Unknown` get a trailing `_`.
pub fn variant_name(wire: &str) -> String {
    let mut out = String::with_capacity(wire.len());
    for part in wire.split(|c: char| !c.is_ascii_alphanumeric()) {
        if part.is_empty() {
            continue;
        }
        let starts_digit = part.starts_with(|c: char| c.is_ascii_digit());
        if starts_digit && out.ends_with(|c: char| c.is_ascii_digit()) {
            out.push('_');
        }
        out.push_str(&upper_first(part));
    }
    if out.is_empty() {
        out.push_str("Empty");
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    if out == "Unknown" {
        out.push('_');
    }
    escape_keyword(out)
}

/// Whether `ident` is usable as a Rust identifier as generated (ASCII only).
pub fn is_valid_ident(ident: &str) -> bool {
    let mut chars = ident.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    ident != "_" && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_folds_acronyms() {
        for (input, expected) in [
            ("DOMSnapshot", "dom_snapshot"),
            ("DOM", "dom"),
            ("CSS", "css"),
            ("IO", "io"),
            ("IndexedDB", "indexed_db"),
            ("DOMDebugger", "dom_debugger"),
            ("LayerTree", "layer_tree"),
            ("PWA", "pwa"),
            ("FedCm", "fed_cm"),
            ("WebAudio", "web_audio"),
            ("backendDOMNodeId", "backend_dom_node_id"),
            ("nodeId", "node_id"),
            ("documentURL", "document_url"),
            ("scrollOffsetX", "scroll_offset_x"),
            ("isClickable", "is_clickable"),
            ("paintOrders", "paint_orders"),
            ("IPAddress", "ip_address"),
            ("type", "type"),
        ] {
            assert_eq!(snake_case(input), expected, "{input}");
        }
        assert_eq!(field_name("type"), "type_");
        assert_eq!(field_name("override"), "override_");
    }

    #[test]
    fn variants() {
        assert_eq!(variant_name("computedString"), "ComputedString");
        assert_eq!(variant_name("user-agent"), "UserAgent");
        assert_eq!(variant_name("ctap2_0"), "Ctap2_0");
        assert_eq!(variant_name("2d"), "V2d");
        assert_eq!(variant_name(""), "Empty");
        assert_eq!(variant_name("self"), "Self_");
        assert_eq!(variant_name("unknown"), "Unknown_");
        assert_eq!(
            variant_name("RenderFrameHostReused_CrossSite"),
            "RenderFrameHostReusedCrossSite"
        );
    }
}
