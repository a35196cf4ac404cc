#include "formats/npy/npy.h"
