import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite(.offThePool) struct ShapeTests {
    private let red = RGBA(red: 220, green: 30, blue: 40)

    @Test func roundedCornersAreTransparentSmoothAndSymmetric() throws {
        // Given an opaque 64×48 image
        let source = Image(width: 64, height: 48, fill: red)

        // When its corners are rounded
        let image = try ImageProcessors.RoundedRectangle(cornerRadius: 12).process(source)

        // Then corners are clear, the centre and edge midpoints opaque, the arcs anti-aliased
        for (x, y) in [(0, 0), (63, 0), (0, 47), (63, 47), (1, 1)] {
            #expect(image[x, y].alpha == 0, "corner \(x),\(y)")
        }
        #expect(image[32, 24] == source[32, 24])
        #expect(image[0, 24].alpha == 255 && image[32, 0].alpha == 255)
        let alphas = image.pixels.enumerated().filter { $0.offset % 4 == 3 }.map(\.element)
        #expect(alphas.contains { $0 > 0 && $0 < 255 })
        expectMirrorSymmetric(image)
        #expect(ProcessingFixtures.isPremultiplied(image))
    }

    @Test func circleCropsToSquareAndAntiAliasesItsEdge() throws {
        // Given a 4:3 image
        let source = Image(width: 120, height: 90, fill: red)

        // When
        let image = try ImageProcessors.Circle().process(source)

        // Then it is a 90×90 disc: clear corners, opaque centre, partial alpha along the edge
        #expect(image.width == 90 && image.height == 90)
        #expect(image[0, 0].alpha == 0 && image[89, 89].alpha == 0)
        #expect(image[45, 45].alpha == 255)
        // The pixel at the tangent point is 99% inside the circle.
        #expect(image[0, 45].alpha >= 250 && image[45, 0].alpha >= 250)
        let diagonal = (0..<20).map { image[$0, $0].alpha }
        #expect(diagonal.contains { $0 > 0 && $0 < 255 })
        // Radius 45 from (45, 45): on the diagonal the edge crosses at x ≈ 13.2.
        #expect(image[11, 11].alpha < 64 && image[15, 15].alpha > 191)
        expectMirrorSymmetric(image)
        #expect(ProcessingFixtures.isPremultiplied(image))
    }

    @Test func borderFollowsTheShapeAndHasItsColour() throws {
        // Given a dark square and a green border colour
        let source = Image(width: 40, height: 40, fill: .black)
        let green = RGBA(red: 0, green: 255, blue: 0)

        // When borders are drawn along each shape
        let rectangle = try ImageProcessors.Border(width: 2, color: green).process(source)
        let circle = try ImageProcessors.Border(width: 3, color: green, shape: .circle).process(source)
        let rounded = try ImageProcessors.Border(width: 2, color: green, shape: .roundedRectangle(radius: 10))
            .process(source)

        // Then border pixels are green and the inside and outside keep the image
        #expect(rectangle[0, 20] == green && rectangle[1, 20] == green && rectangle[2, 20] == .black)
        #expect(rectangle[0, 0] == green && rectangle[39, 39] == green)
        #expect(circle[1, 20] == green && circle[20, 38] == green)
        #expect(circle[20, 20] == .black && circle[0, 0] == .black)
        #expect(rounded[0, 20] == green && rounded[0, 0] == .black && rounded[20, 20] == .black)
        // Anti-aliased: some pixels blend green and black.
        #expect(circle.pixels.enumerated().contains { $0.offset % 4 == 1 && $0.element > 0 && $0.element < 255 })
        for image in [rectangle, circle, rounded] {
            expectMirrorSymmetric(image)
            #expect(ProcessingFixtures.isPremultiplied(image))
        }
    }

    @Test func translucentBorderCompositesOverPremultiplied() throws {
        // Given a half-transparent premultiplied image and a half-transparent white border
        let source = Image(width: 10, height: 10, fill: RGBA(red: 0, green: 0, blue: 255, alpha: 128))

        // When
        let image = try ImageProcessors.Border(width: 1, color: RGBA(red: 255, green: 255, blue: 255, alpha: 128))
            .process(source)

        // Then the edge pixel is white(128) over blue(128): alpha 128 + 128 × 127/255 ≈ 192
        let edge = image[0, 5]
        #expect(abs(Int(edge.alpha) - 192) <= 1)
        #expect(abs(Int(edge.red) - 128) <= 1 && abs(Int(edge.blue) - 192) <= 1)
        #expect(image[5, 5] == source[5, 5])
        #expect(ProcessingFixtures.isPremultiplied(image))
    }

    @Test func masksKeepPremultipliedNoise() throws {
        // Given random premultiplied pixels
        let source = ProcessingFixtures.noise(width: 33, height: 21)

        // When every shape processor runs on them
        let outputs = try [
            ImageProcessors.RoundedRectangle(cornerRadius: 7.5).process(source),
            ImageProcessors.Circle().process(source),
            ImageProcessors.Border(width: 2.5, color: RGBA(red: 255, green: 0, blue: 0, alpha: 77), shape: .circle)
                .process(source),
            AvatarStyle.circle(diameter: 20, borderWidth: 1.5, borderColor: .white).process(source),
        ]

        // Then
        for output in outputs {
            #expect(ProcessingFixtures.isPremultiplied(output))
        }
    }

    @Test func badShapeParametersThrow() {
        let source = Image(width: 8, height: 8, fill: .white)
        #expect(throws: ImageProcessingError.invalidCornerRadius(-1, processor: "rounded(r=-1)")) {
            try ImageProcessors.RoundedRectangle(cornerRadius: -1).process(source)
        }
        #expect(throws: ImageProcessingError.self) {
            try ImageProcessors.RoundedRectangle(cornerRadius: .nan).process(source)
        }
        #expect(throws: ImageProcessingError.self) {
            try ImageProcessors.Border(width: -2, color: .white).process(source)
        }
        #expect(throws: ImageProcessingError.self) {
            try ImageProcessors.Border(width: 2, color: .white, shape: .roundedRectangle(radius: -4)).process(source)
        }
        #expect(throws: ImageProcessingError.self) {
            try ImageProcessors.Border(width: 1e9, color: .white).process(source)
        }
    }

    /// Left-right and top-bottom mirror images have the same pixels.
    private func expectMirrorSymmetric(_ image: Image, sourceLocation: SourceLocation = #_sourceLocation) {
        var symmetric = true
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image[x, y]
                if pixel != image[image.width - 1 - x, y] || pixel != image[x, image.height - 1 - y] {
                    symmetric = false
                }
            }
        }
        #expect(symmetric, "image is not mirror-symmetric", sourceLocation: sourceLocation)
    }
}

