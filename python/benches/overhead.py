"""What the Python package costs on top of the engine, measured the way the C ABI's overhead is
(capi/examples/overhead.rs): the same snapshot through each front end in one run, alternating,
each front end's page in a browser of its own (Chromium favours its newest tab), medians of
wall time after five warm-up rounds.

Live, one `snapshot` (a11y, text) of PAGE through:
- the package (`await page.snapshot(tree=False)`: the text only, as the others return it; and
  `tree=True`, the default, which also renders the same snapshot's JSON document);
- the C ABI (`pagesight_page_snapshot`, called through ctypes by examples/python/pagesight.py);
- the command line (`pagesight run`, one process for the whole run: a command line written to
  its stdin, the response line read back).
Offline, the render of CAPTURE (its bytes already read) through `pagesight.render_capture`
(text only, and with the tree), `pagesight_render_capture` through ctypes, and `pagesight snapshot
--from-capture`, a process per render (its start-up included: that is what the command costs).

For the live snapshots it also prints this process's CPU time per snapshot (all its threads:
Python's and the extension's or the C library's runtime; the browser's and the command line's
are other processes).

    cargo build --release -p pagesight-capi -p pagesight-cli
    pip install ./python        # a release build, into the Python that runs this
    python python/benches/overhead.py [PAGE] [CAPTURE] [RUNS]

PAGESIGHT_LIB (default target/release/libpagesight.so) and PAGESIGHT_CLI (default
target/release/pagesight) name the C library and the command line.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pagesight

ROOT = Path(__file__).resolve().parents[2]
WARM_UP = 5


def load_ctypes_module() -> Any:
    os.environ.setdefault("PAGESIGHT_LIB", str(ROOT / "target" / "release" / "libpagesight.so"))
    spec = importlib.util.spec_from_file_location(
        "pagesight_ctypes", ROOT / "examples" / "python" / "pagesight.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Cli:
    """`pagesight run`: one process, one command line at a time."""

    def __init__(self, binary: str, page: str) -> None:
        self.process = subprocess.Popen(
            [binary, "run"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.call({"cmd": "open", "url": page})

    def call(self, command: Dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line = json.loads(self.process.stdout.readline())
        assert line["ok"], line
        return line["result"]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def report(title: str, times: Dict[str, List[float]], sizes: Dict[str, int]) -> None:
    print(title)
    base = statistics.median(times["C ABI"])
    for name, samples in times.items():
        median = statistics.median(samples) * 1e3
        print(
            f"  {name:<32} {median:9.3f} ms  ({median - base * 1e3:+.3f} ms against the C ABI;"
            f" {sizes.get(name, 0)} bytes)"
        )


async def live(page_path: str, runs: int, ctypes_module: Any, cli_binary: str) -> None:
    async with pagesight.launch() as browser:
        page = await browser.open(page_path)
        with ctypes_module.Browser() as c_browser:
            c_page = c_browser.open(page_path)
            cli = Cli(cli_binary, page_path)
            names = ["package, text only", "package, with the tree", "C ABI", "command line (run)"]
            times: Dict[str, List[float]] = {n: [] for n in names}
            cpus: Dict[str, List[float]] = {n: [] for n in names[:3]}
            sizes: Dict[str, int] = {}
            for i in range(runs + WARM_UP):
                for name in names:
                    used, started = cpu(), time.perf_counter()
                    if name == "package, text only":
                        text = (await page.snapshot(tree=False)).text
                    elif name == "package, with the tree":
                        text = (await page.snapshot()).text
                    elif name == "C ABI":
                        text = c_page.snapshot()
                    else:
                        text = cli.call({"cmd": "snapshot"})
                    elapsed, used = time.perf_counter() - started, cpu() - used
                    sizes[name] = len(text.encode())
                    if i >= WARM_UP:
                        times[name].append(elapsed)
                        if name in cpus:
                            cpus[name].append(used)
            cli.close()
            c_page.close()
    report(f"live snapshot of {page_path}, median of {runs}:", times, sizes)
    print(
        "  this process's CPU per snapshot, mean: "
        + ", ".join(f"{n} {statistics.mean(c) * 1e3:.3f} ms" for n, c in cpus.items())
    )


def offline(capture: Path, runs: int, ctypes_module: Any, cli_binary: str) -> None:
    data = capture.read_bytes()
    calls: Dict[str, Callable[[], str]] = {
        "package, text only": lambda: pagesight.render_capture(data, tree=False).text,
        "package, with the tree": lambda: pagesight.render_capture(data).text,
        "C ABI": lambda: ctypes_module.render_capture(data),
    }
    times: Dict[str, List[float]] = {n: [] for n in calls}
    sizes: Dict[str, int] = {}
    for i in range(runs + WARM_UP):
        for name, call in calls.items():
            started = time.perf_counter()
            text = call()
            elapsed = time.perf_counter() - started
            sizes[name] = len(text.encode())
            if i >= WARM_UP:
                times[name].append(elapsed)
    process_runs = max(5, runs // 10)
    cli: List[float] = []
    for i in range(process_runs + 1):
        started = time.perf_counter()
        out = subprocess.run(
            [cli_binary, "snapshot", "--from-capture", str(capture)],
            capture_output=True,
            check=True,
        ).stdout
        if i >= 1:
            cli.append(time.perf_counter() - started)
        sizes["command line (a process each)"] = len(out)
    times["command line (a process each)"] = cli
    report(
        f"offline render of {capture}, median of {runs} ({process_runs} for the command line):",
        times,
        sizes,
    )


def main(argv: List[str]) -> None:
    page = argv[0] if argv else str(ROOT / "fixtures" / "pages" / "forms.html")
    capture = Path(argv[1]) if len(argv) > 1 else ROOT / "fixtures" / "captures" / "checkout.json.gz"
    runs = int(argv[2]) if len(argv) > 2 else 50
    cli_binary = os.environ.get("PAGESIGHT_CLI", str(ROOT / "target" / "release" / "pagesight"))
    ctypes_module = load_ctypes_module()
    asyncio.run(live(page, runs, ctypes_module, cli_binary))
    offline(capture, runs, ctypes_module, cli_binary)


if __name__ == "__main__":
    main(sys.argv[1:])
