/// Redis Cluster's key-to-slot mapping: CRC16 (XMODEM) of the key, or of its hash tag, mod 16384.
package enum HashSlot {
    /// The number of slots in a cluster.
    package static let count = 16_384

    /// The slot of `key`: if the key has a non-empty `{tag}`, only the tag is hashed, so keys that
    /// share a tag share a slot.
    package static func slot<Bytes: Collection<UInt8>>(of key: Bytes) -> Int where Bytes.Index == Int {
        var hashed = key[...]
        if let open = key.firstIndex(of: UInt8(ascii: "{")),
            let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1
        {
            hashed = key[(open + 1)..<close]
        }
        return Int(crc16(hashed) & 0x3FFF)
    }

    /// CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), as the cluster specification defines.
    package static func crc16<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }
}
