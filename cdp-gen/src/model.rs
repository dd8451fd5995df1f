//! The shape of `protocol.json`, exactly as far as the generator needs it.
//!
//! Deserialisation is deliberately lenient about keys it does not know (a newer protocol file
//! may add some), but strict about the keys it uses: a wrongly typed `optional` or a missing
//! `id` is an error that names the file position, not a silently wrong binding.

use serde::Deserialize;

/// The whole protocol file: a version and the domains.
#[derive(Debug, Clone, Deserialize)]
pub struct Protocol {
    /// `{"major": "1", "minor": "3"}`, only used in generated docs.
    #[serde(default)]
    pub version: Option<Version>,
    /// Every domain, in file order.
    pub domains: Vec<Domain>,
}

/// Protocol version.
#[derive(Debug, Clone, Deserialize)]
pub struct Version {
    /// Major version string.
    pub major: String,
    /// Minor version string.
    pub minor: String,
}

/// One domain (`DOM`, `Page`, ...).
#[derive(Debug, Clone, Deserialize)]
pub struct Domain {
    /// Domain name as on the wire (`DOMSnapshot`).
    pub domain: String,
    /// Human description.
    #[serde(default)]
    pub description: Option<String>,
    /// Marked experimental.
    #[serde(default)]
    pub experimental: bool,
    /// Marked deprecated.
    #[serde(default)]
    pub deprecated: bool,
    /// Domains this one declares it depends on (informational; features follow actual `$ref`s).
    #[serde(default)]
    pub dependencies: Vec<String>,
    /// Named types.
    #[serde(default)]
    pub types: Vec<TypeDef>,
    /// Commands.
    #[serde(default)]
    pub commands: Vec<CommandDef>,
    /// Events.
    #[serde(default)]
    pub events: Vec<EventDef>,
}

/// A type reference or inline type: either `$ref` or `type` (+ `enum` / `items` / `properties`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Ty {
    /// `"$ref": "DOM.BackendNodeId"` or a same-domain `"Node"`.
    #[serde(rename = "$ref", default)]
    pub reference: Option<String>,
    /// `integer`, `number`, `boolean`, `string`, `binary`, `any`, `object`, `array`.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Allowed values of a string.
    #[serde(rename = "enum", default)]
    pub enum_values: Option<Vec<String>>,
    /// Element type of an array.
    #[serde(default)]
    pub items: Option<Box<Ty>>,
    /// Fields of an object.
    #[serde(default)]
    pub properties: Option<Vec<Property>>,
}

/// A named type of a domain.
#[derive(Debug, Clone, Deserialize)]
pub struct TypeDef {
    /// Type name, used verbatim as the Rust name.
    pub id: String,
    /// Human description.
    #[serde(default)]
    pub description: Option<String>,
    /// Marked experimental.
    #[serde(default)]
    pub experimental: bool,
    /// Marked deprecated.
    #[serde(default)]
    pub deprecated: bool,
    /// The type itself.
    #[serde(flatten)]
    pub ty: Ty,
}

/// A field of an object, a command parameter or return value, or an event parameter.
#[derive(Debug, Clone, Deserialize)]
pub struct Property {
    /// Wire name.
    pub name: String,
    /// Human description.
    #[serde(default)]
    pub description: Option<String>,
    /// May be absent.
    #[serde(default)]
    pub optional: bool,
    /// Marked experimental.
    #[serde(default)]
    pub experimental: bool,
    /// Marked deprecated.
    #[serde(default)]
    pub deprecated: bool,
    /// The field's type.
    #[serde(flatten)]
    pub ty: Ty,
}

/// A command.
#[derive(Debug, Clone, Deserialize)]
pub struct CommandDef {
    /// Wire name without the domain (`captureSnapshot`).
    pub name: String,
    /// Human description.
    #[serde(default)]
    pub description: Option<String>,
    /// Marked experimental.
    #[serde(default)]
    pub experimental: bool,
    /// Marked deprecated.
    #[serde(default)]
    pub deprecated: bool,
    /// Domain that actually implements this command, if redirected.
    #[serde(default)]
    pub redirect: Option<String>,
    /// Parameters.
    #[serde(default)]
    pub parameters: Vec<Property>,
    /// Return values.
    #[serde(default)]
    pub returns: Vec<Property>,
}

/// An event.
#[derive(Debug, Clone, Deserialize)]
pub struct EventDef {
    /// Wire name without the domain (`loadEventFired`).
    pub name: String,
    /// Human description.
    #[serde(default)]
    pub description: Option<String>,
    /// Marked experimental.
    #[serde(default)]
    pub experimental: bool,
    /// Marked deprecated.
    #[serde(default)]
    pub deprecated: bool,
    /// Parameters.
    #[serde(default)]
    pub parameters: Vec<Property>,
}
