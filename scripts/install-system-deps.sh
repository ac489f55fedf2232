#!/usr/bin/env bash
# Install the Debian packages the test suite drives, when they are missing.
# Tests that need one of them skip with a clear reason if this could not install it.
set -u
want=()
command -v chromium >/dev/null 2>&1 || [[ -x /usr/bin/chromium ]] || want+=(chromium)
[[ -x /usr/games/stockfish ]] || command -v stockfish >/dev/null 2>&1 || want+=(stockfish)
[[ -x /usr/games/fairy-stockfish ]] || command -v fairy-stockfish >/dev/null 2>&1 || want+=(fairy-stockfish)
[[ -x /usr/lib/postgresql/15/bin/postgres ]] || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || want+=(postgresql)
((${#want[@]})) || exit 0
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo=(sudo -n); else
    echo "install-system-deps: not root and no sudo; missing: ${want[*]} (their tests will skip)" >&2; exit 0
  fi
fi
echo "installing Debian packages: ${want[*]}"
if ! { "${sudo[@]}" apt-get update -qq && DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null; }; then
  echo "install-system-deps: apt-get failed; missing: ${want[*]} (their tests will skip)" >&2
fi
exit 0
