import Dispatch
import Foundation
import VaultCore

/// Decrypts the next blocks of each open file ahead of its reads, on one thread for the
/// whole mount, so that a read of a block decrypted already only copies it: reading a photo
/// from start to end, decrypting one block overlaps replying with the one before, on the
/// other core, where each FUSE read used to decrypt its own chunks one after another.
///
/// Memory: `slots` blocks of `blockSize` for all open files together, allocated once and
/// locked, each wiped as soon as its block is handed out or dropped; a file gets at most
/// `blocksAhead` of them (a seek drops those held for the old place), and none when all are
/// taken (its reads then decrypt as before).
/// A block is decrypted through the file's readers, as a read is, so every chunk of it has
/// authenticated before it is kept; a block that fails is wiped and dropped, and the read
/// that wants it decrypts it itself and gets the error.
///
/// `@unchecked Sendable`: a slot's bytes are touched only by the one thread that holds it
/// (the decrypting thread, then the read that takes its block), handed over under `state`'s
/// lock.
final class DecryptAhead: @unchecked Sendable {
  /// What the kernel asks for at once reading a file through the mount from start to end
  /// (strace of the mount's replies: 262,160 bytes, 16 of them the header): one read, one
  /// block.
  static let blockSize = 256 * 1024
  /// Blocks decrypted ahead of a file's read at most: 768 KiB.
  static let blocksAhead = 3

  private struct Key: Hashable {
    let file: ObjectIdentifier
    let index: Int64
  }
  private enum Block {
    /// Waiting for the decrypting thread, in `slot`; `ticket` tells this request from a
    /// later one for the same block.
    case queued(ticket: UInt64, slot: Int)
    case decrypting(slot: Int)
    /// Decrypted and authenticated: `count` bytes in `slot`.
    case ready(slot: Int, count: Int)
  }
  private struct Blocks {
    var byKey: [Key: Block] = [:]
    var freeSlots: [Int]
    var lastTicket: UInt64 = 0
    /// The furthest block of each file read or queued: reads the kernel sends at once for
    /// the blocks after one another are not decrypted twice.
    var furthestByFile: [ObjectIdentifier: Int64] = [:]
  }
  private let slots: [PinnedBytes]
  private let state: WaitableMutex<Blocks>
  /// One thread of its own: FUSE's threads may all be waiting in `read`. (Not private: a
  /// test waits for it to be done with what was queued.)
  let queue = DispatchQueue(label: "vault.mount.decrypt-ahead")

  init(slots count: Int) {
    slots = (0..<count).map { _ in
      let slot = PinnedBytes(count: Self.blockSize)
      // Kept out of swap where the limit on locked memory allows, as `SecureBytes` is.
      mlock(slot.buffer.baseAddress, slot.count)
      return slot
    }
    state = WaitableMutex(Blocks(freeSlots: Array(0..<count)))
  }

  deinit {
    for slot in slots { munlock(slot.buffer.baseAddress, slot.count) }
  }

  /// How many blocks are held (queued, being decrypted or decrypted) now.
  var blocksHeld: Int { state.withLock { slots.count - $0.freeSlots.count } }

  /// Whether each free slot is free once (a slot released twice would be lent to two blocks).
  var freeSlotsAreDistinct: Bool { state.withLock { Set($0.freeSlots).count == $0.freeSlots.count } }

  /// Hands `body` up to `count` bytes of `file` from `offset` (as `file.decrypt` reads
  /// them, short only at its end) and returns what it returns: from a block decrypted ahead
  /// where there is one, without copying it, else decrypted now into a buffer of their own;
  /// wiped after. Has the blocks after this one decrypted ahead meanwhile.
  func read<Result>(
    _ file: OpenOriginal, at offset: Int64, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) throws -> Result {
    let index = offset / Int64(Self.blockSize)
    queueBlocks(after: index, of: file)
    let start = Int(offset - index * Int64(Self.blockSize))
    var taken = take(Key(file: ObjectIdentifier(file), index: index))
    guard taken != nil else { return try file.decryptingNow(at: offset, count: count, body) }
    defer { if let slot = taken?.slot { release(slot) } }
    if let (slot, held) = taken, count <= held - start || held < Self.blockSize {
      let end = max(start, min(held, start + count))
      return try body(
        UnsafeRawBufferPointer(start: slots[slot].buffer.baseAddress! + start, count: end - start))
    }
    // Decrypted bytes: `PinnedBytes` wipes them when it goes.
    let bytes = PinnedBytes(count: count)
    var filled = 0
    if let (slot, held) = taken {
      // The read goes on past the block: its part in it, then the rest.
      filled = max(0, held - start)
      bytes.buffer.baseAddress!.update(from: slots[slot].buffer.baseAddress! + start, count: filled)
      release(slot)
      taken = nil
    }
    let target = UnsafeMutableRawBufferPointer(
      start: bytes.buffer.baseAddress! + filled, count: count - filled)
    filled += try file.decrypt(at: offset + Int64(filled), into: target)
    return try body(UnsafeRawBufferPointer(start: bytes.buffer.baseAddress!, count: filled))
  }

