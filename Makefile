.PHONY: build test bench fixtures format torture

build:
	swift build -c release

test:
	scripts/test

# Import speed and memory against vipsthumbnail, measured in the same run.
bench:
	Benchmarks/run

# Regenerates Fixtures/ (needs cjpeg from libjpeg-turbo-progs).
fixtures:
	python3 Fixtures/generate.py

format:
	swift format -i -r Sources Tests Package.swift

# The crash test with 500 SIGKILLs instead of 50 (VAULT_TORTURE_SEED=N replays a run).
torture:
	swift build --build-tests
	VAULT_TORTURE_KILLS=500 swift test --skip-build --disable-swift-testing --filter CrashTests
