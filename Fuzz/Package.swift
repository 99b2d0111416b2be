// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for MediaAssets' parsers, as a package of their own so the root package stays
// free of sanitizer flags. Built by `Fuzz/run` with `-sanitize=fuzzer,address`; see Fuzz/README.md.
//
// Adding a target: a `FuzzTarget` in Sources/FuzzSupport/FuzzTargets.swift, a folder
// Targets/<name>/ holding a copy of Targets/png/Entry.swift with the name changed, and the name in
// `targetNames` below.
let targetNames = [
    "jpeg", "jpeg-incremental", "png", "lottie", "dotlottie", "dotlottie-v2", "webp", "gif", "heif", "thumbhash",
    "hls-playlist", "http-request-head", "proxy-path", "resp-reply", "disk-entry-file", "animation-frames",
    "sealed-entry", "download-index", "entity-tag", "http-headers", "fetch-policy", "video-frame",
]

let package = Package(
    name: "MediaAssetsFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "MediaAssets", path: "..")],
    targets: [
        .systemLibrary(name: "CFuzzSupport", pkgConfig: "zlib"),
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CFuzzSupport",
                .product(name: "MediaAssetsImage", package: "MediaAssets"),
                .product(name: "MediaAssetsAnimation", package: "MediaAssets"),
                .product(name: "MediaAssets", package: "MediaAssets"),
                .product(name: "MediaAssetsVideo", package: "MediaAssets"),
                .product(name: "MediaAssetsVideoProxy", package: "MediaAssets"),
                .product(name: "MediaAssetsRedis", package: "MediaAssets"),
                .product(name: "MediaAssetsEncryption", package: "MediaAssets"),
                .product(name: "SampleOrigin", package: "MediaAssets"),
            ]
        ),
    ]
        + targetNames.map { name in
            .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport"], path: "Targets/\(name)")
        },
    swiftLanguageModes: [.v6]
)
