#!/usr/bin/env python3
"""HTTP-level tests of `vault serve`: the built binary, a real vault, clients on 127.0.0.1.

Run from the repository: `python3 -m unittest discover -s Tests/serve -p 'test_http.py' -v`
(scripts/test does, after the XCTest run). The binary is $VAULT_BINARY, else
.build/debug/vault. Python 3 standard library only; JPEGs are made with vips (Debian's
libvips-tools), else Pillow; QR decoding needs zbarimg (zbar-tools), else that test is skipped.

Every server binds 127.0.0.1. Waits are generous (a loaded 2-core CI machine); assertions
are on behaviour, never on time."""
import base64
import hashlib
import http.client
import json
import os
import pty
import queue
import re
import select
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import zlib

# A shell that runs the tests in the background (no job control) starts them with SIGINT
# ignored, and children inherit an ignored signal: vault serve would then keep ignoring
# Ctrl-C, as a program started with it ignored should. A handler set here is reset to the
# default in every child, so the server under test gets SIGINT as it does on a terminal.
signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("VAULT_BINARY") or os.path.join(ROOT, ".build", "debug", "vault")
PASSWORD = "correct horse"
# Long enough for a loaded CI machine; a test that passes never waits this long.
PATIENCE = 180


def missing(reason):
    """A skip on a developer's machine; under CI (CI=true), where scripts/test installed
    everything, a failure: a missing tool there is a broken set-up, not a test to leave out."""
    if os.environ.get("CI") == "true":
        return AssertionError(reason)
    return unittest.SkipTest(reason)


def vault_environment(vault):
    environment = {k: v for k, v in os.environ.items() if k not in ("VAULT_PASSWORD", "VAULT_DIR", "NO_COLOR")}
    environment.update({"VAULT_DIR": vault, "VAULT_PASSWORD": PASSWORD, "TZ": "UTC", "COLUMNS": "100"})
    return environment


def run_vault(vault, *arguments, check=True):
    run = subprocess.run(
        [BINARY, *arguments], env=vault_environment(vault), stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=PATIENCE)
    if check and run.returncode != 0:
        raise AssertionError(f"vault {' '.join(arguments)} exited {run.returncode}: {run.stderr}")
    return run


def make_vault(folder):
    vault = os.path.join(folder, "vault")
    run_vault(vault, "init", "--kdf", "interactive")
    return vault


def listed(vault):
    return json.loads(run_vault(vault, "list", "--json").stdout)


def temporary_files(vault):
    found = []
    for directory, _, files in os.walk(vault):
        found += [os.path.join(directory, name) for name in files if name.startswith(".tmp-")]
    return found


class Photos:
    """JPEGs of about `megabytes` MB of noise, made once per run; variants differ by a JPEG
    comment (COM segment) right after SOI, so each is a new photo to vault at the same cost."""
    _base = {}

    @classmethod
    def base(cls, width, height):
        key = (width, height)
        if key not in cls._base:
            cls._base[key] = cls._make(width, height)
        return cls._base[key]

    @staticmethod
    def _make(width, height):
        folder = tempfile.mkdtemp(prefix="vault-serve-photo-")
        try:
            target = os.path.join(folder, "base.jpg")
            if shutil.which("vips"):
                bands = []
                for band in range(3):
                    noise, cast = os.path.join(folder, f"n{band}.v"), os.path.join(folder, f"c{band}.v")
                    subprocess.run(["vips", "gaussnoise", noise, str(width), str(height), "--sigma", "50",
                                    "--mean", "128", "--seed", str(band + 1)], check=True)
                    subprocess.run(["vips", "cast", noise, cast, "uchar"], check=True)
                    bands.append(cast)
                joined = os.path.join(folder, "rgb.v")
                subprocess.run(["vips", "bandjoin", " ".join(bands), joined], check=True)
                subprocess.run(["vips", "jpegsave", joined, target, "--Q", "90", "--subsample-mode", "off"],
                               check=True)
            else:
                try:
                    from PIL import Image
                except ImportError:
                    raise missing("neither vips nor Pillow is available to make JPEGs")
                Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)).save(target, quality=90)
            with open(target, "rb") as file:
                return file.read()
        finally:
            shutil.rmtree(folder)

    @classmethod
    def jpeg(cls, label, width=2048, height=1536):
        base = cls.base(width, height)
        comment = f"vault serve test {label}".encode()
        return base[:2] + b"\xff\xfe" + struct.pack(">H", len(comment) + 2) + comment + base[2:]


