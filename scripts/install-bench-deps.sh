#!/usr/bin/env bash
# Installs the Debian packages the proxy benchmark (benchmarks, io.prefixlog.benchmarks.proxy) uses,
# when they are missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) only when something is missing.
#   nginx-light   the reference reverse proxy (run by the benchmark as a child process, not as a service)
#   wrk           the HTTP load generator (a lua script posts the 20 KB body)
set -euo pipefail

packages=(nginx-light wrk)
# shellcheck source=lib/apt-install.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt-install.sh"
prefixlog_apt_install_missing "${packages[@]}"
