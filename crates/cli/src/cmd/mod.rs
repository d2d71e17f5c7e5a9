pub mod bpf;
pub mod doctor;
pub mod sprout;
