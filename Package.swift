// swift-tools-version: 6.0
import PackageDescription

// MediaAssets has no Swift package dependencies: the toolchain plus the system C libraries
// (libjpeg-turbo, libpng, zlib, sqlite3, OpenSSL's libcrypto) found through pkg-config.
let package = Package(
    name: "MediaAssets",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "MediaAssets", targets: ["MediaAssets"]),
        .library(name: "MediaAssetsImage", targets: ["MediaAssetsImage"]),
        .library(name: "MediaAssetsAnimation", targets: ["MediaAssetsAnimation"]),
        .library(name: "MediaAssetsVideo", targets: ["MediaAssetsVideo"]),
        .library(name: "MediaAssetsSQLite", targets: ["MediaAssetsSQLite"]),
        .library(name: "MediaAssetsRedis", targets: ["MediaAssetsRedis"]),
        .library(name: "MediaAssetsEncryption", targets: ["MediaAssetsEncryption"]),
        .library(name: "SampleOrigin", targets: ["SampleOrigin"]),
        .library(name: "MediaAssetsVideoProxy", targets: ["MediaAssetsVideoProxy"]),
        .executable(name: "demo", targets: ["demo"]),
        .executable(name: "benchmarks", targets: ["benchmarks"]),
    ],
    targets: [
        // System libraries, and the C shims that keep libjpeg's and libpng's longjmp in C
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        .target(name: "CJPEG", dependencies: ["CLibJPEG"]),
        .target(name: "CPNG", dependencies: ["CLibPNG"]),
        // Declarations of libwebp, libwebpdemux, giflib and libheif, loaded at run time (nothing linked)
        .target(name: "CDynamicCodecs"),

        // Two Linux system calls of the disk cache's non-blocking reads, and a thread name (no library)
        .target(name: "CMediaAssetsIO"),

        // Core and media modules
        .target(name: "MediaAssets", dependencies: ["CMediaAssetsIO"]),
        .target(
            name: "MediaAssetsImage",
            dependencies: ["MediaAssets", "CJPEG", "CPNG", "CDynamicCodecs", "CMediaAssetsIO"]
        ),
        .target(name: "MediaAssetsAnimation", dependencies: ["MediaAssets", "MediaAssetsImage", "CZlib"]),
        // FFmpeg's libraries for video stills, loaded at run time: nothing here is linked
        .target(name: "CVideoFrames"),
        .target(name: "MediaAssetsVideo", dependencies: ["MediaAssets", "MediaAssetsImage", "CVideoFrames"]),
        .target(name: "MediaAssetsSQLite", dependencies: ["MediaAssets", "CSQLite"]),
        // The HTTP/1.1 server core (loopback, one polling thread, async handlers) of the proxy and the test origin
        .target(name: "MediaAssetsHTTPServer"),
        // A loopback proxy through the video caches, on the HTTP/1.1 core
        .target(
            name: "MediaAssetsVideoProxy", dependencies: ["MediaAssets", "MediaAssetsVideo", "MediaAssetsHTTPServer"]),
        .target(name: "MediaAssetsRedis", dependencies: ["MediaAssets"]),
        // Encryption at rest (AES-256-GCM through libcrypto) as a wrapper of any byte backend
        .target(name: "MediaAssetsEncryption", dependencies: ["MediaAssets", "CLibCrypto"]),

        // The loopback HTTP origin of the tests and examples, and test support
        .target(name: "SampleOrigin", dependencies: ["MediaAssetsHTTPServer"]),
        .target(name: "TestSupport", dependencies: ["MediaAssets", "SampleOrigin"], path: "Tests/TestSupport"),

        // Benchmarks
        .executableTarget(
            name: "benchmarks",
            dependencies: [
                "MediaAssets", "MediaAssetsImage", "MediaAssetsAnimation", "MediaAssetsVideo", "MediaAssetsSQLite",
                "CZlib", "SampleOrigin", "MediaAssetsVideoProxy", "MediaAssetsRedis", "MediaAssetsEncryption",
            ],
            path: "Benchmarks",
            exclude: ["pillow_avatars.py"]
        ),

        // Examples (the README's `swift run demo` and one per media type) and the README's snippets
        .target(
            name: "ExampleSupport",
            dependencies: ["MediaAssets", "MediaAssetsImage", "SampleOrigin", "CZlib"],
            path: "Examples/ExampleSupport"
        ),
        .executableTarget(
            name: "demo",
            dependencies: [
                "ExampleSupport", "MediaAssets", "MediaAssetsImage", "MediaAssetsAnimation", "MediaAssetsVideo",
                "SampleOrigin",
            ],
            path: "Examples/demo"
        ),
        .executableTarget(
            name: "image-example",
            dependencies: ["ExampleSupport", "MediaAssets", "MediaAssetsImage", "SampleOrigin"],
            path: "Examples/image-example"
        ),
        .executableTarget(
            name: "animation-example",
            dependencies: [
                "ExampleSupport", "MediaAssets", "MediaAssetsAnimation", "MediaAssetsImage", "SampleOrigin",
            ],
            path: "Examples/animation-example"
        ),
        .executableTarget(
            name: "video-example",
            dependencies: [
                "ExampleSupport", "MediaAssets", "MediaAssetsImage", "MediaAssetsVideo", "MediaAssetsVideoProxy",
                "SampleOrigin",
            ],
            path: "Examples/video-example"
        ),
        .executableTarget(
            name: "custom-backend-example",
            dependencies: [
                "ExampleSupport", "MediaAssets", "MediaAssetsImage", "MediaAssetsSQLite", "MediaAssetsRedis",
                "SampleOrigin",
            ],
            path: "Examples/custom-backend-example"
        ),
        .executableTarget(
            name: "custom-util-example",
            dependencies: ["ExampleSupport", "MediaAssets", "SampleOrigin"],
            path: "Examples/custom-util-example"
        ),
        .executableTarget(
            name: "readme-snippets",
            dependencies: [
                "MediaAssets", "MediaAssetsImage", "MediaAssetsAnimation", "MediaAssetsVideo", "MediaAssetsSQLite",
                "MediaAssetsRedis", "MediaAssetsEncryption", "MediaAssetsVideoProxy", "SampleOrigin",
            ],
            path: "Examples/ReadmeSnippets"
        ),

        // The helper process of the multi-process and crash-consistency tests (not a product)
        .executableTarget(
            name: "cache-writer",
            dependencies: ["MediaAssets", "MediaAssetsSQLite"],
            path: "Tests/CacheWriter"
        ),

        // The child process of the peak-memory tests (not a product)
        .executableTarget(
            name: "memory-probe", dependencies: ["MediaAssets", "MediaAssetsImage", "SampleOrigin"],
            path: "Tests/MemoryProbe"),

        // The seeded user: scenarios through the public API against a loopback origin, invariants checked (not a product)
        .executableTarget(
            name: "seeded-user",
            dependencies: [
                "MediaAssets", "MediaAssetsImage", "MediaAssetsVideo", "MediaAssetsVideoProxy", "SampleOrigin",
                "TestSupport",
            ],
            path: "Tests/SeededUser",
            exclude: ["README.md", "seeds.txt"]
        ),

        // Tests
        .testTarget(name: "MediaAssetsTests", dependencies: ["MediaAssets", "TestSupport", "SampleOrigin", "CZlib"]),
        .testTarget(name: "SampleOriginTests", dependencies: ["SampleOrigin", "MediaAssetsHTTPServer", "TestSupport"]),
        .testTarget(name: "MediaAssetsSQLiteTests", dependencies: ["MediaAssetsSQLite", "TestSupport"]),
        .testTarget(
            name: "MediaAssetsRedisTests",
            dependencies: ["MediaAssetsRedis", "MediaAssets", "TestSupport", "SampleOrigin"]
        ),
        .testTarget(
            name: "MediaAssetsEncryptionTests",
            dependencies: [
                "MediaAssetsEncryption", "MediaAssets", "MediaAssetsSQLite", "MediaAssetsRedis", "TestSupport",
            ]
        ),
        .testTarget(name: "MediaAssetsVideoTests", dependencies: ["MediaAssetsVideo", "TestSupport", "SampleOrigin"]),
        .testTarget(
            name: "MediaAssetsVideoProxyTests",
            dependencies: [
                "MediaAssetsVideoProxy", "MediaAssetsVideo", "MediaAssetsHTTPServer", "TestSupport", "SampleOrigin",
            ]
        ),
        .testTarget(
            name: "MediaAssetsImageTests",
            dependencies: [
                "MediaAssetsImage", "CJPEG", "CPNG", "CDynamicCodecs", "CZlib", "TestSupport", "SampleOrigin",
            ],
            exclude: ["Codecs/Samples"]
        ),
        .testTarget(
            name: "MediaAssetsAnimationTests",
            dependencies: ["MediaAssetsAnimation", "MediaAssetsImage", "CZlib", "TestSupport", "SampleOrigin"]
        ),
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: [
                "MediaAssetsImage", "MediaAssetsAnimation", "MediaAssets", "MediaAssetsVideo", "MediaAssetsVideoProxy",
                "MediaAssetsRedis", "MediaAssetsEncryption", "MediaAssetsHTTPServer", "SampleOrigin", "TestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
