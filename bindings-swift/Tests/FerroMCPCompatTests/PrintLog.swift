// What the README examples print: this module's `print` shadows Swift's, so the tests can read
// the examples' output (and it still goes to stdout).

import Foundation

/// Lines recorded in order, from any thread.
final class PrintLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func record(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    /// Everything recorded so far, and clears it.
    func take() -> [String] {
        lock.withLock {
            defer { lines = [] }
            return lines
        }
    }

    /// Waits up to `seconds` for a line for which `matches` holds.
    func waitFor(_ seconds: Double = 10, _ matches: (String) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if lock.withLock({ lines.contains(where: matches) }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    var all: [String] { lock.withLock { lines } }
}

/// What the examples printed.
let printed = PrintLog()

/// Swift's `print`, also recorded in `printed`.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    printed.record(line)
    Swift.print(line, terminator: terminator)
}
