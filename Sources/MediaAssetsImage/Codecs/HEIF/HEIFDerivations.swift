import CDynamicCodecs
import Foundation

/// Which images decoding an image of a HEIF file also decodes, as libheif itself read the file's `iref` boxes:
/// a grid, overlay or identity image decodes the images its `dimg` references name, and an image decodes the
/// alpha image whose `auxl` reference names it. Checked before anything is decoded.
///
/// libheif before 1.17 follows these references without a bound. A grid that names itself (or a longer cycle)
/// makes libheif 1.15 start a thread per level until memory runs out, or overflow the stack with its
/// decoding threads off. A deep or wide chain of grids makes it decode without end. Debian 12 ships 1.15.1, so
/// the decoder refuses such a file first. The references are taken from libheif's own dump of the boxes it
/// read, never from a second parser of ours, because libheif's lenient parsing (a box's size ignored, the last
/// `meta` box kept) is exactly what a hostile file aims at.
struct HEIFDerivations {
    /// The longest chain of images a decode may pass through: a grid of tiles is 2, an identity image of a
    /// grid 3. Files in use stay far below it.
    static let maximumDepth = 16
    /// The most images one decode may decode in all (tiles, alpha images and the derived images above them):
    /// a 12 MP phone photo has 48 tiles.
    static let maximumDecodes = 65_536

    /// Item → the items decoding it also decodes.
    private(set) var successors: [UInt32: [UInt32]] = [:]

    /// The references in `dump`, the text of `heif_context_debug_dump_boxes_to_file`. Each one is a line
    /// `reference with type 'dimg' from ID: 2 to IDs: 3 4 `; text another box prints is never mistaken for
    /// fewer references than libheif holds (at worst for more, which can only refuse a file).
    init(dump: UnsafeRawBufferPointer) {
        let marker = Array("reference with type '".utf8)
        var position = 0
        while let start = Self.find(marker, in: dump, from: position) {
            position = start + marker.count
            guard position + 4 <= dump.count else { break }
            let type = String(decoding: dump[position..<position + 4], as: UTF8.self)
            position += 4
            guard type == "dimg" || type == "auxl",
                Self.skip("' from ID: ", in: dump, at: &position),
                let from = Self.number(in: dump, at: &position),
                Self.skip(" to IDs: ", in: dump, at: &position)
            else { continue }
            while let to = Self.number(in: dump, at: &position) {
                // A grid decodes its tiles; an alpha image's master decodes the alpha image.
                if type == "dimg" {
                    successors[from, default: []].append(to)
                } else {
                    successors[to, default: []].append(from)
                }
                guard Self.skip(" ", in: dump, at: &position) else { break }
            }
        }
    }

    /// Why decoding this file's images would not end or would be unbounded, or `nil` when every image's
    /// derivations form a tree within `maximumDepth` and `maximumDecodes`.
    func refusal() -> String? {
        // Depth-first over every item, iteratively (a hostile chain is as deep as the file allows), keeping
        // for each item the depth and the number of decodes below it.
        var finished: [UInt32: (depth: Int, decodes: Int)] = [:]
        var onPath: Set<UInt32> = []
        for root in successors.keys where finished[root] == nil {
            var stack: [(item: UInt32, next: Int)] = [(root, 0)]
            onPath.insert(root)
            while let top = stack.last {
                let item = top.item
                let next = top.next
                let children = successors[item] ?? []
                if next < children.count {
                    stack[stack.count - 1].next += 1
                    let child = children[next]
                    if onPath.contains(child) {
                        return "image \(child) is derived from itself (through its 'dimg' or 'auxl' references)"
                    }
                    if finished[child] == nil {
                        onPath.insert(child)
                        stack.append((child, 0))
                    }
                    continue
                }
                var depth = 1
                var decodes = 1
                for child in children {
                    let below = finished[child]!
                    depth = max(depth, below.depth + 1)
                    decodes = min(decodes + below.decodes, Self.maximumDecodes + 1)
                }
                if depth > Self.maximumDepth {
                    return "image \(item) is derived through \(depth) levels of images, above \(Self.maximumDepth)"
                }
                if decodes > Self.maximumDecodes {
                    return "image \(item) is derived from more than \(Self.maximumDecodes) image decodes"
                }
                finished[item] = (depth, decodes)
                onPath.remove(item)
                stack.removeLast()
            }
        }
        return nil
    }

    /// Whether `data` may hold a reference the check is about: the four bytes of `dimg` or `auxl`, which every
    /// such reference box starts with. Files without either (most single images) need no dump.
    static func mayHaveDerivations(_ data: UnsafeRawBufferPointer) -> Bool {
        find(Array("dimg".utf8), in: data, from: 0) != nil || find(Array("auxl".utf8), in: data, from: 0) != nil
    }

    /// The offset of `pattern` in `bytes` at or after `start`: `memchr` to each candidate first byte, then
    /// `memcmp` (Glibc declares `memmem` only under `_GNU_SOURCE`).
    private static func find(_ pattern: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, !pattern.isEmpty else { return nil }
        var offset = start
        while offset + pattern.count <= bytes.count {
            let remaining = bytes.count - offset - pattern.count + 1
            guard let candidate = memchr(base + offset, Int32(pattern[0]), remaining) else { return nil }
            offset = base.distance(to: UnsafeRawPointer(candidate))
            if pattern.withUnsafeBytes({ memcmp(base + offset, $0.baseAddress!, pattern.count) }) == 0 { return offset }
            offset += 1
        }
        return nil
    }

    private static func skip(_ text: StaticString, in bytes: UnsafeRawBufferPointer, at position: inout Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count,
            memcmp(bytes.baseAddress! + position, text.utf8Start, count) == 0
        else { return false }
        position += count
        return true
    }

    /// A decimal item ID at `position` (an item ID is at most 32 bits), or `nil` without moving.
    private static func number(in bytes: UnsafeRawBufferPointer, at position: inout Int) -> UInt32? {
        var value: UInt64 = 0
        var end = position
        while end < bytes.count, end - position < 11, (0x30...0x39).contains(bytes[end]) {
            value = value * 10 + UInt64(bytes[end] - 0x30)
            end += 1
        }
        guard end > position, value <= UInt64(UInt32.max) else { return nil }
        position = end
        return UInt32(value)
    }
}
