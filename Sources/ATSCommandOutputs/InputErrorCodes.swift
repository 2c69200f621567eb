import ATSFiles
import PropertyList

extension InputError.Code {
    /// A property list that cannot be opened or read is its file's access; one that is not a
    /// property list, has no dictionary at its top, or cannot be written is its contents.
    package init(_ error: PropertyListError) {
        switch error.problem {
        case .unreadable: self = .fileAccess
        case .notAPropertyList, .topLevelNotDictionary, .notEncodable: self = .badContents
        }
    }
}