@Suite(.offThePool) struct ShapeRendererTests {
    @Test(arguments: [
        (40, 40, 20.0, 0.0), (40, 40, 20.0, 3.0), (64, 48, 12.0, 2.0), (64, 48, 0.0, 1.5), (33, 21, 7.5, 9.0),
        (50, 20, 3.0, 0.5),
    ])
    func skippingTheInteriorChangesNothing(width: Int, height: Int, radius: Double, borderWidth: Double) {
        // Given noise, an outline and a border
        let source = ProcessingFixtures.noise(width: width, height: height)
        let outlines = [
            ShapeOutline(width: Double(width), height: Double(height), cornerRadius: radius),
            ShapeOutline.circle(width: Double(width), height: Double(height)),
        ]
        let stroke = ShapeRenderer.Stroke(width: borderWidth, color: RGBA(red: 250, green: 200, blue: 10, alpha: 190))

        for outline in outlines {
            for clips in [true, false] {
                // When rendered fast (interior and exterior skipped) and by brute force
                let fast = ShapeRenderer.render(source, outline: outline, clips: clips, stroke: stroke)
                let exhaustive = ShapeRenderer.render(
                    source, outline: outline, clips: clips, stroke: stroke, skipsInterior: false
                )

                // Then the results are identical
                #expect(fast == exhaustive, "clips \(clips), outline \(outline)")
            }
        }
    }
}
