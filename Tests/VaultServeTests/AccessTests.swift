import HTTPTypes
import NIOCore
import VaultCore
import XCTest

@testable import VaultServe

final class AccessTokenTests: XCTestCase {
  func testTokenIs43Base64URLCharactersAndNewEachTime() {
    let first = AccessToken()
    let second = AccessToken()
    XCTAssertEqual(first.text.count, AccessToken.textLength)
    XCTAssertNotEqual(first.text, second.text)
    let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    XCTAssertTrue(first.text.allSatisfy { alphabet.contains($0) }, first.text)
  }

  func testBase64URLMatchesRFC4648Vectors() {
    // RFC 4648 §10, with the URL alphabet and no padding.
    let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE"]
    for (input, output) in vectors {
      XCTAssertEqual(Base64.encoded(Array(input.utf8), variant: .urlSafeUnpadded), output)
    }
    XCTAssertEqual(Base64.encoded([0xFB, 0xFF], variant: .urlSafeUnpadded), "-_8")
  }

  func testMatchesOnlyTheWholeToken() {
    let token = AccessToken()
    XCTAssertTrue(token.matches(token.text.utf8))
    XCTAssertFalse(token.matches(token.text.dropLast().utf8))
    XCTAssertFalse(token.matches((token.text + "x").utf8))
    XCTAssertFalse(token.matches("".utf8))
    var changed = Array(token.text.utf8)
    changed[20] = changed[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    XCTAssertFalse(token.matches(changed))
  }
}

final class RouteTests: XCTestCase {
  let token = AccessToken()

  func route(_ method: HTTPRequest.Method, _ target: String?) -> Route {
    Route(method: method, target: target, token: token)
  }

  func testThePageAndTheUploadNeedTheTokenTheMethodAndTheExactPath() {
    let t = token.text
    XCTAssertEqual(route(.get, "/\(t)/"), .page)
    XCTAssertEqual(route(.post, "/\(t)/upload?name=a.jpg"), .upload(query: "name=a.jpg"))
    XCTAssertEqual(route(.post, "/\(t)/upload"), .upload(query: ""))
    for target in ["/\(t)", "/\(t)//", "/\(t)/?x=1", "/\(t)/upload/", "/\(t)/index.html", "/\(t)/../\(t)/"] {
      XCTAssertEqual(route(.get, target), .notFound(countsAsGuess: false, showsToken: true), target)
    }
    XCTAssertEqual(route(.post, "/\(t)/"), .notFound(countsAsGuess: false, showsToken: true))
    XCTAssertEqual(route(.get, "/\(t)/upload?name=a"), .notFound(countsAsGuess: false, showsToken: true))
    XCTAssertEqual(route(.head, "/\(t)/"), .notFound(countsAsGuess: false, showsToken: true))
  }

  func testAnythingWithoutTheTokenIsAGuess() {
    let t = token.text
    let encodedSlash = "/\(t)%2Fupload?name=a"
    for target in [
      "/", "/x", "//\(t)/", "/../\(t)/", "/%2E%2E/", "/\(t.dropLast())/", "/\(t)x/", "*",
      "http://example.com/\(t)/", encodedSlash, "/\(t.uppercased())/",
    ] {
      XCTAssertEqual(route(.get, target), .notFound(countsAsGuess: true), target)
    }
    XCTAssertEqual(route(.get, nil), .notFound(countsAsGuess: true))
  }

  func testWhatBrowsersFetchOnTheirOwnIsNotAGuess() {
    XCTAssertEqual(route(.get, "/favicon.ico"), .notFound(countsAsGuess: false))
    XCTAssertEqual(route(.post, "/favicon.ico"), .notFound(countsAsGuess: true))
  }
}

final class UploadParametersTests: XCTestCase {
  func testNameIsPercentDecodedAndModifiedIsMilliseconds() throws {
    let parameters = try XCTUnwrap(
      UploadParameters(query: "name=IMG%20%C3%A9t%C3%A9.HEIC&modified=1700000000123"))
    XCTAssertEqual(parameters.name, "IMG été.HEIC")
    XCTAssertEqual(parameters.modifiedAt?.seconds, 1_700_000_000)
    XCTAssertEqual(parameters.modifiedAt?.nanoseconds, 123_000_000)
    let before1970 = try XCTUnwrap(UploadParameters(query: "modified=-1500&name=a"))
    XCTAssertEqual(before1970.modifiedAt?.seconds, -2)
    XCTAssertEqual(before1970.modifiedAt?.nanoseconds, 500_000_000)
    XCTAssertNil(try XCTUnwrap(UploadParameters(query: "name=a&other=1")).modifiedAt)
    // Only the last component of a path counts, as the intake takes it.
    XCTAssertEqual(UploadParameters(query: "name=DCIM%2F100APPLE%2FIMG_1.HEIC")?.name, "IMG_1.HEIC")
    XCTAssertEqual(UploadParameters(query: "name=C:%5Cphotos%5Ca.jpg")?.name, "a.jpg")
  }

