import ZMQ

/// ZMTP heartbeats on every data-plane connection: each side pings the other every second and
/// drops a connection that brought no traffic for three (libzmq's I/O threads do it; the
/// reactor is not involved).
///
/// Why: without them a connection across a network partition stalls instead of failing, and
/// resumes only at TCP's next retransmission, which backs off exponentially (the multi-host
/// suite measured a heal 3.4–3.6 s after a 3 s cut). With them the subscriber drops the dead
/// connection and reconnects every 100 ms (libzmq's reconnect interval), resubscribing and asking
/// for its snapshots again. On the publisher's side a subscriber that stops reading stops
/// answering too — its pings wait behind the data it does not read — so its connection is
/// dropped and its queue freed.
enum ConnectionHeartbeat {
    static let interval = Duration.seconds(1)
    static let timeout = Duration.seconds(3)

    /// Set before bind/connect.
    static func apply(to socket: ZMQSocket) throws(ZMQError) {
        try socket.setOption(.heartbeatInterval, interval)
        try socket.setOption(.heartbeatTimeout, timeout)
        try socket.setOption(.heartbeatTTL, timeout)
    }
}
