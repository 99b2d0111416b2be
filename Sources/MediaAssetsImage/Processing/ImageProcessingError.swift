import Foundation

/// Why a processor refused its parameters; carries the offending value and the processor's identifier.
public enum ImageProcessingError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// A width, height or diameter is zero or negative.
    case invalidSize(PixelSize, processor: String)
    /// A requested or resulting size exceeds `limit` (`ImageProcessors.maximumDimension`) on a side.
    case sizeTooLarge(PixelSize, limit: Int, processor: String)
    /// A corner radius is negative, not finite, or larger than the limit.
    case invalidCornerRadius(Double, processor: String)
    /// A border width is negative, not finite, or larger than the limit.
    case invalidBorderWidth(Double, processor: String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case let .invalidSize(size, processor):
            return "Processor \(processor): size \(size) must be positive on both sides"
        case let .sizeTooLarge(size, limit, processor):
            return "Processor \(processor): size \(size) exceeds the limit of \(limit) pixels per side"
        case let .invalidCornerRadius(radius, processor):
            return "Processor \(processor): corner radius \(radius) must be finite, >= 0 and <= "
                + "\(ImageProcessors.maximumDimension)"
        case let .invalidBorderWidth(width, processor):
            return "Processor \(processor): border width \(width) must be finite, >= 0 and <= "
                + "\(ImageProcessors.maximumDimension)"
        }
    }

    /// The same text as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
