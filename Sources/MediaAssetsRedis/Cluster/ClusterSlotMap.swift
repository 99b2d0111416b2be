import Foundation

/// Which node serves each of the 16,384 slots, as a `CLUSTER SLOTS` reply describes it.
struct ClusterSlotMap: Sendable {
    /// The primary of each slot, nil where no node serves it.
    private(set) var owners: [RedisEndpoint?] = Array(repeating: nil, count: HashSlot.count)

    var isEmpty: Bool { owners.allSatisfy { $0 == nil } }

    /// The distinct primaries, in slot order.
    var primaries: [RedisEndpoint] {
        var seen = Set<RedisEndpoint>()
        return owners.compactMap { $0 }.filter { seen.insert($0).inserted }
    }

    subscript(slot: Int) -> RedisEndpoint? {
        get { owners[slot] }
        set { owners[slot] = newValue }
    }

    /// Parses a `CLUSTER SLOTS` reply; an empty host means the node that answered (`queried`).
    init(slotsReply reply: RESPValue, queried: RedisEndpoint) throws(RedisError) {
        guard case .array(let ranges?) = reply else { throw Self.unexpected(reply, queried) }
        for range in ranges {
            guard case .array(let fields?) = range, fields.count >= 3,
                case .integer(let first) = fields[0], case .integer(let last) = fields[1],
                first >= 0, first <= last, last < HashSlot.count,
                case .array(let primary?) = fields[2], primary.count >= 2,
                let host = primary[0].text, case .integer(let port) = primary[1], (1...65_535).contains(port)
            else { throw Self.unexpected(range, queried) }
            let endpoint: RedisEndpoint
            if host.isEmpty || host == "?", case .tcp(let queriedHost, _) = queried {
                endpoint = .tcp(host: queriedHost, port: Int(port))
            } else {
                endpoint = .tcp(host: host, port: Int(port))
            }
            for slot in Int(first)...Int(last) { owners[slot] = endpoint }
        }
    }

    init() {}

    private static func unexpected(_ reply: RESPValue, _ endpoint: RedisEndpoint) -> RedisError {
        .unexpectedReply(endpoint: endpoint.description, command: "CLUSTER SLOTS", reply: reply.description)
    }
}

/// A `MOVED` or `ASK` redirection parsed from an error reply.
struct ClusterRedirect: Equatable {
    enum Kind { case moved, ask }
    var kind: Kind
    var slot: Int
    var endpoint: RedisEndpoint

    /// Parses `MOVED <slot> <host>:<port>` or `ASK <slot> <host>:<port>`; nil for other errors.
    init?(errorMessage message: String, queried: RedisEndpoint) {
        let parts = message.split(separator: " ")
        guard parts.count == 3, let slot = Int(parts[1]), (0..<HashSlot.count).contains(slot) else { return nil }
        switch parts[0] {
        case "MOVED": kind = .moved
        case "ASK": kind = .ask
        default: return nil
        }
        guard var endpoint = try? RedisEndpoint(hostAndPort: String(parts[2])) else {
            // Redis 7 sends ":port" when the node's address is unknown: same host as the queried node.
            guard parts[2].hasPrefix(":"), let port = Int(parts[2].dropFirst()), case .tcp(let host, _) = queried
            else { return nil }
            self.slot = slot
            self.endpoint = .tcp(host: host, port: port)
            return
        }
        if case .tcp(let host, let port) = endpoint, host.isEmpty, case .tcp(let queriedHost, _) = queried {
            endpoint = .tcp(host: queriedHost, port: port)
        }
        self.slot = slot
        self.endpoint = endpoint
    }
}

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
