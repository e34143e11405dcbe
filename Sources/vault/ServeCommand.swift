import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import VaultCore
import VaultServe
import VaultTerminal

struct ServeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "serve",
    abstract: "Receive photos and videos from a phone: an upload page on the local network.",
    discussion: """
      Prints an address (and its QR code on a terminal) to open on a phone on the same \
      network. The address holds a random token, new each run; requests without it get a \
      bare 404, and an address that tries 20 wrong ones gets 429 for a minute. The page \
      only sends photos: nothing in the vault can be read through it. Photos and videos \
      are stored exactly as 'vault add' stores them (duplicates are skipped), encrypted \
      as they arrive: never written to disk unencrypted, never held whole in memory. \
      Videos (named .mp4, .mov or .m4v) may be up to 8 GiB. Each one is printed as it lands.

      The connection is TLS (HTTP/1.1 and HTTP/2) with a certificate made for this run \
      and kept only in memory: the phone warns that it is self-signed; go on only if the \
      SHA-256 fingerprint it shows is the one printed here.

      The space stays usable meanwhile: list, view and export work in another terminal, \
      and other commands that write wait while an upload is being stored.

      Stops on Ctrl-C (or SIGTERM), after --idle without a request, or with --once when \
      a batch is done: at least one upload has ended, none is in progress, and none has \
      started for 5 seconds. Then prints a summary and exits with status 0.
      """)

  @OptionGroup var options: VaultOptions

  @OptionGroup var decoder: DecoderOptions

  @Option(
    help: ArgumentHelp(
      "The IP address to listen on (default: this machine's first network address, else 127.0.0.1).",
      valueName: "address"))
  var bind: String?

  @Option(help: ArgumentHelp("The port to listen on (default: a free one).", valueName: "port"))
  var port: Int?

  @Flag(help: "Serve plain HTTP, without TLS: anyone on the network can read the photos sent.")
  var http = false

  @Option(
    help: ArgumentHelp(
      "Stop after this long without a request: 30s, 10m, 1h; 0 never stops.", valueName: "duration"))
  var idle = "10m"

  @Flag(help: "Stop once a batch is done: no upload for 5 seconds after one has ended.")
  var once = false

  @Option(
    help: ArgumentHelp("Refuse photos larger than this many megabytes (videos: 8 GiB).", valueName: "MB"))
  var maxUploadMb = 200

  /// Seconds without an upload starting after which `--once` counts a batch as done.
  static let batchGap = 5.0

  func validate() throws {
    if let bind, !ServeAddress.isIPAddress(bind) {
      throw ValidationError(
        "--bind must be an IPv4 or IPv6 address, such as 192.168.1.20 ('\(bind)' is not).")
    }
    if let port, !(0...65535).contains(port) { throw ValidationError("--port must be from 0 to 65535.") }
    if IdleDuration.seconds(idle) == nil {
      throw ValidationError(
        "--idle must be a duration such as 30s, 10m or 1h, or 0 for never ('\(idle)' is not).")
    }
    // A photo is read back into memory while its thumbnail is made: the intake's budget.
    if !(1...256).contains(maxUploadMb) { throw ValidationError("--max-upload-mb must be from 1 to 256.") }
  }

  func run() throws {
    let vault = try options.openVault()
    // The password goes as soon as the space is unlocked: the server runs for long.
    var credential = try options.credential(for: vault)
    let space = try options.unlock(vault, with: &credential, access: .read)
    try space.requireIndex()
    // The server writes only through short-lived writers (Space.change), so that other
    // commands can read and write the space meanwhile.
    space.releaseLock()

    if http {
      Diagnostics.warning("serving plain HTTP: anyone on the network can read the photos you send")
    }
    let address = serverAddress()
    let maxUploadBytes = maxUploadMb * 1_000_000
    let intake = UploadIntake(space: space, maxUploadBytes: maxUploadBytes, decoderLimits: decoder.limits)
    let certificate = http ? nil : try ServerCertificate(address: address)
    let output = ServeOutput()
    let server = UploadServer(
      configuration: .init(address: address, port: port ?? 0, certificate: certificate), intake: intake
    ) { event in
      output.line(event.line)
    }

    let idleSeconds = IdleDuration.seconds(idle).flatMap { $0 == 0 ? nil : $0 }
    let signals = StopSignals { Task { await server.stop() } }
    let outcome = runBlocking {
      let watchdog = Task {
        while !Task.isCancelled {
          try? await Task.sleep(for: .seconds(1))
          if server.tally.stopReason(idle: idleSeconds, once: once, batchGap: Self.batchGap) != nil {
            await server.stop()
            return
          }
        }
      }
      defer { watchdog.cancel() }
      try await server.run { port in
        output.line("address: \(server.url(port: port))")
        if let certificate { output.line("certificate SHA-256: \(certificate.fingerprint)") }
        if Terminal.stdoutIsTerminal { output.qrCode(of: server.url(port: port)) }
        output.line(
          certificate == nil
            ? "Open the address on your phone (same Wi-Fi), choose photos. Ctrl-C stops."
            : "Open the address on your phone (same Wi-Fi), check the fingerprint, choose photos. Ctrl-C stops."
        )
      }
    }
    withExtendedLifetime(signals) {}
    // Once the server has stopped: its writes are over.
    ExpiredNames.warn(space)
    try outcome.get()
    output.line(server.tally.summary(stored: intake.itemsStored))
  }

  /// The address to serve on: --bind's, else this machine's on the local network, else
  /// 127.0.0.1 (said: only this machine can reach it).
  private func serverAddress() -> String {
    if let bind { return bind }
    if let lan = ServeAddress.lanAddress() { return lan }
    Diagnostics.warning("no network interface is up: serving on 127.0.0.1, which only this machine can reach")
    return "127.0.0.1"
  }
}

/// Lines from the server's threads, one at a time.
final class ServeOutput: Sendable {
  private let lock = Mutex(())

  func line(_ text: String) {
    lock.withLock { _ in printLine(text) }
  }

  func qrCode(of text: String) {
    guard let code = QRCode(text) else { return }
    lock.withLock { _ in
      guard code.drawnWidth <= Terminal.columns else {
        Diagnostics.hint("the terminal is too narrow for the QR code (\(code.drawnWidth) columns)")
        return
      }
      for line in code.terminalLines() { printRaw(line) }
    }
  }
}

/// Runs `body` on the concurrency pool and waits for it on this thread.
private func runBlocking(_ body: @escaping @Sendable () async throws -> Void) -> Result<Void, Error> {
  let outcome = WaitableMutex<Result<Void, Error>?>(nil)
  Task.detached {
    let result: Result<Void, Error>
    do {
      try await body()
      result = .success(())
    } catch {
      result = .failure(error)
    }
    outcome.withLock { $0 = result }
    outcome.wakeAll()
  }
  return outcome.withLock(waiting: { $0 == nil ? .untilWoken : .no }, then: { $0! })
}
