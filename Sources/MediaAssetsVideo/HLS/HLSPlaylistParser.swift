import Foundation

/// Parses RFC 8216 playlists, line by line, into `HLSPlaylist` values.
///
/// Tags it understands: `EXTM3U`, `EXT-X-STREAM-INF`, `EXT-X-MEDIA`, `EXTINF`, `EXT-X-BYTERANGE`,
/// `EXT-X-MAP`, `EXT-X-KEY`, `EXT-X-DISCONTINUITY`, `EXT-X-ENDLIST`, `EXT-X-TARGETDURATION`,
/// `EXT-X-MEDIA-SEQUENCE`, `EXT-X-PLAYLIST-TYPE`; other tags are skipped, as the RFC asks of clients.
/// URIs are resolved against the playlist's URL.
struct HLSPlaylistParser {
    let url: URL
    private var lineNumber = 0
    // Master playlist
    private var variants: [HLSVariant] = []
    private var renditions: [HLSRendition] = []
    private var pendingVariant: (line: Int, variant: HLSVariant)?
    // Media playlist
    private var segments: [HLSSegment] = []
    private var targetDuration: Int?
    private var mediaSequence = 0
    private var playlistType: String?
    private var isEndList = false
    private var pendingDuration: Double?
    private var pendingByteRange: Range<Int>?
    private var pendingDiscontinuity = false
    private var currentMap: HLSMap?
    private var currentKey: HLSKey?
    /// Where the previous byte range ended, for `EXT-X-BYTERANGE` without an offset.
    private var previousRangeEnd: (uri: URL, end: Int)?

    init(url: URL) { self.url = url }

