.PHONY: build install uninstall deb man test test-unit bench bench-scale bench-view bench-session bench-mount bench-backup fixtures format torture fuzz sanitize

# Swift's runtime (the standard library, Dispatch, Foundation) is linked into both programs:
# the binaries need no toolchain, only the Debian libraries of RUNTIME_PACKAGES (scripts/
# deps.sh). Product by product: the whole package would also build VaultTestSupport, whose
# XCTest has no static library.
# Linked with full RELRO (-z relro -z now): the helper parses hostile files, and a GOT left
# writable after start-up makes a memory bug there easier to use (security review, lintian).
# Linked by the toolchain's lld, with packed relative relocations (DT_RELR, glibc 2.36) and no
# symbols of their own exported (the static runtime's link file asks --export-dynamic; nothing
# looks them up): ld.so read 2.7 MB of vault's relocations and its 1.4 MB symbol table at
# every start, pages add's process held during the key derivation (docs/PERFORMANCE.md).
RELEASE_FLAGS = -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
  -Xlinker --no-export-dynamic -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
build:
	swift build $(RELEASE_FLAGS) --product vault
	swift build $(RELEASE_FLAGS) --product vault-decoder

# `make install` (after `make build`; as root for /usr/local) puts vault in $(PREFIX)/bin, its
# decoder helper in $(PREFIX)/libexec/vault (where vault finds it: docs/DECODER.md), the man
# page and the bash, zsh and fish completions (made by the built vault's argument parser)
# in their standard folders. DESTDIR stages the install elsewhere, as packagers do;
# BUILD_DIR takes the binaries from another build (the tests install .build/debug).
PREFIX ?= /usr/local
BUILD_DIR ?= .build/release
bindir = $(DESTDIR)$(PREFIX)/bin
helperdir = $(DESTDIR)$(PREFIX)/libexec/vault
man1dir = $(DESTDIR)$(PREFIX)/share/man/man1
bashdir = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
# Debian's zsh looks in /usr/local/share/zsh/site-functions and, for packages, in
# /usr/share/zsh/vendor-completions (not /usr/share/zsh/site-functions).
zshdir = $(DESTDIR)$(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
fishdir = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

install:
	@test -x $(BUILD_DIR)/vault -a -x $(BUILD_DIR)/vault-decoder || \
	  { echo "make install: no vault and vault-decoder in $(BUILD_DIR) (run 'make build' first)" >&2; exit 1; }
	install -d $(bindir) $(helperdir) $(man1dir) $(bashdir) $(zshdir) $(fishdir)
	install -m 755 $(BUILD_DIR)/vault $(bindir)/vault
	install -m 755 $(BUILD_DIR)/vault-decoder $(helperdir)/vault-decoder
	install -m 644 docs/man/vault.1 $(man1dir)/vault.1
	@# Written in a folder of its own first, then installed: `install` replaces a link planted
	@# where a completion goes, where `>` and chmod would write through it (security review).
	completions=$$(mktemp -d) && trap 'rm -rf "$$completions"' EXIT && \
	  $(BUILD_DIR)/vault --generate-completion-script bash | sed '1{/^#!/d}' > $$completions/bash && \
	  $(BUILD_DIR)/vault --generate-completion-script zsh > $$completions/zsh && \
	  $(BUILD_DIR)/vault --generate-completion-script fish > $$completions/fish && \
	  install -m 644 $$completions/bash $(bashdir)/vault && \
	  install -m 644 $$completions/zsh $(zshdir)/_vault && \
	  install -m 644 $$completions/fish $(fishdir)/vault.fish

uninstall:
	rm -f $(bindir)/vault $(helperdir)/vault-decoder $(man1dir)/vault.1 \
	  $(bashdir)/vault $(zshdir)/_vault $(fishdir)/vault.fish
	-rmdir $(helperdir)

# vault_VERSION_ARCH.deb, from `make build`'s binaries installed under /usr (scripts/deb).
deb: build
	scripts/deb

# docs/man/vault.1 from the help of the debug build (ManPageTests fails when it is stale).
man:
	swift build --product vault
	scripts/man-page .build/debug/vault > docs/man/vault.1

test:
	scripts/test

# The Swift tests of the libraries alone (VaultCore, VaultTerminal, VaultServe, and VaultMount's
# tree and reader pool): no Xvfb, FUSE, Syncthing, tmux or real terminal, no built binary run
# end to end; the lint first, as in scripts/test. docs/DEVELOPING.md gives its time.
test-unit:
	scripts/test --filter '^(VaultCoreTests|VaultTerminalTests|VaultServeTests|VaultMountTests)\.'

# Import speed and memory against vipsthumbnail, export against cp -p + sync, verify (and
# verify --quick) against cat and cp -p, each measured in the same run; then what padding
# costs on the same photos; `vault list` with a session key against the moderate KDF; last,
# video thumbnails against ffmpegthumbnailer -s 512.
bench:
	Benchmarks/run
	Benchmarks/export
	Benchmarks/verify
	Benchmarks/padding-overhead
	Benchmarks/session-unlock
	Benchmarks/video-thumbs

# `vault list` with the session key of `vault unlock` against the password with the
# moderate KDF, alternating, medians of 9 (in a session keyring of its own).
bench-session:
	Benchmarks/session-unlock

# A 100,000-photo space (built once through the library): open, list, select and add
# against an empty space, in the same run.
bench-scale:
	Benchmarks/scale

# vault view through a pseudo-terminal: first photo, next photo, zoom and pan, and memory
# paging through 200 12-megapixel photos, against `vault list --count 1` in the same run.
bench-view:
	Benchmarks/view
	Benchmarks/view-kitty

# Reading through `vault mount` against a gocryptfs mount of the same files and against the
# plain files, in the same run (a 1 GiB video and 200 photos, the page cache dropped before
# each read; needs root), the mount's peak memory, and `ls -lR` of a 100,000-photo space's mount.
bench-mount:
	Benchmarks/mount

# Backup and restore of about 1 GiB (photos and a video) over SFTP on loopback against `rclone
# copy` and restic in the same run, and an incremental backup of one new photo in a
# 10,000-photo space (run as root, to drop the page cache before each side).
bench-backup:
	Benchmarks/backup

# Regenerates Fixtures/ (needs cjpeg from libjpeg-turbo-progs).
fixtures:
	python3 Fixtures/generate.py

format:
	swift format -i -r Sources Tests Package.swift

# The crash test with 500 SIGKILLs instead of 50 (VAULT_TORTURE_SEED=N replays a run).
torture:
	swift build --build-tests
	VAULT_TORTURE_KILLS=500 swift test --skip-build --disable-swift-testing --filter CrashTests

# libFuzzer over each parser of untrusted bytes, FUZZ_SECONDS each (default 180), with the
# committed seeds in Fuzz/seeds/<target>; what it learns goes to Fuzz/corpus (not committed).
# -rss_limit_mb is the 512 MiB docs/LIMITS.md promises an import: an input that needs more is a
# crash to fix, not a run to let pass.
FUZZ_SECONDS ?= 180
FUZZ_TARGETS ?= blob seekable index header exif details journal snapshot space jpeg png heic gif webp avif video decoder-protocol decoder-reply
# swiftc keeps only the last of several -sanitize= flags, and SwiftPM passes its two apart
# (fuzzer, then address): the Swift code had ASan and no coverage, so the fuzzer was blind in
# it. One flag naming both comes last. Swift's own backtracer is off: under ASan it hangs.
# ASan's quarantine keeps 256 MiB of freed memory resident, which -rss_limit_mb counted as
# the parser's: a video that held 25 MiB at once was reported out of memory at 666 MB. 32 MiB.
fuzz:
	VAULT_FUZZ=1 swift build --product vault-fuzz --scratch-path .build-fuzz --sanitize=fuzzer \
	  --sanitize=address -Xswiftc -sanitize=fuzzer,address
	for target in $(FUZZ_TARGETS); do \
	  mkdir -p Fuzz/corpus/$$target Fuzz/crashes; \
	  FUZZ_TARGET=$$target SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=quarantine_size_mb=32 .build-fuzz/debug/vault-fuzz -timeout=30 -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=512 \
	    -artifact_prefix=Fuzz/crashes/$$target- -print_final_stats=1 Fuzz/corpus/$$target Fuzz/seeds/$$target \
	    2>&1 | tail -12 | tee Fuzz/corpus/$$target.log; \
	done

# The whole test suite under AddressSanitizer, then ThreadSanitizer.
sanitize:
	swift build --build-tests --scratch-path .build-asan --sanitize=address
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp \
	  swift test --skip-build --scratch-path .build-asan --sanitize=address --disable-swift-testing
	swift build --build-tests --scratch-path .build-tsan --sanitize=thread
	VAULT_TEST_SANITIZER=thread \
	  swift test --skip-build --scratch-path .build-tsan --sanitize=thread --disable-swift-testing
