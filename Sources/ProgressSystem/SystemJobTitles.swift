import ProgressText

/// PackageKit's roles and statuses (PkRoleEnum, PkStatusEnum in pk-enum.c) as titles: the
/// role says what the transaction is for, the status what it does now where that is news
/// ("Downloading packages" while an update downloads). Roles not listed are queries.
enum PackageKitTexts {
    static func title(role: UInt32, status: UInt32) -> MessageCatalog.Message? {
        let installing: Bool
        let base: MessageCatalog.Message
        switch role {
        case 10, 11: (base, installing) = (MessageCatalog.installingPackages, true)  // install-files, install-packages
        case 13: return MessageCatalog.refreshingSources                           // refresh-cache
        case 14: return MessageCatalog.removingPackages                            // remove-packages
        case 15, 16, 32: return MessageCatalog.changingSources                     // repo-enable, repo-set-data,
                                                                                   // repo-remove
        case 22: (base, installing) = (MessageCatalog.installingUpdates, true)     // update-packages
        case 25: return MessageCatalog.downloadingPackages                         // download-packages
        case 29: return MessageCatalog.repairingSystem                             // repair-system
        case 33: (base, installing) = (MessageCatalog.upgradingSystem, false)      // upgrade-system
        default: return nil
        }
        switch status {
        case 8: return MessageCatalog.downloadingPackages                           // download
        case 6 where installing: return MessageCatalog.removingPackages             // remove (replaced packages)
        default: return base
        }
    }

    /// A message for a status that waits, while no package is named.
    static func waiting(status: UInt32) -> MessageCatalog.Message? {
        switch status {
        case 1, 30: MessageCatalog.waitingForPackageManager  // wait (queued), waiting-for-lock
        case 31: MessageCatalog.waitingForAuthentication     // waiting-for-auth
        default: nil
        }
    }

    /// `LastPackage`, a package id `name;version;arch;data`, as "name version".
    static func package(_ packageID: String) -> String {
        let fields = packageID.split(separator: ";", omittingEmptySubsequences: false)
        guard let name = fields.first, !name.isEmpty else { return "" }
        return fields.count > 1 && !fields[1].isEmpty ? "\(name) \(fields[1])" : String(name)
    }
}

/// fwupd's statuses (FwupdStatus in fwupd-enums.c): which mean an update is under way,
/// and what each says to the person waiting.
enum FwupdTexts {
    static let idle: Set<UInt32> = [0, 1]             // unknown, idle
    static let notAnUpdate: Set<UInt32> = [2, 13]     // loading (the daemon starting), shutdown

    static func isUpdating(_ status: UInt32) -> Bool { !idle.contains(status) && !notAnUpdate.contains(status) }

    static func message(status: UInt32) -> MessageCatalog.Message? {
        switch status {
        case 4: MessageCatalog.restartingDevice            // device-restart
        case 5: MessageCatalog.writingFirmware             // device-write
        case 6: MessageCatalog.verifyingFirmware           // device-verify
        case 8: MessageCatalog.downloadingFirmware         // downloading
        case 11: MessageCatalog.waitingForAuthentication   // waiting-for-auth
        case 14: MessageCatalog.waitingForUser             // waiting-for-user
        default: nil
        }
    }
}

/// UDisks2's Job.Operation values (org.freedesktop.UDisks2.xml) as titles.
enum UDisksTexts {
    static func title(operation: String) -> MessageCatalog.Message {
        switch operation {
        case "format-erase", "ata-secure-erase", "ata-enhanced-secure-erase", "nvme-sanitize":
            MessageCatalog.erasingDrive
        case "format-mkfs", "nvme-format-ns": MessageCatalog.formattingDrive
        case "ata-smart-selftest", "nvme-selftest": MessageCatalog.testingDrive
        case "filesystem-resize", "encrypted-resize": MessageCatalog.resizingDrive
        default: MessageCatalog.diskOperation
        }
    }
}

/// systemd-importd's transfer types (org.freedesktop.import1's Transfer.Type) as titles.
enum ImportdTexts {
    static func title(type: String) -> MessageCatalog.Message {
        if type.hasPrefix("pull-") { return MessageCatalog.downloadingImage }
        if type.hasPrefix("export-") { return MessageCatalog.exportingImage }
        return MessageCatalog.importingImage
    }
}
