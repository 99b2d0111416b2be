import Testing

@testable import MediaAssetsImage

@Suite struct IdentifierTests {
    @Test func processorIdentifiersSpellTheirParameters() {
        #expect(ImageProcessors.Resize(size: .square(96)).identifier == "resize(96x96,fill)")
        #expect(
            ImageProcessors.Resize(size: PixelSize(width: 64, height: 32), contentMode: .aspectFit, upscale: true)
                .identifier == "resize(64x32,fit,upscale)")
        #expect(
            ImageProcessors.Resize.aspectFillCrop(size: .square(96)).identifier == "resize(96x96,fill,crop,upscale)"
        )
        #expect(ImageProcessors.CenterCrop(size: PixelSize(width: 3, height: 4)).identifier == "crop(3x4)")
        #expect(ImageProcessors.RoundedRectangle(cornerRadius: 12).identifier == "rounded(r=12)")
        #expect(ImageProcessors.RoundedRectangle(cornerRadius: 2.5).identifier == "rounded(r=2.5)")
        #expect(ImageProcessors.Circle().identifier == "circle")
        #expect(
            ImageProcessors.Border(width: 2, color: RGBA(red: 255, green: 0, blue: 0), shape: .circle)
                .identifier == "border(w=2,#ff0000ff,circle)")
        #expect(
            ImageProcessors.Border(width: 1.5, color: .white, shape: .roundedRectangle(radius: 8))
                .identifier == "border(w=1.5,#ffffffff,rounded(r=8))")
        #expect(ImageProcessors.Freeform(name: "sepia tone\n>x") { $0 }.identifier == "freeform(sepia%20tone%0A%3Ex)")
    }

    @Test func identifiersDifferWhenParametersDo() {
        let processors: [any ImageProcessing] = [
            ImageProcessors.Resize(size: .square(96)),
            ImageProcessors.Resize(size: .square(97)),
            ImageProcessors.Resize(size: .square(96), contentMode: .aspectFit),
            ImageProcessors.Resize(size: .square(96), upscale: true),
            ImageProcessors.Resize.aspectFillCrop(size: .square(96)),
            ImageProcessors.RoundedRectangle(cornerRadius: 12),
            ImageProcessors.RoundedRectangle(cornerRadius: 12.25),
            ImageProcessors.Border(width: 2, color: .white),
            ImageProcessors.Border(width: 2, color: .black),
            ImageProcessors.Border(width: 2, color: .white, shape: .circle),
            ImageProcessors.Freeform(name: "a") { $0 },
            ImageProcessors.Freeform(name: "b") { $0 },
        ]
        #expect(Set(processors.map(\.identifier)).count == processors.count)
        #expect(processors.allSatisfy { !$0.identifier.contains(" ") && !$0.identifier.contains("\n") })
    }

    @Test func compositionJoinsAndFlattens() throws {
        // Given
        let resize = ImageProcessors.Resize.aspectFillCrop(size: .square(8))
        let chained = resize.then(.circle()).then(.border(width: 1, color: .white, shape: .circle))
        let listed = ImageProcessors.Composition([
            .aspectFillCrop(size: .square(8)), .circle(), .border(width: 1, color: .white, shape: .circle),
        ])

        // Then
        #expect(chained.identifier == "resize(8x8,fill,crop,upscale)>circle>border(w=1,#ffffffff,circle)")
        #expect(chained == listed && chained.hashValue == listed.hashValue)
        #expect(chained.processors.count == 3)
        #expect(ImageProcessors.Composition([]).identifier == "identity")

        // And it runs in order
        let source = ProcessingFixtures.smooth(width: 30, height: 20)
        let expected = try ImageProcessors.Border(width: 1, color: .white, shape: .circle)
            .process(ImageProcessors.Circle().process(resize.process(source)))
        #expect(try chained.process(source) == expected)
    }

    @Test func hashableEquality() {
        #expect(ImageProcessors.Resize(size: .square(4)) == .resize(size: .square(4)))
        #expect(
            ImageProcessors.Freeform(name: "x") { $0 }
                == ImageProcessors.Freeform(name: "x") { _ in
                    throw ImageProcessingError.invalidSize(.square(0), processor: "x")
                })
        #expect(ImageProcessors.Freeform(name: "x") { $0 } != ImageProcessors.Freeform(name: "y") { $0 })
        let set: Set<ImageProcessors.Border> = [
            .border(width: 1, color: .white), .border(width: 1, color: .white), .border(width: 2, color: .white),
        ]
        #expect(set.count == 2)
    }

    @Test func freeformRunsAndPropagatesErrors() throws {
        // Given
        struct Refused: Error, Equatable {}
        let invert = ImageProcessors.Freeform(name: "invert") { image in
            Image(
                width: image.width, height: image.height,
                pixels: image.pixels.enumerated().map {
                    $0.offset % 4 == 3 ? $0.element : 255 - $0.element
                })
        }
        let failing = ImageProcessors.Freeform(name: "fail") { _ in throw Refused() }

        // Then
        let inverted = try invert.process(Image(width: 1, height: 1, fill: .black))
        #expect(inverted == Image(width: 1, height: 1, fill: .white))
        #expect(throws: Refused()) { try failing.process(Image(width: 1, height: 1)) }
    }
}
