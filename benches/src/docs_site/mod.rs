//! The real pages recorded into `fixtures/captures/`: where Debian installs them, a loopback
//! server for those documentation trees ([`server`]), and the renderer of Bootstrap's example
//! sources ([`hugo`]). `pagesight-bench record-captures` drives them.

pub mod hugo;
pub mod server;

/// A Debian package a recorded page comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    pub name: &'static str,
    /// A file the package installs, to tell whether it is there.
    pub marker: &'static str,
}

/// Python's documentation.
pub const PYTHON_DOC: Package = Package {
    name: "python3.11-doc",
    marker: "/usr/share/doc/python3.11-doc/html/index.html",
};
/// Bootstrap's documentation, with the example pages (Hugo sources).
pub const BOOTSTRAP_DOC: Package = Package {
    name: "libjs-bootstrap5-doc",
    marker: "/usr/share/doc/libjs-bootstrap5/examples/checkout/index.html",
};
/// Bootstrap's CSS and JS, which the examples load.
pub const BOOTSTRAP: Package = Package {
    name: "libjs-bootstrap5",
    marker: "/usr/share/bootstrap-html/css/bootstrap.min.css",
};

/// A real page to record.
#[derive(Debug, Clone, Copy)]
pub struct RealPage {
    /// The capture's name: `fixtures/captures/<name>.json.gz`.
    pub name: &'static str,
    /// Its path on the docs server, which is also where Debian installs its source.
    pub path: &'static str,
    /// What it is, for the listing.
    pub kind: &'static str,
    pub packages: &'static [Package],
}

const PY: &[Package] = &[PYTHON_DOC];
const BS: &[Package] = &[BOOTSTRAP_DOC, BOOTSTRAP];

macro_rules! bootstrap_example {
    ($name:literal, $kind:literal) => {
        RealPage {
            name: $name,
            path: concat!(
                "/usr/share/doc/libjs-bootstrap5/examples/",
                $name,
                "/index.html"
            ),
            kind: $kind,
            packages: BS,
        }
    };
}

/// Every recorded real page.
pub const REAL_PAGES: &[RealPage] = &[
    RealPage {
        name: "stdtypes",
        path: "/usr/share/doc/python3.11-doc/html/library/stdtypes.html",
        kind: "long reference page",
        packages: PY,
    },
    RealPage {
        name: "python-index",
        path: "/usr/share/doc/python3.11-doc/html/index.html",
        kind: "documentation home: link tables, search box",
        packages: PY,
    },
    RealPage {
        name: "python-tutorial",
        path: "/usr/share/doc/python3.11-doc/html/tutorial/index.html",
        kind: "table of contents: deeply nested link lists, sidebar",
        packages: PY,
    },
    bootstrap_example!("cheatsheet", "every component on one page"),
    bootstrap_example!("checkout", "long form with validation"),
    bootstrap_example!("dashboard", "admin dashboard: sidebar, table"),
    bootstrap_example!("dropdowns", "dropdown menus"),
    bootstrap_example!("modals", "modal dialogs"),
    bootstrap_example!("sign-in", "login form, floating labels"),
    bootstrap_example!("album", "card grid"),
    bootstrap_example!("pricing", "pricing cards, comparison table"),
    bootstrap_example!("sidebars", "sidebar navigation variants, collapsible menus"),
    bootstrap_example!(
        "headers",
        "header and navigation bar variants, search fields"
    ),
    bootstrap_example!(
        "offcanvas-navbar",
        "navbar with an off-canvas menu, activity feed"
    ),
];

/// The page of a name.
pub fn real_page(name: &str) -> Option<&'static RealPage> {
    REAL_PAGES.iter().find(|page| page.name == name)
}

/// The packages `pages` need that are not installed, each once.
pub fn missing_packages(pages: &[&RealPage]) -> Vec<&'static str> {
    let mut missing: Vec<&'static str> = Vec::new();
    for page in pages {
        for package in page.packages {
            if !std::path::Path::new(package.marker).exists() && !missing.contains(&package.name) {
                missing.push(package.name);
            }
        }
    }
    missing
}
