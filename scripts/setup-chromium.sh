#!/usr/bin/env bash
# Chromium for the browser tests (tests/browser): Debian's package, installed
# with apt-get when /usr/bin/chromium is missing (about 155 MB to download,
# 480 MB installed). CHROMIUM naming an executable skips the install.
set -euo pipefail
if [ -n "${CHROMIUM:-}" ] && [ -x "$CHROMIUM" ]; then exit 0; fi
if [ -x /usr/bin/chromium ]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-chromium: /usr/bin/chromium is missing and this system has no apt-get: install Chromium, or set CHROMIUM to its binary" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
echo "setup-chromium: installing Debian's chromium"
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y chromium
