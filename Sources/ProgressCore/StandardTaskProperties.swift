extension TaskPropertyTable {
    /// The properties of `org.progressd.Progress1.Task`, in the order the XML declares them
    /// (TaskProperty's cases are their indices; a test keeps the three in step).
    public static let standard = TaskPropertyTable(descriptors: [
        TaskPropertyDescriptor("Name", \.name.text, as: PropertyValue.string, persisted: .init("name", save: { .string($0.name.text) }) { _, value in
            value.string != nil  // the record's name made the task
        }),
        TaskPropertyDescriptor("Title", \.title, as: PropertyValue.string, persisted: .text("title", \.title)),
        TaskPropertyDescriptor("State", \.state, as: { .string($0.rawValue) }, persisted: .choice("state", \.ownState)),
        TaskPropertyDescriptor("Indeterminate", \.indeterminate, as: PropertyValue.bool, persisted: .flag("indeterminate", \.indeterminate)),
        // Fraction reads 0 while indeterminate; the record keeps the value underneath.
        TaskPropertyDescriptor("Fraction", \.fraction, as: PropertyValue.double, persisted: .number("fraction", \.storedFraction)),
        TaskPropertyDescriptor("Completed", \.completed, as: PropertyValue.uint64, persisted: .count("completed", \.completed)),
        TaskPropertyDescriptor("Total", \.total, as: PropertyValue.uint64, persisted: .count("total", \.total)),
        TaskPropertyDescriptor("Unit", \.unit, as: PropertyValue.string, persisted: .text("unit", \.unit)),
        TaskPropertyDescriptor("Message", \.message, as: PropertyValue.string, persisted: .text("message", \.message)),
        TaskPropertyDescriptor("AppId", \.appId, as: PropertyValue.string, persisted: .text("appId", \.appId)),
        // What the job said is kept; what the daemon detected is detected again.
        TaskPropertyDescriptor(
            "UpdatesFrequently", \.updatesFrequently, as: PropertyValue.bool,
            persisted: .flag("updatesFrequently", \.ownerSaysFrequent)),
        TaskPropertyDescriptor("Serial", \.serial, as: PropertyValue.uint64, persisted: .count("serial", \.serial)),
        TaskPropertyDescriptor("Created", \.created, as: PropertyValue.int64, persisted: .count("created", \.created)),
        TaskPropertyDescriptor("Updated", \.updated, as: PropertyValue.int64, persisted: .count("updated", \.updated)),
        // The label changes with the whole percent, in whatever language it is read.
        TaskPropertyDescriptor(
            "Label", read: { task, texts in .string(task.wholePercent.map(texts.label(wholePercent:)) ?? "") },
            change: .differs { $0.wholePercent != $1.wholePercent }),
        TaskPropertyDescriptor(
            "Detail", read: { task, texts in .string(texts.detail(of: task)) },
            change: .composed(of: ["Completed", "Total", "Unit", "Indeterminate", "Label", "SecondsRemaining"])),
        TaskPropertyDescriptor(
            "AccessibleText", read: { task, texts in .string(texts.accessibleText(of: task)) },
            change: .composed(of: ["Title", "State", "Label", "Message", "Stalled", "SecondsRemaining", "Indeterminate"])),
        TaskPropertyDescriptor("Rate", \.rate, as: PropertyValue.double),
        TaskPropertyDescriptor("SecondsRemaining", \.secondsRemaining, as: PropertyValue.int64),
        TaskPropertyDescriptor("Stalled", \.isStalled, as: PropertyValue.bool),
        TaskPropertyDescriptor("Lifetime", \.lifetime, as: { .string($0.rawValue) }, persisted: .choice("lifetime", \.lifetime)),
        TaskPropertyDescriptor("Cancellable", \.cancellable, as: PropertyValue.bool, persisted: .flag("cancellable", \.cancellable)),
        TaskPropertyDescriptor("Pausable", \.pausable, as: PropertyValue.bool, persisted: .flag("pausable", \.pausable)),
        TaskPropertyDescriptor(
            "CancelRequested", \.cancelRequested, as: PropertyValue.bool, persisted: .flag("cancelRequested", \.cancelRequested)),
        TaskPropertyDescriptor(
            "Parent", \.parent, as: { .string($0?.text ?? "") },
            persisted: .init("parent", save: { $0.parent.map { .string($0.text) } }) { task, value in
                guard let text = value.string else { return false }
                // Checked against the store's tree after every record is in.
                task.parent = try? TaskName(text)
                return true
            }),
        TaskPropertyDescriptor("Weight", \.weight, as: PropertyValue.double, persisted: .number("weight", \.weight)),
    ])

    /// Kept across restarts, but no property of their own.
    public static let storedOnlyFields: [TaskRecordField] = [
        .count("leaseSeconds", \.leaseSeconds), .count("stallSeconds", \.stallSeconds),
        .count("lingerSeconds", \.lingerSeconds), .choice("childFailure", \.childFailure),
    ]
}
