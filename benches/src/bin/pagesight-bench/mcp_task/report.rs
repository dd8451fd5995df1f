//! What `mcp-task` measured, and its tables: medians over the timed runs, per step and in
//! total, per server and variant.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};

use super::ServerSpec;

/// How the form is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// One tool call per field, the country and the checkbox.
    EachField,
    /// One form tool call for all eight.
    FillForm,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::EachField => "field by field",
            Variant::FillForm => "fill_form",
        }
    }

    fn slug(self) -> &'static str {
        match self {
            Variant::EachField => "each",
            Variant::FillForm => "fill-form",
        }
    }
}

/// One tool call.
#[derive(Debug, Clone)]
pub struct CallRecord {
    pub step: String,
    pub tool: String,
    pub arguments: Value,
    /// Wall time from sending the request to reading the answer.
    pub ms: f64,
    /// Characters of the text of all the answer's content items.
    pub chars: usize,
    /// How many content items the answer had.
    pub items: usize,
    pub is_error: bool,
    /// The answer's text (kept for the transcripts, not in the JSON).
    pub text: String,
}

/// One run of the task.
#[derive(Debug, Clone)]
pub struct RunRecord {
    pub calls: Vec<CallRecord>,
    pub total_ms: f64,
    pub total_chars: usize,
    /// Whether every step was made (the page's state is in `problems`).
    pub completed: bool,
    /// What went wrong, or what the page's state lacks; empty for a run that did the task.
    pub problems: Vec<String>,
    pub warm_up: bool,
    /// Whether an answer from the submit on showed the page's answer to it.
    pub result_read: bool,
}

impl RunRecord {
    pub fn new(
        calls: Vec<CallRecord>,
        completed: bool,
        problems: Vec<String>,
        warm_up: bool,
    ) -> RunRecord {
        RunRecord {
            total_ms: calls.iter().map(|c| c.ms).sum(),
            total_chars: calls.iter().map(|c| c.chars).sum(),
            calls,
            completed,
            problems,
            warm_up,
            result_read: false,
        }
    }

    /// A run that made every step and left the page as the task should.
    pub fn did_the_task(&self) -> bool {
        self.completed && self.problems.is_empty()
    }
}

/// One server's runs.
#[derive(Debug, Clone)]
pub struct ServerRecord {
    pub name: String,
    pub command: Vec<String>,
    /// `serverInfo` of its `initialize` answer.
    pub server_name: String,
    pub server_version: String,
    /// Wall time from spawning the process to the tool list.
    pub start_ms: f64,
    pub variants: Vec<(Variant, Vec<RunRecord>)>,
    /// Why it could not be run.
    pub error: Option<String>,
}

impl ServerRecord {
    pub fn new(spec: &ServerSpec) -> ServerRecord {
        ServerRecord {
            name: spec.name.clone(),
            command: std::iter::once(spec.program.clone())
                .chain(spec.args.iter().cloned())
                .collect(),
            server_name: String::new(),
            server_version: String::new(),
            start_ms: 0.0,
            variants: Vec::new(),
            error: None,
        }
    }
}

/// The medians of one server's timed runs of one variant.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Per step, in order: label, tool, median ms, median characters.
    pub steps: Vec<(String, String, f64, f64)>,
    pub calls: usize,
    pub total_ms: f64,
    pub total_chars: f64,
    /// Timed runs that did the task, of all timed runs.
    pub done: usize,
    /// Timed runs whose answers showed the page's answer to the submit.
    pub read: usize,
    pub runs: usize,
}

/// The median of some values (the mean of the middle two for an even count); 0 if empty.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[mid],
        _ => (sorted[mid - 1] + sorted[mid]) / 2.0,
    }
}

/// The medians of `runs`' timed runs that made every step (so that their steps line up).
pub fn summarize(runs: &[RunRecord]) -> Summary {
    let timed: Vec<&RunRecord> = runs.iter().filter(|r| !r.warm_up).collect();
    let complete: Vec<&RunRecord> = timed.iter().copied().filter(|r| r.completed).collect();
    let mut summary = Summary {
        done: timed.iter().filter(|r| r.did_the_task()).count(),
        read: timed.iter().filter(|r| r.result_read).count(),
        runs: timed.len(),
        ..Summary::default()
    };
    let Some(first) = complete.first() else {
        return summary;
    };
    summary.calls = first.calls.len();
    for (i, call) in first.calls.iter().enumerate() {
        let at = |f: &dyn Fn(&CallRecord) -> f64| -> Vec<f64> {
            complete
                .iter()
                .filter_map(|r| r.calls.get(i))
                .map(f)
                .collect()
        };
        summary.steps.push((
            call.step.clone(),
            call.tool.clone(),
            median(&at(&|c| c.ms)),
            median(&at(&|c| c.chars as f64)),
        ));
    }
    summary.total_ms = median(&complete.iter().map(|r| r.total_ms).collect::<Vec<_>>());
    summary.total_chars = median(
        &complete
            .iter()
            .map(|r| r.total_chars as f64)
            .collect::<Vec<_>>(),
    );
    summary
}