  /// Drops the blocks of `file` (closed), wiping them.
  func forget(_ file: ObjectIdentifier) {
    let dropped = state.withLock { blocks -> [Int] in
      blocks.furthestByFile[file] = nil
      return Self.drop(file, keeping: nil, from: &blocks)
    }
    for slot in dropped { release(slot) }
  }

  /// Removes the blocks of `file` outside `kept` (all of them for nil) and returns the slots to release: those of
  /// blocks decrypted or queued. A block being decrypted releases its own slot when done
  /// (`decrypt` finds it gone).
  private static func drop(
    _ file: ObjectIdentifier, keeping kept: ClosedRange<Int64>?, from blocks: inout Blocks
  )
    -> [Int]
  {
    let keys = blocks.byKey.keys.filter { $0.file == file && kept?.contains($0.index) != true }
    return keys.compactMap { key -> Int? in
      switch blocks.byKey.removeValue(forKey: key) {
      case .ready(let slot, _), .queued(_, let slot): return slot
      case .decrypting, nil: return nil
      }
    }
  }

  /// The block `key` if it is decrypted (waiting for it while it is being decrypted), taken
  /// out; nil if it is not there, or only queued (then dropped: the caller is quicker).
  private func take(_ key: Key) -> (slot: Int, count: Int)? {
    let (taken, cancelled) = state.withLock(
      waiting: { blocks in
        if case .decrypting = blocks.byKey[key] { return .untilWoken }
        return .no
      },
      then: { blocks -> ((slot: Int, count: Int)?, Int?) in
        switch blocks.byKey.removeValue(forKey: key) {
        case .ready(let slot, let count): return ((slot, count), nil)
        case .queued(_, let slot): return (nil, slot)
        case .decrypting, nil: return (nil, nil)
        }
      })
    if let cancelled { release(cancelled) }
    return taken
  }

  /// Queues the blocks of `file` after block `index` that are not held yet, while slots are
  /// free.
  private func queueBlocks(after index: Int64, of file: OpenOriginal) {
    let lastIndex = (file.file.record.bytes - 1) / Int64(Self.blockSize)
    let (queued, dropped) = state.withLock { blocks -> ([(Key, UInt64, Int)], [Int]) in
      var furthest = blocks.furthestByFile[ObjectIdentifier(file)] ?? -1
      // A seek, back (a read far behind the furthest) or forward (past it): the blocks held
      // for the old place go, so that a file holds `blocksAhead` at most; read ahead from
      // the new one.
      var dropped: [Int] = []
      if furthest > index + Int64(Self.blocksAhead) || index > furthest + 1 {
        dropped = Self.drop(
          ObjectIdentifier(file), keeping: index...index + Int64(Self.blocksAhead), from: &blocks)
        furthest = index
      }
      furthest = max(furthest, index)
      defer { blocks.furthestByFile[ObjectIdentifier(file)] = furthest }
      var queued: [(Key, UInt64, Int)] = []
      while furthest < min(index + Int64(Self.blocksAhead), lastIndex) {
        let key = Key(file: ObjectIdentifier(file), index: furthest + 1)
        if blocks.byKey[key] == nil {
          guard let slot = blocks.freeSlots.popLast() else { break }
          blocks.lastTicket += 1
          blocks.byKey[key] = .queued(ticket: blocks.lastTicket, slot: slot)
          queued.append((key, blocks.lastTicket, slot))
        }
        furthest += 1
      }
      return (queued, dropped)
    }
    for slot in dropped { release(slot) }
    for (key, ticket, slot) in queued {
      // Holds `file` until done, so that it is not forgotten (nor its identifier reused) meanwhile.
      queue.async { self.decrypt(key, ticket: ticket, into: slot, of: file) }
    }
  }

  /// Decrypts block `key` into `slot`, unless the request was dropped meanwhile.
  private func decrypt(_ key: Key, ticket: UInt64, into slot: Int, of file: OpenOriginal) {
    let started = state.withLock { blocks -> Bool in
      guard case .queued(ticket, _) = blocks.byKey[key] else { return false }
      blocks.byKey[key] = .decrypting(slot: slot)
      return true
    }
    guard started else { return }
    let bytes = UnsafeMutableRawBufferPointer(slots[slot].buffer)
    let count = try? file.decrypt(at: key.index * Int64(Self.blockSize), into: bytes)
    let kept = state.withLock { blocks -> Bool in
      // Dropped meanwhile (the file closed, or a seek), or failed: not kept.
      guard case .decrypting = blocks.byKey[key], let count else {
        if case .decrypting = blocks.byKey[key] { blocks.byKey[key] = nil }
        return false
      }
      blocks.byKey[key] = .ready(slot: slot, count: count)
      return true
    }
    if !kept { release(slot) }
    state.wakeAll()
  }

  /// Wipes `slot` and frees it.
  private func release(_ slot: Int) {
    slots[slot].wipe()
    state.withLock { $0.freeSlots.append(slot) }
  }
}
