import ProgressModel

/// What a mutating call's handler asks of the service: the command, and the reply value
/// if it succeeds (built only then).
struct Mutation {
    let command: TaskCommand
    var replyValue: () -> OpaquePointer? = { nil }
}
