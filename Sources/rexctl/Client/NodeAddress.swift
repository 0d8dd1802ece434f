/// A node rexctl can talk to: its id and its control endpoint (and PUB endpoint, if known), and
/// its CURVE public key when the cluster file has one (then rexctl speaks CURVE to it and
/// expects exactly that key).
struct NodeAddress: Sendable, Equatable {
    var id: String
    var control: String
    var pub: String?
    var key: String? = nil
}
