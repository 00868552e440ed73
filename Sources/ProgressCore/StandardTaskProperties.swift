extension TaskPropertyTable {
    /// The properties of `org.progressd.Progress1.Task`, in the order the XML declares them
    /// (TaskProperty's cases are their indices; a test keeps the three in step).
    public static let standard = TaskPropertyTable(descriptors: [
        TaskPropertyDescriptor("Name", { $0.name.text }, as: PropertyValue.string, persisted: .init("name", save: { .string($0.name.text) }) { _, value in
            value.string != nil  // the record's name made the task
        }),
        TaskPropertyDescriptor("Title", { $0.title }, as: PropertyValue.string, persisted: .text("title", \.title)),
        TaskPropertyDescriptor("State", { $0.state }, as: { .string($0.rawValue) }, persisted: .choice("state", \.ownState)),
        TaskPropertyDescriptor("Indeterminate", { $0.indeterminate }, as: PropertyValue.bool, persisted: .flag("indeterminate", \.indeterminate)),
        // Fraction reads 0 while indeterminate; the record keeps the value underneath.
        TaskPropertyDescriptor("Fraction", { $0.fraction }, as: PropertyValue.double, persisted: .number("fraction", \.storedFraction)),
        TaskPropertyDescriptor("Completed", { $0.completed }, as: PropertyValue.uint64, persisted: .count("completed", \.completed)),
        TaskPropertyDescriptor("Total", { $0.total }, as: PropertyValue.uint64, persisted: .count("total", \.total)),
        TaskPropertyDescriptor("Unit", { $0.unit }, as: PropertyValue.string, persisted: .text("unit", \.unit)),
        TaskPropertyDescriptor("Message", { $0.message }, as: PropertyValue.string, persisted: .text("message", \.message)),
        TaskPropertyDescriptor("AppId", { $0.appId }, as: PropertyValue.string, persisted: .text("appId", \.appId)),
        // What the job said is kept; what the daemon detected is detected again.
        TaskPropertyDescriptor(
            "UpdatesFrequently", { $0.updatesFrequently }, as: PropertyValue.bool,
            persisted: .flag("updatesFrequently", \.ownerSaysFrequent)),
        TaskPropertyDescriptor("Serial", { $0.serial }, as: PropertyValue.uint64, persisted: .count("serial", \.serial)),
        TaskPropertyDescriptor("Created", { $0.created }, as: PropertyValue.int64, persisted: .count("created", \.created)),
        TaskPropertyDescriptor("Updated", { $0.updated }, as: PropertyValue.int64, persisted: .count("updated", \.updated)),
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
        TaskPropertyDescriptor("Rate", { $0.rate }, as: PropertyValue.double),
        TaskPropertyDescriptor("SecondsRemaining", { $0.secondsRemaining }, as: PropertyValue.int64),
        TaskPropertyDescriptor("Stalled", { $0.isStalled }, as: PropertyValue.bool),
        TaskPropertyDescriptor("Lifetime", { $0.lifetime }, as: { .string($0.rawValue) }, persisted: .choice("lifetime", \.lifetime)),
        TaskPropertyDescriptor("Cancellable", { $0.cancellable }, as: PropertyValue.bool, persisted: .flag("cancellable", \.cancellable)),
        TaskPropertyDescriptor("Pausable", { $0.pausable }, as: PropertyValue.bool, persisted: .flag("pausable", \.pausable)),
        TaskPropertyDescriptor(
            "CancelRequested", { $0.cancelRequested }, as: PropertyValue.bool, persisted: .flag("cancelRequested", \.cancelRequested)),
        TaskPropertyDescriptor(
            "Parent", { $0.parent }, as: { .string($0?.text ?? "") },
            persisted: .init("parent", save: { $0.parent.map { .string($0.text) } }) { task, value in
                guard let text = value.string else { return false }
                // Checked against the store's tree after every record is in.
                task.parent = try? TaskName(text)
                return true
            }),
        TaskPropertyDescriptor("Weight", { $0.weight }, as: PropertyValue.double, persisted: .number("weight", \.weight)),
    ])

    /// Kept across restarts, but no property of their own.
    public static let storedOnlyFields: [TaskRecordField] = [
        .count("leaseSeconds", \.leaseSeconds), .count("stallSeconds", \.stallSeconds),
        .count("lingerSeconds", \.lingerSeconds), .choice("childFailure", \.childFailure),
    ]
}
