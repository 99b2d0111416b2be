import Foundation
import MediaAssets

/// The deterministic value of one key at one version: a header naming writer, key and version,
/// then bytes generated from them, so a torn, mixed or misplaced value never matches.
enum WriterPayload {
    static let headerLength = 16

    static func key(writer: Int, index: Int) -> CacheKey { CacheKey("w\(writer)-k\(index)") }

    static func make(writer: Int, index: Int, version: Int) -> Data {
        var state = UInt64(truncatingIfNeeded: writer &* 1_000_003 &+ index &* 7_919 &+ version &* 104_729)
        let size = 64 + Int(splitMix(&state) % 24_000)
        var bytes = [UInt8](repeating: 0, count: headerLength + size)
        for (offset, value) in [writer, index, version, size].enumerated() {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) {
                bytes.replaceSubrange(offset * 4..<offset * 4 + 4, with: $0)
            }
        }
        var position = headerLength
        while position < bytes.count {
            let word = splitMix(&state)
            for shift in stride(from: 0, to: 64, by: 8) where position < bytes.count {
                bytes[position] = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                position += 1
            }
        }
        return Data(bytes)
    }

    /// The version a value claims to be, if its header is readable.
    static func claimedVersion(_ data: Data) -> Int? {
        guard data.count >= headerLength else { return nil }
        return Int(data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) })
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// The log of acknowledged stores: one "index version" line per store that returned.
enum AckLog {
    static func path(cache: String, writer: Int) -> String { cache + ".ack-\(writer)" }

    /// The last acknowledged version of each key index; a torn last line is ignored.
    static func read(_ path: String) -> [Int: Int] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        var versions: [Int: Int] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where text.contains(line + "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let index = Int(fields[0]), let version = Int(fields[1]) else { continue }
            versions[index] = max(versions[index] ?? 0, version)
        }
        return versions
    }
}
