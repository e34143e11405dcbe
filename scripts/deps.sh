# Sourced by the other scripts: installs the Debian packages vault needs, if missing.
# Usage: ensure_packages PACKAGE...
ensure_packages() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# What building vault needs.
BUILD_PACKAGES=(pkg-config libsodium-dev libjpeg62-turbo-dev libpng-dev libchafa-dev libglib2.0-dev libqrencode-dev)
# What its tests need besides: chattr (a read-only folder even for root), the reference
# thumbnailer the quality test compares with, tmux to run vault on a terminal, strace
# to see which folders are flushed (and to kill vault at a chosen step), and rsync and
# unison to merge copies of a vault as sync engines do; zbarimg to decode the QR code
# `vault serve` draws, and curl to speak HTTP/2 to it.
TEST_PACKAGES=(e2fsprogs libvips-tools tmux strace rsync unison zbar-tools curl)
