//! Unit tests of the model on tiny hand-written captures.
