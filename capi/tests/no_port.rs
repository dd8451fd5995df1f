//! A browser launched through the C ABI listens on no TCP port unless asked to: anyone on the
//! machine who reaches a DevTools port can drive the browser, its pages, cookies and files.
//!
//! The check looks at the kernel's own tables, not at what the library says: every listening
//! TCP socket (`/proc/net/tcp`, `/proc/net/tcp6`) is matched by inode against the open files of
//! the browser's processes (its pid, its process group, and their descendants).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::c_char;
use std::path::PathBuf;
use std::ptr;
use std::time::{Duration, Instant};

use pagesight::pagesight_result::*;
mod common;
use common::{browser_error, c, page_error, take};
use pagesight::*;

const PAGE: &str = "data:text/html,<title>port</title><button>Press</button>";

/// Launches with `options` as the options JSON (NULL for `None`).
fn launch(options: Option<&str>) -> *mut pagesight_browser {
    let options = options.map(c);
    let options = options.as_ref().map_or(ptr::null(), |o| o.as_ptr());
    let mut browser = ptr::null_mut();
    let mut error = ptr::null_mut();
    // SAFETY: NULL or a valid string, valid out-params.
    let rc = unsafe { pagesight_browser_launch(options, &mut browser, &mut error) };
    let message = if error.is_null() {
        String::new()
    } else {
        take(error)
    };
    assert_eq!(rc, PAGESIGHT_OK, "launch: {message}");
    browser
}

/// Opens `PAGE` and takes a snapshot of it, so every process the page needs is running.
fn open_and_snapshot(browser: *mut pagesight_browser) -> *mut pagesight_page {
    let url = c(PAGE);
    let mut page = ptr::null_mut();
    // SAFETY: live browser, valid string and out-param.
    let rc = unsafe { pagesight_page_open(browser, url.as_ptr(), &mut page) };
    assert_eq!(rc, PAGESIGHT_OK, "open: {}", browser_error(browser));
    let mut out = ptr::null_mut();
    // SAFETY: live page, NULL options (defaults), valid out-param.
    let rc =
        unsafe { pagesight_page_snapshot(page, ptr::null(), ptr::null(), ptr::null(), &mut out) };
    assert_eq!(rc, PAGESIGHT_OK, "snapshot: {}", page_error(page));
    assert!(take(out).contains("Press"));
    page
}

fn browser_pid(browser: *const pagesight_browser) -> u32 {
    let mut pid = 0;
    // SAFETY: live browser, valid out-param.
    let rc = unsafe { pagesight_browser_pid(browser, &mut pid) };
    assert_eq!(rc, PAGESIGHT_OK, "{}", browser_error(browser));
    assert!(pid > 1);
    pid
}

/// A process as `/proc/<pid>/stat` tells it: parent, process group, state.
struct Stat {
    ppid: u32,
    pgrp: u32,
    state: char,
}

fn stat(pid: u32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold anything: read after its last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(Stat { ppid, pgrp, state })
}

/// Every process now running, by pid.
fn all_processes() -> BTreeMap<u32, Stat> {
    std::fs::read_dir("/proc")
        .expect("/proc is readable")
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect()
}

/// The browser's processes: `pid`, the members of its process group (it leads one), and every
/// descendant of either (a helper that left the group is still found through its parent).
fn browser_processes(pid: u32) -> BTreeSet<u32> {
    let all = all_processes();
    let mut found: BTreeSet<u32> = all
        .iter()
        .filter(|(p, s)| **p == pid || s.pgrp == pid)
        .map(|(p, _)| *p)
        .collect();
    loop {
        let more: Vec<u32> = all
            .iter()
            .filter(|(p, s)| !found.contains(p) && found.contains(&s.ppid))
            .map(|(p, _)| *p)
            .collect();
        if more.is_empty() {
            return found;
        }
        found.extend(more);
    }
}

/// The inodes of the sockets `pid` has open.
fn socket_inodes(pid: u32) -> BTreeSet<u64> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return BTreeSet::new();
    };
    fds.filter_map(|fd| {
        let target = std::fs::read_link(fd.ok()?.path()).ok()?;
        let target = target.to_str()?;
        target
            .strip_prefix("socket:[")?
            .strip_suffix(']')?
            .parse()
            .ok()
    })
    .collect()
}

/// Every listening TCP socket on the machine (IPv4 and IPv6): inode to port.
fn listening_tcp() -> BTreeMap<u64, u16> {
    const LISTEN: &str = "0A";
    let mut listening = BTreeMap::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(table) else {
            continue;
        };
        // Columns: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode.
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(state), Some(inode)) =
                (fields.get(1), fields.get(3), fields.get(9))
            else {
                continue;
            };
            if *state != LISTEN {
                continue;
            }
            let port = local
                .rsplit(':')
                .next()
                .and_then(|hex| u16::from_str_radix(hex, 16).ok());
            if let (Some(port), Ok(inode)) = (port, inode.parse()) {
                listening.insert(inode, port);
            }
        }
    }
    listening
}

