import Foundation
import MediaAssets

/// Why a dotLottie archive could not be read.
///
/// Archive problems name the entry (its path inside the zip) or the byte offset; animation
/// problems wrap the `LottieError` with the animation id.
public enum DotLottieError: Equatable, MediaAssetsError {
    /// The archive is larger than `DotLottieReadingOptions.maximumArchiveSize`; nothing was read.
    case archiveTooLarge(size: Int, limit: Int)
    /// No zip end-of-central-directory record was found.
    case notAZipArchive
    /// The zip structure is damaged or inconsistent at `offset`.
    case corruptArchive(offset: Int, reason: String)
    /// The archive uses a zip feature this reader refuses (ZIP64, multiple disks, encryption).
    case unsupportedArchive(reason: String)
    /// An entry uses a compression method other than stored (0) or deflate (8).
    case unsupportedCompression(entry: String, method: Int)
    /// The archive lists more entries than `limit`.
    case tooManyEntries(count: Int, limit: Int)
    /// An entry's path could escape the archive (`..`, an absolute path, a backslash, a drive letter, NUL).
    case unsafePath(entry: String)
    /// Two entries share a path.
    case duplicateEntry(String)
    /// The entries declare more uncompressed bytes in total than `limit`.
    case uncompressedSizeLimitExceeded(declaredTotal: Int, limit: Int)
    /// An entry declares a compression ratio above `limit` (a likely zip bomb).
    case compressionRatioExceeded(entry: String, ratio: Int, limit: Int)
    /// An entry's content does not match its declared size (`actual` is a lower bound when larger).
    case sizeMismatch(entry: String, declared: Int, actual: Int)
    /// An entry's CRC-32 does not match the checksum the archive declares.
    case checksumMismatch(entry: String, expected: UInt32, actual: UInt32)
    /// An entry's compressed data could not be inflated.
    case corruptEntry(entry: String, reason: String)
    /// The archive has no `manifest.json`.
    case missingManifest
    /// `manifest.json` is not valid JSON or lacks what a manifest needs.
    case invalidManifest(LottieError)
    /// The manifest lists an animation whose JSON is not in the archive.
    case missingAnimation(id: String)
    /// An animation's JSON failed to parse or validate.
    case invalidAnimation(id: String, LottieError)
    /// The manifest lists a theme whose `t/<id>.json` is not in the archive.
    case missingTheme(id: String)
    /// The manifest lists a state machine whose `s/<id>.json` is not in the archive.
    case missingStateMachine(id: String)
    /// A theme is not valid JSON, or the value at `path` is missing, mistyped or names an unknown animation.
    case invalidTheme(id: String, path: String, reason: String)
    /// A theme rule targets slot `slot`, which none of the animations it applies to declares.
    case unknownSlot(themeID: String, slot: String, path: String)
    /// A state machine is not valid JSON, or the value at `path` is missing, mistyped or inconsistent.
    case invalidStateMachine(id: String, path: String, reason: String)
    /// A state machine's `initial` or a transition's `toState` at `path` names no state of the machine.
    case unknownState(stateMachineID: String, state: String, path: String)
    /// An archive could not be written: the entry and why (zlib refused, ZIP64 would be needed).
    case writeFailed(entry: String, reason: String)

    /// A sentence naming the entry, offset or animation and what is wrong.
    public var description: String {
        switch self {
        case let .archiveTooLarge(size, limit):
            return "dotLottie archive of \(size) bytes exceeds the limit of \(limit) bytes"
        case .notAZipArchive:
            return "Not a dotLottie (zip) archive: no end of central directory record"
        case let .corruptArchive(offset, reason):
            return "Corrupt dotLottie archive at byte \(offset): \(reason)"
        case let .unsupportedArchive(reason):
            return "Unsupported dotLottie archive: \(reason)"
        case let .unsupportedCompression(entry, method):
            return "Entry \(entry) uses unsupported compression method \(method)"
        case let .tooManyEntries(count, limit):
            return "dotLottie archive lists \(count) entries, more than the limit of \(limit)"
        case let .unsafePath(entry):
            return "Entry path \(entry.debugDescription) could escape the archive"
        case let .duplicateEntry(entry):
            return "Entry \(entry) appears more than once"
        case let .uncompressedSizeLimitExceeded(total, limit):
            return "dotLottie entries declare \(total) uncompressed bytes, more than the limit of \(limit)"
        case let .compressionRatioExceeded(entry, ratio, limit):
            return "Entry \(entry) declares a compression ratio of \(ratio):1, above the limit of \(limit):1"
        case let .sizeMismatch(entry, declared, actual):
            return "Entry \(entry) declares \(declared) bytes but holds \(actual)"
        case let .checksumMismatch(entry, expected, actual):
            return "Entry \(entry) has CRC-32 \(hex(actual)), expected \(hex(expected))"
        case let .corruptEntry(entry, reason):
            return "Entry \(entry) is corrupt: \(reason)"
        case .missingManifest:
            return "dotLottie archive has no manifest.json"
        case let .invalidManifest(error):
            return "Invalid dotLottie manifest.json: \(error)"
        case let .missingAnimation(id):
            return "dotLottie manifest lists animation \(id.debugDescription) but the archive lacks its JSON"
        case let .invalidAnimation(id, error):
            return "dotLottie animation \(id.debugDescription): \(error)"
        case let .missingTheme(id):
            return "dotLottie manifest lists theme \(id.debugDescription) but the archive lacks t/\(id).json"
        case let .missingStateMachine(id):
            return "dotLottie manifest lists state machine \(id.debugDescription) but the archive lacks s/\(id).json"
        case let .invalidTheme(id, path, reason):
            return "dotLottie theme \(id.debugDescription) (t/\(id).json) at \(path): \(reason)"
        case let .unknownSlot(themeID, slot, path):
            return "dotLottie theme \(themeID.debugDescription) (t/\(themeID).json) at \(path) targets slot "
                + "\(slot.debugDescription), which no animation it applies to declares in its slots"
        case let .invalidStateMachine(id, path, reason):
            return "dotLottie state machine \(id.debugDescription) (s/\(id).json) at \(path): \(reason)"
        case let .unknownState(machine, state, path):
            return "dotLottie state machine \(machine.debugDescription) (s/\(machine).json) at \(path) names state "
                + "\(state.debugDescription), which the machine does not have"
        case let .writeFailed(entry, reason):
            return "Could not write dotLottie entry \(entry): \(reason)"
        }
    }

    private func hex(_ value: UInt32) -> String {
        "0x" + String(value, radix: 16, uppercase: true)
    }
}
