pub mod bpf;
pub mod doctor;
