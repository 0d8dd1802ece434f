/// A node rexctl can talk to: its id and its control endpoint (and PUB endpoint, if known).
struct NodeAddress: Sendable, Equatable {
    var id: String
    var control: String
    var pub: String?
}
