import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Feeds arbitrary text to the readers of response headers the manager caches and retries by: HTTP dates,
/// `Cache-Control` (delta-seconds included), `Expires` against `Date` and `Age`, `Vary` (and whether a
/// response with it may be stored for a request with headers), and `Retry-After`.
///
/// The input's lines are the values of `cache-control`, `expires`, `date`, `age`, `vary` and
/// `retry-after`, in that order; every reader also gets the whole input. It must never crash, whatever the
/// bytes; the libFuzzer target `http-headers` in `Fuzz/` calls it.
@_spi(Fuzzing) public func fuzzHTTPHeaders(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    func line(_ index: Int) -> String { index < lines.count ? lines[index] : text }
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    _ = HTTPDate.parse(text, now: now)
    _ = HTTPFreshness.deltaSeconds(text)
    let headers = [
        "cache-control": line(0), "expires": line(1), "date": line(2), "age": line(3), "vary": line(4),
    ]
    let freshness = HTTPFreshness(headers: headers, now: now)
    var metadata = CacheMetadata(created: now)
    freshness.apply(
        to: &metadata, receivedAt: now,
        policy: FreshnessPolicy(defaultTimeToLive: 60, staleWhileRevalidate: 30, staleIfError: .infinity))
    var requestHeaders = ["Accept": line(5)]
    requestHeaders[line(4)] = line(0)  // a name the fuzzer chose, Accept included
    let request = AssetRequest(url: URL(string: "https://cdn.example.com/a.png")!, headers: requestHeaders)
    _ = HTTPVary(header: line(4)).allowsStoring(for: request)
    _ = request.keyedHeadersIdentifier
    _ = RetryPolicy.retryAfter(line(5), date: line(2), now: now)
}

/// Feeds arbitrary text to the fetch policy's readers, without any lookup or connection: the input's first
/// line as a URL (checked by name under a service's policy, its host read as a numeric address and
/// classified), the second as a redirect's `Location` from it, the third as an address range.
///
/// It must never crash, whatever the bytes; the libFuzzer target `fetch-policy` in `Fuzz/` calls it.
@_spi(Fuzzing) public func fuzzFetchPolicy(_ data: Data) {
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        .map(String.init)
    func line(_ index: Int) -> String { index < lines.count ? lines[index] : "" }
    var policy = FetchPolicy.service
    policy.allowedHosts = [".example.com", "localhost"]
    policy.refusedHosts = ["admin.example.com"]
    let range = FetchPolicy.AddressRange(line(2))
    _ = range?.description
    if let range { policy.allowedAddressRanges = [range] }

    guard let url = URL(string: line(0)) else { return }
    try? policy.checkName(of: url)
    if let address = IPAddress.numeric(FetchPolicy.normalizedHost(url.host ?? "")) {
        _ = address.description
        _ = range?.contains(address)
        try? policy.checkAddresses([address], of: url)
    }
    var chain = RedirectChain(request: URLRequest(url: url), url: url, policy: policy)
    _ = chain.wireRequests(pinnedTo: IPAddress.numeric("127.0.0.1").map { [$0] } ?? [])
    for _ in 0...policy.maxRedirects where (try? chain.follow(line(1))) != nil {
        _ = chain.wireRequests(pinnedTo: [])
    }
}
