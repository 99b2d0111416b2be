import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite(.offThePool) struct AvatarStyleTests {
    @Test func identifiersAndTargetSizes() {
        let cases: [(AvatarStyle, String, PixelSize?)] = [
            (.original, "original", nil),
            (.rectangle(size: PixelSize(width: 96, height: 64)), "rectangle(96x64)", PixelSize(width: 96, height: 64)),
            (.roundedRectangle(size: .square(96), cornerRadius: 12), "rounded(96x96,r=12)", .square(96)),
            (
                .roundedRectangle(size: .square(96), cornerRadius: 12, borderWidth: 2),
                "rounded(96x96,r=12,border=2,#ffffffff)", .square(96)
            ),
            (.circle(diameter: 96), "circle(96)", .square(96)),
            (
                .circle(diameter: 48, borderWidth: 1.5, borderColor: RGBA(red: 255, green: 0, blue: 0)),
                "circle(48,border=1.5,#ff0000ff)", .square(48)
            ),
            (.freeform(name: "sepia") { $0 }, "freeform(sepia)", nil),
        ]
        for (style, identifier, targetSize) in cases {
            #expect(style.identifier == identifier)
            #expect(style.targetSize == targetSize)
        }
        #expect(Set(cases.map(\.0)).count == cases.count)
    }

    @Test func equalityGoesByWhatTheStyleProduces() {
        #expect(AvatarStyle.circle(diameter: 96) == .circle(diameter: 96, borderWidth: 0, borderColor: .black))
        let whiteBorder = AvatarStyle.circle(diameter: 96, borderWidth: 2)
        #expect(whiteBorder != .circle(diameter: 96, borderWidth: 2, borderColor: .black))
        #expect(AvatarStyle.freeform(name: "a") { $0 } == .freeform(name: "a") { _ in Image(width: 1, height: 1) })
        #expect(AvatarStyle.circle(diameter: 96) != .roundedRectangle(size: .square(96), cornerRadius: 48))
    }

    @Test func stylesProduceExactSizes() throws {
        // Given a 4:3 photo-like image smaller than one of the targets
        let source = ProcessingFixtures.smooth(width: 200, height: 150)

        // When
        let rectangle = try AvatarStyle.rectangle(size: PixelSize(width: 60, height: 30)).process(source)
        let rounded = try AvatarStyle.roundedRectangle(size: .square(64), cornerRadius: 10, borderWidth: 2)
            .process(source)
        let circle = try AvatarStyle.circle(diameter: 96, borderWidth: 2).process(source)
        let large = try AvatarStyle.circle(diameter: 300).process(source)
        let original = try AvatarStyle.original.process(source)

        // Then
        #expect(rectangle.width == 60 && rectangle.height == 30 && !rectangle.hasTransparency)
        #expect(rounded.width == 64 && rounded[0, 0].alpha == 0 && rounded[0, 32] == .white)
        #expect(circle.width == 96 && circle.height == 96)
        #expect(circle[0, 0].alpha == 0 && circle[48, 48].alpha == 255)
        let tangent = circle[0, 48]
        #expect(tangent.alpha >= 250 && tangent.red == tangent.alpha && tangent.green == tangent.alpha)
        #expect(large.width == 300 && large.height == 300)
        #expect(original == source)
        for image in [rectangle, rounded, circle, large] {
            #expect(ProcessingFixtures.isPremultiplied(image))
        }
    }

    @Test func circleWithBorderSplitsEdgePixelsExactly() throws {
        // Given an opaque black image and a white border
        let source = Image(width: 50, height: 50, fill: .black)

        // When the avatar style masks and strokes in one pass
        let image = try AvatarStyle.circle(diameter: 50, borderWidth: 2).process(source)

        // Then every pixel on the outer edge is pure white at partial alpha: no black bleeds in
        for y in 0..<50 {
            for x in 0..<50 {
                let pixel = image[x, y]
                let distance =
                    ((Double(x) + 0.5 - 25) * (Double(x) + 0.5 - 25)
                    + (Double(y) + 0.5 - 25) * (Double(y) + 0.5 - 25)).squareRoot()
                if distance > 24, pixel.alpha > 0 {
                    #expect(pixel.red == pixel.alpha, "pixel \(x),\(y) = \(pixel)")
                }
            }
        }
    }

    @Test func invalidParametersThrowTypedErrors() {
        let source = Image(width: 8, height: 8, fill: .white)
        let invalid: [(AvatarStyle, ImageProcessingError)] = [
            (.circle(diameter: 0), .invalidSize(.square(0), processor: "circle(0)")),
            (.circle(diameter: -5), .invalidSize(.square(-5), processor: "circle(-5)")),
            (
                .rectangle(size: PixelSize(width: 100_000, height: 10)),
                .sizeTooLarge(PixelSize(width: 100_000, height: 10), limit: 16_384, processor: "rectangle(100000x10)")
            ),
            (
                .roundedRectangle(size: .square(10), cornerRadius: -1),
                .invalidCornerRadius(-1, processor: "rounded(10x10,r=-1)")
            ),
            (
                .circle(diameter: 10, borderWidth: -2),
                .invalidBorderWidth(-2, processor: "circle(10,border=-2,#ffffffff)")
            ),
        ]
        for (style, error) in invalid {
            #expect(throws: error) { try style.process(source) }
        }
        #expect(throws: Never.self) { try AvatarStyle.circle(diameter: 1, borderWidth: 5).process(source) }
    }

    @Test func errorsDescribeTheOffendingValue() {
        let error = ImageProcessingError.sizeTooLarge(.square(20_000), limit: 16_384, processor: "circle(20000)")
        #expect(error.description.contains("20000x20000") && error.description.contains("16384"))
    }
}
