import ZMQ

extension NodeSubscriber {
    /// Makes every connection to the publisher at `endpoint` anew, expecting the key its member
    /// proves now (a secured node whose policy changed): a member whose key was revoked is
    /// dropped at once, and stays dropped until its member has a key again and a channel
    /// connects it anew; one given a new key is reconnected under it. The connection counts are
    /// kept, so the channels that asked for the connection still release it once each.
    func rekey(_ endpoint: String) {
        if connected[endpoint] != nil { reconnect(shared, to: endpoint) }
        for entry in dedicated.values where entry.endpoint == endpoint { reconnect(entry.socket, to: endpoint) }
    }

    private func reconnect(_ socket: ZMQSocket, to endpoint: String) {
        try? socket.disconnect(endpoint)
        do {
            try security?.expectPublisherKey(of: endpoint, on: socket)
            try socket.connect(endpoint)
            log.info("peer_rekeyed", ["endpoint": endpoint])
        } catch {
            log.info("peer_dropped", ["endpoint": endpoint, "reason": error.message])
        }
    }
}
