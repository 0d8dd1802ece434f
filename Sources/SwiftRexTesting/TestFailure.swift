import Testing

#if canImport(XCTest)
import XCTest
#endif

/// Reports a failed expectation of the test kit to whichever test framework runs the test.
///
/// Under Swift Testing (a `Test` is current on this task) it is an `Issue`; otherwise it is an
/// `XCTFail`, so an XCTest suite sees the failure at the call site of the assertion too.
enum TestFailure {
    static func record(_ message: String, at location: TestLocation) {
        if Test.current != nil {
            Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
            return
        }
        #if canImport(XCTest)
        XCTFail(message, file: location.filePath, line: location.line)
        #else
        Issue.record(Comment(rawValue: message), sourceLocation: location.sourceLocation)
        #endif
    }
}

/// Where a test kit assertion was called from, in the forms both frameworks take.
struct TestLocation {
    var fileID: String
    var filePath: StaticString
    var line: UInt
    var column: Int

    init(fileID: String, filePath: StaticString, line: UInt, column: Int) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    var sourceLocation: SourceLocation {
        SourceLocation(fileID: fileID, filePath: "\(filePath)", line: Int(clamping: line), column: max(column, 1))
    }
}
