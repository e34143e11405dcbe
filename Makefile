.PHONY: build test bench fixtures format

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
