import Foundation

/// Feeds arbitrary bytes to the JPEG decoder's region path: DCT-scaled, cropped (`jpeg_crop_scanline`),
/// rows skipped (`jpeg_skip_scanlines`) and turned by the EXIF orientation, for a centred and an off-centre
/// region.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzJPEGRegionDecoder(_ data: Data) {
    let regions: [ImageRegion] = [
        .centered(aspectRatio: .square(1)), .relative(x: 0.6, y: 0.1, width: 0.3, height: 0.5),
    ]
    for region in regions {
        let options = ImageDecodingOptions(
            maxPixelCount: 4_000_000, targetSize: PixelSize(width: 7, height: 5), regionOfInterest: region
        )
        _ = try? JPEGDecoder().decode(data, options: options)
    }
}
