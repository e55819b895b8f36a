#!/usr/bin/env bash
# Installs the Debian packages the proxy benchmark (benchmarks, io.prefixlog.benchmarks.proxy) uses,
# when they are missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) only when something is missing.
#   nginx-light   the reference reverse proxy (run by the benchmark as a child process, not as a service)
#   wrk           the HTTP load generator (a lua script posts the 20 KB body)
set -euo pipefail

packages=(nginx-light wrk)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "prefixlog: missing packages ${missing[*]}, and no apt-get to install them; install them by hand." >&2
  exit 1
fi
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
echo "prefixlog: installing ${missing[*]}" >&2
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
