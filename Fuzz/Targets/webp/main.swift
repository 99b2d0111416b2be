import FuzzSupport

// The "webp" fuzz target; the parser call and its seeds are FuzzTargets.webp.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.webp.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
