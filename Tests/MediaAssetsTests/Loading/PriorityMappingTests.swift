import Testing

@testable import MediaAssets

@Suite("Request priorities and task priorities")
struct PriorityMappingTests {
    @Test("the five request priorities run at five task priorities, in the same order, and map back")
    func fiveDistinctTaskPriorities() {
        let priorities = AssetRequest.Priority.allCases.map(\.taskPriority)
        #expect(Set(priorities.map(\.rawValue)).count == 5)
        #expect(priorities == priorities.sorted())
        for priority in AssetRequest.Priority.allCases {
            #expect(LivePriority.matching(priority.taskPriority) == priority)
        }
        #expect(LivePriority.matching(nil) == .normal)
    }
}
