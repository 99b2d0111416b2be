import Foundation
import SampleOrigin

// DocC: SampleOrigin (the landing page)
func doccSampleOrigin(png: Data) throws {
    let origin = SampleOrigin()
    try origin.start()
    origin.register("/cat.png", data: png, contentType: "image/png")
    let url = origin.url(for: "/cat.png")
    print(url)
}
