import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, as name resolution returns it and a fetch policy classifies it.
struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    let bytes: [UInt8]

    /// The address in `sockaddr`, if it is an IPv4 or IPv6 one.
    init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let raw = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            bytes = withUnsafeBytes(of: raw) { Array($0) }
        case AF_INET6:
            let raw = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            bytes = withUnsafeBytes(of: raw) { Array($0) }
        default:
            return nil
        }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The address written as `text` in its standard form (`10.0.0.1`, `fd00::1`), read by `inet_pton`.
    init?(literal text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: v6) { Array($0) }
        } else {
            return nil
        }
    }

    var isV4: Bool { bytes.count == 4 }

    /// The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:a.b.c.d`).
    var mappedV4: IPAddress? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else {
            return nil
        }
        return IPAddress(bytes: Array(bytes[12...]))
    }

    /// This address with every bit past the first `prefixLength` cleared.
    func masked(to prefixLength: Int) -> IPAddress {
        var masked = bytes
        for index in masked.indices {
            let kept = min(8, max(0, prefixLength - index * 8))
            masked[index] &= kept == 8 ? 0xff : ~(0xff >> kept)
        }
        return IPAddress(bytes: masked)
    }

    /// The text form (`10.0.0.1`, `::ffff:10.0.0.1`), as `inet_ntop` writes it.
    var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isV4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The host text of a URL naming this address: `10.0.0.1`, or `[::1]` in brackets.
    var urlHost: String { isV4 ? description : "[\(description)]" }

    /// The class of a non-public address, or `nil` for a public one.
    var addressClass: FetchPolicy.AddressClass? {
        isV4 ? Self.classify(v4: bytes[0], bytes[1], bytes[2], bytes[3]) : classifyV6()
    }

    private static func classify(v4 a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> FetchPolicy.AddressClass? {
        switch (a, b) {
        case (0, _): return .unspecified
        case (127, _): return .loopback
        case (10, _), (172, 16...31), (192, 168), (100, 64...127): return .privateNetwork
        case (169, 254): return .linkLocal
        case (224...239, _): return .multicast
        case (240...255, _), (198, 18...19): return .reserved
        case (192, 0) where c == 0: return .reserved
        default: return nil
        }
    }

    private func classifyV6() -> FetchPolicy.AddressClass? {
        let words = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        let embedded = { (from: Int) in
            Self.classify(v4: bytes[from], bytes[from + 1], bytes[from + 2], bytes[from + 3])
        }
        if words[0..<5].allSatisfy({ $0 == 0 }) {
            switch words[5] {
            case 0xffff: return embedded(12)  // ::ffff:a.b.c.d, IPv4-mapped
            case 0:
                if words[6] == 0 && words[7] == 0 { return .unspecified }
                if words[6] == 0 && words[7] == 1 { return .loopback }
                return embedded(12)  // ::a.b.c.d, the deprecated IPv4-compatible form
            default: return nil
            }
        }
        if words[0] == 0x64 && words[1] == 0xff9b {
            // NAT64: 64:ff9b::a.b.c.d reaches the IPv4 address through a translator; 64:ff9b:1::/48 is local.
            return words[2] == 1 ? .privateNetwork : embedded(12)
        }
        if words[0] == 0x2002 { return embedded(2) }  // 6to4: 2002:aabb:ccdd::
        switch words[0] {
        case 0xfe80...0xfebf: return .linkLocal
        case 0xfec0...0xfeff, 0xfc00...0xfdff: return .privateNetwork
        case 0xff00...0xffff: return .multicast
        case 0x0100 where words[1...3].allSatisfy({ $0 == 0 }): return .reserved
        case 0x2001 where words[1] == 0x0db8: return .reserved
        default: return nil
        }
    }

    /// The address a host text names without any lookup (`10.0.0.1`, `::1`, and the forms `inet_aton` reads
    /// such as `2130706433` and `127.1`, which libcurl reads the same way), or `nil` for a name.
    static func numeric(_ host: String) -> IPAddress? {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &results) == 0, let first = results else { return nil }
        defer { freeaddrinfo(results) }
        return first.pointee.ai_addr.flatMap { IPAddress(UnsafePointer($0)) }
    }
}
