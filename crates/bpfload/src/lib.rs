//! Kernel side management of the project's BPF congestion controls: load them
//! into the running kernel so they outlive this process, report on them, and
//! remove every trace of them again.
//!
//! Everything this crate makes lives under one bpffs directory
//! (`/sys/fs/bpf/c2tcp/<cc>/`): the struct_ops link that keeps a congestion
//! control registered, the cgroup links of the socket-option programs and the
//! maps later commands must reach. Unloading is removing those pins.

pub mod cc;
pub mod doctor;
pub mod leftovers;
pub mod lock;
pub mod status;
pub mod sys;
pub mod usage;

mod skel {
    #![allow(clippy::all, unused, non_camel_case_types, non_snake_case, non_upper_case_globals)]
    include!(concat!(env!("OUT_DIR"), "/c2tcp.skel.rs"));
}

pub use cc::{load, unload, LoadOptions, LoadOutcome, CCS};
pub use status::{status, CcStatus, Status};
