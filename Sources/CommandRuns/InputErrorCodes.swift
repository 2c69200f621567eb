import ATSApp
import ATSFiles
import ATSTrust

extension InputError.Code {
    /// An app that cannot be read: its file's access, this machine's memory, or its contents.
    package init(_ error: AppReadError) {
        switch error.code {
        case .unreadable, .changed: self = .fileAccess
        case .outOfMemory: self = .localResources
        case .notAnApp, .notAnArchive, .damagedEntry, .missingEntry, .limitExceeded, .unsafeEntry, .unsupported: self = .badContents
        }
    }

    /// A trust setup that failed: a file of anchors that cannot be read (this machine's fault
    /// when it ran out of descriptors or memory), one that holds no or too many certificates,
    /// or options that cannot go together.
    package init(_ error: TrustSetupError) {
        switch error.code {
        case .unreadableFile, .unreadableDirectory: self = .reading(outOfResources: error.isLocalResource)
        case .noCertificate, .tooManyCertificates: self = .badContents
        case .storeUnavailable, .appAnchorsWithUserRoots, .dnsServersUnusable, .engineUnavailable:
            self = error.isLocalResource ? .localResources : .badArgument
        }
    }
}
