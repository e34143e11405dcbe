import HummingbirdCore
import Logging
import NIOCore
import NIOTLS

/// Closes a connection whose TLS handshake has not finished within `timeout`: until it
/// does, no HTTP handler (and so no `ConnectionGuard`) watches the connection.
final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  private let timeout: TimeAmount
  private var deadline: Scheduled<Void>?

  init(timeout: TimeAmount) {
    self.timeout = timeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let channel = context.channel
    deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    disarm()
  }

  /// Decrypted bytes reach this handler only once the handshake is done.
  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    disarm()
    context.fireChannelRead(data)
  }

  /// Only the handshake's own completion disarms it: other events (the quiesce a stopping
  /// server sends every connection) must not, or one idle connection that never starts
  /// TLS would keep a stopping server, and its unlocked space, alive for ever.
  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case TLSUserEvent.handshakeCompleted = event { disarm() }
    context.fireUserInboundEventTriggered(event)
  }

  private func disarm() {
    deadline?.cancel()
    deadline = nil
  }
}

/// A server child channel with a `HandshakeDeadline` after `inner`'s own set-up (TLS and
/// protocol negotiation).
struct DeadlineChannel<Inner: ServerChildChannel>: ServerChildChannel {
  typealias Value = Inner.Value

  let inner: Inner
  let handshakeTimeout: TimeAmount

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    let timeout = handshakeTimeout
    return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
      try channel.pipeline.syncOperations.addHandler(HandshakeDeadline(timeout: timeout))
      return value
    }
  }

  func handle(value: Value, logger: Logger) async {
    await inner.handle(value: value, logger: logger)
  }
}
