// Validation and identifier formatting shared by the processors.

extension ImageProcessors {
    /// Throws unless both sides are in `1...maximumDimension`.
    static func validate(_ size: PixelSize, processor: @autoclosure () -> String) throws {
        guard size.width > 0, size.height > 0 else {
            throw ImageProcessingError.invalidSize(size, processor: processor())
        }
        guard size.width <= maximumDimension, size.height <= maximumDimension else {
            throw ImageProcessingError.sizeTooLarge(size, limit: maximumDimension, processor: processor())
        }
    }

    /// Throws unless `radius` is finite and in `0...maximumDimension`.
    static func validate(cornerRadius radius: Double, processor: @autoclosure () -> String) throws {
        guard radius.isFinite, radius >= 0, radius <= Double(maximumDimension) else {
            throw ImageProcessingError.invalidCornerRadius(radius, processor: processor())
        }
    }

    /// Throws unless `width` is finite and in `0...maximumDimension`.
    static func validate(borderWidth width: Double, processor: @autoclosure () -> String) throws {
        guard width.isFinite, width >= 0, width <= Double(maximumDimension) else {
            throw ImageProcessingError.invalidBorderWidth(width, processor: processor())
        }
    }

    /// The shortest decimal that round-trips: `12`, `1.5`, `0.1` (stable across platforms).
    static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }

    /// Straight (not premultiplied) `#rrggbbaa`.
    static func hex(_ color: RGBA) -> String {
        let digits = Array("0123456789abcdef")
        var text = "#"
        for channel in [color.red, color.green, color.blue, color.alpha] {
            text.append(digits[Int(channel >> 4)])
            text.append(digits[Int(channel & 0x0f)])
        }
        return text
    }

    /// `name` with every byte outside `[A-Za-z0-9._~-]` percent-encoded, so that a user-chosen
    /// name cannot contain spaces, newlines or the `>`/`@`/`(` separators, and stays injective.
    static func escape(_ name: String) -> String {
        var text = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "-"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF")
                text.append("%")
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0f)])
            }
        }
        return text
    }
}
