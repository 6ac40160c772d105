#!/usr/bin/env bash
# Installs the Debian packages vsweep needs, if any is missing.
set -euo pipefail
pkgs=(meson ninja-build gcc g++ pkg-config check libyaml-dev libsqlite3-dev
      sqlite3 python3 librsvg2-bin     # rsvg-convert: vsweep plot -o FILE.png
      chromium                     # tests/e2e/test_report.py renders the report
      openmpi-bin libopenmpi-dev   # vsweep-mpi and its test
      clang libclang-rt-dev libomp-dev  # the libFuzzer build
      libzip-dev libxml2-dev)  # FMUs; libxml2 also reads OpenDRIVE maps
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "vsweep: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
