//! Typed bindings for the Chrome DevTools Protocol, generated from the pinned `protocol.json`.
//!
//! Every command is a params struct implementing [`Command`], which names its wire method and
//! its typed response; every event is a struct implementing [`Event`]. The bindings are
//! *tolerant*: unknown fields are ignored and unknown enum values parse into an `Unknown(String)`
//! variant, so a newer or older Chromium never makes a message fail to parse.

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

// Generated domain modules, one cargo feature each (see `cdp-gen`).

// BEGIN GENERATED MODULES (cdp-gen)
/// The `Accessibility` domain.
#[cfg(feature = "accessibility")]
pub mod accessibility;
/// The `Ads` domain.
#[cfg(feature = "ads")]
pub mod ads;
/// The `Animation` domain.
#[cfg(feature = "animation")]
pub mod animation;
/// The `Audits` domain.
#[cfg(feature = "audits")]
pub mod audits;
/// The `Autofill` domain.
#[cfg(feature = "autofill")]
pub mod autofill;
/// The `BackgroundService` domain.
#[cfg(feature = "background_service")]
pub mod background_service;
/// The `BluetoothEmulation` domain.
#[cfg(feature = "bluetooth_emulation")]
pub mod bluetooth_emulation;
/// The `Browser` domain.
#[cfg(feature = "browser")]
pub mod browser;
/// The `CacheStorage` domain.
#[cfg(feature = "cache_storage")]
pub mod cache_storage;
/// The `Cast` domain.
#[cfg(feature = "cast")]
pub mod cast;
/// The `Console` domain.
#[cfg(feature = "console")]
pub mod console;
/// The `CrashReportContext` domain.
#[cfg(feature = "crash_report_context")]
pub mod crash_report_context;
/// The `CSS` domain.
#[cfg(feature = "css")]
pub mod css;
/// The `Debugger` domain.
#[cfg(feature = "debugger")]
pub mod debugger;
/// The `DeviceAccess` domain.
#[cfg(feature = "device_access")]
pub mod device_access;
/// The `DeviceOrientation` domain.
#[cfg(feature = "device_orientation")]
pub mod device_orientation;
/// The `DigitalCredentials` domain.
#[cfg(feature = "digital_credentials")]
pub mod digital_credentials;
/// The `DOM` domain.
#[cfg(feature = "dom")]
pub mod dom;
/// The `DOMDebugger` domain.
#[cfg(feature = "dom_debugger")]
pub mod dom_debugger;
/// The `DOMSnapshot` domain.
#[cfg(feature = "dom_snapshot")]
pub mod dom_snapshot;
/// The `DOMStorage` domain.
#[cfg(feature = "dom_storage")]
pub mod dom_storage;
/// The `Emulation` domain.
#[cfg(feature = "emulation")]
pub mod emulation;
/// The `EventBreakpoints` domain.
#[cfg(feature = "event_breakpoints")]
pub mod event_breakpoints;
/// The `Extensions` domain.
#[cfg(feature = "extensions")]
pub mod extensions;
/// The `FedCm` domain.
#[cfg(feature = "fed_cm")]
pub mod fed_cm;
/// The `Fetch` domain.
#[cfg(feature = "fetch")]
pub mod fetch;
/// The `FileSystem` domain.
#[cfg(feature = "file_system")]
pub mod file_system;
/// The `FindInPage` domain.
#[cfg(feature = "find_in_page")]
pub mod find_in_page;
/// The `HeadlessExperimental` domain.
#[cfg(feature = "headless_experimental")]
pub mod headless_experimental;
/// The `HeapProfiler` domain.
#[cfg(feature = "heap_profiler")]
pub mod heap_profiler;
/// The `IndexedDB` domain.
#[cfg(feature = "indexed_db")]
pub mod indexed_db;
/// The `Input` domain.
#[cfg(feature = "input")]
pub mod input;
/// The `Inspector` domain.
#[cfg(feature = "inspector")]
pub mod inspector;
/// The `IO` domain.
#[cfg(feature = "io")]
pub mod io;
/// The `LayerTree` domain.
#[cfg(feature = "layer_tree")]
pub mod layer_tree;
/// The `Log` domain.
#[cfg(feature = "log")]
pub mod log;
/// The `Media` domain.
#[cfg(feature = "media")]
pub mod media;
/// The `Memory` domain.
#[cfg(feature = "memory")]
pub mod memory;
/// The `Network` domain.
#[cfg(feature = "network")]
pub mod network;
/// The `Overlay` domain.
#[cfg(feature = "overlay")]
pub mod overlay;
/// The `Page` domain.
#[cfg(feature = "page")]
pub mod page;
/// The `Performance` domain.
#[cfg(feature = "performance")]
pub mod performance;
/// The `PerformanceTimeline` domain.
#[cfg(feature = "performance_timeline")]
pub mod performance_timeline;
/// The `Preload` domain.
#[cfg(feature = "preload")]
pub mod preload;
/// The `Profiler` domain.
#[cfg(feature = "profiler")]
pub mod profiler;
/// The `PWA` domain.
#[cfg(feature = "pwa")]
pub mod pwa;
/// The `Runtime` domain.
#[cfg(feature = "runtime")]
pub mod runtime;
/// The `Schema` domain.
#[cfg(feature = "schema")]
pub mod schema;
/// The `Security` domain.
#[cfg(feature = "security")]
pub mod security;
/// The `ServiceWorker` domain.
#[cfg(feature = "service_worker")]
pub mod service_worker;
/// The `SmartCardEmulation` domain.
#[cfg(feature = "smart_card_emulation")]
pub mod smart_card_emulation;
/// The `Storage` domain.
#[cfg(feature = "storage")]
pub mod storage;
/// The `SystemInfo` domain.
#[cfg(feature = "system_info")]
pub mod system_info;
/// The `Target` domain.
#[cfg(feature = "target")]
pub mod target;
/// The `Tethering` domain.
#[cfg(feature = "tethering")]
pub mod tethering;
/// The `Tracing` domain.
#[cfg(feature = "tracing")]
pub mod tracing;
/// The `WebAudio` domain.
#[cfg(feature = "web_audio")]
pub mod web_audio;
/// The `WebAuthn` domain.
#[cfg(feature = "web_authn")]
pub mod web_authn;
/// The `WebMCP` domain.
#[cfg(feature = "web_mcp")]
pub mod web_mcp;
// END GENERATED MODULES (cdp-gen)
