/// The one place the version is written. `atsprobe --version` prints it, and scripts/package
/// reads it back from the built binary to name the .deb and the tarball, so the two cannot differ.
package enum ToolVersion {
    package static let current = "0.1.0"
}
