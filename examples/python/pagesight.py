"""pagesight from Python through its C ABI, with ctypes (no build step).

Set PAGESIGHT_LIB to the path of libpagesight.so (``cargo build --release -p pagesight-capi``
puts it in target/release/), then:

    python3 pagesight.py snapshot fixtures/pages/forms.html
    python3 pagesight.py offline fixtures/captures/checkout.json.gz [a11y|dom]

or use it as a module:

    with Browser() as browser, browser.open("https://example.com") as page:
        print(page.snapshot())
        print(page.call({"cmd": "click", "uid": "1_4"}))
"""

import ctypes
import json
import os
import sys

_lib = ctypes.CDLL(os.environ.get("PAGESIGHT_LIB", "libpagesight.so"))

_p = ctypes.c_void_p
_s = ctypes.c_char_p
_out = ctypes.POINTER(ctypes.c_void_p)  # char ** and handle ** alike: we free what we get
for name, args, res in [
    ("pagesight_version", [], _s),
    ("pagesight_result_name", [ctypes.c_uint32], _s),
    ("pagesight_result_is_retryable", [ctypes.c_uint32], ctypes.c_bool),
    ("pagesight_string_free", [_p], None),
    ("pagesight_render_capture",
     [ctypes.c_char_p, ctypes.c_size_t, _s, _s, _out, _out], ctypes.c_uint32),
    ("pagesight_browser_launch", [_s, _out, _out], ctypes.c_uint32),
    ("pagesight_browser_connect", [_s, _out, _out], ctypes.c_uint32),
    ("pagesight_browser_last_error", [_p], _s),
    ("pagesight_browser_free", [_p], None),
    ("pagesight_page_open", [_p, _s, _out], ctypes.c_uint32),
    ("pagesight_page_snapshot", [_p, _s, _s, _s, _out], ctypes.c_uint32),
    ("pagesight_page_call", [_p, _s, _out], ctypes.c_uint32),
    ("pagesight_page_close", [_p], ctypes.c_uint32),
    ("pagesight_page_last_error", [_p], _s),
    ("pagesight_page_free", [_p], None),
]:
    f = getattr(_lib, name)
    f.argtypes, f.restype = args, res


class PagesightError(Exception):
    """A failed call: ``code`` is the protocol's name ("STALE_UID", ...)."""

    def __init__(self, code, message):
        self.code = _lib.pagesight_result_name(code).decode()
        self.retryable = bool(_lib.pagesight_result_is_retryable(code))
        self.message = message
        super().__init__(f"{self.code}: {message}")


def _take_string(ptr):
    """Copies a string the library returned and frees it."""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8")
    finally:
        _lib.pagesight_string_free(ptr)


def _check(code, message_fn):
    if code != 0:
        raise PagesightError(code, message_fn())


def _check_out_error(code, error):
    if code != 0:
        raise PagesightError(code, _take_string(error) if error.value else "")


def render_capture(data, mode="a11y", fmt="text"):
    """Renders a saved capture (bytes of a .json.gz file) offline; no browser needed."""
    out, error = ctypes.c_void_p(), ctypes.c_void_p()
    code = _lib.pagesight_render_capture(data, len(data), mode.encode(), fmt.encode(),
                                         ctypes.byref(out), ctypes.byref(error))
    _check_out_error(code, error)
    return _take_string(out)


class Browser:
    """A launched headless Chromium (or, with ``endpoint``, a running browser)."""

    def __init__(self, endpoint=None, options=None):
        handle, error = ctypes.c_void_p(), ctypes.c_void_p()
        if endpoint is None:
            opts = json.dumps(options).encode() if options else None
            code = _lib.pagesight_browser_launch(opts, ctypes.byref(handle), ctypes.byref(error))
        else:
            code = _lib.pagesight_browser_connect(endpoint.encode(), ctypes.byref(handle),
                                                  ctypes.byref(error))
        _check_out_error(code, error)
        self._handle = handle

    def open(self, url):
        page = ctypes.c_void_p()
        code = _lib.pagesight_page_open(self._handle, url.encode(), ctypes.byref(page))
        _check(code, lambda: _lib.pagesight_browser_last_error(self._handle).decode())
        return Page(page, self)

    def close(self):
        if self._handle:
            _lib.pagesight_browser_free(self._handle)
            self._handle = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


class Page:
    """One tab: snapshots and every command of the JSON-lines protocol."""

    def __init__(self, handle, browser):
        self._handle, self._browser = handle, browser

    def _error(self):
        return _lib.pagesight_page_last_error(self._handle).decode()

    def snapshot(self, mode="a11y", fmt="text", expand=None):
        out = ctypes.c_void_p()
        code = _lib.pagesight_page_snapshot(self._handle, mode.encode(), fmt.encode(),
                                            expand.encode() if expand else None,
                                            ctypes.byref(out))
        _check(code, self._error)
        return _take_string(out)

    def call(self, command):
        """Runs one command (a dict) and returns its ``result``."""
        out = ctypes.c_void_p()
        code = _lib.pagesight_page_call(self._handle, json.dumps(command).encode(),
                                        ctypes.byref(out))
        _check(code, self._error)
        return json.loads(_take_string(out))["result"]

    def close(self):
        if self._handle:
            _lib.pagesight_page_free(self._handle)
            self._handle = None

    __del__ = close

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


def _main(argv):
    if len(argv) >= 2 and argv[0] == "snapshot":
        with Browser() as browser, browser.open(argv[1]) as page:
            sys.stdout.write(page.snapshot())
            print("pages:", len(page.call({"cmd": "pages"})))
        return 0
    if len(argv) >= 2 and argv[0] == "offline":
        with open(argv[1], "rb") as f:
            data = f.read()
        sys.stdout.write(render_capture(data, argv[2] if len(argv) > 2 else "a11y"))
        print("pagesight", _lib.pagesight_version().decode())
        return 0
    if len(argv) >= 2 and argv[0] == "bench-offline":
        import time
        with open(argv[1], "rb") as f:
            data = f.read()
        times = []
        for _ in range(int(argv[2]) if len(argv) > 2 else 50):
            start = time.perf_counter()
            render_capture(data)
            times.append(time.perf_counter() - start)
        times.sort()
        print(f"ctypes render_capture median {times[len(times) // 2] * 1e3:.3f} ms "
              f"over {len(times)} runs")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
