/// What the parser read, before validation turns it into a `LottieDocument`.
///
/// Required values are optional here so that validation can name the missing key.
struct ParsedLottie {
    var bodymovinVersion: String?
    var specificationVersion: Int?
    var frameRate: Double?
    var inPoint: Double?
    var outPoint: Double?
    var width: Double?
    var height: Double?
    var is3D = false
    var name: String?
    var layers: [LottieLayer]?
    var assets: [LottieAsset] = []
    var markers: [LottieMarker] = []
    var fontCount = 0
    var characterCount = 0
    var slotIDs: [String] = []
}
