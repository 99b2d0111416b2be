/// An object key packed into an integer, so matching a key is one comparison and allocates nothing.
///
/// Keys of up to seven bytes pack their bytes and length; longer keys all pack to `.long`, which
/// never equals a key the parser looks for (every key it needs is short).
struct JSONKey: Hashable {
    let packed: UInt64

    static let long = JSONKey(packed: UInt64.max)

    private init(packed: UInt64) {
        self.packed = packed
    }

    init(base: UnsafePointer<UInt8>, count: Int) {
        guard count <= 7 else {
            self = .long
            return
        }
        var value = UInt64(count) << 56
        for index in 0..<count {
            value |= UInt64(base[index]) << (8 * UInt64(index))
        }
        packed = value
    }

    init(bytes: [UInt8]) {
        self = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return JSONKey(packed: 0) }
            return JSONKey(base: base, count: buffer.count)
        }
    }

    init(_ text: StaticString) {
        self.init(base: text.utf8Start, count: text.utf8CodeUnitCount)
    }
}

/// The keys the Lottie parser reads; everything else is skipped.
enum LottieKeys {
    static let bodymovinVersion = JSONKey("v")
    static let specVersion = JSONKey("ver")
    static let frameRate = JSONKey("fr")
    static let inPoint = JSONKey("ip")
    static let outPoint = JSONKey("op")
    static let width = JSONKey("w")
    static let height = JSONKey("h")
    static let threeD = JSONKey("ddd")
    static let name = JSONKey("nm")
    static let layers = JSONKey("layers")
    static let assets = JSONKey("assets")
    static let markers = JSONKey("markers")
    static let fonts = JSONKey("fonts")
    static let fontList = JSONKey("list")
    static let chars = JSONKey("chars")
    static let slots = JSONKey("slots")
    static let type = JSONKey("ty")
    static let index = JSONKey("ind")
    static let parent = JSONKey("parent")
    static let referenceID = JSONKey("refId")
    static let identifier = JSONKey("id")
    static let directory = JSONKey("u")
    static let path = JSONKey("p")
    static let embedded = JSONKey("e")
    static let comment = JSONKey("cm")
    static let time = JSONKey("tm")
    static let duration = JSONKey("dr")
}
