import ArgumentParser
import VaultTerminal

/// `--mode`, read by the argument parser from its raw value.
extension DisplayMode: ExpressibleByArgument {}
