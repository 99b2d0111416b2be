import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite(.offThePool) struct ResizeTests {
    @Test func fineCheckerboardShrunkEightTimesIsFlatGrey() throws {
        // Given a 1-pixel black/white checkerboard
        let board = ProcessingFixtures.checkerboard(width: 512, height: 512)

        // When it is shrunk 8× (and by a non-integer 8.53×)
        let exact = try ImageProcessors.Resize(size: .square(64)).process(board)
        let fractional = try ImageProcessors.Resize(size: .square(60)).process(board)

        // Then every pixel is within 2 levels of mid grey: no moiré
        for image in [exact, fractional] {
            let reds = stride(from: 0, to: image.pixels.count, by: 4).map { Int(image.pixels[$0]) }
            #expect(reds.allSatisfy { abs($0 - 128) <= 2 }, "range \(reds.min() ?? 0)...\(reds.max() ?? 0)")
        }
        #expect(exact.width == 64 && fractional.width == 60)
    }

    @Test func checkerboardShrunkWithoutBoxStageHasNoMoire() throws {
        // Given a checkerboard and a reduction of 1.7× (Lanczos only, no box stage)
        let board = ProcessingFixtures.checkerboard(width: 170, height: 170)

        // When
        let image = try ImageProcessors.Resize(size: .square(100)).process(board)

        // Then the Nyquist pattern is filtered out (away from the clamped borders)
        for y in 4..<96 {
            for x in 4..<96 {
                #expect(abs(Int(image[x, y].red) - 128) <= 6, "pixel \(x),\(y) is \(image[x, y].red)")
            }
        }
    }

    @Test(arguments: [4, 3])
    func integerReductionMatchesAnExactBoxAverage(factor: Int) throws {
        // Given smooth content
        let source = ProcessingFixtures.smooth(width: 96 * factor, height: 72 * factor)

        // When it is reduced by an integer factor
        let image = try ImageProcessors.Resize(size: PixelSize(width: 96, height: 72)).process(source)

        // Then it is within 35 dB PSNR of the exact area average
        let psnr = ProcessingFixtures.psnr(image, ProcessingFixtures.boxReference(source, factor: factor))
        #expect(image.width == 96 && image.height == 72)
        #expect(psnr >= 35, "PSNR \(psnr) dB")
    }

    @Test func noisyTransparentReductionStaysPremultiplied() throws {
        // Given random premultiplied pixels, where Lanczos rings the most
        let source = ProcessingFixtures.noise(width: 301, height: 203)

        // When resized in several ways
        let outputs = try [
            ImageProcessors.Resize(size: .square(96)).process(source),
            ImageProcessors.Resize(size: .square(150), contentMode: .aspectFit).process(source),
            ImageProcessors.Resize(size: .square(400), upscale: true).process(source),
            ImageProcessors.Resize(size: .square(17), crop: true).process(source),
        ]

        // Then every output keeps each colour channel <= alpha
        for output in outputs {
            #expect(ProcessingFixtures.isPremultiplied(output))
        }
    }

    @Test func aspectFillCoversAndAspectFitFits() throws {
        // Given a 4:3 image
        let source = ProcessingFixtures.smooth(width: 400, height: 300)

        // When
        let fill = try ImageProcessors.Resize(size: .square(96), contentMode: .aspectFill).process(source)
        let fit = try ImageProcessors.Resize(size: .square(96), contentMode: .aspectFit).process(source)
        let cropped = try ImageProcessors.Resize.aspectFillCrop(size: PixelSize(width: 96, height: 48)).process(source)

        // Then
        #expect(PixelSize(width: fill.width, height: fill.height) == PixelSize(width: 128, height: 96))
        #expect(PixelSize(width: fit.width, height: fit.height) == PixelSize(width: 96, height: 72))
        #expect(PixelSize(width: cropped.width, height: cropped.height) == PixelSize(width: 96, height: 48))
    }

    @Test func smallImagesAreNotEnlargedUnlessAsked() throws {
        // Given an image smaller than the target
        let source = ProcessingFixtures.smooth(width: 40, height: 30)

        // When
        let kept = try ImageProcessors.Resize(size: .square(96)).process(source)
        let enlarged = try ImageProcessors.Resize(size: .square(96), upscale: true).process(source)
        let croppedOnly = try ImageProcessors.Resize.aspectFillCrop(size: .square(96), upscale: false).process(source)

        // Then
        #expect(kept == source)
        #expect(PixelSize(width: enlarged.width, height: enlarged.height) == PixelSize(width: 128, height: 96))
        #expect(ProcessingFixtures.isPremultiplied(enlarged))
        #expect(PixelSize(width: croppedOnly.width, height: croppedOnly.height) == .square(30))
    }

    @Test func identityAndSinglePixelCases() throws {
        // Given
        let source = ProcessingFixtures.noise(width: 50, height: 40)
        let dot = Image(width: 1, height: 1, fill: RGBA(red: 10, green: 20, blue: 30, alpha: 200))

        // When
        let same = try ImageProcessors.Resize(size: PixelSize(width: 50, height: 40)).process(source)
        let dotUp = try ImageProcessors.Resize(size: .square(5), upscale: true).process(dot)
        let dotDown = try ImageProcessors.Resize(size: .square(1)).process(source)

        // Then the identity is exact, a single pixel is replicated, a 1x1 result averages
        #expect(same == source)
        #expect(dotUp.width == 5 && dotUp.height == 5)
        #expect(Set(stride(from: 0, to: dotUp.pixels.count, by: 4).map { dotUp[($0 / 4) % 5, $0 / 20] }) == [dot[0, 0]])
        #expect(dotDown.width == 1 && dotDown.height == 1 && ProcessingFixtures.isPremultiplied(dotDown))
    }

    @Test func veryWideImageKeepsItsRow() throws {
        // Given a 10000×1 gradient
        var pixels = [UInt8](repeating: 255, count: 10_000 * 4)
        for x in 0..<10_000 {
            let value = UInt8(x * 255 / 9_999)
            pixels[x * 4] = value
            pixels[x * 4 + 1] = value
            pixels[x * 4 + 2] = value
        }
        let source = Image(width: 10_000, height: 1, pixels: pixels)

        // When
        let fit = try ImageProcessors.Resize(size: PixelSize(width: 100, height: 1), contentMode: .aspectFit)
            .process(source)
        let boxed = try ImageProcessors.Resize(size: .square(100), contentMode: .aspectFit).process(source)
        let cropped = try ImageProcessors.Resize.aspectFillCrop(size: PixelSize(width: 100, height: 1)).process(source)

        // Then the gradient survives, monotonic, at 100×1
        #expect(fit.width == 100 && fit.height == 1 && boxed.width == 100 && boxed.height == 1)
        let reds = (0..<100).map { Int(fit[$0, 0].red) }
        #expect(zip(reds, reds.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(abs(reds[50] - 128) <= 3)
        #expect(cropped.width == 100 && cropped.height == 1)
        #expect(abs(Int(cropped[0, 0].red) - 126) <= 2)
    }

    @Test func hostileSizesThrowInsteadOfTrapping() throws {
        let source = ProcessingFixtures.smooth(width: 10, height: 10)
        let tall = Image(width: 1, height: 2_000, fill: .white)

        let zeroWidth = ImageProcessingError.invalidSize(PixelSize(width: 0, height: 5), processor: "resize(0x5,fill)")
        #expect(throws: zeroWidth) {
            try ImageProcessors.Resize(size: PixelSize(width: 0, height: 5)).process(source)
        }
        #expect(throws: ImageProcessingError.self) {
            try ImageProcessors.Resize(size: PixelSize(width: -3, height: 5)).process(source)
        }
        #expect(throws: ImageProcessingError.self) {
            try ImageProcessors.Resize(size: .square(20_000), upscale: true).process(source)
        }
        // Filling 100×100 from 1×2000 would need a 100×200000 image.
        #expect(throws: ImageProcessingError.self) {
            try ImageProcessors.Resize(size: .square(100), upscale: true).process(tall)
        }
        #expect(throws: ImageProcessingError.self) {
            try ImageProcessors.CenterCrop(size: .square(0)).process(source)
        }
    }

    @Test func centerCropCutsTheMiddle() throws {
        // Given an image whose columns are numbered in red
        var pixels = [UInt8](repeating: 255, count: 10 * 6 * 4)
        for y in 0..<6 { for x in 0..<10 { pixels[(y * 10 + x) * 4] = UInt8(x * 10) } }
        let source = Image(width: 10, height: 6, pixels: pixels)

        // When
        let cropped = try ImageProcessors.CenterCrop(size: PixelSize(width: 4, height: 20)).process(source)

        // Then the centre 4 columns remain, full height
        #expect(cropped.width == 4 && cropped.height == 6)
        #expect((0..<4).map { cropped[$0, 0].red } == [30, 40, 50, 60])
    }
}

