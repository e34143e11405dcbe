#!/usr/bin/env python3
"""The .deb of `make deb` (issue 36), on this machine: lintian finds no error in it,
`apt-get install ./vault_*.deb` installs it (resolving its Depends), the installed
/usr/bin/vault runs init, add, list and export, and `apt-get remove vault` leaves nothing
of it behind: no file of `dpkg -L vault`, no new path under /usr or /etc, no package.

It changes the machine's /usr, so it runs only with CI=true or VAULT_TEST_DEB=1, as root
or with sudo that needs no password, and it refuses to start when a vault is installed
already (a package named vault, or /usr/bin/vault, or /usr/libexec/vault): it never
replaces a developer's own. The package is VAULT_DEB, else `make deb` builds it (the
release build: minutes). Whatever happens, the package is removed afterwards, and so is
each package apt-get installed for it."""
import glob
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_install import ROOT, missing, require, run, use_vault  # noqa: E402

OPTED_IN = os.environ.get("CI") == "true" or os.environ.get("VAULT_TEST_DEB") == "1"
SUDO = [] if os.geteuid() == 0 else ["sudo", "-n"]
APT = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-y", "-q"]
# Where the package's files go, and where a leftover would show.
WATCHED = ["/usr", "/etc"]


def installed_packages():
    listing = run(["dpkg-query", "-W", "-f", "${Package}:${Architecture} ${db:Status-Abbrev}\n"])
    return {line.split()[0] for line in listing.splitlines() if line.split()[1:2] == ["ii"]}


def paths_under(folders):
    """Every path under `folders` (find's status is not read: a file another program removes
    while it walks is no error here)."""
    listing = subprocess.run(["find", *folders, "-xdev"], capture_output=True, text=True)
    return set(listing.stdout.splitlines())


def vault_status():
    """dpkg's status of a package named vault: '' when dpkg knows none, or knows it only as
    not installed (un) or purged (pn), else e.g. ii (installed) or rc (config files left)."""
    result = subprocess.run(["dpkg-query", "-W", "-f", "${db:Status-Abbrev}", "vault"], capture_output=True, text=True)
    status = result.stdout.strip() if result.returncode == 0 else ""
    return "" if status in ("un", "pn") else status


def package():
    if os.environ.get("VAULT_DEB"):
        return os.path.abspath(os.environ["VAULT_DEB"])
    # xz at level 1: the package is 41 MB instead of 35, made in ~9 s of CPU instead of ~50.
    environment = dict(os.environ, DPKG_DEB_COMPRESSOR_LEVEL="1")
    return run(["make", "--no-print-directory", "-C", ROOT, "deb"], env=environment).strip().splitlines()[-1]


@unittest.skipUnless(OPTED_IN, "installs into /usr: runs with CI=true or VAULT_TEST_DEB=1")
class DebPackageTests(unittest.TestCase):
    def setUp(self):
        for tool in ("apt-get", "dpkg-deb", "lintian"):
            require(tool)
        if SUDO and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode != 0:
            raise missing("the .deb test needs root, or sudo without a password")
        status = vault_status()
        if status:
            self.fail(f"a package named vault is on this machine ({status}): the test would replace it")
        for path in ("/usr/bin/vault", "/usr/libexec/vault"):
            if os.path.lexists(path):
                self.fail(f"{path} exists: the test would replace this machine's vault")

    def test_installs_works_and_is_removed_leaving_nothing(self):
        deb = package()
        lint = subprocess.run(["lintian", "--fail-on", "error", deb], capture_output=True, text=True)
        print(f"\nlintian {os.path.basename(deb)}:\n{lint.stdout}{lint.stderr}", end="")
        self.assertEqual(lint.returncode, 0, "lintian found errors")
        # The binaries use packed relative relocations, which glibc has since 2.36: an older
        # system must refuse the package, not start a vault its loader rejects.
        depends = run(["dpkg-deb", "--field", deb, "Depends"])
        self.assertIn("libc6 (>= 2.36)", depends)
        packages_before = installed_packages()
        paths_before = paths_under(WATCHED)
        try:
            run(SUDO + APT + ["install", os.path.abspath(deb)])
            # Its paths, the root (dpkg lists it as /.) left out: all under /usr.
            listed = [path for path in run(["dpkg", "-L", "vault"]).split() if path != "/."]
            self.assertEqual([path for path in listed if not path.startswith("/usr")], [])
            for path in ("/usr/bin/vault", "/usr/libexec/vault/vault-decoder", "/usr/share/man/man1/vault.1.gz",
                         "/usr/share/bash-completion/completions/vault", "/usr/share/doc/vault/copyright",
                         # where Debian's zsh looks for a package's completions (not site-functions)
                         "/usr/share/zsh/vendor-completions/_vault"):
                self.assertIn(path, listed)
            self.assertEqual(run(["man", "-w", "vault"]).strip(), "/usr/share/man/man1/vault.1.gz")
            with tempfile.TemporaryDirectory(prefix="vault-deb-") as folder:
                use_vault(self, "/usr/bin/vault", folder)
            run(SUDO + APT + ["remove", "vault"])
        finally:
            self.restore(packages_before)
        self.assertEqual(vault_status(), "", "dpkg still knows vault after its removal")
        self.assertEqual([path for path in listed if path not in paths_before and os.path.lexists(path)], [])
        self.assertEqual(sorted(paths_under(WATCHED) ^ paths_before), [])

    def restore(self, packages_before):
        """Removes vault if it is still there, then each package apt-get brought for it."""
        if vault_status():
            subprocess.run(SUDO + ["dpkg", "--purge", "vault"], capture_output=True)
        brought = sorted(installed_packages() - packages_before)
        if brought:
            subprocess.run(SUDO + APT + ["purge", *brought], capture_output=True)


if __name__ == "__main__":
    unittest.main()
