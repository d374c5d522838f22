#!/usr/bin/env bash
# Installs the Debian packages the test suite needs (real redis-server, Chromium for the
# browser tests, zstd for fast local snapshots). As root it installs what is missing;
# otherwise it prints the exact command and stops.
set -euo pipefail

# command → Debian packages that provide it (fonts so browser screenshots show text)
declare -A need=(
  [redis-server]=redis-server
  [chromium]="chromium fonts-liberation"
  [zstd]=zstd
  [tar]=tar
)
missing=()
for bin in "${!need[@]}"; do
  # shellcheck disable=SC2206 # word splitting of the package list is intended
  command -v "$bin" >/dev/null 2>&1 || missing+=(${need[$bin]})
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "ClawRun's tests need: ${missing[*]}. Install them with:" >&2
  echo "  sudo sh -c '$cmd'" >&2
  exit 1
fi
echo "installing ${missing[*]} ..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
