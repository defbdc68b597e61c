"""Game rules as pure, deterministic state machines: no I/O, no clock, no randomness."""
