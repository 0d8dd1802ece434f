public import Distributed

/// Records a distributed call's arguments in their wire form (see ``ClusterActorSystem``).
///
/// Arguments are encoded as they are recorded, each bounded by
/// ``ClusterActorSystemSettings/maxArgumentBytes``; a call with more than
/// ``ClusterActorSystemSettings/maxArguments`` arguments, or a generic distributed function,
/// throws before anything is sent.
public struct ClusterInvocationEncoder: DistributedTargetInvocationEncoder {
    public typealias SerializationRequirement = Codable

    var arguments = ArgumentList()
    /// The call came through a `@Resolvable` protocol's stub: the callee substitutes its own type.
    var substitutesSelf = false
    let maxArgumentBytes: Int
    let maxArguments: Int

    init(maxArgumentBytes: Int, maxArguments: Int) {
        self.maxArgumentBytes = maxArgumentBytes
        self.maxArguments = maxArguments
    }

    public mutating func recordGenericSubstitution<T>(_ type: T.Type) throws {
        // A protocol stub's call records the stub type as `Self`; any other substitution is a
        // generic function, whose type arguments would have to travel by name.
        if !substitutesSelf && arguments.count == 0 && type is any DistributedActor.Type {
            substitutesSelf = true
            return
        }
        throw ActorCallError(.unsupported, "generic distributed functions are not supported (type argument \(T.self))")
    }

    public mutating func recordArgument<Value: SerializationRequirement>(_ argument: RemoteCallArgument<Value>) throws {
        guard arguments.count < maxArguments else {
            throw ActorCallError(.argumentTooLarge, "more than \(maxArguments) arguments")
        }
        let encoded = try ArgumentCodec.encode(argument.value, limit: maxArgumentBytes)
        ActorFrame.appendU32(UInt32(truncatingIfNeeded: encoded.count), to: &arguments.bytes)
        arguments.bytes.append(contentsOf: encoded)
        arguments.count += 1
    }

    public mutating func recordErrorType<E: Error>(_ type: E.Type) throws {}

    public mutating func recordReturnType<R: SerializationRequirement>(_ type: R.Type) throws {}

    public mutating func doneRecording() throws {}
}

/// Hands a received call's arguments to the target, decoding each as the target's parameter type.
public struct ClusterInvocationDecoder: DistributedTargetInvocationDecoder {
    public typealias SerializationRequirement = Codable

    let arguments: [ArraySlice<UInt8>]
    var index = 0
    let selfType: Any.Type?

    init(arguments: [ArraySlice<UInt8>], selfType: Any.Type?) {
        self.arguments = arguments
        self.selfType = selfType
    }

    public mutating func decodeGenericSubstitutions() throws -> [Any.Type] {
        selfType.map { [$0] } ?? []
    }

    public mutating func decodeNextArgument<Argument: SerializationRequirement>() throws -> Argument {
        guard index < arguments.count else {
            throw ActorCallError(.decodingFailed, "the call carries fewer arguments than the target takes")
        }
        defer { index += 1 }
        return try ArgumentCodec.decode(Argument.self, from: arguments[index])
    }

    public mutating func decodeErrorType() throws -> Any.Type? { nil }

    public mutating func decodeReturnType() throws -> Any.Type? { nil }
}
