//! Support code the generated enums share: tolerant string-enum deserialisation.
//!
//! Every generated string enum implements [`WireEnum`] (a `match` on the wire string) and
//! delegates `Deserialize` to [`deserialize_enum`], so the visitor exists once instead of once
//! per enum (less code, faster compiles). The visitor takes `&str` first: a known value never
//! allocates, an unknown one is kept verbatim in the enum's `Unknown(String)` variant instead of
//! failing the whole message.

use std::fmt;
use std::marker::PhantomData;

/// A protocol string enum with an `Unknown(String)` fallback.
pub trait WireEnum: Sized {
    /// The variant of a known wire value, `None` for anything else.
    fn from_known(s: &str) -> Option<Self>;
    /// The fallback variant holding an unknown wire value.
    fn from_unknown(s: String) -> Self;
}

/// Deserialises a string into `T`, mapping unknown values to `T::from_unknown`.
pub fn deserialize_enum<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: WireEnum,
{
    deserializer.deserialize_str(EnumVisitor(PhantomData))
}

struct EnumVisitor<T>(PhantomData<T>);

impl<T: WireEnum> serde::de::Visitor<'_> for EnumVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
        Ok(T::from_known(v).unwrap_or_else(|| T::from_unknown(v.to_owned())))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<T, E> {
        Ok(match T::from_known(&v) {
            Some(t) => t,
            None => T::from_unknown(v),
        })
    }
}
