//! Typed bindings for the Chrome DevTools Protocol, generated from the pinned `protocol.json`.
//!
//! Every command is a params struct implementing [`Command`], which names its wire method and
//! its typed response; every event is a struct implementing [`Event`]. The bindings are
//! *tolerant*: unknown fields are ignored and unknown enum values parse into an `Unknown(String)`
//! variant, so a newer or older Chromium never makes a message fail to parse.
//!
//! # Layout and names
//!
//! One module per domain, `snake_case` with acronyms folded (`DOMSnapshot` -> `dom_snapshot`),
//! each behind the cargo feature of the same name; a feature enables the features of every
//! domain its types refer to, so any combination compiles and unused domains cost no compile
//! time. `default` enables what the pagesight engine uses. Inside a module:
//!
//! * protocol types keep their `id` (`AXNode`, `BackendNodeId`); object types are structs,
//!   string enums are enums, everything else is a `pub type` alias (`integer` is `i64`, `number`
//!   `f64`, `any` and property-less objects `serde_json::Value`);
//! * command `fooBar` is `FooBarParams` (implements [`Command`]) with reply `FooBarReturns`
//!   (always a struct, possibly empty); event `fooBar` is `FooBarEvent` (implements [`Event`]);
//! * fields are `snake_case` with acronyms folded and the exact wire name in
//!   `#[serde(rename)]` (`backendDOMNodeId` -> `backend_dom_node_id`); keywords get a trailing
//!   underscore (`type_`); optional fields are `Option<T>`, omitted when `None`, and structs whose
//!   fields are all optional implement `Default`;
//! * a field declared inline as a string enum gets an enum named `<Owner><Field>`
//!   (`ContinueToLocationTargetCallFrames`); enum variants are the wire value in PascalCase; a
//!   wire value `unknown` is `Unknown_`, since `Unknown(String)` is the fallback;
//! * fields that would make a type infinitely large (`DOM.Node.contentDocument`) are boxed.
//!
//! Experimental and deprecated items are kept and marked in their docs only.
//!
//! # Regenerating
//!
//! The domain modules, the module list below and the `[features]` table of `Cargo.toml` are
//! written by `cdp-gen`; do not edit them. From the workspace root:
//! `cargo run -p cdp-gen -- protocol.json cdp`. A test fails when they are stale.

/// A CDP command: its params are `Self`, serialised as the `params` object of the request.
pub trait Command: serde::Serialize {
    /// The wire method, e.g. `"DOMSnapshot.captureSnapshot"`.
    const METHOD: &'static str;
    /// The typed `result` object of the reply.
    type Response: serde::de::DeserializeOwned;
}

/// A CDP event: `Self` is its typed `params` object.
pub trait Event: serde::de::DeserializeOwned {
    /// The wire method, e.g. `"Page.loadEventFired"`.
    const METHOD: &'static str;
}

#[doc(hidden)]
pub mod wire;

// BEGIN GENERATED MODULES (cdp-gen)
#[cfg(feature = "accessibility")]
pub mod accessibility;
#[cfg(feature = "ads")]
pub mod ads;
#[cfg(feature = "animation")]
pub mod animation;
#[cfg(feature = "audits")]
pub mod audits;
#[cfg(feature = "autofill")]
pub mod autofill;
#[cfg(feature = "background_service")]
pub mod background_service;
#[cfg(feature = "bluetooth_emulation")]
pub mod bluetooth_emulation;
#[cfg(feature = "browser")]
pub mod browser;
#[cfg(feature = "cache_storage")]
pub mod cache_storage;
#[cfg(feature = "cast")]
pub mod cast;
#[cfg(feature = "console")]
pub mod console;
#[cfg(feature = "crash_report_context")]
pub mod crash_report_context;
#[cfg(feature = "css")]
pub mod css;
#[cfg(feature = "debugger")]
pub mod debugger;
#[cfg(feature = "device_access")]
pub mod device_access;
#[cfg(feature = "device_orientation")]
pub mod device_orientation;
#[cfg(feature = "digital_credentials")]
pub mod digital_credentials;
#[cfg(feature = "dom")]
pub mod dom;
#[cfg(feature = "dom_debugger")]
pub mod dom_debugger;
#[cfg(feature = "dom_snapshot")]
pub mod dom_snapshot;
#[cfg(feature = "dom_storage")]
pub mod dom_storage;
#[cfg(feature = "emulation")]
pub mod emulation;
#[cfg(feature = "event_breakpoints")]
pub mod event_breakpoints;
#[cfg(feature = "extensions")]
pub mod extensions;
#[cfg(feature = "fed_cm")]
pub mod fed_cm;
#[cfg(feature = "fetch")]
pub mod fetch;
#[cfg(feature = "file_system")]
pub mod file_system;
#[cfg(feature = "find_in_page")]
pub mod find_in_page;
#[cfg(feature = "headless_experimental")]
pub mod headless_experimental;
#[cfg(feature = "heap_profiler")]
pub mod heap_profiler;
#[cfg(feature = "indexed_db")]
pub mod indexed_db;
#[cfg(feature = "input")]
pub mod input;
#[cfg(feature = "inspector")]
pub mod inspector;
#[cfg(feature = "io")]
pub mod io;
#[cfg(feature = "layer_tree")]
pub mod layer_tree;
#[cfg(feature = "log")]
pub mod log;
#[cfg(feature = "media")]
pub mod media;
#[cfg(feature = "memory")]
pub mod memory;
#[cfg(feature = "network")]
pub mod network;
#[cfg(feature = "overlay")]
pub mod overlay;
#[cfg(feature = "page")]
pub mod page;
#[cfg(feature = "performance")]
pub mod performance;
#[cfg(feature = "performance_timeline")]
pub mod performance_timeline;
#[cfg(feature = "preload")]
pub mod preload;
#[cfg(feature = "profiler")]
pub mod profiler;
#[cfg(feature = "pwa")]
pub mod pwa;
#[cfg(feature = "runtime")]
pub mod runtime;
#[cfg(feature = "schema")]
pub mod schema;
#[cfg(feature = "security")]
pub mod security;
#[cfg(feature = "service_worker")]
pub mod service_worker;
#[cfg(feature = "smart_card_emulation")]
pub mod smart_card_emulation;
#[cfg(feature = "storage")]
pub mod storage;
#[cfg(feature = "system_info")]
pub mod system_info;
#[cfg(feature = "target")]
pub mod target;
#[cfg(feature = "tethering")]
pub mod tethering;
#[cfg(feature = "tracing")]
pub mod tracing;
#[cfg(feature = "web_audio")]
pub mod web_audio;
#[cfg(feature = "web_authn")]
pub mod web_authn;
#[cfg(feature = "web_mcp")]
pub mod web_mcp;
// END GENERATED MODULES (cdp-gen)
