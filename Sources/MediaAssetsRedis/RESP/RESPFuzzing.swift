import Foundation

/// Feeds arbitrary bytes to the RESP reply parser, as the connection does, and to the entry
/// decoder: every outcome must be a reply, "need more bytes" or a typed error, never a crash.
///
/// The entry point for libFuzzer targets (`Fuzz/`) and the seeded mutation test. The bytes are
/// also parsed in two arbitrary pieces, as replies arrive over a socket.
@_spi(Fuzzing) public func fuzzRESPReply(_ data: Data) {
    let bytes = [UInt8](data)
    _ = try? RESPParser.parseAll(bytes)
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    var stream = RESPReplyStream()
    _ = try? stream.append(bytes[..<split])
    _ = try? stream.append(bytes[split...])
    _ = try? RedisEntryFormat.decode(data)
}
