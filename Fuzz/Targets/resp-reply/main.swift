import FuzzSupport

// The "resp-reply" fuzz target; the parser call and its seeds are FuzzTargets.respReply.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.respReply.fuzzOneInput(bytes, count)
}

runFuzzer(fuzzOneInput)
