import FuzzSupport

// The "heif" fuzz target; the parser call and its seeds are FuzzTargets.heif.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.heif.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
