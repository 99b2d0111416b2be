import Foundation

/// Feeds arbitrary bytes to the disk cache's entry-file parser as if they were a file read from
/// the cache directory: the header is decoded and, if it decodes, the checksum verified. It must
/// never crash, whatever the bytes; the libFuzzer target in `Fuzz/` calls it.
///
/// Public for the libFuzzer targets in `Fuzz/` (a separate package); it never crashes on any input.
@_spi(Fuzzing) public func fuzzDiskEntryFile(_ data: Data) {
    data.withUnsafeBytes { bytes in
        guard let header = try? EntryFile.decodeHeader(bytes, fileSize: bytes.count) else { return }
        let body = UnsafeRawBufferPointer(rebasing: bytes[header.headerLength...])
        _ = try? EntryFile.verify(header: header, headerBytes: bytes, body: body)
    }
}
