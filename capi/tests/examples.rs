//! The examples are tests: the C programs in examples/c are compiled with the system C
//! compiler against the checked-in header and the library this test was built with, run, and
//! run again under valgrind (when installed); the ctypes module in examples/python is run with
//! the system python3.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("capi/ is inside the workspace")
        .to_path_buf()
}

/// The directory with `libpagesight.so` and `libpagesight.a`: cargo builds the library next to
/// this test executable (`target/<profile>/deps`) before running it.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe
        .parent()
        .expect("the test executable is in a directory")
        .to_path_buf();
    for lib in ["libpagesight.so", "libpagesight.a"] {
        assert!(
            dir.join(lib).is_file(),
            "{lib} is not in {}; build it with `cargo build -p pagesight-capi`",
            dir.display()
        );
    }
    dir
}

/// A scratch directory of this test process: concurrent test runs must not overwrite (or run)
/// each other's executables.
fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("capi-examples-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory in the target dir");
    dir
}

fn has(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn show(what: &str, output: &Output) -> String {
    format!(
        "{what}: {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Compiles `examples/c/<name>.c`: against the shared library, or the static one.
fn compile(name: &str, link_static: bool) -> PathBuf {
    let lib = library_dir();
    let exe = out_dir().join(if link_static {
        format!("{name}-static")
    } else {
        name.to_string()
    });
    let mut cc = Command::new("cc");
    cc.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-g", "-I"])
        .arg(root().join("capi/include"))
        .arg(root().join("examples/c").join(format!("{name}.c")))
        .arg("-o")
        .arg(&exe);
    if link_static {
        cc.arg(lib.join("libpagesight.a"))
            .args(["-lpthread", "-ldl", "-lm"]);
    } else {
        cc.arg("-L")
            .arg(&lib)
            .arg("-lpagesight")
            .arg(format!("-Wl,-rpath,{}", lib.display()));
    }
    let output = cc.output().expect("the system C compiler `cc` runs");
    assert!(
        output.status.success(),
        "{}",
        show(&format!("compiling {name}.c"), &output)
    );
    exe
}

/// Removes an example built by [`compile`] (and the scratch directory once it is empty).
fn clean(exe: &Path) {
    let _ = std::fs::remove_file(exe);
    let _ = std::fs::remove_dir(out_dir());
}

fn run(exe: &Path, args: &[&Path]) -> Output {
    Command::new(exe)
        .args(args)
        .output()
        .expect("the example runs")
}

/// Runs the example under valgrind: no definite leaks, no invalid accesses. Chromium is a
/// separate process that valgrind does not follow.
fn valgrind(exe: &Path, args: &[&Path]) -> Option<String> {
    if !has("valgrind") {
        println!(
            "SKIPPED: valgrind is not installed, so {} was not checked for leaks \
             (scripts/setup.sh installs it)",
            exe.display()
        );
        return None;
    }
    let output = Command::new("valgrind")
        .args([
            "--leak-check=full",
            "--errors-for-leak-kinds=definite",
            "--error-exitcode=99",
            "--trace-children=no",
        ])
        .arg(exe)
        .args(args)
        .output()
        .expect("valgrind runs");
    let report = show(&format!("valgrind {}", exe.display()), &output);
    assert!(output.status.success(), "{report}");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let summary: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("ERROR SUMMARY") || l.contains("definitely lost"))
        .collect();
    println!("{}: {}", exe.display(), summary.join(" | "));
    Some(stderr)
}

fn check_snapshot_output(output: &Output) {
    assert!(output.status.success(), "{}", show("snapshot", output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("uid=1_0 RootWebArea \"Forms: values set by script\""),
        "{}",
        show("snapshot", output)
    );
    assert!(stdout.contains(" textbox "), "{}", show("snapshot", output));
    assert!(stdout.contains("pages: "), "{}", show("snapshot", output));
}

fn check_offline_output(output: &Output) {
    assert!(output.status.success(), "{}", show("offline", output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("uid=1_0 RootWebArea \"Checkout example"),
        "{}",
        show("offline", output)
    );
    assert!(stdout.contains("heading \"Checkout form\""));
    assert!(stdout.contains(&format!("pagesight {}", env!("CARGO_PKG_VERSION"))));
}

#[test]
fn c_snapshot_example() {
    let exe = compile("snapshot", false);
    let page = root().join("fixtures/pages/forms.html");
    check_snapshot_output(&run(&exe, &[&page]));
    if let Some(report) = valgrind(&exe, &[&page]) {
        assert!(report.contains("ERROR SUMMARY: 0 errors"), "{report}");
    }
    clean(&exe);
}

#[test]
fn c_offline_example_shared_and_static() {
    let capture = root().join("fixtures/captures/checkout.json.gz");
    for link_static in [false, true] {
        let exe = compile("offline", link_static);
        check_offline_output(&run(&exe, &[&capture]));
        if let Some(report) = valgrind(&exe, &[&capture]) {
            assert!(report.contains("ERROR SUMMARY: 0 errors"), "{report}");
            assert!(
                report.contains("All heap blocks were freed")
                    || report.contains("definitely lost: 0 bytes"),
                "{report}"
            );
        }
        clean(&exe);
    }
}

#[test]
fn python_ctypes_example() {
    if !has("python3") {
        println!("SKIPPED: python3 is not installed, so the ctypes example was not run");
        return;
    }
    let script = root().join("examples/python/pagesight.py");
    let lib = library_dir().join("libpagesight.so");
    let python = |args: &[&Path]| {
        Command::new("python3")
            .arg(&script)
            .args(args)
            .env("PAGESIGHT_LIB", &lib)
            .output()
            .expect("python3 runs")
    };
    let offline = python(&[
        Path::new("offline"),
        &root().join("fixtures/captures/checkout.json.gz"),
    ]);
    check_offline_output(&offline);
    let snapshot = python(&[
        Path::new("snapshot"),
        &root().join("fixtures/pages/forms.html"),
    ]);
    check_snapshot_output(&snapshot);
}
