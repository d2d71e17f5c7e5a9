pub mod bpf;
pub mod cleanup;
pub mod doctor;
pub mod emulate;
pub mod trace;
pub mod sprout;