@Suite(.offThePool) struct ResizeTransparencyTests {
    @Test func transparentEdgesDoNotDarken() throws {
        // Given opaque red on the left half, fully transparent on the right
        var pixels = [UInt8](repeating: 0, count: 300 * 200 * 4)
        for y in 0..<200 {
            for x in 0..<150 {
                pixels[(y * 300 + x) * 4] = 255
                pixels[(y * 300 + x) * 4 + 3] = 255
            }
        }
        let source = Image(width: 300, height: 200, pixels: pixels)

        // When it is reduced across the edge
        let image = try ImageProcessors.Resize(size: PixelSize(width: 45, height: 30)).process(source)

        // Then every partly transparent pixel is still pure red once un-premultiplied
        var edgePixels = 0
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y].alpha > 8 {
                let pixel = image[x, y]
                #expect(abs(Int(pixel.red) - Int(pixel.alpha)) <= 1 && pixel.green == 0 && pixel.blue == 0)
                if pixel.alpha < 250 { edgePixels += 1 }
            }
        }
        #expect(edgePixels > 0)
    }

    @Test func concurrentCallsAgree() async throws {
        // Given one processor and one image shared by many tasks
        let source = ProcessingFixtures.noise(width: 120, height: 90)
        let style = AvatarStyle.circle(diameter: 40, borderWidth: 2)
        let expected = try style.process(source)

        // When they all process at once
        let results = try await withThrowingTaskGroup(of: Image.self) { group in
            for _ in 0..<16 { group.addTask { try style.process(source) } }
            return try await group.reduce(into: [Image]()) { $0.append($1) }
        }

        // Then every result is the same
        #expect(results.count == 16 && results.allSatisfy { $0 == expected })
    }
}

@Suite("Resampler box stage", .offThePool)
struct ResamplerBoxStageTests {
    @Test(
        "the box stage leaves Lanczos3 at least the last 2× (Pillow's reducing gap); the old rule stopped below 2×",
        arguments: [
            (extent: 192.0, output: 96, gapOfTwo: 1, belowTwice: 2),
            (extent: 342.0, output: 96, gapOfTwo: 1, belowTwice: 2),
            (extent: 384.0, output: 96, gapOfTwo: 2, belowTwice: 3),
            (extent: 2736.0, output: 96, gapOfTwo: 14, belowTwice: 15),
            (extent: 150.0, output: 96, gapOfTwo: 1, belowTwice: 1),
        ])
    func boxFactors(case factors: (extent: Double, output: Int, gapOfTwo: Int, belowTwice: Int)) {
        let gapOfTwo = Resampler.boxFactor(extent: factors.extent, output: factors.output)
        let belowTwice = Resampler.boxFactor(extent: factors.extent, output: factors.output, stage: .belowTwice)
        #expect(gapOfTwo == factors.gapOfTwo && belowTwice == factors.belowTwice)
        #expect(factors.extent / Double(gapOfTwo) >= 2 * Double(factors.output) || gapOfTwo == 1)
    }
}
