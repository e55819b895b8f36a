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
set -euo pipefail

packages=(jq zstd python3-zmq python3-msgpack)
packages+=(docker-compose curl)
packages+=(postgresql)
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
