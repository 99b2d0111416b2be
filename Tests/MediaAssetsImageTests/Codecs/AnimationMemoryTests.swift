import Foundation
import TestSupport
import Testing

/// The frame window's memory, measured in a child process (`memory-probe`, built beside the tests): how far
/// its resident high-water mark rises above its resident size once the GIF's bytes are held.
@Suite(
    "Animation frame window peak memory",
    .enabled(if: HelperProcess.isBuilt("memory-probe"), "needs memory-probe built beside the tests: swift build"),
    .disabled(
        if: ThreadSanitizerProbe.isActive || AddressSanitizerProbe.isActive,
        "a sanitizer's allocator inflates every peak; measured in the plain run"
    ),
    .offThePool
)
struct AnimationMemoryTests {
    @Test("a 200-frame 1000×1000 GIF shown at 200 px plays within 16 MiB")
    func gifWindowPeak() async throws {
        // Given a 200-frame 1000×1000 GIF whose every frame covers the canvas (800 MB decoded whole), held in
        // the child's memory, played through the default window of 8 frames at 200 px: the first 9 frames
        // (the window fills, then a frame is let go of and the next made: the steady state, whose peak more
        // frames do not raise; a debug build makes about one 1000×1000 frame per half second of CPU, and the
        // benchmark plays all 200 in release)
        let outcome = try await ChildProcess.run(
            HelperProcess.binDirectory.appendingPathComponent("memory-probe"),
            ["gif-window", "1000", "200", "200", "9"], timeout: .seconds(600)
        )

        // Then the child's peak rose by at most 16 MiB: one 4 MB canvas, 160 KB frames, scratch rows
        #expect(outcome.status == 0, "\(outcome.output)")
        let fields = outcome.output.split(whereSeparator: \.isWhitespace)
        let growth = try #require(fields.firstIndex(of: "peak-growth").flatMap { Int(fields[$0 + 1]) })
        #expect(fields.last == "9", "frames played: \(outcome.output)")
        #expect(growth <= 16 << 20, "peak grew by \(growth >> 20) MiB")
    }
}
