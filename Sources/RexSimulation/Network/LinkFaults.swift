/// What the network does to the messages between two nodes now: one-way latency (a base, a
/// random jitter on top, and a delay of a slow link), a chance to lose each message, and cuts (a
/// partition, one way or both).
struct LinkFaults {
    var baseLatency: Duration = .microseconds(200)
    var jitter: Duration = .microseconds(800)
    /// Per ordered pair (from × count + to): loss probability and whether the direction is cut.
    private var loss: [Double]
    private var cut: [Bool]
    private var delay: [Duration]
    let count: Int

    init(nodes: Int) {
        count = nodes
        loss = Array(repeating: 0, count: nodes * nodes)
        cut = Array(repeating: false, count: nodes * nodes)
        delay = Array(repeating: .zero, count: nodes * nodes)
    }

    func isCut(_ from: Int, _ to: Int) -> Bool { cut[from * count + to] }
    func loss(_ from: Int, _ to: Int) -> Double { loss[from * count + to] }

    /// Latency added to every message of the direction (a slow or congested link).
    func delay(_ from: Int, _ to: Int) -> Duration { delay[from * count + to] }
    mutating func setDelay(_ from: Int, _ to: Int, _ value: Duration) { delay[from * count + to] = value }

    mutating func setCut(_ from: Int, _ to: Int, _ value: Bool) { cut[from * count + to] = value }
    mutating func setLoss(_ from: Int, _ to: Int, _ value: Double) { loss[from * count + to] = value }

    /// Whether any direction between `node` and another is cut.
    func touchesCut(_ node: Int) -> Bool {
        (0..<count).contains { $0 != node && (isCut(node, $0) || isCut($0, node)) }
    }

    /// No cut and no loss anywhere.
    mutating func healAll() {
        for index in cut.indices {
            cut[index] = false
            loss[index] = 0
            delay[index] = .zero
        }
    }
}
