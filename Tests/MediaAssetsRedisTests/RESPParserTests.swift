import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import MediaAssetsRedis

@Suite("RESP reply parser", .offThePool)
struct RESPParserTests {
    @Test func parsesEveryRESP2Type() throws {
        // Given one reply of each type, back to back
        let bytes = Array(
            "+OK\r\n-ERR bad\r\n:-42\r\n$5\r\nhello\r\n$-1\r\n*2\r\n$1\r\na\r\n*1\r\n:7\r\n*-1\r\n$0\r\n\r\n".utf8)

        // When they are parsed
        let (values, consumed) = try RESPParser.parseAll(bytes)

        // Then each is typed and every byte is consumed
        #expect(
            values == [
                .simpleString("OK"), .error("ERR bad"), .integer(-42), .bulkString(Data("hello".utf8)),
                .bulkString(nil),
                .array([.bulkString(Data("a".utf8)), .array([.integer(7)])]), .array(nil), .bulkString(Data()),
            ])
        #expect(consumed == bytes.count)
    }

    @Test func waitsForBytesSplitAnywhere() throws {
        // Given a reply cut at every possible point
        let bytes = Array("*3\r\n$3\r\nfoo\r\n:12\r\n+bar\r\n".utf8)
        for split in 0...bytes.count {
            // When the two pieces arrive one after the other
            var stream = RESPReplyStream()
            let first = try stream.append(bytes[..<split])
            let second = try stream.append(bytes[split...])

            // Then exactly one reply comes out, once the last byte has arrived
            #expect(first.count + second.count == 1, "split at \(split)")
            #expect(
                (first + second).first == .array([.bulkString(Data("foo".utf8)), .integer(12), .simpleString("bar")]))
        }
    }

    @Test(arguments: [
        ("!oops\r\n", "unknown reply type"), (":12a\r\n", "non-digit"), (":\r\n", "integer of 0"),
        ("$3\r\nabcd\r\n", "not followed by CRLF"), ("$-2\r\n", "out of range"), ("*-5\r\n", "out of range"),
        ("+OK\rX", "CR not followed by LF"), ("+OK\n", "LF without CR"), (":99999999999999999999\r\n", "integer of 20"),
        ("$999999999999\r\n", "out of range"), (":9223372036854775808\r\n", "overflows"),
    ])
    func rejectsMalformedReplies(input: String, reason: String) {
        // When malformed bytes are parsed, then a typed violation names the problem
        #expect { try RESPParser.parseAll(Array(input.utf8)) } throws: { error in
            (error as? RESPParser.Violation)?.reason.contains(reason) == true
        }
    }

    @Test func boundsNesting() {
        // Given arrays nested deeper than the limit, when parsed, then a violation, not a stack overflow
        let bytes = Array(String(repeating: "*1\r\n", count: 10_000).utf8) + Array(":1\r\n".utf8)
        #expect(throws: RESPParser.Violation.self) { try RESPParser.parseAll(bytes) }
    }

    @Test func seededMutationsNeverCrash() {
        // Given valid replies and a seeded generator
        let corpus = [
            "+OK\r\n", "*2\r\n$5\r\nhello\r\n:1\r\n", "$-1\r\n", "*3\r\n*1\r\n+a\r\n$0\r\n\r\n-MOVED 1 127.0.0.1:1\r\n",
            "$12\r\nMARE\u{1}\0\0\0\u{2}{}\r\n",
        ].map { Array($0.utf8) }
        var generator = SeededGenerator(seed: 13)
        for round in 0..<20_000 {
            // When each is mutated (flips, insertions, deletions, truncation) and fed to the fuzz entry
            var bytes = corpus[round % corpus.count]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                case 2 where !bytes.isEmpty: bytes.remove(at: position)
                default: bytes = Array(bytes.prefix(position))
                }
            }
            // Then nothing traps (a crash fails the whole run)
            fuzzRESPReply(Data(bytes))
        }
    }

    @Test func encodesCommandsAsBulkArrays() {
        // Given a command with binary arguments, when encoded, then it is a RESP array of bulk strings
        var buffer: [UInt8] = []
        RESPCommand("SET", RESPArgument(Data([0, 13, 10])), 42).encode(into: &buffer)
        #expect(buffer == Array("*3\r\n$3\r\nSET\r\n$3\r\n".utf8) + [0, 13, 10] + Array("\r\n$2\r\n42\r\n".utf8))
    }
}
