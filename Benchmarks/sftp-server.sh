# Sourced by the benchmarks that reach a remote over SFTP: OpenSSH's sshd on 127.0.0.1, as
# the tests start it (Tests/VaultTestSupport/SFTPServer.swift): keys made by ssh-keygen in
# a folder of its own, the user running the benchmark let in by key, Tests/sshd_config.in.

# Starts sshd with its keys and config in $1 (made afresh); sets sftp_port, sftp_user,
# sftp_key (the user's private key), sftp_known_hosts (naming the server's host key) and
# sftp_pid. sshd takes no port 0: a free port, and another if something took it meanwhile.
start_sftp_server() {
  local folder="$1" attempt
  rm -rf "$folder" && mkdir -p "$folder"
  ssh-keygen -q -t ed25519 -N "" -C vault-bench -f "$folder/host_key"
  ssh-keygen -q -t ed25519 -N "" -C vault-bench -f "$folder/user_key"
  cp "$folder/user_key.pub" "$folder/authorized_keys"
  # sshd run by root checks its privilege separation folder, which only the ssh service makes.
  if [ "$(id -u)" -eq 0 ] && [ ! -d /run/sshd ]; then mkdir -m 0755 /run/sshd; fi
  sftp_user=$(id -un) sftp_key="$folder/user_key" sftp_known_hosts="$folder/known_hosts"
  for attempt in 1 2 3 4 5; do
    sftp_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    sed -e "s|@FOLDER@|$folder|g" -e "s|@PORT@|$sftp_port|g" Tests/sshd_config.in >"$folder/sshd_config"
    /usr/sbin/sshd -D -e -f "$folder/sshd_config" 2>"$folder/log" &
    sftp_pid=$!
    # Ready when its log says so; a port taken meanwhile ends it.
    while kill -0 "$sftp_pid" 2>/dev/null && ! grep -q "Server listening on 127.0.0.1 port $sftp_port\." "$folder/log"; do
      sleep 0.05
    done
    if kill -0 "$sftp_pid" 2>/dev/null; then
      echo "[127.0.0.1]:$sftp_port $(cat "$folder/host_key.pub")" >"$sftp_known_hosts"
      return 0
    fi
    wait "$sftp_pid" || true
    grep -q "Address already in use" "$folder/log" || break
  done
  echo "error: sshd did not start: $(cat "$folder/log")" >&2
  return 1
}

# Ends the sshd that start_sftp_server started (the connections' processes end with their
# clients, which have all ended when this is called).
stop_sftp_server() {
  [ -n "${sftp_pid:-}" ] || return 0
  kill "$sftp_pid" 2>/dev/null || true
  wait "$sftp_pid" 2>/dev/null || true
  sftp_pid=""
}
