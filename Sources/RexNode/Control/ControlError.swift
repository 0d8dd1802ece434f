/// Why a control request was refused; becomes an error reply, never a crash.
struct ControlError: Error, Sendable {
    enum Code: String, Sendable {
        case badRequest, badVersion, unknownOp, unknownAction, badAction, shuttingDown, tooLarge, limitReached
    }

    let code: Code
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
