//! Golden tests of the renderers over the recorded captures in `fixtures/captures/`.
//!
//! Each capture is rendered in a11y and dom text and compared with
//! `fixtures/golden/<capture>.a11y.txt` / `.dom.txt`. Set `PAGESIGHT_BLESS=1` to (re)write the
//! goldens after a deliberate change, then read the diff: the goldens are what a model reads.
//! JSON is checked structurally on every node (it is not stored: it would only repeat the text
//! goldens with numbers).

use std::path::{Path, PathBuf};
use std::time::Instant;

use pagesight::analysis::{analyze, Analysis, AnalysisOptions};
use pagesight::capture::Capture;
use pagesight::identity::{assign_uids, Uid, UidAssignment, UidTable};
use pagesight::model::Model;
use pagesight::render::{render, Format, Mode, RenderOptions};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

fn captures() -> Vec<(String, PathBuf)> {
    let dir = root().join("fixtures/captures");
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter_map(|p| {
                    let name = p
                        .file_name()?
                        .to_str()?
                        .strip_suffix(".json.gz")?
                        .to_string();
                    Some((name, p))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The uids of a page's first snapshot.
fn first_uids(model: &Model) -> UidAssignment {
    assign_uids(model, &mut UidTable::new(), "page")
}

fn load(path: &Path) -> (Model, Analysis) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let capture = Capture::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let model = Model::from_capture(capture).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let analysis = analyze(&model, &AnalysisOptions::default());
    (model, analysis)
}

const MAX_GOLDEN_BYTES: usize = 100 * 1024;

fn check_golden(name: &str, kind: &str, got: &str) {
    let path = root().join(format!("fixtures/golden/{name}.{kind}.txt"));
    assert!(
        got.len() <= MAX_GOLDEN_BYTES,
        "{name}.{kind}: {} bytes, over the golden cap",
        got.len()
    );
    if std::env::var_os("PAGESIGHT_BLESS").is_some_and(|v| v == "1") {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        }
        std::fs::write(&path, got).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with PAGESIGHT_BLESS=1 to create it)",
            path.display()
        )
    });
    if want != got {
        let first = want
            .lines()
            .zip(got.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| want.lines().count().min(got.lines().count()));
        panic!(
            "{name}.{kind} differs from its golden at line {}:\n want: {:?}\n  got: {:?}\n\
             (PAGESIGHT_BLESS=1 rewrites the goldens; review the diff)",
            first + 1,
            want.lines().nth(first),
            got.lines().nth(first)
        );
    }
}

/// Every a11y line is `  …uid=<a>_<b> <role>…`.
fn check_a11y_lines(name: &str, text: &str) {
    for line in text.lines() {
        let body = line.trim_start_matches(' ');
        assert_eq!(
            (line.len() - body.len()) % 2,
            0,
            "{name}: odd indent: {line:?}"
        );
        let rest = body
            .strip_prefix("uid=")
            .unwrap_or_else(|| panic!("{name}: not a node line: {line:?}"));
        let uid = rest.split(' ').next().unwrap_or("");
        assert!(
            uid.parse::<Uid>().is_ok(),
            "{name}: bad uid {uid:?} in {line:?}"
        );
    }
}

/// Every dom line is an element, free text, or one of the three markers.
fn check_dom_lines(name: &str, text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 3, "{name}: too short");
    assert!(lines[0].starts_with("... ") && lines[0].ends_with(" - scroll to see more ..."));
    assert_eq!(lines[1], "[Start of page]");
    assert_eq!(lines[lines.len() - 1], "[End of page]");
    for line in &lines[2..lines.len() - 1] {
        let body = line.trim_start_matches('\t');
        if body.starts_with('[') || body.starts_with("*[") {
            let b = body.trim_start_matches('*');
            let close = b.find("]<").unwrap_or_else(|| panic!("{name}: {line:?}"));
            assert!(b[1..close].parse::<Uid>().is_ok(), "{name}: {line:?}");
            assert!(b.ends_with(" />"), "{name}: unterminated {line:?}");
        } else {
            assert_eq!(
                body.len(),
                line.len(),
                "{name}: indented free text {line:?}"
            );
        }
    }
}