class Server:
    """A `vault serve` process and what it printed."""

    def __init__(self, vault, *arguments, tls=True, wrapper=(), environment=None, bind="127.0.0.1"):
        self.vault = vault
        self.tls = tls
        command = [*wrapper, BINARY, "serve", "--bind", bind, *arguments]
        if not tls:
            command.append("--http")
        self.stderr_file = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            command, env={**vault_environment(vault), **(environment or {})}, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=self.stderr_file, text=True)
        self.lines = []
        self.changed = threading.Condition()
        self.collector = threading.Thread(target=self._collect, daemon=True)
        self.collector.start()
        self.wait_for(lambda line: line.startswith("Open the address"))
        address = next(line for line in self.lines if line.startswith("address: "))[len("address: "):]
        parsed = urllib.parse.urlsplit(address)
        self.address, self.port, self.path = address, parsed.port, parsed.path
        self.token = parsed.path.strip("/")
        prints = [line for line in self.lines if line.startswith("certificate SHA-256: ")]
        self.fingerprint = prints[0][len("certificate SHA-256: "):] if prints else None

    def _collect(self):
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(self, predicate, start=0):
        deadline = time.monotonic() + PATIENCE
        with self.changed:
            while True:
                for line in self.lines[start:]:
                    if predicate(line):
                        return line
                if self.process.poll() is not None and not self._reading():
                    raise AssertionError(f"vault serve ended ({self.process.returncode}) without it: "
                                         f"{self.lines} {self.stderr()}")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"vault serve did not print it: {self.lines}")
                self.changed.wait(min(remaining, 1))

    def _reading(self):
        return not self.process.stdout.closed and self.process.poll() is None

    def stderr(self):
        self.stderr_file.seek(0)
        return self.stderr_file.read()

    def connection(self, alpn=("http/1.1",), source="127.0.0.1"):
        # Any address of loopback's 127/8 may be the client's: the server counts
        # connections per address.
        if self.tls:
            return http.client.HTTPSConnection("127.0.0.1", self.port, context=client_context(alpn),
                                               timeout=PATIENCE, source_address=(source, 0))
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=PATIENCE,
                                          source_address=(source, 0))

    def request(self, method, path, body=None, headers=None, source="127.0.0.1"):
        connection = self.connection(source=source)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, dict((k.lower(), v) for k, v in response.getheaders()), response.read()
        finally:
            connection.close()

    def upload(self, name, data, modified=None, source="127.0.0.1"):
        query = "name=" + urllib.parse.quote(name, safe="")
        if modified is not None:
            query += f"&modified={modified}"
        status, headers, body = self.request("POST", f"{self.path}upload?{query}", body=data,
                                             headers={"Content-Type": "application/octet-stream"},
                                             source=source)
        return status, headers, json.loads(body) if body else None

    def raw_socket(self, source="127.0.0.1"):
        plain = socket.create_connection(("127.0.0.1", self.port), timeout=PATIENCE, source_address=(source, 0))
        if not self.tls:
            return plain
        return client_context().wrap_socket(plain, server_hostname="127.0.0.1")

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            self.process.wait(PATIENCE)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        # The process has ended; its last lines are read once the collector reaches the end
        # of its output, which `lines[-1]` after a stop must wait for.
        self.collector.join(PATIENCE)
        return self.process.returncode

    def close(self):
        """Kills the server if it still runs, and closes what reads its output."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.collector.join(PATIENCE)
        self.process.stdout.close()
        self.stderr_file.close()

    def reset_peak_memory(self):
        """Starts VmHWM again from the current RSS (Linux's clear_refs 5), so that what an
        upload takes is not hidden by the key derivation's peak at start."""
        with open(f"/proc/{self.process.pid}/clear_refs", "w") as clear:
            clear.write("5")

    def peak_memory_kib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return None


def client_context(alpn=("http/1.1",)):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(list(alpn))
    return context


def read_response(sock):
    """Reads one HTTP/1.1 response from a socket: (status, headers, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"connection closed before a response: {data!r}")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = dict((k.strip().lower(), v.strip()) for k, v in (line.split(":", 1) for line in lines[1:]))
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def closed_by_peer(sock):
    """Whether the server closes the connection (while the client sends nothing)."""
    sock.settimeout(PATIENCE)
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return True
    except (ConnectionResetError, ssl.SSLError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def still_open(sock):
    """Whether the server has neither closed nor reset the connection yet (without waiting)."""
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except ConnectionResetError:
        return False


class ServeTestCase(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="vault-serve-test-")
        self.vault = make_vault(self.folder)
        self.servers = []

    def tearDown(self):
        for server in self.servers:
            server.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def serve(self, *arguments, tls=True, wrapper=(), environment=None, bind="127.0.0.1"):
        server = Server(self.vault, *arguments, tls=tls, wrapper=wrapper, environment=environment, bind=bind)
        self.servers.append(server)
        return server


class AccessTests(ServeTestCase):
    def test_requests_without_the_token_get_a_bare_404(self):
        server = self.serve()
        wrong = "A" * 43
        for method, path in [("GET", "/"), ("GET", "/index.html"), ("POST", "/upload?name=a.jpg"),
                             ("GET", f"/{wrong}/"), ("DELETE", server.path), ("GET", server.path + "x"),
                             ("PUT", server.path + "upload?name=a.jpg")]:
            status, headers, body = server.request(method, path, body=b"x" if method != "GET" else None)
            self.assertEqual(status, 404, (method, path))
            self.assertEqual(body, b"", (method, path))
            self.assertNotIn("server", headers)
            self.assertEqual(headers.get("content-length"), "0")
        status, headers, _ = server.request("GET", server.path)
        self.assertEqual(status, 200)
        self.assertNotIn("server", headers)

    def test_dot_dot_encoded_slash_and_double_slash_paths_get_404(self):
        server = self.serve()
        token = server.token
        for path in [f"/{token}/../{token}/", f"/{token}/./", f"/{token}%2Fupload?name=a.jpg",
                     f"/{token}%2F", f"//{token}/", f"/{token}//", f"/x/../{token}/", f"/{token}/upload/..",
                     f"/%2E%2E/{token}/", f"/{token}/%2E%2E/"]:
            status, _, body = server.request("GET", path)
            self.assertEqual((status, body), (404, b""), path)
            status, _, body = server.request("POST", path, body=b"x")
            self.assertEqual((status, body), (404, b""), path)

    def test_twenty_wrong_tokens_block_the_address_for_a_minute(self):
        server = self.serve()
        wrong = ("B" * 42) + "C"
        for attempt in range(20):
            status, _, body = server.request("GET", f"/{wrong}/")
            self.assertEqual((status, body), (404, b""), f"attempt {attempt + 1}")
        status, headers, body = server.request("GET", f"/{wrong}/")
        self.assertEqual((status, body), (429, b""))
        self.assertNotIn("server", headers)
        # The right token still gets through: on IPv6 the phone may share the blocked
        # entry (a /64) with the guesser, and a 256-bit token cannot be guessed anyway.
        status, _, _ = server.request("GET", server.path)
        self.assertEqual(status, 200)

    def test_idle_sockets_from_one_neighbour_do_not_lock_the_phone_out(self):
        # 130 idle connections from 127.0.0.2 (all of loopback's 127/8 reaches the server)
        # once took every one of the 128 slots, and the phone waited until they timed out.
        # Now all but 16 are closed at once, and the phone gets in while those 16 are held.
        server = self.serve(tls=False)
        idle = []
        try:
            for _ in range(130):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind(("127.0.0.2", 0))
                sock.connect(("127.0.0.1", server.port))
                idle.append(sock)
            # Which 16 are kept depends on the event loops; the others are closed at accept.
            # (Without the cap, the first 128 stay open until they time out together.)
            open_sockets, deadline = list(idle), time.monotonic() + PATIENCE
            while len(open_sockets) > 16 and time.monotonic() < deadline:
                readable, _, _ = select.select(open_sockets, [], [], 1)
                open_sockets = [sock for sock in open_sockets if sock not in readable or still_open(sock)]
            self.assertEqual(len(open_sockets), 16)
            status, _, _ = server.request("GET", server.path)
            self.assertEqual(status, 200)
            self.assertTrue(all(still_open(sock) for sock in open_sockets),
                            "the phone got in only once the neighbour's connections timed out")
        finally:
            for sock in idle:
                sock.close()

    def test_wrong_token_requests_on_keep_alive_connections_do_not_hold_the_slots(self):
        # 8 addresses x 16 TLS keep-alive connections, each asking for /favicon.ico (which
        # browsers fetch on their own, so it never gets the address blocked) every 20 s,
        # once held all 128 slots for as long as they liked: the 404 left the connection
        # open and restarted its stall timer. Now an answer without the right token closes
        # a connection that never showed it.
        server = self.serve()
        held = []
        try:
            for source in range(2, 10):
                for _ in range(16):
                    held.append(server.raw_socket(source=f"127.0.0.{source}"))
                    held[-1].sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: phone\r\n\r\n")
                    status, headers, body = read_response(held[-1])
                    self.assertEqual((status, headers.get("connection"), body), (404, "close", b""))
            self.assertTrue(all(closed_by_peer(sock) for sock in held))
        finally:
            for sock in held:
                sock.close()
        status, _, _ = server.request("GET", server.path)
        self.assertEqual(status, 200)
        # A connection that showed the token keeps going after the browser's own favicon.ico.
        connection = server.connection()
        try:
            for path in [server.path, "/favicon.ico", server.path]:
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                self.assertEqual(response.getheader("connection"), None, path)
        finally:
            connection.close()

    def test_idle_connections_from_eight_addresses_leave_room_for_the_phone(self):
        # 8 addresses x 16 connections that say nothing hold all 128 slots; the phone used to
        # wait (in the listen backlog) until they timed out together. Now the phone's
        # connection closes one of them, from the busiest address, at once. (Plain HTTP:
        # Python shakes hands too slowly here to hold 128 TLS connections within the 10 s
        # a handshake is given.)
        server = self.serve(tls=False)
        idle = []
        try:
            for source in range(2, 10):
                for _ in range(16):
                    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    sock.bind((f"127.0.0.{source}", 0))
                    sock.connect(("127.0.0.1", server.port))
                    idle.append(sock)
            status, _, _ = server.request("GET", server.path)
            self.assertEqual(status, 200)
            still = sum(1 for sock in idle if still_open(sock))
            # One closed to make room as the 128th came in, one for the phone: no more.
            self.assertGreaterEqual(still, 126, "the phone got in only once the others timed out")
        finally:
            for sock in idle:
                sock.close()

    def test_ipv4_clients_of_an_ipv6_socket_are_counted_each_on_its_own(self):
        # With --bind ::, IPv4 clients arrive as ::ffff:a.b.c.d, and all of them were counted
        # as one IPv6 /64: one host's 16 idle sockets locked every IPv4 client out. Here the
        # IPv6 socket listens on loopback's ::ffff:127.0.0.1 only.
        server = self.serve(tls=False, bind="::ffff:127.0.0.1")
        idle = []
        try:
            for _ in range(17):
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind(("127.0.0.2", 0))
                sock.connect(("127.0.0.1", server.port))
                idle.append(sock)
            # One of the 17 is closed at once (its address holds 16): all were counted.
            open_sockets, deadline = list(idle), time.monotonic() + PATIENCE
            while len(open_sockets) > 16 and time.monotonic() < deadline:
                readable, _, _ = select.select(open_sockets, [], [], 1)
                open_sockets = [sock for sock in open_sockets if sock not in readable or still_open(sock)]
            self.assertEqual(len(open_sockets), 16)
            status, _, _ = server.request("GET", server.path, source="127.0.0.3")
            self.assertEqual(status, 200)
            status, _, _ = server.request("GET", "/favicon.ico", source="127.0.0.4")
            self.assertEqual(status, 404)
        finally:
            for sock in idle:
                sock.close()

    def test_page_has_a_strict_policy_that_allows_its_own_inline_script_and_style(self):
        server = self.serve()
        status, headers, body = server.request("GET", server.path)
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "text/html; charset=utf-8")
        self.assertEqual(headers["cache-control"], "no-store")
        self.assertEqual(headers["referrer-policy"], "no-referrer")
        self.assertEqual(headers["x-content-type-options"], "nosniff")
        policy = headers["content-security-policy"]
        self.assertTrue(policy.startswith("default-src 'none'; "), policy)
        for directive in ["img-src 'self' data:", "connect-src 'self'", "base-uri 'none'", "form-action 'none'",
                          "frame-ancestors 'none'"]:
            self.assertIn(directive, policy)
        page = body.decode()
        for tag, directive in [("script", "script-src"), ("style", "style-src")]:
            inline = re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", page, re.S)
            self.assertEqual(len(inline), 1, tag)
            digest = base64.b64encode(hashlib.sha256(inline[0].encode()).digest()).decode()
            self.assertIn(f"{directive} 'sha256-{digest}'", policy)
        self.assertNotRegex(page, r"(src|href)=\"(https?:)?//")


class TransportTests(ServeTestCase):
    def test_tls_offers_http2_and_the_printed_fingerprint_is_the_certificate_the_client_sees(self):
        server = self.serve()
        self.assertRegex(server.fingerprint, r"^([0-9A-F]{2}:){31}[0-9A-F]{2}$")
        for alpn, expected in [(("h2", "http/1.1"), "h2"), (("http/1.1",), "http/1.1")]:
            plain = socket.create_connection(("127.0.0.1", server.port), timeout=PATIENCE)
            with client_context(alpn).wrap_socket(plain, server_hostname="127.0.0.1") as tls:
                self.assertEqual(tls.selected_alpn_protocol(), expected)
                self.assertGreaterEqual(tls.version(), "TLSv1.2")
                seen = hashlib.sha256(tls.getpeercert(binary_form=True)).hexdigest().upper()
                self.assertEqual(":".join(seen[i:i + 2] for i in range(0, 64, 2)), server.fingerprint)
        if shutil.which("curl"):
            run = subprocess.run(["curl", "-sk", "--http2", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                                  server.address], capture_output=True, text=True, timeout=PATIENCE)
            self.assertEqual(run.stdout, "2 200", run.stderr)
            # An upload over HTTP/2 goes through the same route.
            photo = os.path.join(self.folder, "h2.jpg")
            with open(photo, "wb") as file:
                file.write(Photos.jpeg("h2", 640, 480))
            run = subprocess.run(["curl", "-sk", "--http2", "--data-binary", f"@{photo}", "-w", " %{http_version}",
                                  server.address + "upload?name=h2.jpg"], capture_output=True, text=True,
                                 timeout=PATIENCE)
            answer, version = run.stdout.rsplit(" ", 1)
            self.assertEqual(version, "2")
            self.assertEqual(json.loads(answer)["outcome"], "added", answer)

    def test_plain_http_warns_first_and_prints_no_fingerprint(self):
        server = self.serve(tls=False)
        self.assertTrue(server.address.startswith("http://127.0.0.1:"))
        self.assertIsNone(server.fingerprint)
        self.assertTrue(server.stderr().startswith(
            "warning: serving plain HTTP: anyone on the network can read the photos you send"), server.stderr())
        status, _, _ = server.request("GET", server.path)
        self.assertEqual(status, 200)

    def test_the_address_and_the_password_are_printed_but_never_the_space(self):
        server = self.serve()
        server.stop()
        output = "\n".join(server.lines) + server.stderr()
        self.assertNotIn(PASSWORD, output)
        for line in server.lines[:3]:
            self.assertRegex(line, r"^(address: https://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{43}/|certificate SHA-256: .*"
                                   r"|Open the address on your phone \(same Wi-Fi\), check the fingerprint, "
                                   r"choose photos\. Ctrl-C stops\.)$")


class UploadTests(ServeTestCase):
    def test_same_file_twice_is_added_then_already_in_the_vault(self):
        server = self.serve()
        data = Photos.jpeg("twice", 640, 480)
        status, headers, answer = server.upload("IMG_0001.JPG", data, modified=1700000000123)
        self.assertEqual(status, 201, answer)
        self.assertEqual(answer, {"outcome": "added", "name": "IMG_0001.JPG", "bytes": len(data)})
        self.assertEqual(headers["content-type"], "application/json")
        server.wait_for(lambda line: line.startswith("added IMG_0001.JPG ("))
        status, _, answer = server.upload("copy.jpg", data)
        self.assertEqual(status, 200, answer)
        self.assertEqual(answer, {"outcome": "duplicate", "name": "copy.jpg"})
        photos = listed(self.vault)
        self.assertEqual([photo["name"] for photo in photos], ["IMG_0001.JPG"])
        # The line names the item it duplicates, numbered as `list` numbers it.
        duplicated = f"1 'IMG_0001.JPG' (id {photos[0]['id'][:8]})"
        server.wait_for(lambda line: line == "already in the vault: copy.jpg as " + duplicated)
        self.assertEqual(server.stop(signal.SIGINT), 0)
        self.assertEqual(server.lines[-1], "received 1 photo, 1 duplicate, 0 refused")
        export = os.path.join(self.folder, "out")
        run_vault(self.vault, "export", "--all", "--to", export)
        with open(os.path.join(export, "IMG_0001.JPG"), "rb") as file:
            self.assertEqual(file.read(), data)
        self.assertEqual(int(os.stat(os.path.join(export, "IMG_0001.JPG")).st_mtime), 1700000000)

    def test_a_space_held_by_another_command_gets_503_and_a_retry_stores_it(self):
        server = self.serve(environment={"VAULT_LOCK_WAIT": "0.3"})
        space = next(os.path.join(self.vault, name) for name in os.listdir(self.vault) if name != "vault.json")
        # Another command holds the space (flock -o: killing flock lets go of it).
        holder = subprocess.Popen(
            ["flock", "-o", "-x", space, "sh", "-c", "echo $$; exec sleep 100000"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        sleeper = int(holder.stdout.readline())
        data = Photos.jpeg("busy", 320, 240)
        try:
            status, _, answer = server.upload("busy.jpg", data)
            self.assertEqual(status, 503, answer)
            self.assertEqual(answer["reason"], "the vault is busy with another command; retry in a moment")
            line = server.wait_for(lambda line: line.startswith("refused busy.jpg: "))
            self.assertIn(f"not stored yet: the space is in use by flock (pid {holder.pid})", line)
        finally:
            os.kill(sleeper, signal.SIGKILL)
            holder.kill()
            holder.wait()
        self.assertEqual(listed(self.vault), [])
        status, _, answer = server.upload("busy.jpg", data)
        self.assertEqual(status, 201, answer)
        self.assertEqual([photo["name"] for photo in listed(self.vault)], ["busy.jpg"])

    def test_not_a_photo_is_refused_with_the_reason(self):
        server = self.serve()
        status, _, answer = server.upload("notes.txt", b"just some text, not a photo\n" * 100)
        self.assertIn(status, (415, 422), answer)
        self.assertEqual(answer["outcome"], "refused")
        self.assertEqual(answer["name"], "notes.txt")
        line = server.wait_for(lambda line: line.startswith("refused notes.txt: "))
        self.assertIn(answer["reason"], line)
        self.assertEqual(listed(self.vault), [])

    def test_bad_requests_to_the_upload_route(self):
        server = self.serve()
        upload = server.path + "upload"
        status, _, body = server.request("POST", upload, body=b"x")
        self.assertEqual(status, 400, body)
        status, _, body = server.request("POST", upload + "?name=..", body=b"x")
        self.assertEqual(status, 400, body)
        sock = server.raw_socket()
        sock.sendall(f"POST {upload}?name=a.jpg HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "1\r\nx\r\n0\r\n\r\n".encode())
        status, _, body = read_response(sock)
        sock.close()
        self.assertEqual(status, 411, body)
        self.assertEqual(json.loads(body)["outcome"], "refused")

    def test_a_body_over_the_cap_gets_413_before_it_is_read(self):
        server = self.serve("--max-upload-mb", "1")
        sock = server.raw_socket()
        announced = 100_000_000_000
        # Only the head: the server must answer without waiting for the body.
        sock.sendall(f"POST {server.path}upload?name=big.jpg HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {announced}\r\n\r\n".encode())
        status, headers, body = read_response(sock)
        self.assertEqual(status, 413)
        self.assertEqual(json.loads(body), {"outcome": "refused", "name": "big.jpg",
                                            "reason": "larger than the 1 MB limit"})
        self.assertNotIn("server", headers)
        # A client that goes on sending is cut off: the server does not read (and drop) the
        # body to its announced end, which it would do for as long as bytes keep coming.
        self.assert_cut_off(sock)
        server.wait_for(lambda line: line == "refused big.jpg: larger than the 1 MB limit")
        status, _, answer = server.upload("small.jpg", Photos.jpeg("small", 320, 240))
        self.assertEqual(status, 201, answer)

    def assert_cut_off(self, sock):
        """Sends until the server cuts the connection (it must, long before 8 GB), then closes."""
        chunk, sent = b"\0" * 65536, 0
        with self.assertRaises((BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout)):
            while sent < 8_000_000_000:
                sock.sendall(chunk)
                sent += len(chunk)
        sock.close()

    def test_a_wrong_token_with_a_body_is_cut_off_too(self):
        server = self.serve()
        sock = server.raw_socket()
        sock.sendall(f"POST /{'D' * 43}/upload?name=a.jpg HTTP/1.1\r\nHost: x\r\n"
                     "Content-Length: 100000000000\r\n\r\n".encode())
        status, _, body = read_response(sock)
        self.assertEqual((status, body), (404, b""))
        self.assert_cut_off(sock)

    def test_a_truncated_upload_leaves_nothing_and_the_server_goes_on(self):
        server = self.serve()
        data = Photos.jpeg("cut")
        sock = server.raw_socket()
        sock.sendall(f"POST {server.path}upload?name=cut.jpg HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {len(data)}\r\n\r\n".encode())
        sock.sendall(data[:1_000_000])
        sock.close()
        line = server.wait_for(lambda line: line.startswith("incomplete: cut.jpg"))
        self.assertRegex(line, r"^incomplete: cut\.jpg \(connection closed after \d\.\d of \d\.\d MB\)$")
        self.assertEqual(temporary_files(self.vault), [])
        self.assertEqual(listed(self.vault), [])
        status, _, answer = server.upload("whole.jpg", data)
        self.assertEqual(status, 201, answer)
        self.assertEqual(server.stop(), 0)
        self.assertEqual(server.lines[-1], "received 1 photo, 0 duplicates, 1 refused")

    def test_a_stalled_body_is_dropped(self):
        server = self.serve()
        data = Photos.jpeg("stall", 640, 480)
        sock = server.raw_socket()
        sock.sendall(f"POST {server.path}upload?name=stall.jpg HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {len(data)}\r\n\r\n".encode())
        sock.sendall(data[:len(data) // 2])
        # Nothing more is sent: the server gives up on it (after 30 s) and closes.
        self.assertTrue(closed_by_peer(sock))
        sock.close()
        server.wait_for(lambda line: line.startswith("incomplete: stall.jpg"))
        self.assertEqual(listed(self.vault), [])
        self.assertEqual(temporary_files(self.vault), [])

    def test_fifty_concurrent_uploads_all_land_once_with_bounded_memory(self):
        server = self.serve()
        count = 50
        photos = {f"IMG_{index:04}.JPG": Photos.jpeg(f"concurrent {index}") for index in range(count)}
        self.assertTrue(all(len(data) > 4_500_000 for data in photos.values()))
        results = queue.Queue()
        start = threading.Barrier(count)

        def send(name, data, source):
            try:
                start.wait()
                results.put((name, server.upload(name, data, source=source)))
            except Exception as error:  # noqa: BLE001 - reported below
                results.put((name, error))

        # From five addresses, ten uploads each: one address may hold 16 connections.
        threads = [threading.Thread(target=send, args=(name, data, f"127.0.0.{1 + index % 5}"))
                   for index, (name, data) in enumerate(photos.items())]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(PATIENCE * 2)
        answers = dict(results.get() for _ in range(count))
        for name, answer in answers.items():
            self.assertNotIsInstance(answer, Exception, f"{name}: {answer}")
            self.assertEqual(answer[0], 201, f"{name}: {answer}")
        peak = server.peak_memory_kib()
        print(f"\n  50 concurrent 5 MB uploads: server peak memory (VmHWM) {peak / 1024:.0f} MiB; "
              f"load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        # The intake's budget is 256 MiB; decoding, TLS buffers and the runtime come on top.
        self.assertLess(peak, 900 * 1024)
        photos_listed = listed(self.vault)
        self.assertEqual(sorted(photo["name"] for photo in photos_listed), sorted(photos))
        self.assertEqual(len({photo["id"] for photo in photos_listed}), count)
        self.assertEqual(server.stop(), 0)
        self.assertEqual(server.lines[-1], f"received {count} photos, 0 duplicates, 0 refused")
        self.assertEqual(len([line for line in server.lines if line.startswith("added ")]), count)

    def test_sigkill_during_uploads_then_a_write_and_verify_pass(self):
        server = self.serve()
        photos = {f"K_{index}.JPG": Photos.jpeg(f"killed {index}") for index in range(8)}

        def send(name, data):
            try:
                server.upload(name, data)
            except (OSError, http.client.HTTPException):
                pass

        threads = [threading.Thread(target=send, args=item, daemon=True) for item in photos.items()]
        for thread in threads:
            thread.start()
        server.wait_for(lambda line: line.startswith("added "))
        server.process.kill()
        server.process.wait()
        for thread in threads:
            thread.join(PATIENCE)
        extra = os.path.join(self.folder, "after.jpg")
        with open(extra, "wb") as file:
            file.write(Photos.jpeg("after kill", 320, 240))
        run_vault(self.vault, "add", extra)
        run = run_vault(self.vault, "verify", check=False)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(temporary_files(self.vault), [])
        names = [photo["name"] for photo in listed(self.vault)]
        self.assertIn("after.jpg", names)
        self.assertGreaterEqual(len(names), 2)

    def test_nothing_plain_is_written_to_a_file(self):
        if not shutil.which("strace"):
            raise missing("strace is not installed; scripts/test installs it")
        trace = os.path.join(self.folder, "trace.txt")
        read_only = os.path.join(self.folder, "read-only-tmp")
        os.mkdir(read_only, 0o500)
        calls = "open,openat,openat2,creat,memfd_create,mknodat,link,linkat,rename,renameat,renameat2"
        server = self.serve("--once", wrapper=[shutil.which("strace"), "-f", "-qq", "-e", f"trace={calls}", "-o", trace],
                            environment={"TMPDIR": read_only})
        data = Photos.jpeg("traced", 1024, 768)
        sock = server.raw_socket()
        sock.sendall(f"POST {server.path}upload?name=cut.jpg HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {len(data)}\r\n\r\n".encode() + data[:len(data) // 2])
        sock.close()
        server.wait_for(lambda line: line.startswith("incomplete: cut.jpg"))
        status, _, answer = server.upload("traced.jpg", data)
        self.assertEqual(status, 201, answer)
        self.assertEqual(server.process.wait(PATIENCE), 0, "--once ends the server (and strace)")
        with open(trace) as file:
            lines = file.read().splitlines()
        writes = [line for line in lines
                  if any(mark in line for mark in ("O_WRONLY", "O_RDWR", "O_CREAT", "memfd_create(", "creat(",
                                                   "link", "rename"))
                  and not any(device in line for device in ('"/dev/null"', '"/dev/tty"', '"/dev/pts/'))
                  and "= -1 " not in line]
        self.assertEqual([line for line in writes if f'"{self.vault}/' not in line], [],
                         "files opened to write outside the vault")
        self.assertTrue(any("/Photo/" in line for line in writes), "the trace saw the original stored")

    def test_the_space_stays_usable_while_serving(self):
        server = self.serve()
        status, _, _ = server.upload("first.jpg", Photos.jpeg("first", 640, 480))
        self.assertEqual(status, 201)
        self.assertEqual([photo["name"] for photo in listed(self.vault)], ["first.jpg"])
        export = os.path.join(self.folder, "out")
        run_vault(self.vault, "export", "--all", "--to", export)
        self.assertEqual(os.listdir(export), ["first.jpg"])
        extra = os.path.join(self.folder, "added.jpg")
        with open(extra, "wb") as file:
            file.write(Photos.jpeg("added by add", 320, 240))
        run_vault(self.vault, "add", extra)
        status, _, answer = server.upload("second.jpg", Photos.jpeg("second", 640, 480))
        self.assertEqual(status, 201, answer)
        # The server sees what another command added: the same photo is a duplicate.
        with open(extra, "rb") as file:
            status, _, answer = server.upload("again.jpg", file.read())
        self.assertEqual((status, answer["outcome"]), (200, "duplicate"))
        self.assertEqual(sorted(photo["name"] for photo in listed(self.vault)),
                         ["added.jpg", "first.jpg", "second.jpg"])


class Videos:
    """MP4s made by FFmpeg at test time (H.264 of a test pattern): small, or padded after
    their `moov` with a `free` box of zeros (a hole in the file) to any size."""

    @staticmethod
    def make(path, seconds=2, size="320x240"):
        if not shutil.which("ffmpeg"):
            if os.environ.get("CI") == "true":
                raise AssertionError("ffmpeg is missing: scripts/deps.sh installs it")
            raise unittest.SkipTest("ffmpeg is not installed")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                        f"testsrc2=duration={seconds}:size={size}:rate=25", "-c:v", "libx264",
                        "-pix_fmt", "yuv420p", path], check=True, stdin=subprocess.DEVNULL)
        return path

    @classmethod
    def padded(cls, path, total):
        cls.make(path)
        size = os.path.getsize(path)
        with open(path, "r+b") as file:
            file.seek(size)
            file.write(struct.pack(">I4s", total - size, b"free"))
            file.truncate(total)
        return path


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_unnamed_files(server, folder):
    """The files under `folder` the server holds open although they have no name (an
    upload's temporary blob, made with O_TMPFILE)."""
    held = []
    fds = f"/proc/{server.process.pid}/fd"
    for fd in os.listdir(fds):
        try:
            target = os.readlink(os.path.join(fds, fd))
        except OSError:
            continue
        if target.startswith(folder) and target.endswith("(deleted)"):
            held.append(target)
    return held


class VideoUploadTests(ServeTestCase):
    def upload_file(self, server, name, path):
        """Sends a file from disk as it is read (http.client streams a file body)."""
        connection = server.connection()
        connection.blocksize = 1 << 20
        try:
            with open(path, "rb") as file:
                connection.request("POST", f"{server.path}upload?name={urllib.parse.quote(name, safe='')}",
                                   body=file, headers={"Content-Length": str(os.path.getsize(path)),
                                                       "Content-Type": "application/octet-stream"})
                response = connection.getresponse()
                body = response.read()
            return response.status, json.loads(body) if body else None
        finally:
            connection.close()

    def assert_exported_bit_for_bit(self, originals):
        target = os.path.join(self.folder, "exported")
        run_vault(self.vault, "export", "--all", "--to", target)
        for path in originals:
            self.assertEqual(sha256_of(os.path.join(target, os.path.basename(path))), sha256_of(path), path)

    assert_cut_off = UploadTests.assert_cut_off

    def test_a_video_is_stored_as_a_video_with_its_duration_and_exported_bit_for_bit(self):
        clip = Videos.make(os.path.join(self.folder, "clip.mp4"), seconds=2)
        server = self.serve()
        with open(clip, "rb") as file:
            status, _, answer = server.upload("clip.mp4", file.read())
        self.assertEqual((status, answer["outcome"]), (201, "added"), answer)
        server.wait_for(lambda line: line.startswith("added clip.mp4 ("))
        [video] = listed(self.vault)
        self.assertEqual((video["name"], video["kind"], video["codec"]), ("clip.mp4", "video", "h264"))
        self.assertAlmostEqual(video["duration"], 2, delta=0.1)
        self.assertEqual((video["width"], video["height"]), (320, 240))
        self.assertEqual(video["bytes"], os.path.getsize(clip))
        self.assert_exported_bit_for_bit([clip])
        with open(clip, "rb") as file:
            status, _, answer = server.upload("clip again.mp4", file.read())
        self.assertEqual((status, answer["outcome"]), (200, "duplicate"))
        self.assertEqual(server.stop(), 0)
        self.assertEqual(server.lines[-1], "received 1 video, 1 duplicate, 0 refused")

    def test_a_large_video_streams_to_disk_with_bounded_memory(self):
        total = 320 << 20
        big = Videos.padded(os.path.join(self.folder, "big.mp4"), total)
        server = self.serve()
        started = server.peak_memory_kib()
        server.reset_peak_memory()
        before = server.peak_memory_kib()
        status, answer = self.upload_file(server, "big.mp4", big)
        self.assertEqual((status, answer["outcome"]), (201, "added"), answer)
        peak = server.peak_memory_kib()
        print(f"\n  a {total >> 20} MiB video upload: server peak memory (VmHWM) {peak / 1024:.0f} MiB, "
              f"from {before / 1024:.0f} MiB before it ({started / 1024:.0f} MiB while unlocking)",
              file=sys.stderr)
        # Held whole, it would take 320 MiB more; streamed, a few chunks, TLS buffers and the
        # video's header and thumbnail decode.
        self.assertLess(peak - before, 64 * 1024)
        [video] = listed(self.vault)
        self.assertEqual((video["kind"], video["bytes"]), ("video", total))
        self.assertAlmostEqual(video["duration"], 2, delta=0.1)
        self.assert_exported_bit_for_bit([big])
        self.assertEqual(temporary_files(self.vault), [])

    def test_a_video_cut_off_leaves_no_temporary_blob_and_no_record(self):
        clip = Videos.padded(os.path.join(self.folder, "cut.mp4"), 24 << 20)
        server = self.serve()
        sock = server.raw_socket()
        sock.sendall(f"POST {server.path}upload?name=cut.mp4 HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {os.path.getsize(clip)}\r\n\r\n".encode())
        with open(clip, "rb") as file:
            sock.sendall(file.read(10 << 20))
        sock.close()
        server.wait_for(lambda line: line.startswith("incomplete: cut.mp4"))
        self.assertEqual(listed(self.vault), [])
        self.assertEqual(temporary_files(self.vault), [])
        self.assertEqual(open_unnamed_files(server, self.vault), [])
        status, answer = self.upload_file(server, "cut.mp4", clip)
        self.assertEqual((status, answer["outcome"]), (201, "added"), answer)

    def test_lying_lengths_are_refused_and_leave_nothing(self):
        server = self.serve()
        # Over 8 GiB: refused from its head, before any of it is read.
        sock = server.raw_socket()
        sock.sendall(f"POST {server.path}upload?name=huge.mp4 HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {(8 << 30) + 1}\r\n\r\n".encode())
        status, _, body = read_response(sock)
        self.assertEqual((status, json.loads(body)["reason"]), (413, "larger than the 8 GiB limit"))
        sock.close()
        # 8 GiB announced, a short video sent, then nothing: cut off by the stall deadline.
        clip = Videos.make(os.path.join(self.folder, "short.mp4"))
        sock = server.raw_socket()
        sock.sendall(f"POST {server.path}upload?name=short.mp4 HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {8 << 30}\r\n\r\n".encode())
        with open(clip, "rb") as file:
            sock.sendall(file.read())
        self.assertTrue(closed_by_peer(sock))
        sock.close()
        server.wait_for(lambda line: line.startswith("incomplete: short.mp4"))
        # A photo under a video's name (it reserved only a video's memory share): refused
        # from its first bytes, before the rest of its announced 8 GiB is read.
        sock = server.raw_socket()
        sock.sendall(f"POST {server.path}upload?name=IMG_0001.MOV HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {8 << 30}\r\n\r\n".encode())
        sock.sendall(Photos.jpeg("not a video")[:1 << 20])
        status, _, body = read_response(sock)
        self.assertEqual((status, json.loads(body)["reason"]), (400, "it is a JPEG photo, not the video its name says"))
        self.assert_cut_off(sock)
        self.assertEqual(listed(self.vault), [])
        self.assertEqual(temporary_files(self.vault), [])
        self.assertEqual(open_unnamed_files(server, self.vault), [])

    @unittest.skipUnless(shutil.which("unshare"), "unshare (util-linux) is not installed")
    def test_a_full_disk_refuses_the_upload_cleanly_and_frees_its_space(self):
        # The vault is copied onto a 48 MiB tmpfs in a mount namespace of the server's own
        # (an unprivileged user namespace: no root needed).
        small = os.path.join(self.folder, "small")
        os.mkdir(small)
        script = 'mount -t tmpfs -o size=48m tmpfs "$0" && cp -a "$VAULT_DIR" "$0/vault" && VAULT_DIR="$0/vault" exec "$@"'
        probe = subprocess.run(["unshare", "-rm", "sh", "-c", 'mount -t tmpfs tmpfs "$0"', small],
                               capture_output=True)
        if probe.returncode != 0:
            raise unittest.SkipTest(f"no mount namespace here: {probe.stderr.decode().strip()}")
        big = Videos.padded(os.path.join(self.folder, "big.mp4"), 64 << 20)
        server = self.serve(wrapper=("unshare", "-rm", "sh", "-c", script, small))
        try:
            status, answer = self.upload_file(server, "big.mp4", big)
            self.assertEqual((status, answer["reason"]), (507, "the vault's disk is full"))
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass  # the answer came while the body was still being sent
        server.wait_for(lambda line: line == "refused big.mp4: the vault's disk is full")
        # The temporary blob is gone: a photo fits again.
        status, _, answer = server.upload("after.jpg", Photos.jpeg("after a full disk", 640, 480))
        self.assertEqual((status, answer["outcome"]), (201, "added"), answer)
        self.assertEqual(server.stop(), 0)
        self.assertEqual(server.lines[-1], "received 1 photo, 0 duplicates, 1 refused")


class LifecycleTests(ServeTestCase):
    def test_ctrl_c_prints_the_summary_and_exits_0(self):
        server = self.serve()
        server.upload("nothing.txt", b"not a photo")
        self.assertEqual(server.stop(signal.SIGINT), 0)
        self.assertEqual(server.lines[-1], "received 0 items, 0 duplicates, 1 refused")

    def test_idle_stops_the_server(self):
        server = self.serve("--idle", "1s")
        self.assertEqual(server.process.wait(PATIENCE), 0)
        server.wait_for(lambda line: line == "received 0 items, 0 duplicates, 0 refused")

    def test_once_stops_after_the_first_batch(self):
        server = self.serve("--once")
        for index in range(2):
            status, _, _ = server.upload(f"batch{index}.jpg", Photos.jpeg(f"batch {index}", 320, 240))
            self.assertEqual(status, 201)
        self.assertEqual(server.process.wait(PATIENCE), 0)
        server.wait_for(lambda line: line == "received 2 photos, 0 duplicates, 0 refused")

    def test_usage_and_listen_errors_are_one_line(self):
        for arguments, status in [(["--bind", "not-an-address"], 64), (["--idle", "soon"], 64),
                                  (["--port", "70000"], 64), (["--max-upload-mb", "0"], 64)]:
            run = run_vault(self.vault, "serve", *arguments, check=False)
            self.assertEqual(run.returncode, status, run.stderr)
            self.assertTrue(run.stderr.startswith("error: "), run.stderr)
            self.assertEqual(run.stdout, "")
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            run = run_vault(self.vault, "serve", "--bind", "127.0.0.1", "--port", str(port), check=False)
        self.assertEqual(run.returncode, 1)
        self.assertEqual(run.stderr, f"error: cannot listen on 127.0.0.1:{port}: address already in use\n")
        self.assertEqual(run.stdout, "")
        run = run_vault(self.vault, "serve", "--help", check=False)
        self.assertEqual(run.returncode, 0)
        for option in ["--bind", "--port", "--http", "--idle", "--once", "--max-upload-mb"]:
            self.assertIn(option, run.stdout)


class QRCodeTests(ServeTestCase):
    @unittest.skipUnless(shutil.which("zbarimg"), "zbarimg (zbar-tools) is not installed")
    def test_the_qr_code_on_a_terminal_decodes_to_the_address(self):
        controller, terminal = pty.openpty()
        process = subprocess.Popen([BINARY, "serve", "--bind", "127.0.0.1"], env=vault_environment(self.vault),
                                   stdin=subprocess.DEVNULL, stdout=terminal, stderr=subprocess.DEVNULL)
        os.close(terminal)
        output = b""
        try:
            deadline = time.monotonic() + PATIENCE
            while b"Ctrl-C stops." not in output and time.monotonic() < deadline:
                ready, _, _ = select.select([controller], [], [], 1)
                if ready:
                    output += os.read(controller, 65536)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(PATIENCE)
            os.close(controller)
        text = output.decode()
        address = re.search(r"address: (\S+)", text).group(1)
        rows = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in text.split("\r\n") if "\x1b[38;5;16;48;5;231m" in line]
        self.assertTrue(rows)
        width = len(rows[0])
        self.assertLessEqual(width, 80)
        modules = []
        for row in rows:
            modules.append([character in "▀█" for character in row])
            modules.append([character in "▄█" for character in row])
        png = os.path.join(self.folder, "qr.png")
        write_png(png, modules, scale=8, margin=4)
        decoded = subprocess.run(["zbarimg", "--raw", "-q", png], capture_output=True, text=True, timeout=PATIENCE)
        self.assertEqual(decoded.stdout.strip(), address, decoded.stderr)


def live_motion(identifier=None, live_markers=True):
    """A 1-second 160x120 H.264 MOV from ffmpeg, with Apple's content identifier if given, and
    with `live_markers` the still-image-time metadata track of a Live Photo's movie (as
    Tests/VaultTestSupport/TestLivePhotos.swift adds it): without it, only a name pairs it."""
    folder = tempfile.mkdtemp(prefix="vault-serve-live-")
    try:
        target = os.path.join(folder, "motion.mov")
        tags = ["-movflags", "use_metadata_tags", "-metadata",
                f"com.apple.quicktime.content.identifier={identifier}"] if identifier else []
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-nostdin", "-f", "lavfi", "-i",
                        "testsrc2=size=160x120:rate=10:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                        *tags, "-f", "mov", target], check=True)
        with open(target, "rb") as file:
            movie = file.read()
    finally:
        shutil.rmtree(folder)
    return with_track(movie, still_image_time_track()) if live_markers else movie


def box(kind, contents):
    return struct.pack(">I", 8 + len(contents)) + kind + contents


def still_image_time_track():
    """A metadata track with no samples whose sample description is a `mebx` entry declaring
    the key com.apple.quicktime.still-image-time."""
    identity = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    header = struct.pack(">6I", 1, 0, 0, 99, 0, 0) + b"\0" * 8 + struct.pack(">4H", 0, 0, 0, 0) + identity
    header += struct.pack(">2I", 0, 0)
    key = box(b"\0\0\0\1", box(b"keyd", b"mdtacom.apple.quicktime.still-image-time")
              + box(b"dtyp", struct.pack(">2I", 0, 65)))
    entry = box(b"mebx", b"\0" * 6 + struct.pack(">H", 1) + box(b"keys", key))
    table = (box(b"stsd", struct.pack(">2I", 0, 1) + entry) + box(b"stts", struct.pack(">2I", 0, 0))
             + box(b"stsc", struct.pack(">2I", 0, 0)) + box(b"stsz", struct.pack(">3I", 0, 0, 0))
             + box(b"stco", struct.pack(">2I", 0, 0)))
    media = (box(b"mdhd", struct.pack(">5I2H", 0, 0, 0, 600, 0, 0x55C4, 0))
             + box(b"hdlr", struct.pack(">I", 0) + b"mhlrmeta" + struct.pack(">3I", 0, 0, 0) + b"\0")
             + box(b"minf", box(b"stbl", table)))
    return box(b"trak", box(b"tkhd", header) + box(b"mdia", media))


def with_track(movie, track):
    """`movie` with `track` appended to its `moov`, which FFmpeg writes last (no sample moves)."""
    offset = 0
    while offset + 8 <= len(movie):
        size, kind = struct.unpack(">I4s", movie[offset:offset + 8])
        if kind == b"moov":
            assert offset + size == len(movie), "moov is not the last box"
            return movie[:offset] + struct.pack(">I", size + len(track)) + movie[offset + 4:] + track
        offset += size
    raise AssertionError("no moov box")


def apple_exif_segment(identifier):
    """A JPEG APP1 segment whose EXIF maker note is Apple's, holding `identifier` as its tag
    0x0011 (as Tests/VaultTestSupport/TestLivePhotos.swift builds it)."""
    text = identifier.encode() + b"\0"
    note = b"Apple iOS\0" + b"\0\x01MM" + struct.pack(">HHHII", 1, 0x0011, 2, len(text), 32) + b"\0" * 4 + text
    tiff = b"MM" + struct.pack(">HI", 42, 8)
    tiff += struct.pack(">HHHII", 1, 0x8769, 4, 1, 26) + b"\0" * 4
    tiff += struct.pack(">HHHII", 1, 0x927C, 7, len(note), 44) + b"\0" * 4 + note
    payload = b"Exif\0\0" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


class LivePhotoUploadTests(ServeTestCase):
    def test_a_still_and_its_mov_uploaded_are_one_live_photo(self):
        server = self.serve()
        still = Photos.jpeg("live by stem", 320, 240)
        for name, data in [("IMG_0009.JPG", still), ("IMG_0009.MOV", live_motion())]:
            status, _, answer = server.upload(name, data)
            self.assertEqual(status, 201, answer)
        tagged = Photos.jpeg("live by identifier", 320, 240)
        tagged = tagged[:2] + apple_exif_segment("F00D-0001") + tagged[2:]
        for name, data in [("IMG_0010.JPG", tagged), ("IMG_0099.MOV", live_motion("F00D-0001"))]:
            status, _, answer = server.upload(name, data)
            self.assertEqual(status, 201, answer)
        photos = {photo["name"]: photo for photo in listed(self.vault)}
        self.assertEqual(sorted(photos), ["IMG_0009.JPG", "IMG_0010.JPG"])
        self.assertEqual(photos["IMG_0009.JPG"]["kind"], "live")
        self.assertEqual(photos["IMG_0009.JPG"]["motion"]["name"], "IMG_0009.MOV")
        self.assertEqual(photos["IMG_0010.JPG"]["kind"], "live")
        self.assertEqual(photos["IMG_0010.JPG"]["motion"]["name"], "IMG_0099.MOV")
        self.assertEqual(server.stop(signal.SIGINT), 0)
        # Counted as `list` counts them: two items, not four photos.
        self.assertEqual(server.lines[-1], "received 2 Live Photos from 4 files, 0 duplicates, 0 refused")

    def test_a_still_with_a_forged_identifier_does_not_take_over_a_plain_video(self):
        server = self.serve()
        status, _, answer = server.upload("holiday.MOV", live_motion("F00D-0002", live_markers=False))
        self.assertEqual(status, 201, answer)
        forged = Photos.jpeg("forged identifier", 320, 240)
        forged = forged[:2] + apple_exif_segment("F00D-0002") + forged[2:]
        status, _, answer = server.upload("IMG_0011.JPG", forged)
        self.assertEqual(status, 201, answer)
        self.assertEqual(sorted(photo["kind"] for photo in listed(self.vault)), ["photo", "video"])
        self.assertEqual(server.stop(signal.SIGINT), 0)


def write_png(path, modules, scale, margin):
    """A black-on-white grayscale PNG of a module matrix, with only zlib."""
    height, width = len(modules), len(modules[0])
    side_x, side_y = (width + 2 * margin) * scale, (height + 2 * margin) * scale
    raw = bytearray()
    for y in range(side_y):
        raw.append(0)
        my = y // scale - margin
        for x in range(side_x):
            mx = x // scale - margin
            dark = 0 <= my < height and 0 <= mx < width and modules[my][mx]
            raw.append(0 if dark else 255)

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side_x, side_y, 8, 0, 0, 0, 0))
                   + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))


if __name__ == "__main__":
    unittest.main()
