// Filled by the compliance work (spec 1.10, 4.5.3).
