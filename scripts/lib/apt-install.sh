# Shared by scripts/install-*-deps.sh (sourced, not run): installs the Debian packages given as
# arguments that are not installed yet. Idempotent: when nothing is missing it installs nothing
# and needs no root; otherwise it uses sudo when not root. Returns 1 with a message when packages
# are missing and there is no apt-get.
prefixlog_apt_install_missing() {
  local missing=() p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "prefixlog: missing packages ${missing[*]}, and no apt-get to install them; install them by hand." >&2
    return 1
  fi
  local sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd=(sudo)
  fi
  echo "prefixlog: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
