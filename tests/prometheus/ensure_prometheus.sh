#!/usr/bin/env bash
# Install Debian's prometheus for tests/prometheus when it is missing (needs root and the Debian archive).
# The package's own service is not used: the test starts its own server on 127.0.0.1 with tmp storage.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "tests/prometheus needs prometheus: run 'apt-get install -y prometheus' as root" >&2
  exit 1
fi
if ! apt-cache show prometheus >/dev/null 2>&1; then
  apt-get update -qq
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
