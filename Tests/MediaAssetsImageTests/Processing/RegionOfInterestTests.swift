import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

@Suite("Regions of interest from processors", .offThePool)
struct RegionOfInterestTests {
    @Test("a centred region is cut symmetrically and rounds outward")
    func centeredRect() {
        #expect(
            ImageRegion.centered(aspectRatio: .square(1)).rect(in: PixelSize(width: 400, height: 300))
                == PixelRect(x: 50, y: 0, width: 300, height: 300))
        #expect(
            ImageRegion.centered(aspectRatio: .square(1)).rect(in: PixelSize(width: 301, height: 300))
                == PixelRect(x: 0, y: 0, width: 301, height: 300))
        #expect(
            ImageRegion.centered(aspectRatio: PixelSize(width: 16, height: 9)).rect(in: .square(100))
                == PixelRect(x: 0, y: 21, width: 100, height: 58))
        #expect(
            ImageRegion.centered(aspectRatio: .square(1)).rect(in: PixelSize(width: 10, height: 3))
                == PixelRect(x: 3, y: 0, width: 4, height: 3))
    }

    @Test("a relative region is clamped; an invalid one is the whole image")
    func relativeRect() {
        let size = PixelSize(width: 200, height: 100)
        #expect(
            ImageRegion.relative(x: 0.5, y: 0.5, width: 0.5, height: 0.5).rect(in: size)
                == PixelRect(x: 100, y: 50, width: 100, height: 50))
        #expect(
            ImageRegion.relative(x: 0.9, y: -1, width: 5, height: 1.5).rect(in: size)
                == PixelRect(x: 180, y: 0, width: 20, height: 50))
        #expect(ImageRegion.relative(x: 0, y: 0, width: .nan, height: 1).rect(in: size) == PixelRect(wholeOf: size))
        #expect(ImageRegion.centered(aspectRatio: .square(0)).rect(in: size) == PixelRect(wholeOf: size))
    }

    @Test("aspect-fill crops name their region; other processors and styles need the whole image")
    func processorRegions() {
        let square = ImageRegion.centered(aspectRatio: .square(96))
        #expect(ImageProcessors.Resize.aspectFillCrop(size: .square(96)).regionOfInterest == square)
        #expect(ImageProcessors.Resize.resize(size: .square(96)).regionOfInterest == nil)
        #expect(ImageProcessors.Circle().regionOfInterest == nil)
        #expect(AvatarStyle.circle(diameter: 96).regionOfInterest == square)
        #expect(
            AvatarStyle.roundedRectangle(size: PixelSize(width: 80, height: 40), cornerRadius: 4).regionOfInterest
                == .centered(aspectRatio: PixelSize(width: 80, height: 40)))
        #expect(AvatarStyle.original.regionOfInterest == nil)
        #expect(
            ImageProcessors.Composition([
                ImageProcessors.Circle(), ImageProcessors.Resize.aspectFillCrop(size: .square(9)),
            ])
            .regionOfInterest == nil)
    }

    @Test("a style rendered from its region decode matches the style rendered from the whole image")
    func styleFromRegion() throws {
        // Given a 4:3 photo-like JPEG and a square style
        let data = try JPEGRegionDecodingTests.detailedJPEG(width: 480, height: 360)
        let style = AvatarStyle.rectangle(size: .square(48))
        let renderer = VariantRenderer()

        // When it is rendered from the region decode, and from a full decode
        let decoded = try renderer.decode(data, for: style)
        let fromRegion = try style.process(decoded)
        let fromWhole = try style.process(try renderer.decode(data, targetSize: nil))

        // Then only the square was decoded, with 2× headroom, and the avatars agree
        #expect(abs(decoded.width - decoded.height) <= 1 && min(decoded.width, decoded.height) >= 96)
        #expect(decoded.width < 480 && decoded.height < 360)
        #expect(JPEGRegionDecodingTests.psnr(fromRegion, fromWhole) > 35)
    }
}
