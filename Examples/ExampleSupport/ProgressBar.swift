import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on standard output, drawn only when standard output is a terminal.
///
/// Redirected to a file or a pipe, it draws nothing, so logs stay clean. It redraws only when
/// the shown percentage changes.
public final class ProgressBar: Sendable {
    /// Whether the bar draws (standard output is a terminal).
    public let isVisible: Bool
    private let label: String
    private let total: Int
    private let width: Int
    private let state = Mutex((done: 0, shownPercent: -1))

    /// Creates a bar for `total` units (bytes); nothing is drawn until the first `advance`.
    public init(label: String, total: Int, width: Int = 32) {
        self.label = label
        self.total = max(1, total)
        self.width = width
        isVisible = isatty(STDOUT_FILENO) == 1
    }

    /// Adds `count` units and redraws if the percentage changed.
    public func advance(by count: Int) {
        guard isVisible else { return }
        let line = state.withLock { state -> String? in
            state.done = min(total, state.done + count)
            let percent = state.done * 100 / total
            guard percent != state.shownPercent else { return nil }
            state.shownPercent = percent
            return render(done: state.done, percent: percent)
        }
        if let line { write(line) }
    }

    /// Ends the bar's line (clears it), so the next output starts on a fresh line.
    public func finish() {
        guard isVisible else { return }
        write("\r" + String(repeating: " ", count: label.count + width + 40) + "\r")
    }

    private func render(done: Int, percent: Int) -> String {
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "\r\(label) [\(bar)] \(percent)%  \(Formatting.bytes(done)) of \(Formatting.bytes(total))"
    }

    private func write(_ text: String) {
        // Through print's buffer, so it interleaves with the rest of the output in order.
        print(text, terminator: "")
        fflush(nil)
    }
}
