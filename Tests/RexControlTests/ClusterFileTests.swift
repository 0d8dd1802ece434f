import RexCluster
import RexControl
import RexFeeds
import Testing

@Suite struct ClusterFileTests {
    func parse(_ text: String) throws(ClusterFileError) -> ClusterFile { try ClusterFile.parse(Array(text.utf8)) }

    @Test func readsNodesIgnoringOtherMembers() throws {
        let file = try parse(
            #"{"nodes": [{"id": "n1", "pub": "tcp://a:1", "control": "tcp://a:2", "extra": 1}, {"id": "n2", "control": "c"}], "x": 2}"#)
        #expect(file.nodes == [.init(id: "n1", pub: "tcp://a:1", control: "tcp://a:2"), .init(id: "n2", pub: nil, control: "c")])
    }

    @Test func theMetricsEndpointIsOptional() throws {
        let file = try parse(
            #"{"nodes": [{"id": "n1", "pub": "p", "control": "c", "metrics": "tcp://127.0.0.1:9101"}, {"id": "n2", "control": "c2"}]}"#)
        #expect(file.nodes.map(\.metrics) == ["tcp://127.0.0.1:9101", nil])
    }

    @Test(arguments: [
        (#"{"nodes": [{"id": "n1"}]}"#, #"node n1 has no "control" endpoint"#),
        (#"{"nodes": [{"id": "n1", "control": ""}]}"#, #"node n1 has no "control" endpoint"#),
        (#"{"nodes": [{"control": "c"}]}"#, #"nodes[0] has no "id" string"#),
        (#"{"nodes": [{"id": 5, "control": "c"}]}"#, #"nodes[0] has no "id" string"#),
        (#"{"nodes": [{"id": "n1", "control": "tcp://a:1"}, {"id": "n1", "control": "tcp://a:2"}]}"#, "node id n1 appears twice"),
        ("{}", #"it has no "nodes" array"#),
        ("[]", #"it has no "nodes" array"#),
        ("{bad", "it is not valid JSON (not valid JSON)"),
    ])
    func saysWhatIsWrong(text: String, message: String) {
        #expect(throws: ClusterFileError(message)) { try parse(text) }
    }

    @Test func aMissingFileIsNamedAsSuch() {
        #expect(throws: ClusterFileError("it does not exist or cannot be read")) { try ClusterFile.read(path: "/nonexistent/cluster.json") }
    }
}