  func testUnusableParametersAreRefused() {
    for query in [
      "", "name=", "name=.", "name=..", "name=a%2F", "name=a%2F..", "name=a%00", "name=a%0Ab", "name=%ZZ",
      "name=a&name=b",
      "name=a&modified=x", "name=a&modified=1&modified=2", "name=a&modified=99999999999999999999",
      "name=" + String(repeating: "x", count: 256),
    ] {
      XCTAssertNil(UploadParameters(query: Substring(query)), query)
    }
  }
}

final class WrongTokenLimiterTests: XCTestCase {
  final class FakeClock: @unchecked Sendable {
    var now = 1000.0
  }

  func testTwentyFailuresBlockAnAddressForAMinuteAndOnlyThatAddress() {
    let clock = FakeClock()
    let limiter = WrongTokenLimiter { clock.now }
    for attempt in 1...19 {
      XCTAssertEqual(limiter.recordFailure(from: "10.0.0.1"), .allowed, "attempt \(attempt)")
      XCTAssertEqual(limiter.verdict(for: "10.0.0.1"), .allowed)
    }
    XCTAssertEqual(limiter.recordFailure(from: "10.0.0.1"), .blocked)
    XCTAssertEqual(limiter.verdict(for: "10.0.0.1"), .blocked)
    XCTAssertEqual(limiter.verdict(for: "10.0.0.2"), .allowed)
    clock.now += 59
    XCTAssertEqual(limiter.verdict(for: "10.0.0.1"), .blocked)
    clock.now += 2
    XCTAssertEqual(limiter.verdict(for: "10.0.0.1"), .allowed)
    XCTAssertEqual(limiter.recordFailure(from: "10.0.0.1"), .allowed, "the count starts again")
  }

  func testOldFailuresStopCounting() {
    let clock = FakeClock()
    let limiter = WrongTokenLimiter { clock.now }
    for _ in 1...19 { limiter.recordFailure(from: "10.0.0.1") }
    clock.now += 61
    XCTAssertEqual(limiter.recordFailure(from: "10.0.0.1"), .allowed)
  }

  func testAFloodOfAddressesNeitherGrowsTheTableNorFreesABlockedAddress() {
    let clock = FakeClock()
    let limiter = WrongTokenLimiter(capacity: 100) { clock.now }
    for _ in 1...20 { limiter.recordFailure(from: "10.0.0.1") }
    var refusedNewcomers = 0
    for host in 0..<10_000 where limiter.recordFailure(from: "172.16.\(host / 256).\(host % 256)") == .blocked
    {
      refusedNewcomers += 1
    }
    XCTAssertLessThanOrEqual(limiter.trackedAddresses, 100)
    XCTAssertGreaterThan(refusedNewcomers, 9000)
    XCTAssertEqual(limiter.verdict(for: "10.0.0.1"), .blocked)
    // Once the entries expire, the table makes room again.
    clock.now += 61
    XCTAssertEqual(limiter.recordFailure(from: "192.168.0.1"), .allowed)
    XCTAssertEqual(limiter.trackedAddresses, 1)
  }

  func testIPv6AddressesCountPerSlash64() throws {
    let first = try SocketAddress(ipAddress: "2001:db8:1:2:aaaa::1", port: 1)
    let second = try SocketAddress(ipAddress: "2001:db8:1:2:bbbb::7", port: 2)
    let other = try SocketAddress(ipAddress: "2001:db8:1:3::1", port: 1)
    XCTAssertEqual(WrongTokenLimiter.key(for: first), WrongTokenLimiter.key(for: second))
    XCTAssertNotEqual(WrongTokenLimiter.key(for: first), WrongTokenLimiter.key(for: other))
    XCTAssertEqual(
      WrongTokenLimiter.key(for: try SocketAddress(ipAddress: "192.168.1.9", port: 5)), "192.168.1.9")
  }

  /// With `--bind ::`, IPv4 clients arrive as `::ffff:a.b.c.d`, whose first 64 bits are the
  /// same for all of them: each must be its own IPv4 address, not one shared /64.
  func testIPv4MappedAddressesCountAsTheirIPv4Address() throws {
    let mapped = try SocketAddress(ipAddress: "::ffff:192.168.1.9", port: 5)
    let neighbour = try SocketAddress(ipAddress: "::ffff:192.168.1.10", port: 5)
    let plain = try SocketAddress(ipAddress: "192.168.1.9", port: 7)
    XCTAssertEqual(WrongTokenLimiter.key(for: mapped), "192.168.1.9")
    XCTAssertEqual(WrongTokenLimiter.key(for: mapped), WrongTokenLimiter.key(for: plain))
    XCTAssertNotEqual(WrongTokenLimiter.key(for: mapped), WrongTokenLimiter.key(for: neighbour))
    // Only the mapped prefix is IPv4: the IPv4-compatible ::c0a8:109 and a /64 that merely
    // starts with zeros stay IPv6.
    let compatible = try SocketAddress(ipAddress: "::192.168.1.9", port: 5)
    XCTAssertTrue(WrongTokenLimiter.key(for: compatible).hasSuffix("/64"))
  }
}
