#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A system library opened at run time with `dlopen` by soname, so the package builds and runs without it
/// (and without its -dev package); its absence becomes a typed error naming the Debian package to install.
///
/// Libraries are opened once per process and never closed: the symbols stay valid for the process's life.
package struct DynamicLibrary: @unchecked Sendable {
    // @unchecked: the handle is an immutable token from dlopen, used only for dlsym (thread-safe).
    private let handle: UnsafeMutableRawPointer
    /// What was opened ("libwebp.so.7").
    package let soname: String
    /// The format this library serves, for errors.
    package let format: ImageFormat
    /// The Debian package that installs it ("libwebp7").
    package let debianPackage: String

    /// Opens `soname`.
    ///
    /// - Throws: `ImageError.libraryMissing` with `dlerror()`'s reason.
    package init(soname: String, format: ImageFormat, debianPackage: String) throws(ImageError) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            throw ImageError.libraryMissing(
                format: format, library: soname, debianPackage: debianPackage, reason: Self.lastError()
            )
        }
        self.handle = handle
        self.soname = soname
        self.format = format
        self.debianPackage = debianPackage
    }

    /// The entry point `name`, cast to its C function type `Function` (declared in CDynamicCodecs).
    ///
    /// - Throws: `ImageError.libraryMissing` when the installed version lacks it (too old).
    package func function<Function>(_ name: String, as type: Function.Type = Function.self) throws(ImageError)
        -> Function
    {
        guard let address = dlsym(handle, name) else {
            throw ImageError.libraryMissing(
                format: format, library: soname, debianPackage: debianPackage,
                reason: "it has no \(name) (\(Self.lastError())); a newer version is needed"
            )
        }
        return unsafeBitCast(address, to: Function.self)
    }

    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "not found"
    }
}

/// A set of entry points resolved from one `DynamicLibrary` (libwebp's, giflib's, …).
package protocol DynamicLibraryBinding: Sendable {
    /// The soname loaded by default ("libwebp.so.7").
    static var defaultSoname: String { get }
    /// The format the library serves, for errors.
    static var format: ImageFormat { get }
    /// The Debian package that installs it.
    static var debianPackage: String { get }

    /// Resolves the entry points, checking the version where the library reports one.
    init(_ library: DynamicLibrary) throws(ImageError)
}

extension DynamicLibraryBinding {
    /// Loads `soname` and resolves the entry points; a bogus name simulates a machine without the library.
    package static func load(soname: String = defaultSoname) -> Result<Self, ImageError> {
        Result { () throws(ImageError) in
            try Self(DynamicLibrary(soname: soname, format: format, debianPackage: debianPackage))
        }
    }
}
