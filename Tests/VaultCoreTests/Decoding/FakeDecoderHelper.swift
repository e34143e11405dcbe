import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// A compromised decoder helper, as a security review would write one: a Python script
/// that speaks the helper's protocol on descriptor 3 (as `vault_spawn_decoder` hands it)
/// and then misbehaves. A `DecoderWorker` started on it shows what the parent does with
/// replies the real helper never sends.
enum FakeDecoderHelper {
  enum Misbehaviour {
    /// Answers the first request with `ready` carrying `count` descriptors (a pipe's ends).
    case readyWithDescriptors(count: Int)
    /// Answers the first request, whatever it is, with `needBuffer` of `bytes`, maps the
    /// shared memory it is handed, then sends a kind nobody sends.
    case needBuffer(bytes: Int)
    /// Never reads: the parent's writes fill the socket and stop.
    case neverReads
    /// Reads an `analyse` and the file sent whole with it, and answers with an `analysis`
    /// frame of `payload` (its length `claimed`, when given, whatever the bytes that follow).
    case analysis(payload: [UInt8], claimed: Int? = nil)
  }

  /// Writes the helper into a fresh temporary folder and returns its path.
  static func make(_ misbehaviour: Misbehaviour, test: XCTestCase) throws -> String {
    try requireTool("/usr/bin/python3")
    let path = try makeTemporaryFolder(test) + "/" + DecoderExecutable.name
    try (preamble + body(misbehaviour)).write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o755)
    return path
  }

  private static let preamble = """
    #!/usr/bin/python3
    import array, mmap, os, socket, struct, time
    channel = socket.socket(fileno=3)
    def exactly(count):
        received, descriptors = b"", []
        while len(received) < count:
            data, ancillary, _, _ = channel.recvmsg(count - len(received), socket.CMSG_SPACE(64))
            for level, kind, payload in ancillary:
                if kind == socket.SCM_RIGHTS:
                    descriptors += list(array.array("i", payload[: len(payload) - len(payload) % 4]))
            if not data:
                raise SystemExit(0)
            received += data
        return received, descriptors
    def frame():
        header, first = exactly(4)
        body, rest = exactly(struct.unpack(">I", header)[0])
        return body[0], body[1:], first + rest
    def send(kind, payload=b"", descriptors=()):
        data = struct.pack(">I", len(payload) + 1) + bytes([kind]) + payload
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", descriptors))] if descriptors else []
        channel.sendmsg([data], ancillary)

    """

  private static func body(_ misbehaviour: Misbehaviour) -> String {
    switch misbehaviour {
    case .readyWithDescriptors(let count):
      return """
        frame()
        ends = os.pipe()
        send(0x81, descriptors=[ends[i % 2] for i in range(\(count))])
        time.sleep(3600)

        """
    case .needBuffer(let bytes):
      return """
        frame()
        send(0x11, struct.pack(">q", \(bytes)))
        kind, _, descriptors = frame()
        while kind != 0x06:
            kind, _, descriptors = frame()
        shared = mmap.mmap(descriptors[0], \(bytes), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        shared[0:4] = b"AAAA"
        send(0x55)
        time.sleep(3600)

        """
    case .neverReads:
      return "time.sleep(3600)\n"
    case .analysis(let payload, let claimed):
      let length = claimed.map { "\($0)" } ?? "len(payload) + 1"
      return """
        frame()
        frame()
        payload = bytes.fromhex("\(payload.map { String(format: "%02x", $0) }.joined())")
        channel.sendall(struct.pack(">I", \(length)) + bytes([0x82]) + payload)
        time.sleep(3600)

        """
    }
  }

  /// The descriptors this process holds whose target's name contains `fragment`
  /// ("memfd:vault-picture", "pipe:").
  static func openDescriptors(naming fragment: String) -> [String] {
    let folder = "/proc/self/fd"
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return entries.compactMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)
    }
    .filter { $0.contains(fragment) }
  }
}
