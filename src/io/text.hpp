// The io layer reads and writes the shared name tables and quotes user text throughout, so it
// uses the text library (src/text, below io and format alike) unqualified.
#pragma once

#include "text/enum_table.hpp"
#include "text/names.hpp"
#include "text/user_text.hpp"

namespace roofline::io {
using namespace roofline::text;  // NOLINT(google-build-using-namespace)
}  // namespace roofline::io
