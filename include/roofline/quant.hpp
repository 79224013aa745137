// Weight formats: the named formats, the weight classes and the compute-dtype policy live in
// weight_format.hpp; this header is kept for the callers that include it by its old name.
#pragma once

#include "roofline/weight_format.hpp"
