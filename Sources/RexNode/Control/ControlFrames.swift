import RexControl

/// The control endpoint's fixed shapes, apart from the generic service that reads them.
enum ControlFrames {
    /// The most frames a request may have: the ROUTER's identity, a REQ's empty delimiter and
    /// the payload. A longer message is refused without keeping its frames.
    static let maxFrames = 4
    /// The operations whose documents are built off the reactor and answered later.
    static let answeredLater: Set<ControlOperation> = [.state, .keep, .metrics]
}
