import CVideoFrames

/// FFmpeg's libraries, loaded at run time: the build needs neither them nor their headers, and a machine without
/// them gets `VideoError.decoderMissing` naming the Debian package to install.
///
/// FFmpeg 7, 6 and 5 are tried in that order (libavformat 61, 60 and 59, with the libavcodec, libavutil and
/// libswscale of the same release); the structure fields read are declared per major version in CVideoFrames.
package struct FFmpegLibrary: @unchecked Sendable {
    // @unchecked: the pointer is a table of function pointers and offsets, written once and only read after.
    let pointer: OpaquePointer
    /// libavformat's version, "61.7.100".
    package let version: String

    /// The file names of one FFmpeg release's libraries.
    package struct Candidate: Sendable {
        package var avformat, avcodec, avutil, swscale: String
        package var avformatMajor: Int32
        package var debianPackage: String

        /// The sonames of the release whose libavformat has major version `major` (59, 60 or 61).
        package static func release(avformatMajor major: Int32, debianPackage: String) -> Candidate {
            Candidate(
                avformat: "libavformat.so.\(major)", avcodec: "libavcodec.so.\(major)",
                avutil: "libavutil.so.\(major - 2)", swscale: "libswscale.so.\(major - 53)", avformatMajor: major,
                debianPackage: debianPackage)
        }
    }

    /// FFmpeg 7 (Debian 13), 6, then 5 (Debian 12).
    package static let candidates: [Candidate] = [
        .release(avformatMajor: 61, debianPackage: "libavformat61"),
        .release(avformatMajor: 60, debianPackage: "libavformat60"),
        .release(avformatMajor: 59, debianPackage: "libavformat59"),
    ]

    /// The libraries this process decodes stills with, loaded at first use (or why they could not be).
    package static let system = load(candidates)

    /// The first of `candidates` that loads, or the error naming the last one's package.
    package static func load(_ candidates: [Candidate]) -> Result<FFmpegLibrary, VideoError> {
        var reasons: [String] = []
        for candidate in candidates {
            var reason = [CChar](repeating: 0, count: 512)
            if let pointer = ma_ff_load(
                candidate.avformat, candidate.avcodec, candidate.avutil, candidate.swscale, candidate.avformatMajor,
                &reason, reason.count)
            {
                let packed = ma_ff_avformat_version(pointer)
                let version = "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
                return .success(FFmpegLibrary(pointer: pointer, version: version))
            }
            reasons.append(String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return .failure(
            .decoderMissing(
                library: candidates.last?.avformat ?? "libavformat",
                debianPackage: candidates.last?.debianPackage ?? "libavformat59",
                reason: reasons.joined(separator: "; ")))
    }
}
