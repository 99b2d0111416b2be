/// A deterministic random number generator (SplitMix64) so randomized tests repeat exactly.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

extension SeededGenerator {
    /// Returns `seed` after one to four random edits (a byte overwritten, up to eight bytes removed, or the bytes of
    /// `insertable` inserted in shuffled order), so a fuzz test can feed a parser repeatable near-misses of a real
    /// input.
    public mutating func mutation(of seed: [UInt8], inserting insertable: String) -> [UInt8] {
        var bytes = seed
        for _ in 0...Int.random(in: 0..<4, using: &self) {
            guard !bytes.isEmpty else { break }
            let position = Int.random(in: 0..<bytes.count, using: &self)
            switch Int.random(in: 0..<3, using: &self) {
            case 0: bytes[position] = UInt8.random(in: 0...255, using: &self)
            case 1: bytes.removeSubrange(position..<min(bytes.count, position + 8))
            default: bytes.insert(contentsOf: Array(insertable.utf8).shuffled(using: &self), at: position)
            }
        }
        return bytes
    }
}
