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
