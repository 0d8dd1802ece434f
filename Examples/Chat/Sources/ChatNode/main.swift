import Chat
import Foundation
import RexNode

// A whole node binary: the runtime (membership, security, durability, control, metrics) hosting
// the chat feature. `chat-node --help` lists its options.
exit(await NodeCommand.main(ChatFeature.self, arguments: Array(CommandLine.arguments.dropFirst())))