fn check_json_node(name: &str, v: &serde_json::Value) -> usize {
    let o = v
        .as_object()
        .unwrap_or_else(|| panic!("{name}: node is not an object"));
    for key in [
        "uid",
        "backendNodeId",
        "frameId",
        "role",
        "name",
        "tag",
        "interactive",
        "visible",
        "inViewport",
        "occluded",
        "coveredBy",
        "bounds",
        "clickPoint",
        "new",
        "attributes",
        "children",
    ] {
        assert!(o.contains_key(key), "{name}: node without {key}: {v}");
    }
    assert!(
        o["uid"].as_str().is_some_and(|u| u.parse::<Uid>().is_ok()),
        "{name}: uid {v}"
    );
    assert!(o["role"].is_string() && o["name"].is_string());
    assert!(o["tag"].is_string() || o["tag"].is_null());
    for b in ["interactive", "visible", "inViewport", "occluded", "new"] {
        assert!(o[b].is_boolean(), "{name}: {b} not a bool");
    }
    assert!(o["coveredBy"].is_string() || o["coveredBy"].is_null());
    assert!(o["attributes"].is_object());
    if let Some(b) = o["bounds"].as_object() {
        for k in ["x", "y", "width", "height"] {
            assert!(b.contains_key(k), "{name}: bounds without {k}");
        }
    } else {
        assert!(o["bounds"].is_null());
    }
    if let Some(p) = o["clickPoint"].as_object() {
        assert!(p.contains_key("x") && p.contains_key("y"));
    } else {
        assert!(o["clickPoint"].is_null());
    }
    let mut count = 1;
    for c in o["children"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: children"))
    {
        count += check_json_node(name, c);
    }
    count
}

fn check_json(name: &str, model: &Model, analysis: &Analysis, uids: &UidAssignment, mode: Mode) {
    let opts = RenderOptions {
        mode,
        format: Format::Json,
        ..RenderOptions::default()
    };
    let json = render(model, analysis, uids, &opts);
    let v: serde_json::Value = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("{name} {mode:?}: invalid JSON: {e}"));
    for key in ["url", "title", "snapshot", "consistent", "viewport", "root"] {
        assert!(v.get(key).is_some(), "{name}: no {key}");
    }
    for key in [
        "width",
        "height",
        "scrollX",
        "scrollY",
        "contentWidth",
        "contentHeight",
        "devicePixelRatio",
    ] {
        assert!(
            v["viewport"].get(key).is_some(),
            "{name}: viewport without {key}"
        );
    }
    let nodes = check_json_node(name, &v["root"]);
    // The JSON tree holds exactly the nodes the text mode prints.
    let text = render(
        model,
        analysis,
        uids,
        &RenderOptions {
            mode,
            ..RenderOptions::default()
        },
    );
    let printed = match mode {
        Mode::A11y => text.lines().count(),
        Mode::Dom => {
            1 + text
                .lines()
                .filter(|l| {
                    let b = l.trim_start_matches('\t');
                    b.starts_with('[') && !b.starts_with("[Start") && !b.starts_with("[End")
                        || b.starts_with("*[")
                })
                .count()
        }
    };
    assert_eq!(nodes, printed, "{name} {mode:?}: JSON nodes vs text lines");
}

#[test]
fn goldens() {
    let caps = captures();
    assert!(!caps.is_empty(), "no captures found");
    for (name, path) in caps {
        let (model, analysis) = load(&path);
        let uids = first_uids(&model);
        let a11y = render(&model, &analysis, &uids, &RenderOptions::default());
        let dom = render(
            &model,
            &analysis,
            &uids,
            &RenderOptions {
                mode: Mode::Dom,
                ..RenderOptions::default()
            },
        );
        check_a11y_lines(&name, &a11y);
        check_dom_lines(&name, &dom);
        check_golden(&name, "a11y", &a11y);
        check_golden(&name, "dom", &dom);
        check_json(&name, &model, &analysis, &uids, Mode::A11y);
        check_json(&name, &model, &analysis, &uids, Mode::Dom);
    }
}

