# Sourced by the benchmarks that share their inputs (kept in bench-output for later runs).
# Each prints a path and is called as `x=$(ensure_… …)`, where `set -e` does not reach inside
# (hence the `|| return 1`s): a failed step fails the assignment, and the script.

# Prints the path of one video of $1 MiB: a 4-second 720p H.264 clip grown to that size by
# Benchmarks/pad_mp4.py (a real MP4 that vault stores as a video), made once.
ensure_video() {
  local mib="$1" work="bench-output"
  local video="$work/video-${mib}mib.mp4"
  if [ ! -f "$video" ]; then
    echo "generating a $mib MiB video in $video (kept for later runs)..." >&2
    ffmpeg -v error -nostdin -y -f lavfi -i testsrc2=size=1280x720:rate=30:duration=4 -c:v libx264 \
      -preset ultrafast -pix_fmt yuv420p -movflags +faststart "$work/video-clip.mp4" || return 1
    python3 Benchmarks/pad_mp4.py "$work/video-clip.mp4" "$video.partial" $((mib << 20)) || return 1
    mv "$video.partial" "$video" || return 1
  fi
  echo "$video"
}

# Prints the path of a space of $1 photos (password "benchmark"), built once through the
# library by vault-scale (quicker than `vault add` by far).
ensure_scale_space() {
  local count="$1" work="bench-output"
  local big="$work/scale-$count" start
  if [ ! -f "$big/vault.json" ] || [ "$(cat "$big/.count" 2>/dev/null)" != "$count" ]; then
    echo "building a space of $count photos in $big (kept for later runs)..." >&2
    VAULT_BENCH=1 swift build -c release --product vault-scale --scratch-path .build-bench >/dev/null || return 1
    rm -rf "$big"
    start=$(date +%s)
    .build-bench/release/vault-scale "$big" "$count" >&2 || return 1
    echo "$count" >"$big/.count"
    echo "built in $(($(date +%s) - start)) s" >&2
  fi
  echo "$big"
}

# Prints one core's CPU seconds a GiB for what vault's format does to every byte of an
# original (Benchmarks/crypto-floor.c: "hash 1.02", "seal 0.22", "open 0.22", "sodium-seal …",
# "sodium-open …", "aes-gcm …", "copy …" lines), timed over 256 MiB in memory; built once,
# with vault's own cipher (Sources/CVaultCipher).
crypto_floor() {
  local work="bench-output"
  local cipher=Sources/CVaultCipher
  if [ ! -x "$work/crypto-floor" ] || [ Benchmarks/crypto-floor.c -nt "$work/crypto-floor" ] ||
    [ "$cipher/vault_chunk_cipher.c" -nt "$work/crypto-floor" ]; then
    cc -O2 -Wall -I "$cipher/include" -o "$work/crypto-floor" Benchmarks/crypto-floor.c \
      "$cipher/vault_chunk_cipher.c" -lsodium -lcrypto || return 1
  fi
  "$work/crypto-floor" 256
}
