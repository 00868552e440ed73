extension TaskPropertyTable {
    /// The properties of `org.progressd.Progress1.Task`, in the order the XML declares them
    /// (TaskProperty's cases are their indices; a test keeps the three in step).
    public static let standard = TaskPropertyTable(descriptors: [
        TaskPropertyDescriptor(
            "Name", { $0.name.text }, as: PropertyValue.string,
            persisted: .init("name", save: { .string($0.name.text) }) { _, value in
                value.string != nil  // the record's name made the task
            }),
        TaskPropertyDescriptor(
            "Title", { $0.title }, as: PropertyValue.string, texts: [.accessibleText],
            persisted: .text("title", \.title),
            option: TaskOption("title", read: { $0.title = try $1.text(maxBytes: $1.limits.maxTitleBytes) },
                               apply: { if let title = $0.title { $1.title = title } })),
        // Only through Update: the job's answer to a pause or cancel request.
        TaskPropertyDescriptor(
            "State", { $0.state }, as: { .string($0.rawValue) }, texts: [.accessibleText],
            persisted: .choice("state", \.ownState),
            option: TaskOption(
                "state", .update, read: { $0.state = try TaskUpdate.requestedState($1.text(maxBytes: 64)) })),
        TaskPropertyDescriptor(
            "Indeterminate", { $0.indeterminate }, as: PropertyValue.bool, texts: [.detail, .accessibleText],
            persisted: .flag("indeterminate", \.indeterminate),
            option: TaskOption("indeterminate", read: { $0.indeterminate = try $1.flag() })),
        // Fraction reads 0 while indeterminate; the record keeps the value underneath.
        TaskPropertyDescriptor(
            "Fraction", { $0.fraction }, as: PropertyValue.double, persisted: .number("fraction", \.storedFraction),
            option: TaskOption(
                "fraction", read: { $0.fraction = try TaskUpdate.validFraction($1.number(), key: $1.key) })),
        TaskPropertyDescriptor(
            "Completed", { $0.completed }, as: PropertyValue.uint64, texts: [.detail],
            persisted: .count("completed", \.completed),
            option: TaskOption("completed", read: { $0.completed = try $1.count() })),
        TaskPropertyDescriptor(
            "Total", { $0.total }, as: PropertyValue.uint64, texts: [.detail], persisted: .count("total", \.total),
            option: TaskOption("total", read: { $0.total = try $1.count() })),
        TaskPropertyDescriptor(
            "Unit", { $0.unit }, as: PropertyValue.string, texts: [.detail], persisted: .text("unit", \.unit),
            option: TaskOption("unit", read: { $0.unit = try $1.text(maxBytes: $1.limits.maxUnitBytes) },
                               apply: { if let unit = $0.unit { $1.unit = unit } })),
        TaskPropertyDescriptor(
            "Message", { $0.message }, as: PropertyValue.string, texts: [.accessibleText],
            persisted: .text("message", \.message),
            option: TaskOption("message", read: { $0.message = try $1.text(maxBytes: $1.limits.maxMessageBytes) },
                               apply: { if let message = $0.message { $1.message = message } })),
        TaskPropertyDescriptor(
            "AppId", { $0.appId }, as: PropertyValue.string, persisted: .text("appId", \.appId),
            option: TaskOption("app-id", read: { $0.appId = try $1.text(maxBytes: $1.limits.maxAppIdBytes) },
                               apply: { if let appId = $0.appId { $1.appId = appId } })),
        // What the job said is kept; what the daemon detected is detected again.
        TaskPropertyDescriptor(
            "UpdatesFrequently", { $0.updatesFrequently }, as: PropertyValue.bool,
            persisted: .flag("updatesFrequently", \.ownerSaysFrequent),
            option: TaskOption("updates-frequently", read: { $0.updatesFrequently = try $1.flag() },
                               apply: { if let frequent = $0.updatesFrequently { $1.ownerSaysFrequent = frequent } })),
        TaskPropertyDescriptor(
            "Serial", { $0.serial }, as: PropertyValue.uint64, persisted: .count("serial", \.serial)),
        TaskPropertyDescriptor(
            "Created", { $0.created }, as: PropertyValue.int64, persisted: .count("created", \.created)),
        TaskPropertyDescriptor(
            "Updated", { $0.updated }, as: PropertyValue.int64, persisted: .count("updated", \.updated)),
        // The label changes with the whole percent, in whatever language it is read.
        TaskPropertyDescriptor(
            "Label", read: { task, texts in .string(task.wholePercent.map(texts.label(wholePercent:)) ?? "") },
            change: .differs { $0.wholePercent != $1.wholePercent }, texts: [.detail, .accessibleText]),
        TaskPropertyDescriptor("Detail", read: { task, texts in .string(texts.detail(of: task)) }, change: .composed),
        TaskPropertyDescriptor(
            "AccessibleText", read: { task, texts in .string(texts.accessibleText(of: task)) }, change: .composed),
        TaskPropertyDescriptor("Rate", { $0.rate }, as: PropertyValue.double),
        TaskPropertyDescriptor(
            "SecondsRemaining", { $0.secondsRemaining }, as: PropertyValue.int64, texts: [.detail, .accessibleText]),
        TaskPropertyDescriptor("Stalled", { $0.isStalled }, as: PropertyValue.bool, texts: [.accessibleText]),
        // Only through Start, with the parent: what fixes the task's place and life.
        TaskPropertyDescriptor(
            "Lifetime", { $0.lifetime }, as: { .string($0.rawValue) }, persisted: .choice("lifetime", \.lifetime),
            option: TaskOption("lifetime", .start, read: { $0.lifetime = try $1.choice(Lifetime.self) })),
        TaskPropertyDescriptor(
            "Cancellable", { $0.cancellable }, as: PropertyValue.bool, persisted: .flag("cancellable", \.cancellable),
            option: TaskOption("cancellable", read: { $0.cancellable = try $1.flag() },
                               apply: { if let cancellable = $0.cancellable { $1.cancellable = cancellable } })),
        TaskPropertyDescriptor(
            "Pausable", { $0.pausable }, as: PropertyValue.bool, persisted: .flag("pausable", \.pausable),
            option: TaskOption("pausable", read: { $0.pausable = try $1.flag() },
                               apply: { if let pausable = $0.pausable { $1.pausable = pausable } })),
        TaskPropertyDescriptor(
            "CancelRequested", { $0.cancelRequested }, as: PropertyValue.bool,
            persisted: .flag("cancelRequested", \.cancelRequested)),
        TaskPropertyDescriptor(
            "Parent", { $0.parent }, as: { .string($0?.text ?? "") },
            persisted: .init("parent", save: { $0.parent.map { .string($0.text) } }) { task, value in
                guard let text = value.string else { return false }
                // Checked against the store's tree after every record is in.
                task.parent = try? TaskName(text)
                return true
            },
            // Checked as a task name by the store, with the same InvalidName as any other name.
            option: TaskOption("parent", .start, read: { $0.parent = try $1.string() })),
        TaskPropertyDescriptor(
            "Weight", { $0.weight }, as: PropertyValue.double, persisted: .number("weight", \.weight),
            option: TaskOption("weight", read: { update, input in
                let weight = try input.number()
                guard weight.isFinite, Limits.weightRange.contains(weight) else {
                    throw ProgressError.invalidValue(
                        "weight \(weight) is outside "
                            + "\(Limits.weightRange.lowerBound)...\(Int(Limits.weightRange.upperBound))")
                }
                update.weight = weight
            }, apply: { if let weight = $0.weight { $1.weight = weight } })),
    ])

    /// Kept across restarts, but no property of their own; and the one option kept nowhere.
    public static let standardSettings: [TaskSetting] = [
        TaskSetting(persisted: .count("leaseSeconds", \.leaseSeconds), option: TaskOption(
            "lease-seconds", read: { $0.leaseSeconds = try $1.whole(in: Limits.durationRange) },
            apply: { if let seconds = $0.leaseSeconds { $1.leaseSeconds = seconds } })),
        TaskSetting(persisted: .count("stallSeconds", \.stallSeconds), option: TaskOption(
            "stall-seconds", read: { $0.stallSeconds = try $1.whole(in: Limits.durationRange) },
            apply: { if let seconds = $0.stallSeconds { $1.stallSeconds = seconds } })),
        TaskSetting(persisted: .count("lingerSeconds", \.lingerSeconds), option: TaskOption(
            "linger-seconds", read: { $0.lingerSeconds = try $1.whole(in: 0...Limits.durationRange.upperBound) },
            apply: { if let seconds = $0.lingerSeconds { $1.lingerSeconds = seconds } })),
        TaskSetting(persisted: .choice("childFailure", \.childFailure), option: TaskOption(
            "child-failure", read: { $0.childFailure = try $1.choice(ChildFailurePolicy.self) },
            apply: { if let policy = $0.childFailure { $1.childFailure = policy } })),
        // Only through Start: the access policy reads it (OwnerAccess).
        TaskSetting(option: TaskOption("take-over", .start, read: { $0.takeOver = try $1.flag() })),
    ]
}
