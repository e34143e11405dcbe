// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
  name: "vault",
  products: [
    .executable(name: "vault", targets: ["vault"]),
    .library(name: "VaultCore", targets: ["VaultCore"]),
    .library(name: "VaultTerminal", targets: ["VaultTerminal"]),
    .library(name: "VaultDecoder", targets: ["VaultDecoder"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    // Already in the graph through Hummingbird; named for the products VaultServe imports.
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    .systemLibrary(
      name: "CSodium",
      pkgConfig: "libsodium",
      providers: [.apt(["libsodium-dev"])]
    ),
    // OpenSSL's libcrypto, for its ChaCha20-Poly1305 (see CVaultCipher).
    .systemLibrary(
      name: "CLibcrypto",
      pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]
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
    // GIF, WebP (with its demuxer, for animations) and AVIF stills and animations.
    .systemLibrary(
      name: "CGif",
      pkgConfig: "libgif",
      providers: [.apt(["libgif-dev"])]
    ),
    .systemLibrary(
      name: "CWebP",
      pkgConfig: "libwebpdemux",
      providers: [.apt(["libwebp-dev"])]
    ),
    // No pkgConfig: libavif.pc gives -DAVIF_DLL, which SwiftPM refuses with a warning on
    // every build (as libutf8proc's does); the header is in /usr/include.
    .systemLibrary(
      name: "CAvif",
      providers: [.apt(["libavif-dev"])]
    ),
    .systemLibrary(
      name: "CChafa",
      pkgConfig: "chafa",
      providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]
    ),
    // Unicode's East Asian Width, for how many columns text takes on a terminal. No
    // pkgConfig: libutf8proc.pc gives -DUTF8PROC_EXPORTS, which SwiftPM refuses with a
    // warning on every build; the header is in /usr/include and the modulemap links it.
    .systemLibrary(
      name: "CUtf8proc",
      providers: [.apt(["libutf8proc-dev"])]
    ),
    .systemLibrary(
      name: "CQREncode",
      pkgConfig: "libqrencode",
      providers: [.apt(["libqrencode-dev"])]
    ),
    // The kernel's key retention service, where `vault unlock` keeps a space's key.
    .systemLibrary(
      name: "CKeyutils",
      pkgConfig: "libkeyutils",
      providers: [.apt(["libkeyutils-dev"])]
    ),
    // libfuse3's high-level API, for `vault mount` (Debian's libfuse3 3.14).
    .systemLibrary(
      name: "CFuse",
      pkgConfig: "fuse3",
      providers: [.apt(["libfuse3-dev"])]
    ),
    // FFmpeg's demuxers, decoders and scaler, for videos (Debian's FFmpeg 5.1). One module
    // over the four libraries, which go together; libavformat's pkg-config gives the path.
    .systemLibrary(
      name: "CFFmpeg",
      pkgConfig: "libavformat",
      providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]
    ),
    // libjpeg and libpng report fatal errors with longjmp, which must never cross Swift
    // frames; this C target keeps every setjmp/longjmp pair inside C. It also keeps dav1d
    // (under libavif) from printing lines of its own on a damaged AVIF.
    .target(
      name: "CVaultImaging",
      dependencies: ["CJPEG", "CPNG"],
      // zlib (libpng's own) deflates the PNG written for kitty, in bands on every core.
      linkerSettings: [.linkedLibrary("z")]
    ),
    // prctl is variadic and cannot be called from Swift.
    .target(name: "CVaultSystem"),
    // The chunks' AEAD of seekable blobs: libsodium's XChaCha20-Poly1305, computed through
    // OpenSSL's quicker ChaCha20-Poly1305.
    .target(name: "CVaultCipher", dependencies: ["CSodium", "CLibcrypto"]),
    // The seccomp filter of the decoder helper; only vault-decoder links it.
    .systemLibrary(
      name: "CSeccomp",
      pkgConfig: "libseccomp",
      providers: [.apt(["libseccomp-dev"])]
    ),
    // The helper's confinement in C: prctl and seccomp_rule_add are variadic, which Swift
    // cannot call.
    .target(name: "CVaultSandbox", dependencies: ["CSeccomp"]),
    // glib for MD5 only: the hash backends give, which a backup records of every file it
    // sends so that a remote can be checked without a download (libsodium has no MD5).
    // glib is in both processes already (under chafa; under FFmpeg and libheif).
    .systemLibrary(
      name: "CGLib",
      pkgConfig: "glib-2.0",
      providers: [.apt(["libglib2.0-dev"])]
    ),
    .target(
      name: "VaultCore",
      dependencies: ["CSodium", "CVaultCipher", "CVaultImaging", "CVaultSystem", "CKeyutils", "CGLib"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // What parses and decodes untrusted photos and videos: the codecs' wrappers, the
    // thumbnailer and the helper's side of the protocol. Only vault-decoder (and the fuzz
    // target and tests) link it, so the process that holds keys does not link a codec.
    .target(
      name: "VaultDecoder",
      dependencies: ["VaultCore", "CVaultImaging", "CHeif", "CGif", "CWebP", "CAvif", "CFFmpeg"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // The terminal UI: tty and signals, key input, graphics protocols, text layout and the
    // full-screen viewer.
    .target(
      name: "VaultTerminal",
      dependencies: ["VaultCore", "CChafa", "CUtf8proc", "CVaultSystem"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // The decoder helper: every photo and video from a user or a peer is parsed here, in a
    // process with no key, under seccomp and resource limits (docs/DECODER.md).
    .executableTarget(
      name: "vault-decoder",
      dependencies: ["VaultCore", "VaultDecoder", "CVaultSandbox"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .target(
      name: "VaultServe",
      dependencies: [
        "VaultCore",
        "CQREncode",
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "HummingbirdHTTP2", package: "hummingbird"),
        // Its BoringSSL also makes the server's key and certificate (SelfSignedCertificate).
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // `vault mount`: a space shown as a read-only file system through libfuse3.
    .target(
      name: "VaultMount",
      dependencies: ["VaultCore", "CFuse"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .executableTarget(
      name: "vault",
      dependencies: [
        "VaultCore",
        "VaultMount",
        "VaultServe",
        "VaultTerminal",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .target(
      name: "VaultTestSupport",
      dependencies: ["VaultCore"],
      path: "Tests/VaultTestSupport",
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .testTarget(
      name: "VaultCoreTests",
      dependencies: ["VaultCore", "VaultDecoder", "CSodium", "VaultTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .testTarget(
      name: "VaultServeTests",
      dependencies: [
        "VaultServe", "VaultCore", "CSodium", "VaultTestSupport",
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // The mount's tree and reader pool, without /dev/fuse (Tests/vaultTests/Mount mounts).
    .testTarget(
      name: "VaultMountTests",
      dependencies: ["VaultMount", "VaultCore", "VaultTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .testTarget(
      name: "VaultTerminalTests",
      dependencies: ["VaultTerminal", "VaultCore", "VaultDecoder", "CChafa", "VaultTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .testTarget(
      name: "vaultTests",
      // VaultCore (through @testable import) lets a test forge files with a space's key.
      // CKeyutils gives each test of `vault unlock` a session keyring of its own.
      dependencies: [
        "vault", "VaultCore", "VaultDecoder", "VaultTerminal", "CSodium", "CKeyutils", "VaultTestSupport",
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
  ]
)

// The libFuzzer target over the parsers links only with -sanitize=fuzzer, so it exists only
// when `make fuzz` asks for it. It reads the parsers through the `package` declarations
// VaultCore and VaultDecoder open to it (no -enable-testing).
if ProcessInfo.processInfo.environment["VAULT_FUZZ"] != nil {
  package.targets.append(
    .executableTarget(
      name: "vault-fuzz",
      dependencies: ["VaultCore", "VaultDecoder", "VaultTerminal"],
      swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]
    ))
}

// Builds a 100,000-photo space through the library for `make bench-scale`, with the few
// `package` declarations VaultCore opens to it (no -enable-testing); it exists only when
// asked for.
if ProcessInfo.processInfo.environment["VAULT_BENCH"] != nil {
  package.targets.append(
    .executableTarget(
      name: "vault-scale",
      dependencies: ["VaultCore", "VaultDecoder", "VaultTerminal"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ))
}
