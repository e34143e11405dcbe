// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
  name: "vault",
  products: [
    .executable(name: "vault", targets: ["vault"]),
    .library(name: "VaultCore", targets: ["VaultCore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
  ],
  targets: [
    .systemLibrary(
      name: "CSodium",
      pkgConfig: "libsodium",
      providers: [.apt(["libsodium-dev"])]
    ),
    .systemLibrary(
      name: "CJPEG",
      pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"])]
    ),
    .systemLibrary(
      name: "CPNG",
      pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"])]
    ),
    .systemLibrary(
      name: "CHeif",
      pkgConfig: "libheif",
      providers: [.apt(["libheif-dev"])]
    ),
    .systemLibrary(
      name: "CChafa",
      pkgConfig: "chafa",
      providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]
    ),
    // libjpeg and libpng report fatal errors with longjmp, which must never cross Swift
    // frames; this C target keeps every setjmp/longjmp pair inside C.
    .target(
      name: "CVaultImaging",
      dependencies: ["CJPEG", "CPNG"]
    ),
    // prctl is variadic and cannot be called from Swift.
    .target(name: "CVaultSystem"),
    .target(
      name: "VaultCore",
      dependencies: ["CSodium", "CVaultImaging", "CVaultSystem", "CHeif"],
      swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .executableTarget(
      name: "vault",
      dependencies: [
        "VaultCore",
        "CChafa",
        "CVaultSystem",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .target(
      name: "VaultTestSupport",
      path: "Tests/VaultTestSupport",
      swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .testTarget(
      name: "VaultCoreTests",
      dependencies: ["VaultCore", "CSodium", "VaultTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v5)]
    ),
    .testTarget(
      name: "vaultTests",
      // VaultCore (through @testable import) lets a test forge files with a space's key.
      dependencies: ["vault", "VaultCore", "CSodium", "VaultTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v5)]
    ),
  ]
)

// The libFuzzer target over the parsers links only with -sanitize=fuzzer, so it exists only
// when `make fuzz` asks for it.
if ProcessInfo.processInfo.environment["VAULT_FUZZ"] != nil {
  package.targets.append(
    .executableTarget(
      name: "vault-fuzz",
      dependencies: ["VaultCore"],
      swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-parse-as-library"])]
    ))
}

// Builds a 100,000-photo space through the library for `make bench-scale`; it needs
// VaultCore's internals (built with -enable-testing), so it exists only when asked for.
if ProcessInfo.processInfo.environment["VAULT_BENCH"] != nil {
  package.targets.append(
    .executableTarget(
      name: "vault-scale",
      dependencies: ["VaultCore"],
      swiftSettings: [.swiftLanguageMode(.v5)]
    ))
}
