import ATSPolicy
import PropertyList
import PropertyListPositions
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TLSFacts

/// Where a key path of a `plist` command's file is: the line and column of the key in an XML
/// file (libxml2, `KeyPositions`), nothing for a binary one (findings are located at the file).
package struct PlistLocations {
    package let path: String
    package let positions: KeyPositions?
    /// A bare NSAppTransportSecurity dictionary: its keys sit at the root, while tightening
    /// paths always start with "NSAppTransportSecurity.".
    package let bare: Bool

    package init(path: String, document: PropertyListDocument, bytes: Data) {
        self.path = path
        bare = document.isBareATSDictionary
        positions = document.format == .xml ? KeyPositions.read(xml: [UInt8](bytes)) : nil
    }

    /// The key's position, or the nearest enclosing key's, or the root dictionary's; nil for a
    /// binary file.
    package func position(of keyPath: String) -> SourcePosition? {
        guard let positions else { return nil }
        let prefix = ATSKey.appTransportSecurity.name
        if bare && !positions.contains(keyPath) {
            if keyPath == prefix { return positions.root }
            if keyPath.hasPrefix(prefix + ".") { return positions.position(of: String(keyPath.dropFirst(prefix.count + 1))) }
        }
        return positions.position(of: keyPath)
    }
}
