import CJPEG
import CPNG
import Foundation
import TestSupport
import Testing

@testable import MediaAssetsImage

#if canImport(Glibc)
import Glibc
#endif

/// Whether this process runs under ThreadSanitizer (its runtime exports `__tsan_init`).
enum ThreadSanitizerProbe {
    static let isActive = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
}

/// A decoder's peak memory is bounded by its input and its pixel limit: a chunk or marker that declares a
/// huge length it does not carry must fail before anything of that size is allocated. Peaks are measured in
/// a forked child (its own `ru_maxrss` from `wait4`), so one test's allocations never blur another's.
@Suite(
    "Decoder peak memory",
    .disabled(
        if: ThreadSanitizerProbe.isActive,
        "fork() from a multithreaded process can hang TSan's runtime; measured in the plain and ASan runs"
    ),
    .offThePool
)
struct DecoderMemoryTests {
    /// Growth above the parent's resident size that a small input may cost (libpng/libjpeg state, stacks).
    static let budget = 48 << 20

    /// A 1×1 RGB PNG whose first chunk after IHDR is `type` declaring `length` bytes, then the file ends:
    /// 57 bytes that made libpng allocate and zero-fill about 1 GiB before reporting the truncation.
    static func pngDeclaringChunk(_ type: String, length: UInt32) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xDE]
        bytes += withUnsafeBytes(of: length.bigEndian, Array.init) + Array(type.utf8)
        bytes += Array("Comment\u{0}Hello, fuzz!".utf8).prefix(57 - bytes.count)
        return Data(bytes)
    }

    /// Bytes in `data` decoded by the C shim in a forked child; returns how far the child's peak resident
    /// size rose above the parent's resident size at the fork. Only C runs in the child (no Swift runtime
    /// locks that another thread could have held at the fork).
    static func childPeakGrowth(decoding data: Data, format: ImageFormat) throws -> Int {
        let bytes = [UInt8](data)
        let residentBeforeFork = try residentBytes()
        let child = bytes.withUnsafeBufferPointer { buffer -> pid_t in
            let pid = fork()
            if pid == 0 {
                if format == .png { decodeWithPNGShim(buffer) } else { decodeWithJPEGShim(buffer) }
                _exit(0)
            }
            return pid
        }
        try #require(child > 0, "fork failed: errno \(errno)")
        var status: Int32 = 0
        var usage = rusage()
        try #require(wait4(child, &status, 0, &usage) == child)
        #expect(status == 0, "the decoding child ended with status \(status)")
        return usage.ru_maxrss * 1024 - residentBeforeFork
    }

    static func residentBytes() throws -> Int {
        let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8)
        let residentPages = try #require(statm.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        return residentPages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func decodeWithPNGShim(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let decoder = cpng_decoder_create(buffer.baseAddress, buffer.count) else { return }
        var header = cpng_header()
        var pixels = [UInt8](repeating: 0, count: 64)
        if cpng_read_header(decoder, &header) == CPNG_OK, header.width <= 4, header.height <= 4 {
            _ = cpng_read_rgba(decoder, &pixels, 16, pixels.count)
        }
        cpng_decoder_destroy(decoder)
    }

    static func decodeWithJPEGShim(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard let decoder = cjpeg_decoder_create(buffer.baseAddress, buffer.count) else { return }
        var header = cjpeg_header()
        _ = cjpeg_read_header(decoder, &header)
        cjpeg_decoder_destroy(decoder)
    }

    @Test(
        "a PNG chunk declaring ~1 GiB it does not carry costs no more than its bytes",
        arguments: ["tEXt", "zTXt", "iTXt", "pCAL", "sCAL", "sPLT", "iCCP", "eXIf", "unKn"])
    func pngChunkLengthIsBounded(type: String) throws {
        // Given a 57-byte PNG whose chunk declares 2^30 - 1 bytes
        let data = Self.pngDeclaringChunk(type, length: (1 << 30) - 1)
        #expect(data.count == 57)

        // When the shim decodes it in a child process
        let growth = try Self.childPeakGrowth(decoding: data, format: .png)

        // Then the child's peak stays within the small-input budget (it was ~1 GiB)
        #expect(growth < Self.budget, "peak grew by \(growth >> 20) MiB decoding 57 bytes")
    }

    @Test("the chunk that outruns the file is reported as a truncation naming it")
    func pngChunkLengthIsReported() throws {
        // Given the 57-byte tEXt bomb
        let data = Self.pngDeclaringChunk("tEXt", length: (1 << 30) - 1)

        // When / Then decoding throws a truncation that names the chunk and its declared length
        #expect { try ImageDecoder.decode(data) } throws: { error in
            guard case .truncated(format: .png, let reason) = error as? ImageError else { return false }
            return reason.contains("tEXt") && reason.contains("1073741823")
        }
    }

    @Test(
        "a JPEG APPn or COM marker declaring its 64 KiB maximum it does not carry stays bounded",
        arguments: [0xE1, 0xE2, 0xED, 0xFE] as [UInt8])
    func jpegMarkerLengthIsBounded(marker: UInt8) throws {
        // Given SOI, then the marker declaring 65,535 bytes, followed by only 16
        let data = Data(
            [0xFF, 0xD8, 0xFF, marker, 0xFF, 0xFF] + Array("Exif\u{0}\u{0}MM\u{0}*\u{0}\u{0}\u{0}\u{8}xx".utf8))

        // When the shim reads its header in a child process
        let growth = try Self.childPeakGrowth(decoding: data, format: .jpeg)

        // Then the peak stays within the small-input budget, and the Swift API reports a typed error
        #expect(growth < Self.budget, "peak grew by \(growth >> 20) MiB decoding \(data.count) bytes")
        #expect(throws: ImageError.self) { try ImageDecoder.decode(data) }
    }
}
