import ProgressModel

/// A task property only the tests declare, to prove that a property is one row: `Priority`,
/// a whole number 0...9, set with a `priority` option by Start and Update, kept as
/// `priority`, said by AccessibleText. It has no field in ProgressTask or TaskUpdate and no
/// code anywhere names it; the option, the store, the diff, the record and the bus values
/// follow from the row.
public enum TestOnlyProperty {
    public static let row = TaskPropertyDescriptor(
        "Priority", initial: .uint64(0), texts: [.accessibleText], persisted: "priority",
        option: ValueOption("priority") { .uint64(try $0.whole(in: 0...9)) })

    /// The standard table with the row after its own.
    public static let table = TaskPropertyTable(descriptors: TaskPropertyTable.standard.descriptors + [row])
}
