import MediaAssetsImage

/// Draws identicon-like portraits: a background, a face, two eyes and a mouth, all chosen from a
/// user number, so user 7 looks the same on every run.
///
/// Edges are anti-aliased by coverage (a one-pixel ramp at each edge) and composited "over" in
/// premultiplied RGBA, as `Image` stores pixels.
public struct AvatarPainter: Sendable {
    /// The user the portrait belongs to; it picks the colours and the features.
    public var userNumber: Int
    /// The side of the square portrait in pixels.
    public var side: Int
    /// Whether the background is transparent (the portrait is then meant for PNG).
    public var transparentBackground: Bool

    /// Creates a painter for `userNumber` at `side` × `side` pixels.
    public init(userNumber: Int, side: Int, transparentBackground: Bool = false) {
        self.userNumber = userNumber
        self.side = max(16, side)
        self.transparentBackground = transparentBackground
    }

    private static let backgrounds: [RGBA] = [
        RGBA(red: 0x8E, green: 0xC5, blue: 0xE8), RGBA(red: 0xF4, green: 0xB4, blue: 0x7C),
        RGBA(red: 0xA8, green: 0xD8, blue: 0x9B), RGBA(red: 0xD7, green: 0xA6, blue: 0xE3),
        RGBA(red: 0xF2, green: 0xE2, blue: 0x8A), RGBA(red: 0x9F, green: 0xB3, blue: 0xD9),
        RGBA(red: 0xE8, green: 0x9B, blue: 0x9B), RGBA(red: 0x86, green: 0xD1, blue: 0xC4),
    ]
    private static let skins: [RGBA] = [
        RGBA(red: 0xFF, green: 0xDB, blue: 0xB8), RGBA(red: 0xE8, green: 0xB9, blue: 0x8F),
        RGBA(red: 0xC6, green: 0x8E, blue: 0x62), RGBA(red: 0x8D, green: 0x5A, blue: 0x3B),
        RGBA(red: 0xF1, green: 0xC2, blue: 0x9A),
    ]
    private static let hairs: [RGBA] = [
        RGBA(red: 0x2B, green: 0x1D, blue: 0x14), RGBA(red: 0x6B, green: 0x3E, blue: 0x1F),
        RGBA(red: 0xC9, green: 0x8B, blue: 0x3A), RGBA(red: 0x55, green: 0x55, blue: 0x5F),
        RGBA(red: 0xA0, green: 0x2F, blue: 0x2F),
    ]

    /// Paints the portrait.
    public func paint() -> Image {
        let traits = Traits(userNumber)
        let background = transparentBackground ? RGBA.transparent : Self.backgrounds[traits.background]
        var canvas = Canvas(side: side, background: background)
        let size = Double(side)
        let center = size / 2
        let faceRadius = size * 0.36
        // Hair first: the face covers all of it but a cap over the forehead.
        canvas.fillEllipse(
            centerX: center, centerY: center - size * 0.04, radiusX: faceRadius * 1.06,
            radiusY: faceRadius * (traits.tallHair ? 1.12 : 1.02), color: Self.hairs[traits.hair]
        )
        canvas.fillEllipse(
            centerX: center, centerY: center + size * 0.03, radiusX: faceRadius, radiusY: faceRadius,
            color: Self.skins[traits.skin]
        )
        let eyeOffset = size * (0.10 + 0.02 * Double(traits.eyeSpacing))
        let eyeY = center - size * 0.01
        let eyeRadiusY = size * (traits.squint ? 0.018 : 0.042)
        for eyeX in [center - eyeOffset, center + eyeOffset] {
            canvas.fillEllipse(
                centerX: eyeX, centerY: eyeY, radiusX: size * 0.035, radiusY: eyeRadiusY,
                color: RGBA(red: 0x22, green: 0x22, blue: 0x2A)
            )
        }
        // A smile: the lower half of a ring.
        canvas.fillLowerArc(
            centerX: center, centerY: center + size * 0.10, radius: size * (0.08 + 0.015 * Double(traits.smile)),
            thickness: size * 0.025, color: RGBA(red: 0x7A, green: 0x2E, blue: 0x2E)
        )
        return canvas.image
    }

    /// The features a user number picks.
    private struct Traits {
        var background: Int, skin: Int, hair: Int, eyeSpacing: Int, smile: Int
        var tallHair: Bool, squint: Bool

        init(_ userNumber: Int) {
            // A small integer hash, so neighbouring users differ in every feature.
            var value = UInt64(truncatingIfNeeded: userNumber) &* 0x9E37_79B9_7F4A_7C15
            value ^= value >> 29
            func next(_ count: Int) -> Int {
                defer { value = value / UInt64(count) }
                return Int(value % UInt64(count))
            }
            background = next(AvatarPainter.backgrounds.count)
            skin = next(AvatarPainter.skins.count)
            hair = next(AvatarPainter.hairs.count)
            eyeSpacing = next(3)
            smile = next(3)
            tallHair = next(2) == 1
            squint = next(4) == 0
        }
    }
}
