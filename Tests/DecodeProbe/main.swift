// decode-probe: the child process of the decoder peak-memory tests.
//
//   decode-probe FILE [--circle SIZE] [--headroom H]
//
// Reads FILE into memory, then decodes it for a `.circle(diameter: SIZE)` avatar and renders it, as
// `ImageUtil` does on a miss (`VariantRenderer`: the style's target size and region), or at full size without
// `--circle`. Prints "<peak growth in bytes> <decoded width> <decoded height>": how far the process's resident
// high-water mark rose above its resident size once the file's bytes were read, so the decode's own cost.
// Exit status 1 with the error on stderr when the decode throws.
import Foundation
import MediaAssetsImage

#if canImport(Glibc)
import Glibc
#endif

/// A field of /proc/self/status in bytes ("VmRSS", "VmHWM").
func statusBytes(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
    else { return 0 }
    return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1_024
}

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
guard arguments.count > 1 else {
    FileHandle.standardError.write(Data("usage: decode-probe FILE [--circle SIZE] [--headroom H]\n".utf8))
    exit(2)
}
do {
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    var renderer = VariantRenderer()
    if let headroom = option("--headroom").flatMap(Double.init) {
        renderer.decodingOptions.downsamplingHeadroom = headroom
    }
    let style = option("--circle").flatMap(Int.init).map { AvatarStyle.circle(diameter: $0) }
    // Warm up what every decode loads once (the codec libraries, their tables), outside the measurement.
    _ = try? ImageDecoder.header(of: data)
    let before = statusBytes("VmRSS")
    // Resets the high-water mark to the current resident size (Linux clear_refs).
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let decoded = try style.map { try renderer.decode(data, for: $0) } ?? renderer.decode(data, targetSize: nil)
    if let style { _ = try renderer.render(decoded, style: style) }
    let peak = statusBytes("VmHWM")
    print(peak - before, decoded.width, decoded.height)
} catch {
    FileHandle.standardError.write(Data("decode-probe: \(error)\n".utf8))
    exit(1)
}
