//! What a crawler run costs: the CPU of a process group read from `/proc`, and a child process
//! run to its end with its own CPU and that of the children it waited for.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// CPU time (user + system) of every process of process group `pgid`, with what each has
/// collected of its children that ended and were waited for (a renderer of a closed page is
/// reaped by Chromium's zygote, in the same group): `utime + stime + cutime + cstime` of
/// `/proc/PID/stat`, in clock ticks turned into time. Zero where `/proc` cannot be read.
pub fn group_cpu(pgid: u32) -> Duration {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    let mut ticks = 0u64;
    for entry in entries.flatten() {
        let is_pid = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        if !is_pid {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((group, t)) = stat_times(&stat) {
            if group == pgid {
                ticks += t;
            }
        }
    }
    ticks_to_time(ticks)
}

/// The process group and `utime + stime + cutime + cstime` (ticks) of a `/proc/PID/stat` line.
fn stat_times(stat: &str) -> Option<(u32, u64)> {
    // The command name is in parentheses and may hold spaces: fields start after the last ')'.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state(0) ppid(1) pgrp(2) ... utime(11) stime(12) cutime(13) cstime(14).
    let group = fields.get(2)?.parse().ok()?;
    let mut sum = 0u64;
    for i in 11..=14 {
        sum += fields.get(i)?.parse::<i64>().ok()?.max(0) as u64;
    }
    Some((group, sum))
}

fn ticks_to_time(ticks: u64) -> Duration {
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as u64 } else { 100 };
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / hz)
}

/// A child process that ran to its end.
pub struct Finished {
    pub wall: Duration,
    /// CPU of the child and of its descendants: the larger of what `wait4` reports (the child
    /// and the children it waited for) and the last reading of its process group while it ran
    /// (helpers it left without waiting for them).
    pub cpu: Duration,
    pub success: bool,
    pub status: String,
}

/// Runs `program args` in a process group of its own, stdout and stderr to `log`, until it
/// exits or `limit` passes (then its group is killed); returns its wall time and CPU.
pub async fn run_child(
    program: &Path,
    args: &[String],
    envs: &[(&str, &str)],
    log: &Path,
    limit: Duration,
) -> Result<Finished, String> {
    use std::os::unix::process::CommandExt;
    let out = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("{}: {e}", log.display()))?;
    let start = Instant::now();
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(envs.iter().copied())
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    let child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let pid = child.id();
    // The child is waited for with `wait4` below, for its resource usage; `Child` is dropped
    // without waiting (it never waits on drop).
    drop(child);
    let mut waited = tokio::task::spawn_blocking(move || wait4(pid));
    let mut sampled = Duration::ZERO;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    let deadline = tokio::time::sleep(limit);
    tokio::pin!(deadline);
    let mut killed = false;
    let (status, usage) = loop {
        tokio::select! {
            done = &mut waited => {
                break done.map_err(|e| format!("waiting for {}: {e}", program.display()))??;
            }
            _ = tick.tick() => sampled = sampled.max(group_cpu(pid)),
            _ = &mut deadline, if !killed => {
                killed = true;
                // SAFETY: kill only sends a signal, to the group this function started.
                unsafe { libc::kill(-(pid as libc::pid_t), libc::SIGKILL) };
            }
        }
    };
    let wall = start.elapsed();
    let success = !killed && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    let status = if killed {
        format!("killed after {} s", limit.as_secs())
    } else if libc::WIFEXITED(status) {
        format!("exit {}", libc::WEXITSTATUS(status))
    } else {
        format!("signal {}", libc::WTERMSIG(status))
    };
    Ok(Finished {
        wall,
        cpu: usage.max(sampled),
        success,
        status,
    })
}

/// `wait4(pid)`: the exit status and the CPU of the process and the children it waited for.
fn wait4(pid: u32) -> Result<(i32, Duration), String> {
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 only writes it and `status`.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: as above; `pid` is a child of this process.
        let rc = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if rc == pid as libc::pid_t {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("wait4({pid}): {e}"));
        }
    }
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    Ok((status, tv(usage.ru_utime) + tv(usage.ru_stime)))
}

/// The 1-minute load average, from `/proc/loadavg`.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_gives_its_group_and_times() {
        let line = "42 (Chrome_Child (x)) S 1 40 40 0 -1 4194560 10 0 0 0 7 3 2 1 20 0 9 0";
        assert_eq!(stat_times(line), Some((40, 13)));
        assert_eq!(stat_times("42 (x) S 1"), None);
    }
}
