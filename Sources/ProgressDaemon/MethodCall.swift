import CGLib
import ProgressBus
import ProgressCore

/// One incoming method call: who sent it, its arguments, and the invocation to answer.
struct MethodCall {
    let sender: ClientID
    let parameters: OpaquePointer
    let invocation: OpaquePointer

    func string(_ index: Int) -> String { Variant.stringChild(parameters, index) }
    func double(_ index: Int) -> Double { Variant.doubleChild(parameters, index) }
    func options(_ index: Int) -> [(key: String, value: OptionValue)] { Variant.optionsChild(parameters, index) }
    func child(_ index: Int) -> OpaquePointer { Variant.child(parameters, index) }

    func reply(_ value: OpaquePointer?) {
        g_dbus_method_invocation_return_value(invocation, value)
    }

    func reply(_ error: ProgressError) {
        g_dbus_method_invocation_return_dbus_error(invocation, BusNames.errorName(error), error.message)
    }
}

/// What a mutating call's handler asks of the service: the command, and the reply value
/// if it succeeds (built only then).
struct Mutation {
    let command: TaskCommand
    var replyValue: () -> OpaquePointer? = { nil }
}
