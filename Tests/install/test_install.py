#!/usr/bin/env python3
"""vault installed as a user gets it (issue 36): `make install` into a temporary DESTDIR,
then the installed vault, its decoder helper (found in libexec/vault, not beside it), its
bash completion and its man page; under CI, the .deb of `make deb` installed with apt-get,
used, and removed with nothing of it left behind.

Run from the repository: `python3 -m unittest discover -s Tests/install -p 'test_*.py' -v`
(scripts/test does). The build installed is the folder of $VAULT_BINARY, else .build/debug.
Needs bash and man (man-db); with CI=true a missing one fails the tests.

The .deb test installs into this machine's /usr, so it runs only with CI=true or
VAULT_TEST_DEB=1, as root (or with sudo that needs no password), and refuses to start
when a vault is installed there already (a package, or /usr/bin/vault): it never
replaces a developer's own. It builds the release and the package with `make deb` unless
VAULT_DEB names a package already built, and removes the package (and any library apt-get
brought for it) whatever happens."""
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "serve"))
from test_http import BINARY, ROOT, missing, vault_environment  # noqa: E402

BUILD_DIR = os.path.dirname(os.path.abspath(BINARY))
# A JPEG, a PNG and a HEIC: each reaches its own decoder library in the helper.
PHOTOS = ["photo.jpg", "gray.png", "orientation-1.heic"]
# What `make install` puts under the prefix.
INSTALLED = [
    "bin/vault",
    "libexec/vault/vault-decoder",
    "share/man/man1/vault.1",
    "share/bash-completion/completions/vault",
    # under /usr, where Debian's zsh looks for a package's completions
    "share/zsh/vendor-completions/_vault",
    "share/fish/vendor_completions.d/vault.fish",
]

# Runs the completion function `complete -p vault` names as bash does on <Tab> after
# `vault ex`, in a bash that sources only the installed file, and prints each reply.
COMPLETE_EX = r"""
source "$1" || exit 2
spec=$(complete -p vault) || exit 3
function=$(sed -n 's/.* -F \([^ ]*\) .*/\1/p' <<<"$spec")
COMP_WORDS=(vault ex) COMP_CWORD=1 COMP_LINE="vault ex" COMP_POINT=8
"$function" vault ex vault
printf '%s\n' "${COMPREPLY[@]}"
"""

# The same after `vault export --to o`, in a folder holding out/ and other.txt: the folder's
# name only (a new user found the completion of --to, --vault and --password-file empty).
COMPLETE_EXPORT_TO = r"""
source "$1" || exit 2
cd "$2" || exit 4
spec=$(complete -p vault) || exit 3
function=$(sed -n 's/.* -F \([^ ]*\) .*/\1/p' <<<"$spec")
COMP_WORDS=(vault export --to o) COMP_CWORD=3 COMP_LINE="vault export --to o" COMP_POINT=19
"$function" vault o --to
printf '%s\n' "${COMPREPLY[@]}"
"""


def require(tool):
    if not shutil.which(tool):
        raise missing(f"{tool} is not installed (scripts/deps.sh: TEST_PACKAGES)")


def run(command, **options):
    """Runs `command`; a failure names it with what it printed."""
    result = subprocess.run(command, capture_output=True, text=True, **options)
    if result.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result.stdout


def make_install(destdir, target="install"):
    run(["make", "--no-print-directory", "-C", ROOT, target, f"DESTDIR={destdir}", "PREFIX=/usr", f"BUILD_DIR={BUILD_DIR}"])


def use_vault(test, vault_binary, folder):
    """init, add, list and export with `vault_binary`, in a vault of its own under `folder`;
    the exported files are the originals, byte for byte."""
    environment = vault_environment(os.path.join(folder, "vault"))
    vault = lambda *arguments: run([vault_binary, *arguments], env=environment, cwd=folder)  # noqa: E731
    vault("init", "--kdf", "interactive")
    added = vault("add", *(os.path.join(ROOT, "Fixtures", photo) for photo in PHOTOS))
    test.assertIn(f"added {len(PHOTOS)} photos", added)
    listed = vault("list")
    for photo in PHOTOS:
        test.assertIn(photo, listed)
    exported = os.path.join(folder, "exported")
    vault("export", "--all", "--to", exported)
    for photo in PHOTOS:
        test.assertTrue(
            filecmp.cmp(os.path.join(ROOT, "Fixtures", photo), os.path.join(exported, photo), shallow=False),
            f"{photo} came back changed",
        )


