import Foundation
import XCTest

/// What a test needs from the machine and cannot make itself: a tool or a kernel feature
/// (test data lives in the repository). On a developer's machine a missing one skips the test, with
/// how to get it; under `CI=true` it fails the test, so that a CI run that installed too
/// little says so instead of passing with suites left out.
public struct MissingRequirement: Error, CustomStringConvertible {
  public let description: String
}

/// Whether this is a CI run (`CI=true`), where nothing the tests need may be missing.
public let isContinuousIntegration = ProcessInfo.processInfo.environment["CI"] == "true"

/// What to throw when something a test needs is missing: a skip (XCTSkip) on a developer's
/// machine, a failure under `CI=true`. `reason` says what is missing and how to get it.
public func missing(_ reason: String) -> Error {
  isContinuousIntegration ? MissingRequirement(description: "CI=true: " + reason) : XCTSkip(reason)
}

/// Throws `missing(reason)` when `condition` is false.
public func require(_ condition: Bool, _ reason: @autoclosure () -> String) throws {
  if !condition { throw missing(reason()) }
}

/// Requires the executable at `path`; scripts/test installs every tool the tests use.
public func requireTool(_ path: String) throws {
  try require(
    FileManager.default.isExecutableFile(atPath: path),
    "\(path) is not installed; scripts/test installs it")
}

/// A test's own failure, thrown where it cannot go on.
public struct TestFailure: Error, CustomStringConvertible {
  public let description: String

  public init(_ description: String) { self.description = description }
}
