import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing

/// A node started from a cluster file serves metrics where the file says, and only then.
@Suite struct ClusterMetricsTests {
    @Test func theClusterFileNamesTheMetricsEndpoint() throws {
        let file = ClusterFile(nodes: [
            .init(
                id: "n1", pub: "tcp://127.0.0.1:7101", control: "tcp://127.0.0.1:7201", metrics: "tcp://127.0.0.1:9101",
                membership: "tcp://127.0.0.1:7301"),
            .init(id: "n2", pub: "tcp://127.0.0.1:7102", control: "tcp://127.0.0.1:7202", membership: "tcp://127.0.0.1:7302"),
        ])
        #expect(try file.configuration(for: "n1").metricsEndpoint == "tcp://127.0.0.1:9101")
        #expect(try file.configuration(for: "n2").metricsEndpoint == nil)
    }
}
