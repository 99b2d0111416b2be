import MediaAssets

extension ResponseBody {
    /// Cancels a transfer whose body will not be read: an iterator made and dropped before the end does.
    func cancel() {
        _ = makeAsyncIterator()
    }
}
