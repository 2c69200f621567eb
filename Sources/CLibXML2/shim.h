// The system libxml2 (Debian: libxml2-dev), for the line and column of each key in an XML
// Info.plist (PropertyListPositions). Includes only.
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
