// The system zlib (Debian: zlib1g-dev), for raw DEFLATE in .ipa archives. Includes only.
#include <zlib.h>
