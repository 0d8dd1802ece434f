import RexControl
import Foundation
import SwiftRex

/// JSON forms of what the control endpoint serves.
enum ControlJSON {
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1000 + Double(attoseconds) / 1e15 * 1).rounded(toPlaces: 3)
    }

    static func wholeMilliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    static func keep(_ snapshot: KeepSnapshot, nowMs: Int) -> [String: Any] {
        [
            "channels": snapshot.channels.map { channel(_: $0, nowMs: nowMs) },
            "counters": counters(snapshot.counters),
        ]
    }

    static func counters(_ counters: ReconcileCounters) -> [String: Any] {
        [
            "cycles": counters.cycles, "changedCycles": counters.changedCycles, "opens": counters.opens,
            "cancels": counters.cancels, "recreates": counters.recreates, "deliveries": counters.deliveries,
            "drops": counters.drops, "live": counters.liveChannels,
            "lastMs": milliseconds(counters.lastDuration), "maxMs": milliseconds(counters.maxDuration),
        ]
    }

    static func channel(_ entry: KeepEntry, nowMs: Int) -> [String: Any] {
        let sinceMs = wholeMilliseconds(entry.since)
        return [
            "id": "\(entry.id)",
            "lifetime": entry.lifetime.isPermanent ? "permanent" : "ephemeral",
            "resetKey": entry.lifetime.resetKey.map { "\($0)" as Any } ?? NSNull(),
            "settleMs": entry.lifetime.settle.map { milliseconds($0) as Any } ?? NSNull(),
            "broadcasting": entry.broadcasting,
            "delivery": delivery(entry.delivery),
            "status": entry.status.rawValue,
            "supervised": entry.supervised,
            "sinceMs": sinceMs,
            "ageMs": max(0, nowMs - sinceMs),
            "opens": entry.opens, "recreates": entry.recreates, "deliveries": entry.deliveries, "drops": entry.drops,
            "history": entry.history.map(event),
        ]
    }

    static func delivery(_ delivery: ChannelDelivery) -> String {
        switch delivery {
        case .immediate: "immediate"
        case .throttle(let interval, let latest): "throttle(\(wholeMilliseconds(interval))ms\(latest ? ", latest" : ""))"
        case .debounce(let quiet): "debounce(\(wholeMilliseconds(quiet))ms)"
        }
    }

    static func event(_ event: ChannelEvent) -> [String: Any] {
        var json: [String: Any] = ["atMs": wholeMilliseconds(event.at)]
        switch event.kind {
        case .opened: json["event"] = "opened"
        case .settling: json["event"] = "settling"
        case .recreated(let from, let to):
            json["event"] = "recreated"
            json["from"] = from.map { "\($0)" as Any } ?? NSNull()
            json["to"] = to.map { "\($0)" as Any } ?? NSNull()
        case .dropped(let reason):
            json["event"] = "dropped"
            json["reason"] = reason
        case .cancelled(let reason):
            json["event"] = "cancelled"
            json["reason"] = reason
        }
        return json
    }

    /// Serializes a reply document (sorted keys, so output is stable).
    static func data(_ object: [String: Any]) -> [UInt8] {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { Array($0) } ?? Array("{}".utf8)
    }

    /// The node state as a JSON object.
    static func state(_ state: NodeState) -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(state),
              let object = try? JSONSerialization.jsonObject(with: data) else { return [:] as [String: Any] }
        return object
    }
}

extension ControlJSON {
    /// A JSON integer as decoded by `JSONSerialization`: nil for anything else, including `true`
    /// (which Foundation bridges to 1) and a number written with a fraction or exponent.
    static func integer(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber else { return nil }
        switch String(cString: number.objCType) {   // "c": a Bool, "d"/"f": written with a fraction or exponent
        case "d", "f", "c": return nil
        default: return value as? Int
        }
    }
}

extension Sequence {
    /// The sum of an integer field, saturating at `Int.max` (counters from hostile peers may be huge).
    func saturatingSum(_ field: (Element) -> Int) -> Int {
        var total = 0
        for element in self {
            let (sum, overflow) = total.addingReportingOverflow(field(element))
            total = overflow ? Int.max : sum
        }
        return total
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