/// The TCP ports the browser's processes listen on.
fn browser_listening_ports(pid: u32) -> BTreeSet<u16> {
    let listening = listening_tcp();
    browser_processes(pid)
        .into_iter()
        .flat_map(socket_inodes)
        .filter_map(|inode| listening.get(&inode).copied())
        .collect()
}

fn command_line(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .filter(|arg| !arg.is_empty())
        .map(|arg| String::from_utf8_lossy(arg).into_owned())
        .collect()
}

/// The temporary profile folder the browser was launched with.
fn profile_dir(pid: u32) -> PathBuf {
    let args = command_line(pid);
    let dir = args
        .iter()
        .find_map(|arg| arg.strip_prefix("--user-data-dir="))
        .unwrap_or_else(|| panic!("no --user-data-dir in {args:?}"));
    PathBuf::from(dir)
}

/// Waits until none of `pids` runs any more (gone, or a zombie left to its new parent).
fn assert_all_exit(pids: &BTreeSet<u32>) {
    let start = Instant::now();
    loop {
        let running: Vec<u32> = pids
            .iter()
            .copied()
            .filter(|pid| stat(*pid).is_some_and(|s| s.state != 'Z'))
            .collect();
        if running.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the browser's processes {running:?} still run after it was freed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Frees the page and the browser, then checks that no process and no profile folder is left.
fn free_and_check(browser: *mut pagesight_browser, page: *mut pagesight_page) {
    let pid = browser_pid(browser);
    let processes = browser_processes(pid);
    let profile = profile_dir(pid);
    assert!(profile.is_dir(), "{} is not there", profile.display());
    // SAFETY: live handles, each freed once.
    unsafe {
        pagesight_page_free(page);
        pagesight_browser_free(browser);
    }
    assert_all_exit(&processes);
    assert!(
        !profile.exists(),
        "the profile {} was left behind",
        profile.display()
    );
}

#[test]
fn a_launched_browser_listens_on_no_port() {
    let browser = launch(None);
    let page = open_and_snapshot(browser);
    let second = open_and_snapshot(browser);
    let pid = browser_pid(browser);
    let processes = browser_processes(pid);
    assert!(
        processes.len() > 1,
        "found only {processes:?}: the search for the browser's helpers is broken"
    );
    assert_eq!(
        browser_listening_ports(pid),
        BTreeSet::new(),
        "the browser listens on TCP"
    );
    for process in &processes {
        let args = command_line(*process);
        assert!(
            !args
                .iter()
                .any(|arg| arg.starts_with("--remote-debugging-port")),
            "process {process}: {args:?}"
        );
    }
    assert!(
        command_line(pid).contains(&"--remote-debugging-pipe".to_owned()),
        "{:?}",
        command_line(pid)
    );

    let mut endpoint: *mut c_char = ptr::NonNull::dangling().as_ptr();
    // SAFETY: live browser, valid out-param.
    let rc = unsafe { pagesight_browser_endpoint(browser, &mut endpoint) };
    assert_eq!(rc, PAGESIGHT_INVALID_ARGUMENT);
    assert_eq!(
        endpoint,
        ptr::NonNull::dangling().as_ptr(),
        "out written on failure"
    );
    let message = browser_error(browser);
    assert!(message.contains("{\"debuggingPort\":true}"), "{message}");

    // SAFETY: live handle, freed once.
    unsafe { pagesight_page_free(second) };
    free_and_check(browser, page);
}

#[test]
fn a_debugging_port_is_opened_only_when_asked() {
    let browser = launch(Some("{\"debuggingPort\":true}"));
    let page = open_and_snapshot(browser);
    let pid = browser_pid(browser);
    let mut endpoint = ptr::null_mut();
    // SAFETY: live browser, valid out-param.
    let rc = unsafe { pagesight_browser_endpoint(browser, &mut endpoint) };
    assert_eq!(rc, PAGESIGHT_OK, "{}", browser_error(browser));
    let endpoint = take(endpoint);
    let port: u16 = endpoint
        .strip_prefix("ws://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("not a local DevTools address: {endpoint}"));
    assert_eq!(
        browser_listening_ports(pid),
        BTreeSet::from([port]),
        "the browser listens on the port it was asked for, and only there"
    );
    let args = command_line(pid);
    assert!(
        args.contains(&"--remote-debugging-port=0".to_owned()),
        "{args:?}"
    );
    assert!(
        args.contains(&"--remote-debugging-pipe".to_owned()),
        "{args:?}"
    );
    free_and_check(browser, page);
}
