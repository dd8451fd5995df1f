"""The native half of the package (PyO3): an adapter over the engine's typed command API. Its
awaitables run on the extension's own tokio runtime, without the GIL."""

from typing import Any, Awaitable, Dict, List, Optional, Tuple, Union

__version__: str

class EngineError(Exception):
    """An engine failure; `args` is `(code, message, retryable)`."""

    args: Tuple[str, str, bool]

class Page:
    @property
    def target_id(self) -> str: ...
    def execute(self, command: Dict[str, Any]) -> Awaitable[Any]: ...
    def snapshot(
        self, options: Optional[Dict[str, Any]] = None, tree: bool = True
    ) -> Awaitable[Tuple[Union[str, Dict[str, Any]], Optional[str]]]: ...
    def close(self) -> Awaitable[None]: ...

class Browser:
    @property
    def pid(self) -> Optional[int]: ...
    @property
    def endpoint(self) -> Optional[str]: ...
    def open(self, url: str) -> Awaitable[Page]: ...
    def close(self) -> Awaitable[None]: ...

class Crawl:
    def __init__(
        self,
        urls: List[str],
        *,
        concurrency: Optional[int] = None,
        extract: Optional[str] = None,
        snapshot: Optional[str] = None,
        links: bool = False,
        follow: Optional[str] = None,
        depth: Optional[int] = None,
        max_pages: Optional[int] = None,
        ignore_robots: bool = False,
        browsers: List[str] = ...,
        page_timeout: float = 30.0,
        wait_until: str = "domcontentloaded",
        retries: int = 2,
        shared_context: bool = False,
    ) -> None: ...
    def start(self) -> Awaitable[None]: ...
    def next(self) -> Awaitable[Optional[Dict[str, Any]]]: ...
    def stop(self) -> None: ...
    def abort(self) -> None: ...
    def finish(self) -> Awaitable[Dict[str, Any]]: ...
    def progress(self) -> Tuple[int, int, int, int]: ...

def launch(
    *,
    executable: Optional[str] = None,
    width: int = 1280,
    height: int = 800,
    device_scale_factor: float = 1.0,
    load_timeout: Optional[float] = None,
    launch_timeout: Optional[float] = None,
    debugging_port: bool = False,
    allow_dirs: List[str] = ...,
    allow_evaluate: bool = False,
    collect_devtools: bool = False,
    args: List[str] = ...,
) -> Awaitable[Browser]: ...
def connect(
    endpoint: str,
    *,
    load_timeout: Optional[float] = None,
    allow_evaluate: bool = False,
    collect_devtools: bool = False,
) -> Awaitable[Browser]: ...
def render_capture(
    capture: bytes, options: Optional[Dict[str, Any]] = None, tree: bool = False
) -> Tuple[str, Optional[str]]: ...
def error_codes() -> List[Tuple[str, bool]]: ...
def _settle() -> None: ...
