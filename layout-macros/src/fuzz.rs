//! Fuzzing of the macro front end lives here: filled in below.
