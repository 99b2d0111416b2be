/// A binary file format of the disk cache (entry-file headers, index snapshots) whose fixed-width integers
/// are little-endian; conforming gives its coders one way to write and read them.
protocol LittleEndianFormat {}

extension LittleEndianFormat {
    /// Appends `value`'s little-endian bytes to `bytes`.
    static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    /// The little-endian `T` at `offset` in `bytes`, which the caller has checked is long enough.
    static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, _ offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
