import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

/// libheif 1.15 follows a file's `dimg` and `auxl` references without a bound; the decoder refuses derivations
/// that would not end, and derived images larger than they declare, before libheif decodes them.
@Suite("HEIF derivations: cycles, depth and width refused before libheif decodes", .offThePool)
struct HEIFDerivationTests {
    /// Inputs `Fuzz/run heif` found, kept where the fuzz regression replay also reads them.
    static let regressions = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Regressions/heif", isDirectory: true)

    /// The derivations in `lines` written as libheif 1.15's box dump writes an `iref` box.
    static func derivations(_ lines: [String]) -> HEIFDerivations {
        let dump =
            "| Box: iref -----\n| size: 40   (header size: 12)\n"
            + lines.map { "| reference with type \($0) \n" }.joined()
        return Array(dump.utf8).withUnsafeBytes { HEIFDerivations(dump: $0) }
    }

    @Test("a phone's grid with its tiles, alpha, premultiplication and thumbnail is decodable")
    func phoneLayoutIsAccepted() {
        // Given a grid of 48 tiles (items 2…49), an alpha image (50) of the grid that it premultiplies, and a
        // thumbnail (51): 'auxl' and 'prem' point at each other, which is allowed
        let tiles = (2...49).map(String.init).joined(separator: " ")
        let derivations = Self.derivations([
            "'dimg' from ID: 1 to IDs: \(tiles)", "'auxl' from ID: 50 to IDs: 1", "'prem' from ID: 1 to IDs: 50",
            "'thmb' from ID: 51 to IDs: 1", "'cdsc' from ID: 52 to IDs: 1",
        ])

        // Then the grid decodes its tiles and its alpha image, nothing else makes a decode, and none is refused
        #expect(derivations.successors == [1: Array(2...50)])
        #expect(derivations.refusal() == nil)
    }

    @Test(
        "a grid that is its own tile, or a longer cycle, is refused",
        arguments: [
            ["'dimg' from ID: 2 to IDs: 2"],
            ["'dimg' from ID: 1 to IDs: 2 3", "'dimg' from ID: 3 to IDs: 4", "'dimg' from ID: 4 to IDs: 1"],
            ["'auxl' from ID: 1 to IDs: 2", "'auxl' from ID: 2 to IDs: 1"],
        ])
    func cyclesAreRefused(lines: [String]) throws {
        let reason = try #require(Self.derivations(lines).refusal())
        #expect(reason.contains("derived from itself"))
    }

    @Test("a chain deeper than the limit is refused, one at the limit is not")
    func depthIsBounded() {
        let limit = HEIFDerivations.maximumDepth
        let chain = { (levels: Int) in (1..<levels).map { "'dimg' from ID: \($0) to IDs: \($0 + 1)" } }
        #expect(Self.derivations(chain(limit)).refusal() == nil)
        #expect(Self.derivations(chain(limit + 1)).refusal()?.contains("\(limit + 1) levels") == true)
    }

    @Test("grids of grids that would decode more than the limit of images are refused")
    func widthIsBounded() {
        // Given a grid of 300 references to a grid of 300 references to one tile: 90,301 decodes
        let three = Array(repeating: "3", count: 300).joined(separator: " ")
        let two = Array(repeating: "2", count: 300).joined(separator: " ")
        let wide = Self.derivations(["'dimg' from ID: 1 to IDs: \(two)", "'dimg' from ID: 2 to IDs: \(three)"])
        #expect(wide.refusal()?.contains("more than \(HEIFDerivations.maximumDecodes)") == true)

        // And 200 × 200 (40,201 decodes) is within it
        let fewer = Self.derivations([
            "'dimg' from ID: 1 to IDs: \(Array(repeating: "2", count: 200).joined(separator: " "))",
            "'dimg' from ID: 2 to IDs: \(Array(repeating: "3", count: 200).joined(separator: " "))",
        ])
        #expect(fewer.refusal() == nil)
    }

    @Test("a dump cut or garbled anywhere reads without a crash")
    func garbledDumpsAreRead() {
        let line = Array("| reference with type 'dimg' from ID: 4294967295 to IDs: 2 4294967296 3\n".utf8)
        for end in 0...line.count {
            _ = line[..<end].withUnsafeBytes { HEIFDerivations(dump: $0).refusal() }
        }
        // An ID beyond 32 bits ends the list: 2 is read, the rest is not
        let whole = line.withUnsafeBytes { HEIFDerivations(dump: $0) }
        #expect(whole.successors[UInt32.max] == [2])
    }

    @Test(
        "a HEIC whose grid names itself as its tile is a corrupt-file error, not an endless recursion",
        .enabled(if: CodecAvailability.heif, "install libheif1")
    )
    func selfReferencingGridFile() throws {
        // Given the file `Fuzz/run heif` found: its primary grid (item 2) lists item 2 as its tile. libheif 1.15
        // started a thread per level until the process ran out of memory, or overflowed its stack.
        let data = try Data(
            contentsOf: Self.regressions.appendingPathComponent(
                "crash-3fa43e485eae991160b6a7c407d333f4ea4f05ee"))

        // When / Then: decoding it, at full size or for a thumbnail, is a typed error that says why
        for options in [ImageDecodingOptions(), ImageDecodingOptions(targetSize: PixelSize(width: 8, height: 8))] {
            #expect {
                _ = try HEIFDecoder().decode(data, options: options)
            } throws: { error in
                guard case .corrupt(.heic, let reason) = error as? ImageError else { return false }
                return reason.contains("image 2 is derived from itself")
            }
        }
    }

    @Test(
        "a HEIC grid larger than the size it declares is refused before its pixels are reduced",
        .enabled(if: CodecAvailability.heif, "install libheif1")
    )
    func gridLargerThanDeclared() throws {
        // Given the file `Fuzz/run heif` found: item 4, a grid the size of a thumbnail by its 'ispe', whose grid
        // descriptor names about 80 million pixels (the decoder then asked for 321 MB to reduce them)
        let data = try Data(
            contentsOf: Self.regressions.appendingPathComponent(
                "oom-c6d48235bf3d5af2f428e023a44cf02d4e25fcec"))
        let options = ImageDecodingOptions(maxPixelCount: 1 << 22)

        // When / Then: libheif refuses the grid at the size limit set from the declared size, or the decoded
        // size is refused by the pixel limit
        #expect {
            _ = try HEIFDecoder().decode(data, options: options)
        } throws: { error in
            switch error as? ImageError {
            case .corrupt(.heic, let reason): return reason.contains("exceeds the maximum image size")
            case .tooManyPixels(_, _, 1 << 22): return true
            default: return false
            }
        }
    }
}
