import Foundation
import RexCluster
import RexMembership

#if canImport(Glibc)
import Glibc
#endif

extension NodeConfiguration {
    /// The longest `--advertise` host (a DNS name's limit).
    static let maxAdvertiseHostBytes = 253
    /// The longest membership endpoint (its bytes name a seed's connection, within libzmq's 255-byte routing ids).
    static let maxMembershipEndpointBytes = 60

    /// `endpoint` as peers and operators are told it: a `tcp://` endpoint with its host replaced
    /// by ``advertiseHost`` and its port kept; anything else, or any endpoint without an
    /// advertise host, unchanged. Give it the bound endpoint (the real port of a `:*`).
    public func advertised(_ endpoint: String) -> String {
        guard let advertiseHost, endpoint.hasPrefix("tcp://") else { return endpoint }
        let rest = endpoint.dropFirst(6)
        guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex else { return endpoint }
        return "tcp://" + advertiseHost + rest[colon...]
    }

    /// Checks `--advertise` against the endpoints: a wildcard bind (`0.0.0.0`, `*`, `[::]`) of the
    /// publisher or the membership needs one (peers cannot dial a wildcard); the host is a DNS
    /// name, an IPv4 address or a bracketed IPv6 address; the endpoints it makes fit the
    /// membership's bounds; and a secured node advertises the publisher its cluster file lists
    /// (peers connect only where the cluster file gives them the key).
    func validateAdvertise() throws(NodeError) {
        let announced = [("--pub", pubEndpoint), ("--membership", membershipEndpoint)]
        guard let host = advertiseHost else {
            if let (flag, endpoint) = announced.first(where: { Self.bindsWildcard($0.1) }) {
                throw NodeError(
                    .invalidConfiguration,
                    "\(flag) \(endpoint) binds every interface, and peers cannot dial that address:"
                        + " pass --advertise HOST, the DNS name or address they reach this node at")
            }
            return
        }
        guard Self.isAdvertisableHost(host) else {
            throw NodeError(
                .invalidConfiguration,
                "--advertise takes a DNS name, an IPv4 address or a bracketed IPv6 address of at most"
                    + " \(Self.maxAdvertiseHostBytes) bytes, without scheme or port, and not a wildcard (got '\(host.prefix(80))')")
        }
        if let (flag, endpoint) = announced.first(where: { !$0.1.hasPrefix("tcp://") }) {
            throw NodeError(.invalidConfiguration, "--advertise needs tcp:// endpoints, and \(flag) is \(endpoint)")
        }
        // Before binding, a `:*` port's digits are not known: counted at their most (5).
        let membership = advertised(
            membershipEndpoint.hasSuffix(":*") ? String(membershipEndpoint.dropLast()) + "65535" : membershipEndpoint)
        let pub = advertised(pubEndpoint.hasSuffix(":*") ? String(pubEndpoint.dropLast()) + "65535" : pubEndpoint)
        guard membership.utf8.count <= Self.maxMembershipEndpointBytes,
            membership.utf8.count + 1 + pub.utf8.count <= MembershipWire.maxAddressBytes
        else {
            throw NodeError(
                .invalidConfiguration,
                "--advertise \(host): peers would be told \(membership) and \(pub); a membership endpoint takes at most"
                    + " \(Self.maxMembershipEndpointBytes) bytes and both together \(MembershipWire.maxAddressBytes - 1)"
                    + " — advertise a shorter name (in Kubernetes, POD.SERVICE resolves within the pod's namespace)")
        }
        if !pubEndpoint.hasSuffix(":*"), let listed = security?.members.first(where: { $0.id == id })?.pub, listed != pub {
            throw NodeError(
                .invalidConfiguration,
                "--advertise \(host): peers would be told publisher \(pub), but the cluster file lists \(listed) for node \(id),"
                    + " and a secured peer connects only where the cluster file gives it the key — advertise the host the cluster file names"
            )
        }
    }

    /// Whether `endpoint` binds every interface of the machine.
    static func bindsWildcard(_ endpoint: String) -> Bool {
        guard endpoint.hasPrefix("tcp://") else { return false }
        let rest = endpoint.dropFirst(6)
        let host = rest.lastIndex(of: ":").map { rest[..<$0] } ?? rest
        return ["*", "0.0.0.0", "[::]", "::", "[*]"].contains(host)
    }

    /// A host peers can dial: a DNS name (labels of letters, digits and '-', 1 to 63 bytes each,
    /// not starting or ending with '-'), an IPv4 address, or an IPv6 address in brackets; never
    /// a wildcard; at most ``maxAdvertiseHostBytes``.
    static func isAdvertisableHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= maxAdvertiseHostBytes, !bindsWildcard("tcp://\(host):1") else { return false }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.utf8.count <= 48 else { return false }
            var address = in6_addr()
            return inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                }
        }
    }
}
