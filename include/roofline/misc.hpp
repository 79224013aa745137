// Small formulas the seed documents use outside the transformer arithmetic.
#pragma once

namespace roofline {}  // namespace roofline
