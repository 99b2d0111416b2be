import Foundation
import MediaAssetsHTTPServer
import SampleOrigin

// DocC: MediaAssetsHTTPServer (the landing page)
func doccHTTPServer() throws {
    let server = HTTPServer { request, response in
        let body = Data("hello \(request.path)\n".utf8)
        try? await response.writeHead(status: 200, headers: [("Content-Length", "\(body.count)")])
        try? await response.write(body)
    }
    try server.start()
    defer { server.stop() }
    print(server.baseURL)  // http://127.0.0.1:<port>/
}

// DocC: SampleOrigin (the landing page)
func doccSampleOrigin(png: Data) throws {
    let origin = SampleOrigin()
    try origin.start()
    origin.register("/cat.png", data: png, contentType: "image/png")
    let url = origin.url(for: "/cat.png")
    print(url)
}