    /// Parses `text`; malformed input throws `HLSError.malformedPlaylist` with the line number.
    mutating func parse(_ text: String) throws(HLSError) -> HLSPlaylist {
        var sawHeader = false
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            var line = rawLine.trimmingCharacters(in: .whitespaces)[...]
            if lineNumber == 1, line.hasPrefix("\u{FEFF}") { line = line.dropFirst() }
            if !sawHeader {
                guard line == "#EXTM3U" else { throw malformed("the first line must be #EXTM3U") }
                sawHeader = true
                continue
            }
            do {
                try handle(line)
            } catch {
                throw malformed(error.reason)
            }
        }
        guard sawHeader else { throw malformed("the playlist is empty; it must start with #EXTM3U") }
        return try finish()
    }

    private func malformed(_ reason: String) -> HLSError {
        .malformedPlaylist(url: url, line: max(1, lineNumber), reason: reason)
    }

    private mutating func handle(_ line: Substring) throws(HLSLineError) {
        if line.isEmpty { return }
        guard line.hasPrefix("#") else { return try handleURI(line) }
        guard line.hasPrefix("#EXT") else { return }  // a comment
        let colon = line.firstIndex(of: ":")
        let tag = colon.map { line[..<$0] } ?? line
        let value = colon.map { line[line.index(after: $0)...] } ?? ""
        switch tag {
        case "#EXT-X-STREAM-INF":
            try requireKind(master: true, tag)
            guard pendingVariant == nil else { throw HLSLineError("EXT-X-STREAM-INF without a URI line after it") }
            pendingVariant = (lineNumber, try variant(attributes(value), uri: url))  // its URI comes next
        case "#EXT-X-MEDIA":
            try requireKind(master: true, tag)
            renditions.append(try rendition(attributes(value)))
        case "#EXTINF":
            try requireKind(master: false, tag)
            let durationText = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard let duration = Double(durationText.trimmingCharacters(in: .whitespaces)), duration.isFinite,
                duration >= 0, duration < 1e9
            else { throw HLSLineError("EXTINF duration is not a non-negative number: \(durationText.prefix(40))") }
            pendingDuration = duration
        case "#EXT-X-BYTERANGE":
            try requireKind(master: false, tag)
            pendingByteRange = try byteRange(value, previousEnd: nil, allowImplicitOffset: true)
        case "#EXT-X-MAP":
            try requireKind(master: false, tag)
            let list = try attributes(value)
            let uri = try resolve(list.required("URI"))
            let range = try list["BYTERANGE"].map { (text: String) throws(HLSLineError) -> Range<Int> in
                try byteRange(text[...], previousEnd: nil, allowImplicitOffset: false)
            }
            currentMap = HLSMap(uri: uri, byteRange: range)
        case "#EXT-X-KEY":
            try requireKind(master: false, tag)
            let list = try attributes(value)
            let method = try list.required("METHOD")
            guard method != "NONE" else {
                currentKey = nil
                return
            }
            guard ["AES-128", "SAMPLE-AES", "SAMPLE-AES-CTR"].contains(method) else {
                throw HLSLineError("unknown EXT-X-KEY METHOD \(method.prefix(40))")
            }
            currentKey = HLSKey(
                method: method, uri: try resolve(list.required("URI")), iv: list["IV"], keyFormat: list["KEYFORMAT"]
            )
        case "#EXT-X-DISCONTINUITY":
            try requireKind(master: false, tag)
            pendingDiscontinuity = true
        case "#EXT-X-ENDLIST":
            try requireKind(master: false, tag)
            isEndList = true
        case "#EXT-X-TARGETDURATION":
            try requireKind(master: false, tag)
            guard let seconds = HLSLineError.decimal(value) else {
                throw HLSLineError("EXT-X-TARGETDURATION is not an integer: \(value.prefix(40))")
            }
            targetDuration = seconds
        case "#EXT-X-MEDIA-SEQUENCE":
            try requireKind(master: false, tag)
            guard segments.isEmpty, let sequence = HLSLineError.decimal(value) else {
                throw HLSLineError("EXT-X-MEDIA-SEQUENCE must be an integer before the first segment")
            }
            mediaSequence = sequence
        case "#EXT-X-PLAYLIST-TYPE":
            guard value == "VOD" || value == "EVENT" else {
                throw HLSLineError("EXT-X-PLAYLIST-TYPE must be VOD or EVENT, not \(value.prefix(40))")
            }
            playlistType = String(value)
        default:
            return  // tags a client may ignore
        }
    }

    private mutating func handleURI(_ line: Substring) throws(HLSLineError) {
        let uri = try resolve(String(line))
        if let pending = pendingVariant {
            pendingVariant = nil
            var variant = pending.variant
            variant.uri = uri
            variants.append(variant)
            return
        }
        guard let duration = pendingDuration else {
            throw HLSLineError("a URI line must follow EXTINF or EXT-X-STREAM-INF")
        }
        var range = pendingByteRange
        if let pending = range, pending.lowerBound < 0 {
            // No offset: the range follows the previous segment's range of the same resource.
            guard let previous = previousRangeEnd, previous.uri == uri else {
                throw HLSLineError("EXT-X-BYTERANGE without an offset must follow a byte range of the same URI")
            }
            range = previous.end..<(previous.end + pending.count)
        }
        if let range { previousRangeEnd = (uri, range.upperBound) } else { previousRangeEnd = nil }
        segments.append(
            HLSSegment(
                uri: uri, duration: duration, sequenceNumber: mediaSequence + segments.count, byteRange: range,
                map: currentMap, key: currentKey, discontinuity: pendingDiscontinuity
            ))
        pendingDuration = nil
        pendingByteRange = nil
        pendingDiscontinuity = false
    }

    private func finish() throws(HLSError) -> HLSPlaylist {
        if let pending = pendingVariant {
            throw HLSError.malformedPlaylist(url: url, line: pending.line, reason: "EXT-X-STREAM-INF without a URI")
        }
        if !variants.isEmpty || !renditions.isEmpty {
            return .master(HLSMasterPlaylist(variants: variants, renditions: renditions))
        }
        guard let targetDuration else { throw malformed("a media playlist needs EXT-X-TARGETDURATION") }
        if pendingDuration != nil { throw malformed("EXTINF without a URI line after it") }
        return .media(
            HLSMediaPlaylist(
                targetDuration: targetDuration, mediaSequence: mediaSequence, playlistType: playlistType,
                isEndList: isEndList, segments: segments
            ))
    }

    private func requireKind(master: Bool, _ tag: Substring) throws(HLSLineError) {
        let isMaster = !variants.isEmpty || !renditions.isEmpty || pendingVariant != nil
        let isMedia = targetDuration != nil || !segments.isEmpty || pendingDuration != nil
        if master ? isMedia : isMaster {
            throw HLSLineError("\(tag.dropFirst()) cannot appear in a \(master ? "media" : "master") playlist")
        }
    }

    private func attributes(_ text: Substring) throws(HLSLineError) -> HLSAttributeList {
        try HLSAttributeList.parse(text).get()
    }

    private func resolve(_ text: String) throws(HLSLineError) -> URL {
        guard !text.isEmpty, text.count <= 8_192, let resolved = URL(string: text, relativeTo: url)?.absoluteURL,
            resolved.scheme != nil
        else { throw HLSLineError("invalid URI \"\(text.prefix(80))\"") }
        return resolved
    }

    /// `n[@o]`; without `@o` (where allowed) the lower bound is -1 until the previous range is known.
    private func byteRange(
        _ text: Substring, previousEnd: Int?, allowImplicitOffset: Bool
    ) throws(HLSLineError) -> Range<Int> {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let length = HLSLineError.decimal(parts[0]), length > 0 else {
            throw HLSLineError("byte range length is not a positive integer: \(text.prefix(40))")
        }
        guard parts.count == 2 else {
            guard allowImplicitOffset else { throw HLSLineError("byte range needs an offset: \(text.prefix(40))") }
            return -1..<(length - 1)
        }
        guard let offset = HLSLineError.decimal(parts[1]) else {
            throw HLSLineError("byte range offset is not an integer: \(text.prefix(40))")
        }
        return offset..<(offset + length)
    }

    private func variant(_ list: HLSAttributeList, uri: URL) throws(HLSLineError) -> HLSVariant {
        guard let bandwidth = try list.integer("BANDWIDTH") else {
            throw HLSLineError("EXT-X-STREAM-INF needs BANDWIDTH")
        }
        var resolution: HLSResolution?
        if let text = list["RESOLUTION"] {
            let parts = text.split(separator: "x", maxSplits: 1)
            guard parts.count == 2, let width = HLSLineError.decimal(parts[0]),
                let height = HLSLineError.decimal(parts[1])
            else { throw HLSLineError("RESOLUTION must be <width>x<height>, not \(text.prefix(40))") }
            resolution = HLSResolution(width: width, height: height)
        }
        var frameRate: Double?
        if let text = list["FRAME-RATE"] {
            guard let rate = Double(text), rate.isFinite, rate >= 0 else {
                throw HLSLineError("FRAME-RATE is not a number: \(text.prefix(40))")
            }
            frameRate = rate
        }
        return HLSVariant(
            uri: uri, bandwidth: bandwidth, averageBandwidth: try list.integer("AVERAGE-BANDWIDTH"),
            resolution: resolution,
            codecs: list["CODECS"].map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                ?? [],
            frameRate: frameRate, audioGroup: list["AUDIO"]
        )
    }

    private func rendition(_ list: HLSAttributeList) throws(HLSLineError) -> HLSRendition {
        HLSRendition(
            type: try list.required("TYPE"), groupID: try list.required("GROUP-ID"), name: try list.required("NAME"),
            language: list["LANGUAGE"], isDefault: list["DEFAULT"] == "YES",
            uri: try list["URI"].map { (text: String) throws(HLSLineError) -> URL in try resolve(text) }
        )
    }
}

extension HLSPlaylist {
    /// Parses the playlist `data` fetched from `url` (relative URIs resolve against it).
    ///
    /// - Throws: `HLSError.malformedPlaylist` with the 1-based line number and the reason.
    package static func parse(_ data: Data, url: URL) throws(HLSError) -> HLSPlaylist {
        guard let text = String(data: data, encoding: .utf8) else {
            throw HLSError.malformedPlaylist(url: url, line: 1, reason: "the playlist is not UTF-8 text")
        }
        var parser = HLSPlaylistParser(url: url)
        return try parser.parse(text)
    }
}

/// Feeds arbitrary bytes to the HLS playlist parser: it must return or throw `HLSError`, never crash.
///
/// The libFuzzer entry point of the parser (see `Fuzz/`) and of its seeded mutation test.
@_spi(Fuzzing) public func fuzzHLSPlaylist(_ data: Data) {
    _ = try? HLSPlaylist.parse(data, url: URL(string: "http://127.0.0.1/fuzz/index.m3u8")!)
}