/// The a11y view of the largest capture renders in a few milliseconds (release); in a debug
/// build the budget is generous, the number is printed for whoever looks.
#[test]
fn stdtypes_render_time() {
    let path = root().join("fixtures/captures/stdtypes.json.gz");
    if !path.exists() {
        return;
    }
    let (model, analysis) = load(&path);
    let uids = first_uids(&model);
    let opts = RenderOptions::default();
    let runs = 10;
    let mut per = std::time::Duration::ZERO;
    for (label, mode, format) in [
        ("a11y text", Mode::A11y, Format::Text),
        ("dom text", Mode::Dom, Format::Text),
        ("a11y json", Mode::A11y, Format::Json),
        ("dom json", Mode::Dom, Format::Json),
    ] {
        let o = RenderOptions {
            mode,
            format,
            ..opts
        };
        let _ = render(&model, &analysis, &uids, &o);
        // The fastest of a few runs: the machine may be busy with other work.
        let mut t = std::time::Duration::MAX;
        let mut len = 0;
        for _ in 0..runs {
            let start = Instant::now();
            len = render(&model, &analysis, &uids, &o).len();
            t = t.min(start.elapsed());
        }
        eprintln!("stdtypes {label}: {t:?} (fastest of {runs}; {len} bytes)");
        if mode == Mode::A11y && format == Format::Text {
            per = t;
        }
    }
    assert!(per.as_millis() < 500, "a11y render took {per:?}");
}

fn load_with(path: &Path, options: AnalysisOptions) -> (Model, Analysis) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let capture = Capture::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let model = Model::from_capture(capture).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let analysis = analyze(&model, &options);
    (model, analysis)
}

/// With the whole page expanded, the checkout form reads as a person sees it: every field with
/// its label, the choices, the submit button.
#[test]
fn checkout_whole_page() {
    let path = root().join("fixtures/captures/checkout.json.gz");
    let (model, analysis) = load_with(
        &path,
        AnalysisOptions {
            expand: pagesight::analysis::Expand::All,
        },
    );
    let uids = first_uids(&model);
    let a11y = render(&model, &analysis, &uids, &RenderOptions::default());
    let dom = render(
        &model,
        &analysis,
        &uids,
        &RenderOptions {
            mode: Mode::Dom,
            ..RenderOptions::default()
        },
    );
    check_a11y_lines("checkout", &a11y);
    check_dom_lines("checkout", &dom);
    for want in [
        "textbox \"First name\" required",
        "combobox \"Country\"",
        "checkbox \"Shipping address is the same as my billing address\"",
        "radio \"Credit card\" checked",
        "textbox \"Name on card\" required",
        "button \"Continue to checkout\"",
    ] {
        assert!(a11y.contains(want), "a11y view lacks {want:?}:\n{a11y}");
    }
    for want in [
        "First name\n[",
        "<select",
        "Country",
        "<input type=checkbox",
        "<button type=submit>Continue to checkout />",
    ] {
        assert!(dom.contains(want), "dom view lacks {want:?}:\n{dom}");
    }
}

/// Verbose mode prints more, in the same line format, on every capture.
#[test]
fn verbose_on_captures() {
    for (name, path) in captures() {
        let (model, analysis) = load(&path);
        let uids = first_uids(&model);
        let plain = render(&model, &analysis, &uids, &RenderOptions::default());
        let verbose = render(
            &model,
            &analysis,
            &uids,
            &RenderOptions {
                verbose: true,
                ..RenderOptions::default()
            },
        );
        check_a11y_lines(&name, &verbose);
        assert!(
            verbose.lines().count() >= plain.lines().count(),
            "{name}: verbose prints less"
        );
    }
}
