// The shared test helpers (TestVectors, SplitMix64) for every file of this target.
@_exported import TestSupport
