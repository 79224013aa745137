#include "roofline/misc.hpp"
