@testable import MediaAssetsImage

/// Which run-time libraries this machine has; tests that need an absent one are skipped visibly.
enum CodecAvailability {
    static let webp = (try? WebPLibrary.system.get()) != nil
    static let webpDemux = (try? WebPDemuxLibrary.system.get()) != nil
    static let gif = (try? GIFLibrary.system.get()) != nil
    static let heif = (try? HEIFLibrary.system.get()) != nil
}

/// Colour channels within `tolerance` of each other (lossy codecs).
func isClose(_ actual: RGBA, _ expected: RGBA, tolerance: Int = 8) -> Bool {
    abs(Int(actual.red) - Int(expected.red)) <= tolerance && abs(Int(actual.green) - Int(expected.green)) <= tolerance
        && abs(Int(actual.blue) - Int(expected.blue)) <= tolerance
        && abs(Int(actual.alpha) - Int(expected.alpha)) <= tolerance
}
