#!/usr/bin/env bash
# Install Debian's chromium for tests/browser when it is missing (needs root and the Debian archive).
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "tests/browser needs chromium: run 'apt-get install -y chromium' as root" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
