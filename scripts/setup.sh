#!/usr/bin/env bash
# Installs what pagesight needs on a fresh Debian machine: a headless Chromium, and for the
# Python package's tests Debian's Python with venv and headers, and a venv in
# target/python-venv holding maturin, pytest and mypy (python/requirements-dev.txt), and
# cargo-fuzz.
# Set PAGESIGHT_DOCS=1 to also install the documentation packages whose pages the recorded
# captures come from (python3.11-doc, libjs-bootstrap5-doc); only re-recording needs them.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
if [ -z "${CHROME:-}" ] && ! command -v chromium >/dev/null 2>&1 \
    && ! command -v chromium-browser >/dev/null 2>&1 \
    && ! command -v google-chrome >/dev/null 2>&1; then
  need+=(chromium)
fi
# valgrind: the C ABI's example tests check the examples for leaks and invalid accesses.
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
# The Python package (python/) is built and tested with Debian's Python 3.
for package in python3 python3-venv python3-dev; do
  dpkg -s "$package" >/dev/null 2>&1 || need+=("$package")
done
if [ "${PAGESIGHT_DOCS:-0}" = 1 ]; then
  [ -d /usr/share/doc/python3.11-doc ] || need+=(python3.11-doc)
  [ -d /usr/share/doc/libjs-bootstrap5 ] || need+=(libjs-bootstrap5-doc)
fi
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi

# cargo-fuzz, for the short run of the fuzz targets (scripts/fuzz.sh) that the tests end with.
command -v cargo-fuzz >/dev/null 2>&1 || cargo install --locked cargo-fuzz@0.13.2

# The venv the Python package is built and tested in (scripts/test.sh), inside the build folder.
venv=target/python-venv
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r python/requirements-dev.txt
