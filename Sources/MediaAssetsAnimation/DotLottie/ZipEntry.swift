/// One file listed in a zip archive's central directory.
struct ZipEntry: Sendable {
    /// The entry's path inside the archive, already checked to stay inside it.
    let name: String
    /// 0 for stored, 8 for deflate.
    let method: Int
    /// General-purpose flags; bit 0 means encrypted.
    let flags: UInt16
    let crc32: UInt32
    let compressedSize: Int
    let uncompressedSize: Int
    let localHeaderOffset: Int

    /// Directory entries end with a slash and hold no data.
    var isDirectory: Bool { name.hasSuffix("/") }

    /// Whether `name` stays inside the archive when extracted or resolved.
    ///
    /// Refuses empty names, absolute paths, backslashes (Windows separators), drive letters,
    /// NUL bytes and any `..` component.
    static func isSafePath(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains("\\"), !name.contains("\0") else { return false }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        if let first = components.first, first.contains(":") { return false }
        return !components.contains("..")
    }
}
