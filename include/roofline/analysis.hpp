// One pure analysis per question. Each takes a resolved Scenario and returns a plain result that
// holds every number its command prints, as typed quantities, plus the operands its formulas used,
// so a view can print the formula with the values substituted without computing anything.
#pragma once

// Split per question (issue 21): include the one a file needs.
#include "roofline/analysis/device.hpp"
#include "roofline/analysis/layer.hpp"
#include "roofline/analysis/model.hpp"
#include "roofline/analysis/serving.hpp"
#include "roofline/analysis/train.hpp"
