import Foundation

@testable import MediaAssetsImage

/// GIF files for tests, written through giflib's encoder (loaded at run time like the decoder).
enum GIFFixtures {
    typealias Frame = GIFWriter.Frame

    /// Red, green, blue, white.
    static let palette: [RGBA] = [
        RGBA(red: 255, green: 0, blue: 0), RGBA(red: 0, green: 255, blue: 0), RGBA(red: 0, green: 0, blue: 255),
        .white,
    ]

    /// A GIF89a of `frames` on a `width`×`height` screen; `loopCount` writes a NETSCAPE2.0 extension.
    static func gif(
        width: Int, height: Int, globalPalette: [RGBA]? = palette, frames: [Frame], loopCount: Int? = nil
    ) throws -> Data {
        let writer = try GIFWriter()
        return try writer.write { file, put in
            try put.screen(file, width, height, globalPalette)
            if let loopCount { try put.netscape(file, loopCount) }
            for frame in frames { try put.frame(file, frame) }
        }
    }
}
