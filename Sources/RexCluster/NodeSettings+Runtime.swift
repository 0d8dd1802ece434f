import RexControl

extension NodeSettings {
    package var feedInterval: Duration { .milliseconds(feedIntervalMs) }
    package var followSettle: Duration { .milliseconds(followSettleMs) }
}

extension NodeLimits {
    /// The largest frame a data-plane socket accepts (`ZMQ_MAXMSGSIZE`): a value, or a head of
    /// a snapshot-tagged topic, sender and two 20-digit numbers.
    package var maxFrameBytes: Int { max(maxValueBytes, 4 * maxNameBytes + 64) }

    /// The largest control frame libzmq reads at all; between `maxRequestBytes` and this, the
    /// client still gets an error reply.
    package var maxControlFrameBytes: Int { maxRequestBytes.multipliedReportingOverflow(by: 4).overflow ? Int.max : maxRequestBytes * 4 }

    /// Every limit with its flag name, for validation and help.
    package var all: [(flag: String, value: Int)] {
        [
            ("--max-name-bytes", maxNameBytes), ("--max-value-bytes", maxValueBytes),
            ("--max-request-bytes", maxRequestBytes), ("--max-reply-bytes", maxReplyBytes),
            ("--max-feeds", maxFeeds), ("--max-follows", maxFollows), ("--max-peers", maxPeers),
            ("--max-streams-per-follow", maxStreamsPerFollow), ("--queue-messages", queueMessages),
            ("--snapshot-rate", snapshotMessagesPerSecond),
        ]
    }
}
