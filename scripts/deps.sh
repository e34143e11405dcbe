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

# Installs the PyPI packages a test needs, if missing. Usage: ensure_python_packages
# PACKAGE... where a PACKAGE is a name that is also the module it provides (selenium), or
# MODULE:REQUIREMENT when they differ (moto.server:moto[server], whose module needs the
# extras that a bare `import moto` does not).
ensure_python_packages() {
  local missing=() module
  for package in "$@"; do
    module="${package%%:*}"
    python3 -c "import $module" 2>/dev/null || missing+=("${package#*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  python3 -m pip --version >/dev/null 2>&1 || ensure_packages python3-pip
  echo "installing from PyPI: ${missing[*]}" >&2
  # Debian's own python3 refuses pip outside a virtual environment (PEP 668): then the
  # packages go to the user's site-packages, where the tests' python3 finds them.
  python3 -m pip install --quiet "${missing[@]}" 2>/dev/null ||
    python3 -m pip install --quiet --user --break-system-packages "${missing[@]}"
}

# What building vault needs (libseccomp-dev: the filter of the decoder helper, vault-decoder;
# zlib1g-dev: the PNG sent to kitty is deflated with zlib directly, in bands on every core;
# make: `make build`, `make install` and `make deb`), and what it runs: rclone, the engine
# of `vault backup`, `restore` and `offload` (vault starts /usr/bin/rclone; it links no
# cloud library), which scripts/bootstrap installs with these.
BUILD_PACKAGES=(pkg-config libsodium-dev libssl-dev libjpeg62-turbo-dev libpng-dev zlib1g-dev libheif-dev libchafa-dev libglib2.0-dev libqrencode-dev libkeyutils-dev libutf8proc-dev libgif-dev libwebp-dev libavif-dev libdav1d-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libfuse3-dev libseccomp-dev make rclone)
# What the installed vault runs with: the package of each library that vault and vault-decoder
# link (objdump -p's NEEDED, mapped by dpkg -S; Swift's own runtime is linked into both by
# --static-swift-stdlib, so no toolchain path), rclone (vault starts /usr/bin/rclone) and fuse3
# (fusermount3 mounts and unmounts `vault mount` for a user who is not root). The .deb of `make
# deb` depends on exactly these, and scripts/deb refuses to build when a binary links a
# library of a package not named here.
RUNTIME_PACKAGES=(libc6 libgcc-s1 libstdc++6 libsodium23 libssl3 libjpeg62-turbo libpng16-16 zlib1g libheif1 libchafa0 libglib2.0-0 libqrencode4 libkeyutils1 libutf8proc2 libgif7 libwebp7 libwebpdemux2 libavif15 libavformat59 libavcodec59 libavutil57 libswscale6 libfuse3-3 libseccomp2 rclone fuse3)
# What its tests need besides: chattr (a read-only folder even for root), the reference
# thumbnailer the quality test compares with, tmux to run vault on a terminal, strace
# to see which folders are flushed (and to kill vault at a chosen step), rsync and
# unison to merge copies of a vault as sync engines do, and two real syncthing instances
# (loopback only) to keep two copies in sync; for vault serve, zbarimg to
# decode the QR code it draws, curl to speak HTTP/2 to it, and Chromium with its
# WebDriver for the browser test of its page, and heif-enc (libheif-examples) to make the
# HEIC that test uploads; GNU time to read a command's peak memory; keyctl (keyutils) to run the tests, and each
# test of `vault unlock`, in a session keyring of their own; for the tests in real terminals
# (Tests/terminals), a private X display (xvfb), kitty, xterm and mlterm, xdotool to type in
# them and ImageMagick to take and read screenshots (and to make the GIF, WebP and AVIF
# files the import tests add, with ffmpeg for an animated WebP and libavif's avifenc for an
# AVIF turned by its irot and imir boxes); ffmpeg also makes the videos the tests import, and
# ffmpegthumbnailer is the reference `make bench` times video thumbnails against; feh is
# the GUI image viewer that opens a photo from a `vault mount` in the tests (fuse3's
# fusermount3 mounts and unmounts it); fontconfig's fc-list and fonts-dejavu-core's
# DejaVu Sans Mono to check that every glyph the viewer prints is in the default font;
# openssh-server for a real SFTP server on 127.0.0.1 (sshd with a generated key) that
# `vault backup`, `restore` and `offload` reach through rclone's sftp backend (their S3
# server is moto, from PyPI: Debian packages no S3 server, no MinIO); openssl to read the
# certificate `vault serve` makes with a parser other than the BoringSSL that made it;
# lintian to check the .deb of `make deb`, and man-db's man to render the installed man page
# (Tests/install).
TEST_PACKAGES=(e2fsprogs libvips-tools libheif-examples time tmux strace rsync unison syncthing zbar-tools curl chromium chromium-driver keyutils xvfb kitty xterm mlterm xdotool imagemagick ffmpeg libavif-bin ffmpegthumbnailer fuse3 feh fontconfig fonts-dejavu-core openssh-server openssl lintian man-db)
