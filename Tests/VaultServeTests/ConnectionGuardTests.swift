import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import XCTest

@testable import VaultServe

/// The guard over an HTTP/1.1 connection, on an embedded event loop whose clock the test moves.
final class ConnectionGuardTests: XCTestCase {
  let stall = TimeAmount.seconds(30)
  let linger = TimeAmount.seconds(2)

  func makeChannel() throws -> EmbeddedChannel {
    let channel = EmbeddedChannel(handler: ConnectionGuard(stallTimeout: stall, lingerTimeout: linger))
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    return channel
  }

  let upload = HTTPRequestPart.head(
    HTTPRequest(
      method: .post, scheme: nil, authority: nil, path: "/t/upload?name=a",
      headerFields: [.contentLength: "10"]))

  func testABodyThatStallsWhileTheServerWaitsForItIsDropped() throws {
    let channel = try makeChannel()
    try channel.writeInbound(upload)
    try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(bytes: [1, 2, 3])))
    channel.read()
    channel.embeddedEventLoop.advanceTime(by: stall - .seconds(1))
    XCTAssertTrue(channel.isActive)
    try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(bytes: [4])))
    channel.read()
    channel.embeddedEventLoop.advanceTime(by: stall - .seconds(1))
    XCTAssertTrue(channel.isActive, "each part that arrives starts the wait again")
    channel.embeddedEventLoop.advanceTime(by: .seconds(2))
    XCTAssertFalse(channel.isActive)
  }

  func testARequestHeldBackByTheServerIsNotTimedOut() throws {
    let channel = try makeChannel()
    try channel.writeInbound(upload)
    // No read asked for: the handler is waiting for memory, with backpressure on.
    channel.embeddedEventLoop.advanceTime(by: stall * 3)
    XCTAssertTrue(channel.isActive)
    // Once the request is in, the commit may take as long as it takes.
    try channel.writeInbound(HTTPRequestPart.end(nil))
    channel.read()
    channel.embeddedEventLoop.advanceTime(by: stall * 3)
    XCTAssertTrue(channel.isActive)
    // Then the connection is idle, waiting for the next request, and times out.
    try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .created)))
    try channel.writeOutbound(HTTPResponsePart.end(nil))
    channel.read()
    channel.embeddedEventLoop.advanceTime(by: stall + .seconds(1))
    XCTAssertFalse(channel.isActive)
  }

  func testAnEarlyResponseIsSentThenTheConnectionDropsWhatArrivesAndCloses() throws {
    let channel = try makeChannel()
    try channel.writeInbound(upload)
    XCTAssertNotNil(try channel.readInbound(as: HTTPRequestPart.self))
    var fields = HTTPFields()
    fields[ConnectionGuard.closeMarker] = "1"
    fields[.contentLength] = "0"
    try channel.writeOutbound(
      HTTPResponsePart.head(HTTPResponse(status: .contentTooLarge, headerFields: fields)))
    try channel.writeOutbound(HTTPResponsePart.end(nil))
    guard case .head(let sent) = try channel.readOutbound(as: HTTPResponsePart.self) else {
      return XCTFail("no head")
    }
    XCTAssertNil(sent.headerFields[ConnectionGuard.closeMarker], "the marker never leaves the server")
    XCTAssertEqual(sent.headerFields[.contentLength], "0")
    XCTAssertTrue(channel.isActive, "open while the client reads the response")
    try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(bytes: [1, 2, 3])))
    XCTAssertNil(try channel.readInbound(as: HTTPRequestPart.self), "the rest of the body is dropped")
    channel.embeddedEventLoop.advanceTime(by: linger)
    XCTAssertFalse(channel.isActive)
  }

  func testTheMarkerOnAResponseToACompleteRequestKeepsTheConnection() throws {
    let channel = try makeChannel()
    try channel.writeInbound(upload)
    try channel.writeInbound(HTTPRequestPart.end(nil))
    var fields = HTTPFields()
    fields[ConnectionGuard.closeMarker] = "1"
    try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .notFound, headerFields: fields)))
    try channel.writeOutbound(HTTPResponsePart.end(nil))
    channel.embeddedEventLoop.advanceTime(by: linger * 2)
    XCTAssertTrue(channel.isActive)
  }

  /// A wrong-token answer to a complete request used to leave the connection open, and
  /// restart its stall timer: one favicon request every 20 s held a slot for ever.
  func testTheConnectionMarkerClosesAfterAnAnswerToACompleteRequest() throws {
    let channel = try makeChannel()
    let favicon = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/favicon.ico")
    try channel.writeInbound(HTTPRequestPart.head(favicon))
    try channel.writeInbound(HTTPRequestPart.end(nil))
    XCTAssertNotNil(try channel.readInbound(as: HTTPRequestPart.self))
    XCTAssertNotNil(try channel.readInbound(as: HTTPRequestPart.self))
    var fields = HTTPFields()
    fields[ConnectionGuard.closeConnectionMarker] = "1"
    fields[.contentLength] = "0"
    try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .notFound, headerFields: fields)))
    try channel.writeOutbound(HTTPResponsePart.end(nil))
    guard case .head(let sent) = try channel.readOutbound(as: HTTPResponsePart.self) else {
      return XCTFail("no head")
    }
    XCTAssertNil(
      sent.headerFields[ConnectionGuard.closeConnectionMarker], "the marker never leaves the server")
    XCTAssertEqual(sent.headerFields[.connection], "close", "HTTP/1.1 says so")
    // The next request on it is not answered: the connection is closing.
    try channel.writeInbound(HTTPRequestPart.head(favicon))
    XCTAssertNil(try channel.readInbound(as: HTTPRequestPart.self), "a second request is dropped")
    channel.embeddedEventLoop.advanceTime(by: linger)
    XCTAssertFalse(channel.isActive)
  }
}
