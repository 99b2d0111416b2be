import Foundation
import MediaAssets
import MediaAssetsEncryption
import MediaAssetsImage

// README: "Removing, pinning and encrypting"
func removePinAndEncrypt(manager: AssetsManager, images: ImageUtil, avatarURL: URL, keyFile: URL) async throws {
    // A takedown: the original, every styled variant, the placeholder, from memory, disk and every
    // other backend, with the writes still staged for them.
    try await images.removeAsset(for: avatarURL)
    try await manager.removeAsset(forKey: CacheKey(url: avatarURL))  // the same, for any util's key

    // The app's own avatar stays through memory trims and disk sweeps, within the pinned quota.
    try await images.pinAsset(for: AssetRequest(url: avatarURL))
    print(await manager.statistics()[.disk]?.pinnedBytes ?? 0)

    // Encryption at rest for the disk cache (and so for every .hybrid(t) behind it).
    let keys = try KeyRing(contentsOf: keyFile)
    let encryptedDisk = try manager.encryptAtRest(.disk, keys: keys)
    keys.rotate(to: try KeyRing.generateKey(id: "2025-07"))  // new writes use the new key
    let report = try await encryptedDisk.sweep()  // older entries re-encrypted
    print(report)
}
