#!/usr/bin/env bash
# Installs the Debian packages prefixlog's tests and tools use, when they are missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) only when something is missing.
#   jq            the jq rebuild recipe (docs/rebuild-with-jq.md) is tested against jq 1.6
#   zstd          the delta-size benchmark cross-checks zstd-jni against the zstd CLI
#   python3-zmq, python3-msgpack   the real vLLM-format ZMQ publisher used by the KV-event tests
#   docker-compose, curl   deploy's checks: `docker-compose config` (v1, no engine needed) validates
#                 docker-compose.yml; curl runs the connector-registration script
#   postgresql    deploy's PrepareCatalogScriptIT runs compose's catalog-init step against a
#                 throwaway PostgreSQL cluster (the compose catalog's database)
#   docker.io, debootstrap   bin/prefixlog compose-smoke runs docker-compose.yml on a real engine,
#                 with the third-party images built offline from a debootstrap base (deploy/standins)
#   prometheus    promtool: `promtool check rules`/`test rules` on deploy/prometheus, `promtool check
#                 metrics` on every /metrics endpoint in the tests
#   chromium, chromium-driver   the session explorer's browser test (tools' UiBrowserIT) drives
#                 headless Debian chromium through /usr/bin/chromedriver with Selenium
set -euo pipefail

packages=(jq zstd python3-zmq python3-msgpack)
packages+=(docker-compose curl)
packages+=(postgresql)
packages+=(docker.io debootstrap)
packages+=(prometheus)
packages+=(chromium chromium-driver)
# shellcheck source=lib/apt-install.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt-install.sh"
prefixlog_apt_install_missing "${packages[@]}"
