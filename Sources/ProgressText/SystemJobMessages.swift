/// What the system-bus bridge calls the jobs of system services, in the daemon's locale:
/// PackageKit's roles and statuses, fwupd's statuses, UDisks2's operations and importd's
/// transfer types (the enums are PackageKit's pk-enum.c, fwupd's fwupd-enums.c, UDisks2's
/// Job.Operation list and import1's Transfer.Type).
extension MessageCatalog {
    public static let refreshingSources = Message.text("Refreshing software sources")
    public static let installingPackages = Message.text("Installing packages")
    public static let installingUpdates = Message.text("Installing updates")
    public static let removingPackages = Message.text("Removing packages")
    public static let downloadingPackages = Message.text("Downloading packages")
    public static let upgradingSystem = Message.text("Upgrading the system")
    public static let repairingSystem = Message.text("Repairing the system")
    public static let changingSources = Message.text("Changing software sources")
    public static let waitingForPackageManager = Message.text("Waiting for the package manager")
    public static let waitingForAuthentication = Message.text("Waiting for authentication")

    public static let updatingFirmware = Message.text("Updating firmware")
    public static let updatingFirmwareOf = Message.text("Updating firmware of {device}")
    public static let downloadingFirmware = Message.text("Downloading firmware")
    public static let writingFirmware = Message.text("Writing firmware")
    public static let verifyingFirmware = Message.text("Verifying firmware")
    public static let restartingDevice = Message.text("Restarting the device")
    public static let waitingForUser = Message.text("Waiting for you to act on the device")

    public static let erasingDrive = Message.text("Erasing {drive}")
    public static let formattingDrive = Message.text("Formatting {drive}")
    public static let testingDrive = Message.text("Testing {drive}")
    public static let resizingDrive = Message.text("Resizing {drive}")
    public static let diskOperation = Message.text("Disk operation on {drive}")

    public static let downloadingImage = Message.text("Downloading image {image}")
    public static let importingImage = Message.text("Importing image {image}")
    public static let exportingImage = Message.text("Exporting image {image}")

    static let systemJobMessages: [Message] = [
        refreshingSources, installingPackages, installingUpdates, removingPackages, downloadingPackages,
        upgradingSystem, repairingSystem, changingSources, waitingForPackageManager, waitingForAuthentication,
        updatingFirmware, updatingFirmwareOf, downloadingFirmware, writingFirmware, verifyingFirmware, restartingDevice,
        waitingForUser, erasingDrive, formattingDrive, testingDrive, resizingDrive, diskOperation, downloadingImage,
        importingImage, exportingImage,
    ]

    /// `message` in `language` (nil: English) with its placeholders filled.
    public func text(_ message: Message, language: String?, filling values: [String: String]) -> String {
        text(message, language: language).filling(values)
    }
}
