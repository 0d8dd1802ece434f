import Dispatch
import Foundation
import RexCluster
import RexControl

extension NodeCommand {
    /// Parses arguments (without the program name).
    public static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        var id: String?
        var pub: String?
        var control: String?
        var metrics: String?
        var membership: String?
        var advertise: String?
        var seeds: [String] = []
        var peers: [String: PeerSpec] = [:]
        var cluster: String?
        var keyFile: String?
        var operatorsFile: String?
        var authorityFile: String?
        var insecure = false
        var settings = NodeSettings()
        var level = NodeLogger.Level.info
        var logFormat = LogFormat.text
        var dataDirectory: String?
        var durability: DurabilityMode?
        var compactActions: Int?
        var compactBytes: Int?
        var period: Int?
        var index = 0

        func value(for flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw UsageError(message: "\(flag) needs a value")
            }
            return arguments[index]
        }
        func milliseconds(for flag: String) throws(UsageError) -> Int {
            let text = try value(for: flag)
            guard let number = Int(text), (0...Self.maxMilliseconds).contains(number) else {
                throw UsageError(message: "\(flag) takes a whole number of milliseconds from 0 to \(Self.maxMilliseconds) (got '\(text)')")
            }
            return number
        }
        func count(for flag: String) throws(UsageError) -> Int {
            let text = try value(for: flag)
            guard let number = Int(text), (1...Self.maxLimit).contains(number) else {
                throw UsageError(message: "\(flag) takes a whole number from 1 to \(Self.maxLimit) (got '\(text)')")
            }
            return number
        }

        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help": return .help
            case "--id": id = try value(for: argument)
            case "--pub": pub = try value(for: argument)
            case "--control": control = try value(for: argument)
            case "--metrics": metrics = try value(for: argument)
            case "--membership": membership = try value(for: argument)
            case "--join": seeds.append(try value(for: argument))
            case "--advertise": advertise = try value(for: argument)
            case "--cluster": cluster = try value(for: argument)
            case "--key": keyFile = try value(for: argument)
            case "--operators": operatorsFile = try value(for: argument)
            case "--authority": authorityFile = try value(for: argument)
            case "--insecure": insecure = true
            case "--peer":
                let spec = try value(for: argument)
                guard let peer = PeerSpec(spec) else {
                    throw UsageError(
                        message: "--peer takes ID=PUB,MEMBERSHIP: the peer's publisher and its membership endpoint (got '\(spec)')")
                }
                peers[peer.id] = peer
            case "--protocol-period":
                let text = try value(for: argument)
                guard let number = Int(text), NodeConfiguration.membershipPeriodRangeMs.contains(number) else {
                    let range = NodeConfiguration.membershipPeriodRangeMs
                    throw UsageError(
                        message:
                            "--protocol-period takes a whole number of milliseconds from \(range.lowerBound) to \(range.upperBound) (got '\(text)')"
                    )
                }
                period = number
            case "--feed-interval": settings.feedIntervalMs = try milliseconds(for: argument)
            case "--follow-settle": settings.followSettleMs = try milliseconds(for: argument)
            case "--heartbeat":
                throw UsageError(
                    message:
                        "--heartbeat is gone: every node runs the SWIM membership (its period is --protocol-period, 100 ms by default; see README \"Membership\")"
                )
            case "--max-name-bytes": settings.limits.maxNameBytes = try count(for: argument)
            case "--max-value-bytes": settings.limits.maxValueBytes = try count(for: argument)
            case "--max-request-bytes": settings.limits.maxRequestBytes = try count(for: argument)
            case "--max-reply-bytes": settings.limits.maxReplyBytes = try count(for: argument)
            case "--max-feeds": settings.limits.maxFeeds = try count(for: argument)
            case "--max-follows": settings.limits.maxFollows = try count(for: argument)
            case "--max-peers": settings.limits.maxPeers = try count(for: argument)
            case "--max-streams-per-follow": settings.limits.maxStreamsPerFollow = try count(for: argument)
            case "--queue-messages": settings.limits.queueMessages = try count(for: argument)
            case "--snapshot-rate": settings.limits.snapshotMessagesPerSecond = try count(for: argument)
            case "--data-dir": dataDirectory = try value(for: argument)
            case "--durability":
                let name = try value(for: argument)
                guard let mode = DurabilityMode(rawValue: name) else {
                    throw UsageError(message: "--durability takes none or batch (got '\(name)')")
                }
                durability = mode
            case "--compact-actions": compactActions = try count(for: argument)
            case "--compact-bytes": compactBytes = try count(for: argument)
            case "--log-level":
                let name = try value(for: argument)
                guard let parsed = NodeLogger.Level(name: name) else {
                    throw UsageError(message: "--log-level takes debug, info, warning or error (got '\(name)')")
                }
                level = parsed
            case "--log-format":
                let name = try value(for: argument)
                guard let parsed = LogFormat(name: name) else {
                    throw UsageError(message: "--log-format takes text or json (got '\(name)')")
                }
                logFormat = parsed
            default:
                throw UsageError(message: "unknown option '\(argument)'")
            }
            index += 1
        }

        guard let id else { throw UsageError(message: "--id is required") }
        if cluster == nil, keyFile != nil || operatorsFile != nil || authorityFile != nil {
            throw UsageError(
                message: "--key, --operators and --authority need --cluster: a secured node takes its members' keys from the cluster file")
        }
        var configuration: NodeConfiguration
        if let cluster {
            do {
                let file = try ClusterFile.load(cluster)
                configuration = try file.configuration(for: id)
                if !insecure {
                    configuration.security = try NodeSecurity.load(
                        cluster: file, clusterPath: cluster, id: id, keyPath: keyFile, operatorsPath: operatorsFile,
                        authorityPath: authorityFile)
                }
            } catch {
                throw UsageError(message: error.message)
            }
            if let pub { configuration.pubEndpoint = pub }
            if let control { configuration.controlEndpoint = control }
            if let metrics { configuration.metricsEndpoint = metrics }
        } else {
            configuration = NodeConfiguration(id: id, metricsEndpoint: metrics)
            if let pub { configuration.pubEndpoint = pub }
            if let control { configuration.controlEndpoint = control }
        }
        for peer in peers.values { configuration.addPeer(peer.id, pub: peer.pub, membership: peer.membership) }
        if let membership { configuration.membershipEndpoint = membership }
        configuration.membershipSeeds += seeds
        configuration.advertiseHost = advertise
        if let period { configuration.membershipPeriodMs = period }
        configuration.settings = settings
        configuration.logLevel = level
        configuration.logFormat = logFormat
        configuration.insecure = insecure
        if let dataDirectory {
            var durable = DurableOptions(directory: dataDirectory, mode: durability ?? .batch)
            if let compactActions { durable.compactEveryActions = compactActions }
            if let compactBytes { durable.compactEveryBytes = compactBytes }
            configuration.durable = durable
        } else if durability != nil || compactActions != nil || compactBytes != nil {
            throw UsageError(message: "--durability, --compact-actions and --compact-bytes need --data-dir")
        }
        do {
            try configuration.validate()
        } catch {
            throw UsageError(message: error.message)
        }
        return .run(configuration)
    }
}
