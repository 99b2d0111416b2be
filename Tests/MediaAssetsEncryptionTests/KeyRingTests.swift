import Foundation
import TestSupport
import Testing

@testable import MediaAssetsEncryption

@Suite("Encryption at rest: keys")
struct KeyRingTests {
    @Test func keyFileIsRead() throws {
        // Given a key file with comments, two keys and the current one
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let one = Data(repeating: 1, count: 32).base64EncodedString()
        let two = Data(repeating: 2, count: 32).base64EncodedString()
        let naming = Data(repeating: 9, count: 32).base64EncodedString()
        let file = directory.appending("keys")
        try "# cache keys\nnaming \(naming)\nkey 2025-01 \(one)\n\nkey 2025-07 \(two)\ncurrent 2025-07\n"
            .write(to: file, atomically: true, encoding: .utf8)

        // Then the ring holds them, the current one first for writes
        let ring = try KeyRing(contentsOf: file)
        #expect(try ring.currentKey().id == "2025-07" && ring.keyIDs == ["2025-01", "2025-07"])
        #expect(ring.key(withID: "2025-01")?.bytes == [UInt8](repeating: 1, count: 32))
        #expect(ring.namingKey().bytes == [UInt8](repeating: 9, count: 32))
        #expect(!ring.removeKey(withID: "2025-07"), "the current key stays")
    }

    @Test func badKeyFilesSayWhatIsWrong() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.appending("keys")
        let naming = Data(repeating: 9, count: 32).base64EncodedString()
        let cases: [(String, String)] = [
            ("naming \(naming)\nkey a \(naming)\nbogus line\ncurrent a\n", "line 3"),
            ("naming \(naming)\nkey a c2hvcnQ=\ncurrent a\n", "is 5 bytes"),
            ("naming \(naming)\nkey a \(naming)\n", "no current key"),
            ("naming \(naming)\nkey a \(naming)\ncurrent b\n", "'b'"),
        ]
        for (text, expected) in cases {
            try text.write(to: file, atomically: true, encoding: .utf8)
            do {
                _ = try KeyRing(contentsOf: file)
                Issue.record("accepted: \(text)")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
        #expect(throws: EncryptionError.self) { try KeyRing(contentsOf: directory.appending("missing")) }
    }

    @Test func keysAreCheckedAndNeverPrinted() throws {
        #expect(throws: EncryptionError.self) { try EncryptionKey(id: "k", bytes: [1, 2, 3]) }
        #expect(throws: EncryptionError.self) {
            try EncryptionKey(id: "has space", bytes: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: EncryptionError.self) { try EncryptionKey(id: "", bytes: [UInt8](repeating: 0, count: 32)) }
        let key = try KeyRing.generateKey(id: "fresh")
        let other = try KeyRing.generateKey(id: "fresh")
        #expect(key.bytes.count == 32 && key.bytes != other.bytes)
        #expect("\(key)" == "EncryptionKey(id: fresh)")
    }
}
