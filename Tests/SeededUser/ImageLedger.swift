import Foundation
import MediaAssets
import MediaAssetsImage
import SampleOrigin

/// What the image scenarios know about each path: its bytes at the origin, when an ask saw them arrive, how many
/// downloads the package was allowed to lose (cancelled before the bytes arrived), and the expected pictures.
final class ImageLedger {
    struct Entry {
        var data: Data
        /// The first moment an ask saw every byte arrive (a result, or progress at its length).
        var arrival: Date?
        /// Whether that arrival was seen by an ask then cancelled (the row that left after its bytes came).
        var arrivalWasCancelled = false
        /// Downloads a cancel may have cut short: each allows one more origin request.
        var lostDownloads = 0
        /// Origin requests when the arrival was seen.
        var requestsAtArrival = 0
    }

    private(set) var entries: [String: Entry] = [:]
    private var references: [String: Image] = [:]
    let origin: SampleOrigin
    let log: ScenarioLog
    /// Results checked against a decode of the origin's bytes.
    private(set) var checkedPictures = 0
    /// Results that came from memory or storage (a statistics lower bound).
    private(set) var cacheAnswers = 0

    init(origin: SampleOrigin, log: ScenarioLog) {
        self.origin = origin
        self.log = log
    }

    /// Expects `data` at `path` from now on (a new version replaces the old one's record and pictures).
    func register(_ path: String, data: Data) {
        entries[path] = Entry(data: data)
        references = references.filter { !$0.key.hasPrefix(path + "|") }
    }

    func data(_ path: String) -> Data { entries[path]?.data ?? Data() }

    /// Notes that an ask saw every byte of `path` arrive now.
    func arrived(_ path: String, cancelled: Bool = false) {
        guard var entry = entries[path], entry.arrival == nil else { return }
        entry.arrival = Date()
        entry.arrivalWasCancelled = cancelled
        entry.requestsAtArrival = origin.getCount(path)
        entries[path] = entry
    }

    /// Notes a cancel that may have cut a download of `path` short (before its bytes were seen to arrive).
    func mayHaveLostDownload(_ path: String) {
        guard entries[path]?.arrival == nil else { return }
        entries[path]?.lostDownloads += 1
    }

    /// The picture `util` should answer for `path` in `style`: the origin's bytes decoded and styled as the util's
    /// renderer does.
    func reference(_ path: String, style: AvatarStyle, configuration: ImageUtil.Configuration) throws -> Image {
        let key = "\(path)|\(style.identifier)"
        if let image = references[key] { return image }
        let renderer = VariantRenderer(configuration: configuration)
        let data = self.data(path)
        let image: Image
        if style.isOriginal {
            image = try renderer.decode(data, targetSize: nil)
        } else {
            image = try renderer.render(renderer.decode(data, for: style), style: style)
        }
        references[key] = image
        return image
    }

    /// Checks an answer's pixels against the reference; notes where it came from.
    func checkPicture(
        _ image: Image, source: AssetSource?, path: String, style: AvatarStyle, util: ImageUtil, what: String
    ) {
        checkPicture(image, source: source, path: path, style: style, configuration: util.configuration, what: what)
    }

    /// Checks an answer's pixels against the reference of a util configured as `configuration`.
    func checkPicture(
        _ image: Image, source: AssetSource?, path: String, style: AvatarStyle,
        configuration: ImageUtil.Configuration, what: String
    ) {
        if source == .memory || source == .storage { cacheAnswers += 1 }
        arrived(path)
        do {
            let expected = try reference(path, style: style, configuration: configuration)
            checkedPictures += 1
            guard let difference = Pictures.meanDifference(image, expected) else {
                return log.violate(
                    "pixels",
                    "\(what) \(path) \(style.identifier): \(image.width)×\(image.height), expected "
                        + "\(expected.width)×\(expected.height)")
            }
            log.check(
                difference <= Pictures.tolerance, "pixels",
                "\(what) \(path) \(style.identifier) from \(source.map(\.description) ?? "?"): mean difference "
                    + "\(difference) per channel from a decode of the origin's bytes")
        } catch {
            log.violate("reference", "the origin's bytes of \(path) do not decode here: \(error)")
        }
    }

    /// Checks what the origin's log says about every path: no request after its bytes were seen to arrive, and at
    /// most one download per path plus one per download a cancel cut short; bytes likewise.
    func checkOriginLog() {
        for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
            // Injected failures (503) carry no resource bytes; every other GET is a download.
            let requests = origin.requests(for: path).filter { $0.method == "GET" && ($0.status ?? 0) < 500 }
            // Requests after the bytes were seen to arrive are reported once, as the defect they show.
            let later = entry.arrival.map { arrival in requests.filter { $0.startTime > arrival } } ?? []
            if !later.isEmpty {
                let invariant = entry.arrivalWasCancelled ? KnownDefect.keptBytes.rawValue : "refetch"
                log.violate(
                    invariant,
                    "\(path): \(later.count) origin request(s) (\(later.reduce(0) { $0 + $1.bodyBytesSent }) bytes) "
                        + "after its \(entry.data.count) bytes had arrived"
                        + (entry.arrivalWasCancelled ? " at a row cancelled then" : "")
                        + " (\(entry.requestsAtArrival) before)")
            }
            let earlier = requests.filter { request in !later.contains { $0.sequenceNumber == request.sequenceNumber } }
            let allowed = 1 + entry.lostDownloads
            log.check(
                earlier.count <= allowed, "origin-requests",
                "\(path): \(earlier.count) origin requests, at most \(allowed) allowed "
                    + "(1 + \(entry.lostDownloads) downloads cut short by cancels)")
            let bytes = earlier.filter { $0.status == 200 || $0.status == 206 }.reduce(0) { $0 + $1.bodyBytesSent }
            log.check(
                bytes <= entry.data.count * allowed, "origin-bytes",
                "\(path): \(bytes) bytes sent for a \(entry.data.count)-byte resource, at most \(allowed) "
                    + "copies allowed"
            )
        }
    }
}
