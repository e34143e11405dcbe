import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Sits in every HTTP/1.1 connection and HTTP/2 stream, between the HTTP codec and the
/// request handler, and enforces what Hummingbird leaves open:
///
/// - A stall timeout: while a request's head or body is awaited and the handler has asked
///   for more (a `read` passed through), the peer must send something within `stallTimeout`,
///   else the connection (or stream) is closed. A request that is waiting server side (for
///   a memory slot, with its body held back by backpressure, or for its commit) asks for
///   nothing and is never timed out; an idle keep-alive connection is.
/// - Early responses: a response whose head carries `closeMarker` (a 413 or 404 sent before
///   the body was read) ends the exchange once it is written: an HTTP/2 stream is reset;
///   an HTTP/1.1 connection drops what still arrives and closes after `lingerTimeout`, so
///   the client reads the response before the close (closing with unread data would send
///   a TCP reset that can destroy the response in the client's buffer).
/// - Ending the connection: a response whose head carries `closeConnectionMarker` (the
///   answer to a request without the right token on a connection that never showed it)
///   closes the whole connection once written, however complete the request was, so that
///   wrong guesses cannot keep a connection slot for ever. HTTP/1.1 says so with
///   `Connection: close`; an HTTP/2 connection is closed with all its streams.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// An internal header field: never sent, only read (and removed) here.
  static let closeMarker = HTTPField.Name("x-vault-close-after-response")!
  /// An internal header field: never sent, only read (and removed) here.
  static let closeConnectionMarker = HTTPField.Name("x-vault-close-connection")!

  private enum Phase {
    /// Between requests: waiting for a head.
    case idle
    /// The head arrived; the body (up to its end) is still coming.
    case readingRequest
    /// The request is in; the response is being made. No timeout applies.
    case responding
    /// An early response went out: everything that arrives is dropped.
    case closing
  }

  private let stallTimeout: TimeAmount
  private let lingerTimeout: TimeAmount
  private var phase = Phase.idle
  private var stallTimer: Scheduled<Void>?
  private var closeAfterResponse = false
  private var closeConnection = false

  init(stallTimeout: TimeAmount, lingerTimeout: TimeAmount = .seconds(2)) {
    self.stallTimeout = stallTimeout
    self.lingerTimeout = lingerTimeout
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    cancelStallTimer()
    if case .closing = phase { return }
    switch unwrapInboundIn(data) {
    case .head:
      phase = .readingRequest
    case .body:
      break
    case .end:
      phase = .responding
    }
    context.fireChannelRead(data)
  }

  func read(context: ChannelHandlerContext) {
    switch phase {
    case .idle, .readingRequest:
      armStallTimer(context)
    case .responding, .closing:
      break
    }
    context.read()
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(var head):
      if head.headerFields[Self.closeMarker] != nil {
        head.headerFields[Self.closeMarker] = nil
        // Only when the request has not fully arrived: a complete one can be answered on a
        // connection that stays open.
        closeAfterResponse = phase == .readingRequest
      }
      if head.headerFields[Self.closeConnectionMarker] != nil {
        head.headerFields[Self.closeConnectionMarker] = nil
        closeAfterResponse = true
        closeConnection = true
        if !Self.isHTTP2Stream(context.channel) { head.headerFields[.connection] = "close" }
      }
      context.write(wrapOutboundOut(.head(head)), promise: promise)
    case .body:
      context.write(data, promise: promise)
    case .end:
      guard closeAfterResponse else {
        if phase == .responding { phase = .idle }
        context.write(data, promise: promise)
        return
      }
      closeAfterResponse = false
      phase = .closing
      let written = context.eventLoop.makePromise(of: Void.self)
      written.futureResult.cascade(to: promise)
      context.writeAndFlush(data, promise: written)
      let channel = context.channel
      written.futureResult.whenComplete { [lingerTimeout, closeConnection] _ in
        if Self.isHTTP2Stream(channel) {
          (closeConnection ? channel.parent ?? channel : channel).close(promise: nil)
        } else {
          // Keeps reading (and dropping) while the client gets the response.
          channel.read()
          channel.eventLoop.scheduleTask(in: lingerTimeout) { channel.close(promise: nil) }
        }
      }
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    cancelStallTimer()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    cancelStallTimer()
  }

  private func armStallTimer(_ context: ChannelHandlerContext) {
    guard stallTimer == nil else { return }
    let channel = context.channel
    stallTimer = context.eventLoop.scheduleTask(in: stallTimeout) {
      channel.close(promise: nil)
    }
  }

  private func cancelStallTimer() {
    stallTimer?.cancel()
    stallTimer = nil
  }

  /// The TCP connection a request came on: `channel` itself, or an HTTP/2 stream's parent.
  static func connection(of channel: any Channel) -> any Channel {
    isHTTP2Stream(channel) ? channel.parent! : channel
  }

  /// An HTTP/2 stream is a child of the connection, itself a child of the listening
  /// socket; an HTTP/1.1 connection is a child of the listening socket only.
  private static func isHTTP2Stream(_ channel: any Channel) -> Bool {
    channel.parent?.parent != nil
  }
}
