// The system libxml2's headers (Debian: libxml2-dev), for the line and column of each key in an
// XML Info.plist (PropertyListPositions, which opens the library itself with dlopen on first use).
// Includes only.
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
