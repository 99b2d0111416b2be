import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite(
    "GIF: frames, disposal, transparency, palettes, loops", .enabled(if: CodecAvailability.gif, "install libgif7"),
    .offThePool)
struct GIFDecodingTests {
    static let red = RGBA(red: 255, green: 0, blue: 0)
    static let green = RGBA(red: 0, green: 255, blue: 0)
    static let blue = RGBA(red: 0, green: 0, blue: 255)
    static let yellow = RGBA(red: 255, green: 255, blue: 0)
    static let cyan = RGBA(red: 0, green: 255, blue: 255)

    /// Four frames on a 4×4 canvas exercising every disposal method, a transparent index and a local palette.
    static func disposalSequence() throws -> Data {
        try GIFFixtures.gif(
            width: 4, height: 4,
            frames: [
                .init(width: 4, height: 4, indices: Array(repeating: 0, count: 16), disposal: 1, delayHundredths: 5),
                .init(
                    left: 1, top: 1, width: 2, height: 2, indices: [1, 3, 3, 1], disposal: 2, delayHundredths: 0,
                    transparentIndex: 3
                ),
                .init(width: 2, height: 1, indices: [2, 2], disposal: 3, delayHundredths: 1),
                .init(
                    left: 3, width: 1, height: 4, indices: [0, 1, 0, 1], localPalette: [yellow, cyan], disposal: 1,
                    delayHundredths: 20
                ),
            ],
            loopCount: 0
        )
    }

    /// A 4×4 canvas from rows of optional colours (`nil` is transparent).
    static func canvas(_ rows: [[RGBA?]]) -> Image {
        let pixels: [UInt8] = rows.joined().flatMap { color -> [UInt8] in
            guard let color else { return [0, 0, 0, 0] }
            return [color.red, color.green, color.blue, 255]
        }
        return Image(width: rows[0].count, height: rows.count, pixels: pixels)
    }

    @Test("frames are composited as browsers do: keep, restore to background, restore to previous")
    func disposalAndTransparency() throws {
        // Given the four-frame sequence
        let data = try Self.disposalSequence()

        // When decoded
        let animation = try ImageCodecRegistry.standard.decodeAnimation(data)

        // Then each canvas matches the hand-computed one
        let (r, g, b, y, c) = (Self.red, Self.green, Self.blue, Self.yellow, Self.cyan)
        let expected = [
            Self.canvas([[r, r, r, r], [r, r, r, r], [r, r, r, r], [r, r, r, r]]),
            // the transparent index 3 leaves the red underneath
            Self.canvas([[r, r, r, r], [r, g, r, r], [r, r, g, r], [r, r, r, r]]),
            // frame 2's rectangle cleared to transparent, then blue drawn at the top left
            Self.canvas([[b, b, r, r], [r, nil, nil, r], [r, nil, nil, r], [r, r, r, r]]),
            // frame 3 restored to the canvas before it, then a column from the local palette
            Self.canvas([[r, r, r, y], [r, nil, nil, c], [r, nil, nil, y], [r, r, r, c]]),
        ]
        #expect(animation.frames.count == 4)
        for (index, frame) in animation.frames.enumerated() {
            #expect(frame.image == expected[index], "frame \(index + 1)")
        }
        // delays of 0 and 1 hundredths are shown for 100 ms, as browsers do
        #expect(
            animation.frames.map(\.duration) == [
                .milliseconds(50), .milliseconds(100), .milliseconds(100), .milliseconds(200),
            ])
        #expect(animation.loopCount == 0)
        #expect(try ImageDecoder.decode(data) == expected[0])
        #expect(
            try ImageDecoder.header(of: data)
                == ImageHeader(format: .gif, width: 4, height: 4, orientation: .identity, hasAlpha: true))
    }

    @Test("interlaced rows are put back in order")
    func interlaced() throws {
        // Given a 1×10 interlaced frame whose row n has index n % 4
        let indices = (0..<10).map { UInt8($0 % 4) }
        let data = try GIFFixtures.gif(
            width: 1, height: 10, frames: [.init(width: 1, height: 10, indices: indices, interlaced: true)])

        // When decoded
        let image = try ImageDecoder.decode(data)

        // Then each row has its colour
        for row in 0..<10 { #expect(image[0, row] == GIFFixtures.palette[row % 4], "row \(row)") }
    }

    @Test("loop counts: none plays once, NETSCAPE n plays n + 1 times")
    func loopCounts() throws {
        let frame = GIFFixtures.Frame(width: 1, height: 1, indices: [0])
        #expect(
            try ImageCodecRegistry.standard.decodeAnimation(
                GIFFixtures.gif(width: 1, height: 1, frames: [frame, frame])
            ).loopCount == 1)
        #expect(
            try ImageCodecRegistry.standard.decodeAnimation(
                GIFFixtures.gif(width: 1, height: 1, frames: [frame], loopCount: 2)
            ).loopCount == 3)
    }

    @Test("a comment extension with no sub-blocks (which DGifSlurp refuses) is read past")
    func emptyCommentExtension() throws {
        // Given a GIF with `21 FE 00` inserted after its global colour table
        var bytes = Array(
            try GIFFixtures.gif(width: 2, height: 1, frames: [.init(width: 2, height: 1, indices: [1, 2])]))
        bytes.insert(contentsOf: [0x21, 0xFE, 0x00], at: 6 + 7 + 12)

        // When decoded
        let image = try ImageDecoder.decode(Data(bytes))

        // Then the frame is there
        #expect(image[0, 0] == Self.green && image[1, 0] == Self.blue)
    }

    @Test("frames reaching past the canvas are clipped")
    func clipping() throws {
        // Given a frame half outside and one wholly outside a 2×2 canvas (giflib writes only frames inside the
        // screen, so a 4×4 screen is written and its size patched to 2×2)
        var bytes = Array(
            try GIFFixtures.gif(
                width: 4, height: 4,
                frames: [
                    .init(left: 1, top: 1, width: 2, height: 2, indices: [1, 1, 1, 1]),
                    .init(left: 3, top: 3, width: 1, height: 1, indices: [2]),
                ]
            )
        )
        bytes.replaceSubrange(6..<10, with: [2, 0, 2, 0])
        let data = Data(bytes)

        // When decoded
        let animation = try ImageCodecRegistry.standard.decodeAnimation(data)

        // Then only the inside is drawn
        #expect(animation.frames[0].image == Self.canvas([[nil, nil], [nil, Self.green]]))
        #expect(animation.frames[1].image == animation.frames[0].image)
    }
}
