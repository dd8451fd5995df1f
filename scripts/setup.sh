#!/usr/bin/env bash
# Installs what pagesight needs on a fresh Debian machine: a headless Chromium.
# Set PAGESIGHT_DOCS=1 to also install the documentation packages whose pages the recorded
# captures come from (python3.11-doc, libjs-bootstrap5-doc); only re-recording needs them.
set -euo pipefail

need=()
if [ -z "${CHROME:-}" ] && ! command -v chromium >/dev/null 2>&1 \
    && ! command -v chromium-browser >/dev/null 2>&1 \
    && ! command -v google-chrome >/dev/null 2>&1; then
  need+=(chromium)
fi
# valgrind: the C ABI's example tests check the examples for leaks and invalid accesses.
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
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
