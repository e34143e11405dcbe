import ArgumentParser
import VaultCore

/// The limits of the decoder helpers, for every command that reads photos or videos.
struct DecoderOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      """
      The memory each decoder helper may use, \(DecoderLimits.memoryRange.lowerBound) to \
      \(DecoderLimits.memoryRange.upperBound) MiB; a file that needs more is refused.
      """,
      valueName: "MiB"))
  var decoderMemory = DecoderLimits.defaultMemoryMiB

  func validate() throws {
    let range = DecoderLimits.memoryRange
    guard range.contains(decoderMemory) else {
      throw ValidationError("--decoder-memory must be from \(range.lowerBound) to \(range.upperBound) MiB.")
    }
  }

  var limits: DecoderLimits { DecoderLimits(memoryMiB: decoderMemory) }
}