class InstallTests(unittest.TestCase):
    """`make install DESTDIR=… PREFIX=/usr` of the build the other tests run."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="vault-install-")
        cls.root = os.path.join(cls.folder, "root")
        make_install(cls.root)
        cls.prefix = os.path.join(cls.root, "usr")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def test_installs_each_file_in_its_standard_folder(self):
        for path in INSTALLED:
            self.assertTrue(os.path.getsize(os.path.join(self.prefix, path)) > 0, f"{path} is missing or empty")
        self.assertTrue(os.access(os.path.join(self.prefix, "bin/vault"), os.X_OK))
        with open(os.path.join(self.prefix, "share/zsh/vendor-completions/_vault")) as completion:
            self.assertEqual(completion.readline().strip(), "#compdef vault")

    def test_installed_vault_runs_with_its_helper_from_libexec(self):
        vault = os.path.join(self.prefix, "bin", "vault")
        self.assertFalse(os.path.exists(os.path.join(self.prefix, "bin", "vault-decoder")))
        self.assertEqual(run([vault, "--version"]), run([BINARY, "--version"]))
        with tempfile.TemporaryDirectory(prefix="vault-installed-") as folder:
            use_vault(self, vault, folder)

    def test_bash_completes_ex_to_export(self):
        require("bash")
        completion = os.path.join(self.prefix, "share/bash-completion/completions/vault")
        replies = run(["bash", "--norc", "--noprofile", "-c", COMPLETE_EX, "bash", completion]).split()
        self.assertEqual(replies, ["export"])

    def test_bash_completes_the_folder_of_export_to(self):
        require("bash")
        completion = os.path.join(self.prefix, "share/bash-completion/completions/vault")
        with tempfile.TemporaryDirectory(prefix="vault-complete-") as folder:
            os.mkdir(os.path.join(folder, "out"))
            open(os.path.join(folder, "other.txt"), "w").close()
            replies = run(["bash", "--norc", "--noprofile", "-c", COMPLETE_EXPORT_TO, "bash", completion, folder])
        self.assertEqual(replies.split(), ["out"])

    def test_install_replaces_a_link_planted_where_a_file_goes(self):
        """A completion was written through a link planted in its place (`>` and chmod follow
        links): as root, any file could be overwritten and made world-readable (security
        review of issue 36). Every file is now installed by `install`, which replaces the link."""
        with tempfile.TemporaryDirectory(prefix="vault-planted-") as destdir:
            target = os.path.join(destdir, "target")
            with open(target, "w") as secret:
                secret.write("keep")
            os.chmod(target, 0o600)
            for path in INSTALLED:
                os.makedirs(os.path.dirname(os.path.join(destdir, "usr", path)), exist_ok=True)
                os.symlink(target, os.path.join(destdir, "usr", path))
            make_install(destdir)
            for path in INSTALLED:
                self.assertFalse(os.path.islink(os.path.join(destdir, "usr", path)), path)
            with open(target) as secret:
                self.assertEqual(secret.read(), "keep")
            self.assertEqual(os.stat(target).st_mode & 0o777, 0o600)

    def test_man_renders_the_installed_page_without_warnings(self):
        require("man")
        page = os.path.join(self.prefix, "share/man/man1/vault.1")
        environment = dict(os.environ, MANPAGER="cat", MANWIDTH="80", LANG="C.UTF-8")
        result = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True, env=environment)
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        self.assertIn("vault - An encrypted photo vault", " ".join(result.stdout.split()))
        self.assertIn("vault export", result.stdout)

    def test_uninstall_removes_every_file_it_installed(self):
        with tempfile.TemporaryDirectory(prefix="vault-uninstall-") as root:
            make_install(root)
            make_install(root, "uninstall")
            left = [os.path.join(folder, name) for folder, _, names in os.walk(root) for name in names]
            self.assertEqual(left, [])
            self.assertFalse(os.path.exists(os.path.join(root, "usr/libexec/vault")))


if __name__ == "__main__":
    unittest.main()