/// Everything one invocation measured.
#[derive(Debug, Clone)]
pub struct Report {
    pub url: String,
    pub chromium: String,
    pub runs: usize,
    pub warmup: usize,
    pub cores: usize,
    pub load_before: String,
    pub load_after: String,
    pub servers: Vec<ServerRecord>,
}

/// The 1, 5 and 15 minute load averages.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

impl Report {
    pub fn new(url: &str, chromium: String, runs: usize, warmup: usize) -> Report {
        Report {
            url: url.to_string(),
            chromium,
            runs,
            warmup,
            cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
            load_before: load_average(),
            load_after: String::new(),
            servers: Vec::new(),
        }
    }

    /// Notes the machine's state at the end.
    pub fn finish(&mut self) {
        self.load_after = load_average();
    }

    /// The tables, in markdown.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\nmcp-task: {} on {}; {} timed runs per server and variant after {} warm-up; \
             {} cores, load {} before, {} after; medians\n",
            self.url,
            self.chromium,
            self.runs,
            self.warmup,
            self.cores,
            self.load_before,
            self.load_after
        );
        for server in self.servers.iter().filter(|s| s.error.is_none()) {
            let _ = writeln!(
                out,
                "- {}: serverInfo {} {}",
                server.name, server.server_name, server.server_version
            );
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "| server | variant | calls | wall ms | chars to the agent | did the task | result read | \
             start ms |"
        );
        let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|");
        for server in &self.servers {
            let label = &server.name;
            if let Some(error) = &server.error {
                let _ = writeln!(out, "| {label} | not run: {error} | | | | | | |");
                continue;
            }
            for (variant, runs) in &server.variants {
                let s = summarize(runs);
                let _ = writeln!(
                    out,
                    "| {label} | {} | {} | {:.0} | {:.0} | {}/{} | {}/{} | {:.0} |",
                    variant.name(),
                    s.calls,
                    s.total_ms,
                    s.total_chars,
                    s.done,
                    s.runs,
                    s.read,
                    s.runs,
                    server.start_ms
                );
            }
        }
        for variant in [Variant::EachField, Variant::FillForm] {
            let columns: Vec<(&ServerRecord, Summary)> = self
                .servers
                .iter()
                .filter_map(|server| {
                    let (_, runs) = server.variants.iter().find(|(v, _)| *v == variant)?;
                    let summary = summarize(runs);
                    (!summary.steps.is_empty()).then_some((server, summary))
                })
                .collect();
            if columns.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\nPer step, {} (ms / characters):\n", variant.name());
            let mut head = String::from("| step |");
            let mut rule = String::from("|---|");
            for (server, _) in &columns {
                let _ = write!(head, " {} ms | chars |", server.name);
                rule.push_str("---:|---:|");
            }
            let _ = writeln!(out, "{head}\n{rule}");
            let rows = columns
                .iter()
                .map(|(_, s)| s.steps.len())
                .max()
                .unwrap_or(0);
            for row in 0..rows {
                let label = columns
                    .iter()
                    .find_map(|(_, s)| s.steps.get(row).map(|step| step.0.clone()))
                    .unwrap_or_default();
                let mut line = format!("| {label} |");
                for (_, summary) in &columns {
                    match summary.steps.get(row) {
                        Some((_, _, ms, chars)) => {
                            let _ = write!(line, " {ms:.1} | {chars:.0} |");
                        }
                        None => line.push_str(" | |"),
                    }
                }
                let _ = writeln!(out, "{line}");
            }
            let mut line = String::from("| **total** |");
            for (_, summary) in &columns {
                let _ = write!(
                    line,
                    " **{:.0}** | **{:.0}** |",
                    summary.total_ms, summary.total_chars
                );
            }
            let _ = writeln!(out, "{line}");
            let mut tools = String::from("\nTools:");
            for (server, summary) in &columns {
                let mut names: Vec<&str> = Vec::new();
                for (_, tool, _, _) in &summary.steps {
                    if !names.contains(&tool.as_str()) {
                        names.push(tool);
                    }
                }
                let _ = write!(tools, " {}: {};", server.name, names.join(", "));
            }
            let _ = writeln!(out, "{}", tools.trim_end_matches(';'));
        }
        out
    }

    /// Every run's every call (without the answers' text), and the medians.
    pub fn to_json(&self) -> Value {
        let servers: Vec<Value> = self
            .servers
            .iter()
            .map(|server| {
                let variants: Vec<Value> = server
                    .variants
                    .iter()
                    .map(|(variant, runs)| {
                        let s = summarize(runs);
                        json!({
                            "variant": variant.slug(),
                            "median": {
                                "calls": s.calls,
                                "totalMs": s.total_ms,
                                "totalChars": s.total_chars,
                                "didTheTask": s.done,
                                "resultRead": s.read,
                                "timedRuns": s.runs,
                                "steps": s.steps.iter().map(|(step, tool, ms, chars)| json!({
                                    "step": step, "tool": tool, "ms": ms, "chars": chars,
                                })).collect::<Vec<_>>(),
                            },
                            "runs": runs.iter().map(|run| json!({
                                "warmUp": run.warm_up,
                                "resultRead": run.result_read,
                                "completed": run.completed,
                                "problems": run.problems,
                                "totalMs": run.total_ms,
                                "totalChars": run.total_chars,
                                "calls": run.calls.iter().map(|c| json!({
                                    "step": c.step, "tool": c.tool, "arguments": c.arguments,
                                    "ms": c.ms, "chars": c.chars, "items": c.items,
                                    "isError": c.is_error,
                                })).collect::<Vec<_>>(),
                            })).collect::<Vec<_>>(),
                        })
                    })
                    .collect();
                json!({
                    "name": server.name,
                    "command": server.command,
                    "serverInfo": { "name": server.server_name, "version": server.server_version },
                    "startMs": server.start_ms,
                    "error": server.error,
                    "variants": variants,
                })
            })
            .collect();
        json!({
            "url": self.url,
            "chromium": self.chromium,
            "runs": self.runs,
            "warmup": self.warmup,
            "cores": self.cores,
            "loadBefore": self.load_before,
            "loadAfter": self.load_after,
            "servers": servers,
        })
    }

    /// Each server's last run of each variant, call by call with the answers, as markdown
    /// files in `dir`.
    pub fn write_transcripts(&self, dir: &Path) -> Result<(), String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for server in &self.servers {
            for (variant, runs) in &server.variants {
                let Some(run) = runs.last() else {
                    continue;
                };
                let mut out = format!(
                    "# {} ({} {}), {}\n",
                    server.name,
                    server.server_name,
                    server.server_version,
                    variant.name()
                );
                for call in &run.calls {
                    let _ = write!(
                        out,
                        "\n## {}: `{}` {}\n\n{:.1} ms, {} characters\n\n````\n{}\n````\n",
                        call.step, call.tool, call.arguments, call.ms, call.chars, call.text
                    );
                }
                for problem in &run.problems {
                    let _ = writeln!(out, "\nProblem: {problem}");
                }
                let file = dir.join(format!("{}-{}.md", server.name, variant.slug()));
                std::fs::write(&file, out)
                    .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(step: &str, ms: f64, chars: usize) -> CallRecord {
        CallRecord {
            step: step.into(),
            tool: "t".into(),
            arguments: Value::Null,
            ms,
            chars,
            items: 1,
            is_error: false,
            text: String::new(),
        }
    }

    #[test]
    fn medians_are_taken_per_step_over_the_timed_complete_runs() {
        let run = |a: f64, b: f64, warm_up: bool| {
            RunRecord::new(
                vec![call("open", a, 10), call("read", b, 100)],
                true,
                vec![],
                warm_up,
            )
        };
        let failed = RunRecord::new(vec![call("open", 1.0, 1)], false, vec!["x".into()], false);
        let runs = vec![
            run(1000.0, 1000.0, true),
            run(10.0, 20.0, false),
            run(30.0, 40.0, false),
            run(20.0, 60.0, false),
            failed,
        ];
        let s = summarize(&runs);
        assert_eq!((s.done, s.runs, s.calls), (3, 4, 2));
        assert_eq!(s.steps[0].2, 20.0);
        assert_eq!(s.steps[1].2, 40.0);
        assert_eq!(
            s.total_ms, 70.0,
            "the median of the runs' totals 30, 70 and 80"
        );
        assert_eq!(s.total_chars, 110.0);
        assert_eq!(median(&[1.0, 3.0]), 2.0);
        assert_eq!(median(&[]), 0.0);
    }
}
