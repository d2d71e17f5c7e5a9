// SPDX-License-Identifier: GPL-2.0-only
//! BPF map keys and values as bytes, from the skeleton's generated structs
//! (libbpf-cargo lays them out from the objects' BTF): `map_bytes!` lists a
//! struct's fields and encodes each at its `offset_of!` position, so no
//! layout is spelled twice and no padding is read. Used by the NetAssist
//! maps (`netassist.rs`) and the cgroup Target map (`cgroups.rs`); each
//! tests that its listed fields cover every byte.

/// A map key or value as the kernel copies it: each field's bytes in the
/// host's order at the offset the compiler gave it (padding, were there
/// any, zero). Safe code, for any layout, where a byte view of the struct
/// would read padding.
pub(crate) trait MapBytes: Sized {
    fn to_bytes(&self) -> Vec<u8>;
    /// None when `b` is shorter than the struct.
    fn from_bytes(b: &[u8]) -> Option<Self>;
    /// The bytes the listed fields cover (tests: all of the struct).
    #[cfg(test)]
    fn listed_bytes() -> usize;
}

/// An integer field of a map struct.
pub(crate) trait Field: Copy {
    fn put(self, at: &mut [u8]);
    fn get(at: &[u8]) -> Self;
}

macro_rules! int_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn put(self, at: &mut [u8]) {
                at[..std::mem::size_of::<$t>()].copy_from_slice(&self.to_ne_bytes());
            }
            fn get(at: &[u8]) -> Self {
                let mut b = [0u8; std::mem::size_of::<$t>()];
                b.copy_from_slice(&at[..std::mem::size_of::<$t>()]);
                <$t>::from_ne_bytes(b)
            }
        }
    )*};
}
int_field!(u16, u32, u64);

macro_rules! map_bytes {
    ($ty:ty { $($field:ident),* $(,)? }) => {
        impl $crate::map_bytes::MapBytes for $ty {
            fn to_bytes(&self) -> Vec<u8> {
                let mut b = vec![0u8; std::mem::size_of::<$ty>()];
                $( $crate::map_bytes::Field::put(self.$field, &mut b[std::mem::offset_of!($ty, $field)..]); )*
                b
            }
            fn from_bytes(b: &[u8]) -> Option<Self> {
                if b.len() < std::mem::size_of::<$ty>() {
                    return None;
                }
                let mut v = <$ty>::default();
                $( v.$field = $crate::map_bytes::Field::get(&b[std::mem::offset_of!($ty, $field)..]); )*
                Some(v)
            }
            #[cfg(test)]
            fn listed_bytes() -> usize {
                let v = <$ty>::default();
                0 $( + std::mem::size_of_val(&v.$field) )*
            }
        }
    };
}

pub(crate) use map_bytes;
