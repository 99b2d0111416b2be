// Declarations only (see include/CDynamicCodecs.h): this file exists because a C target needs a source.
#include "CDynamicCodecs.h"
