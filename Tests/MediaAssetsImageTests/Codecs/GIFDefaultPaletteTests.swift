import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

/// GIF89a lets a file carry neither a global nor a local colour table; Pillow's test files include two such
/// (one frame, and frames after one with a table). They used to be refused ("frame 1 has no colour table");
/// they are drawn with a grey ramp, as Pillow reads them (index n is grey n). The files are made here.
@Suite("GIF without a colour table", .enabled(if: CodecAvailability.gif, "install libgif7"), .offThePool)
struct GIFDefaultPaletteTests {
    /// `data` (written with `GIFFixtures.palette` as its global table) with that table cut out of the file.
    static func withoutGlobalTable(_ data: Data) -> Data {
        var bytes = Array(data)
        let tableSize = 3 << ((Int(bytes[10]) & 0x07) + 1)
        bytes[10] &= 0x7F
        bytes.removeSubrange(13..<13 + tableSize)
        return Data(bytes)
    }

    static func grey(_ level: UInt8) -> [UInt8] { [level, level, level, 255] }

    @Test("one frame without any colour table is drawn in greys")
    func singleFrame() throws {
        // Given a 4×1 frame of indices 0, 1, 2, 3 and no colour table at all
        let data = Self.withoutGlobalTable(
            try GIFFixtures.gif(width: 4, height: 1, frames: [.init(width: 4, height: 1, indices: [0, 1, 2, 3])])
        )
        #expect(Array(data)[10] & 0x80 == 0)

        // When decoded, as a still and as an animation
        let image = try ImageDecoder.decode(data)
        let animation = try ImageCodecRegistry.standard.decodeAnimation(data)

        // Then index n is the opaque grey n
        #expect(image.pixels == Self.grey(0) + Self.grey(1) + Self.grey(2) + Self.grey(3))
        #expect(animation.frames.map(\.image) == [image])
    }

    @Test("a frame without a table after one with a local table is drawn in greys, transparency kept")
    func frameAfterALocalTable() throws {
        // Given no global table, a first frame with a local table (red, green) and a second frame without one
        // whose index 1 is transparent
        let red = RGBA(red: 255, green: 0, blue: 0)
        let green = RGBA(red: 0, green: 255, blue: 0)
        let data = Self.withoutGlobalTable(
            try GIFFixtures.gif(
                width: 3, height: 1,
                frames: [
                    .init(width: 3, height: 1, indices: [0, 1, 0], localPalette: [red, green]),
                    .init(width: 3, height: 1, indices: [2, 1, 0], transparentIndex: 1),
                ]
            )
        )

        // When every frame is decoded, and played through a frame window
        let animation = try ImageCodecRegistry.standard.decodeAnimation(data)
        let reader = try AnimationFrameReader(data: data)
        let played = [try reader.nextFrame(), try reader.nextFrame()].compactMap { $0?.image }

        // Then the first frame has its colours, the second greys where it draws and green where it is transparent
        #expect(animation.frames[0].image.pixels == [255, 0, 0, 255, 0, 255, 0, 255, 255, 0, 0, 255])
        #expect(animation.frames[1].image.pixels == Self.grey(2) + [0, 255, 0, 255] + Self.grey(0))
        #expect(played == animation.frames.map(\.image))
    }
}
