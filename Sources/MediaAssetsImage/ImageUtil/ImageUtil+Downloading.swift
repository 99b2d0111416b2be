import Foundation
import MediaAssets

extension ImageUtil {
    /// The completion-handler call: downloads (or finds) the image at `url` and calls `imageCompletionHandler` with it.
    ///
    /// Returns at once. The handler runs on a background task, only on success: an invalid URL or a failure
    /// does not call it (use `downloadImage(url:storageType:completion:)` to see errors).
    @discardableResult
    public func downloadImage(
        url: String,
        imageCompletionHandler: (@Sendable (Image) -> Void)?,
        storageType: StorageType
    ) -> Task<Void, Never> {
        downloadImage(url: url, storageType: storageType) { result in
            if case .success(let image) = result { imageCompletionHandler?(image) }
        }
    }

    /// Downloads (or finds) the image at `url` and calls `completion` with it or with the error.
    ///
    /// Returns at once; `completion` runs once, on a background task. An invalid URL fails with
    /// `ImageUtilError.invalidURL`; cancelling the returned task fails with `CancellationError`.
    @discardableResult
    public func downloadImage(
        url: String,
        storageType: StorageType,
        completion: @escaping @Sendable (Result<Image, Error>) -> Void
    ) -> Task<Void, Never> {
        Task { [self] in
            guard let parsed = URL(string: url), parsed.scheme != nil else {
                completion(.failure(ImageUtilError.invalidURL(url)))
                return
            }
            do {
                completion(.success(try await image(for: parsed, storageType: storageType)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
