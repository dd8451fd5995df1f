//! Network requests: one entry per request the page made (`Network.requestWillBeSent`), filled
//! in as its response comes (`responseReceived`) and as it ends (`loadingFinished`,
//! `loadingFailed`).
//!
//! Why a redirect is two entries: each hop is a request of its own with its own status and
//! headers (a `302` and then the `200`), as DevTools lists them; Chromium reports both under
//! one request id, so the hop is closed when the next one starts and the id then names the
//! new entry.
//!
//! Why the body is fetched only when asked for: Chromium keeps response bodies in a buffer of
//! its own (bounded when the domain is enabled), and copying every body over the connection
//! would cost what collecting must not. `network_request` asks for one body, returns at most
//! [`MAX_BODY`] bytes of it, and says why there is none when there is none.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{unknown_id, Paging, MAX_BODY, MAX_REQUESTS};
use crate::browser::Page;
use crate::cdp::network::{
    GetResponseBodyParams, LoadingFailedEvent, LoadingFinishedEvent, RequestWillBeSentEvent,
    Response, ResponseReceivedEvent,
};
use crate::cdp::Event;
use crate::error::{ErrorCode, Result};
use crate::transport::RawEvent;

/// The most of a request's body (`postData`) that is kept, in bytes.
const MAX_POST_DATA: usize = 10_000;

/// One request as `network_requests` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequestSummary {
    /// The request's id on this page (what `network_request` takes).
    pub id: u64,
    /// `GET`, `POST`, …
    pub method: String,
    /// The URL requested.
    pub url: String,
    /// `document`, `stylesheet`, `image`, `media`, `font`, `script`, `xhr`, `fetch`,
    /// `websocket`, `preflight`, `other`, …
    pub resource_type: String,
    /// The HTTP status, once a response came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i64>,
    /// Why the request failed (`net::ERR_…`), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    /// `pending` (no end yet), `finished`, `failed` or `redirected`.
    pub state: String,
}

/// When a request happened and how long it took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    /// When it was sent, in milliseconds since the epoch.
    pub started_at: f64,
    /// From sending to its end (finished, failed or redirected), in milliseconds; absent while
    /// it is pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// Chromium's breakdown of the response's timing (`Network.ResourceTiming`: DNS, connect,
    /// TLS, send, headers, in milliseconds from `requestTime`), when the response had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<Value>,
}

/// `network_request`: one request in full.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequestDetail {
    /// What the list shows of it.
    #[serde(flatten)]
    pub request: NetworkRequestSummary,
    /// The response's status text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    /// The response's MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The request's headers (as sent, when Chromium reported them).
    pub request_headers: Value,
    /// The response's headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_headers: Option<Value>,
    /// The request's body (a form or a `fetch` body), cut at 10 000 bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_data: Option<String>,
    /// When it happened and how long it took.
    pub timing: Timing,
    /// Bytes received over the network for it (headers and body), once it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<f64>,
    /// Whether the request was cancelled (a failure the page or the browser caused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canceled: Option<bool>,
    /// For a redirect: the id of the request it led to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirected_to: Option<u64>,
    /// The response body, or its first 100 000 bytes (`bodyTruncated`); base64 when
    /// `bodyBase64` (a binary body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The body was longer and was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_truncated: Option<bool>,
    /// The body is base64 (Chromium sends binary bodies so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_base64: Option<bool>,
    /// Why there is no body, or what was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_note: Option<String>,
}

/// `network_requests`: one page of the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkRequestList {
    /// The requests of this page of the list, oldest first.
    pub requests: Vec<NetworkRequestSummary>,
    /// How many requests (of the requested resource types) the page has kept.
    pub total: usize,
    /// How many pages of `pageSize` those make.
    pub pages: usize,
    /// The page of the list returned.
    pub page_idx: usize,
    /// How many older requests were dropped to keep the newest 1000.
    pub dropped: u64,
}

#[derive(Debug, Clone)]
struct Entry {
    /// Chromium's id of the request (several entries share one across redirects).
    request_id: String,
    detail: NetworkRequestDetail,
    /// `Network.requestWillBeSent`'s monotonic timestamp, seconds.
    sent: f64,
}

/// The requests of one page.
#[derive(Debug)]
pub(super) struct Network {
    entries: VecDeque<Entry>,
    /// Chromium's request id -> the id of the entry of its latest hop, while it is pending.
    pending: FxHashMap<String, u64>,
    next_id: u64,
    dropped: u64,
}

impl Default for Network {
    fn default() -> Self {
        Network {
            entries: VecDeque::new(),
            pending: FxHashMap::default(),
            next_id: 1,
            dropped: 0,
        }
    }
}

impl Network {
    fn entry_mut(&mut self, id: u64) -> Option<&mut Entry> {
        let first = self.entries.front()?.detail.request.id;
        let i = usize::try_from(id.checked_sub(first)?).ok()?;
        self.entries
            .get_mut(i)
            .filter(|e| e.detail.request.id == id)
    }

    fn pending_mut(&mut self, request_id: &str) -> Option<&mut Entry> {
        let id = *self.pending.get(request_id)?;
        self.entry_mut(id)
    }

    /// Folds in a network event; whether it was one.
    pub(super) fn apply(&mut self, event: &RawEvent) -> bool {
        match &*event.method {
            RequestWillBeSentEvent::METHOD => {
                if let Ok(e) = event.parse::<RequestWillBeSentEvent>() {
                    self.sent(e);
                }
            }
            ResponseReceivedEvent::METHOD => {
                if let Ok(e) = event.parse::<ResponseReceivedEvent>() {
                    if let Some(entry) = self.pending_mut(&e.request_id) {
                        entry.detail.request.resource_type = e.type_.as_str().to_ascii_lowercase();
                        respond(&mut entry.detail, &e.response);
                    }
                }
            }
            LoadingFinishedEvent::METHOD => {
                if let Ok(e) = event.parse::<LoadingFinishedEvent>() {
                    if let Some(entry) = self.pending_mut(&e.request_id) {
                        entry.detail.request.state = "finished".into();
                        entry.detail.size = Some(e.encoded_data_length);
                        entry.detail.timing.duration_ms = Some(ms_between(entry.sent, e.timestamp));
                    }
                    self.pending.remove(&e.request_id);
                }
            }
            LoadingFailedEvent::METHOD => {
                if let Ok(e) = event.parse::<LoadingFailedEvent>() {
                    if let Some(entry) = self.pending_mut(&e.request_id) {
                        let d = &mut entry.detail;
                        d.request.state = "failed".into();
                        d.request.failure = Some(e.error_text);
                        d.request.resource_type = e.type_.as_str().to_ascii_lowercase();
                        d.canceled = e.canceled.filter(|c| *c);
                        d.timing.duration_ms = Some(ms_between(entry.sent, e.timestamp));
                    }
                    self.pending.remove(&e.request_id);
                }
            }
            _ => return false,
        }
        true
    }

    fn sent(&mut self, e: RequestWillBeSentEvent) {
        let id = self.next_id;
        self.next_id += 1;
        // A redirect: the previous hop ends with the redirect's response.
        if let Some(redirect) = &e.redirect_response {
            if let Some(previous) = self.pending_mut(&e.request_id) {
                respond(&mut previous.detail, redirect);
                previous.detail.request.state = "redirected".into();
                previous.detail.redirected_to = Some(id);
                previous.detail.timing.duration_ms = Some(ms_between(previous.sent, e.timestamp));
            }
        }
        let resource_type = e
            .type_
            .as_ref()
            .map_or("other".to_string(), |t| t.as_str().to_ascii_lowercase());
        let post_data = e.request.post_data.map(|mut p| {
            if p.len() > MAX_POST_DATA {
                let mut at = MAX_POST_DATA;
                while !p.is_char_boundary(at) {
                    at -= 1;
                }
                p.truncate(at);
            }
            p
        });
        let detail = NetworkRequestDetail {
            request: NetworkRequestSummary {
                id,
                method: e.request.method,
                url: e.request.url + e.request.url_fragment.as_deref().unwrap_or(""),
                resource_type,
                status: None,
                failure: None,
                state: "pending".into(),
            },
            status_text: None,
            mime_type: None,
            request_headers: e.request.headers,
            response_headers: None,
            post_data,
            timing: Timing {
                started_at: e.wall_time * 1000.0,
                duration_ms: None,
                resource: None,
            },
            size: None,
            canceled: None,
            redirected_to: None,
            body: None,
            body_truncated: None,
            body_base64: None,
            body_note: None,
        };
        if self.entries.len() >= MAX_REQUESTS {
            if let Some(old) = self.entries.pop_front() {
                if self.pending.get(&old.request_id) == Some(&old.detail.request.id) {
                    self.pending.remove(&old.request_id);
                }
            }
            self.dropped += 1;
        }
        self.pending.insert(e.request_id.clone(), id);
        self.entries.push_back(Entry {
            request_id: e.request_id,
            detail,
            sent: e.timestamp,
        });
    }

    pub(super) fn list(&self, types: &[String], paging: Paging) -> Result<NetworkRequestList> {
        let wanted =
            |e: &&Entry| types.is_empty() || types.contains(&e.detail.request.resource_type);
        let total = self.entries.iter().filter(wanted).count();
        let (range, pages) = paging.range(total)?;
        let requests = self
            .entries
            .iter()
            .filter(wanted)
            .skip(range.start)
            .take(range.len())
            .map(|e| e.detail.request.clone())
            .collect();
        Ok(NetworkRequestList {
            requests,
            total,
            pages,
            page_idx: paging.page_idx,
            dropped: self.dropped,
        })
    }

    /// The request `id`, and Chromium's id to ask for its body with when it has one to give.
    pub(super) fn get(&self, id: u64) -> Result<(NetworkRequestDetail, Option<String>)> {
        let oldest = self.entries.front().map(|e| e.detail.request.id);
        let found = oldest
            .and_then(|first| id.checked_sub(first))
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.entries.get(i))
            .filter(|e| e.detail.request.id == id);
        let Some(entry) = found else {
            return Err(unknown_id(
                "network request",
                id,
                oldest,
                self.next_id,
                "network_requests",
            ));
        };
        let mut detail = entry.detail.clone();
        let note = match detail.request.state.as_str() {
            "finished" => return Ok((detail, Some(entry.request_id.clone()))),
            "pending" => "the request has not finished yet; ask again later",
            "failed" => "the request failed, so there is no body",
            _ => "a redirect has no body; see the request it led to (redirectedTo)",
        };
        detail.body_note = Some(note.into());
        Ok((detail, None))
    }
}

/// Fills in what a response says: status, MIME type, headers, timing.
fn respond(detail: &mut NetworkRequestDetail, response: &Response) {
    detail.request.status = Some(response.status);
    detail.status_text = Some(response.status_text.clone()).filter(|s| !s.is_empty());
    detail.mime_type = Some(response.mime_type.clone()).filter(|s| !s.is_empty());
    detail.response_headers = Some(response.headers.clone());
    if let Some(sent) = &response.request_headers {
        detail.request_headers = sent.clone();
    }
    detail.timing.resource = response
        .timing
        .as_ref()
        .and_then(|t| serde_json::to_value(t).ok());
}

fn ms_between(from: f64, to: f64) -> f64 {
    ((to - from) * 1000.0).max(0.0)
}

/// Asks Chromium for the response body of `request_id` and puts (at most [`MAX_BODY`] bytes
/// of) it into `detail`, or why there is none.
pub(super) async fn add_body(page: &Page, request_id: &str, detail: &mut NetworkRequestDetail) {
    let asked = page
        .send(&GetResponseBodyParams {
            request_id: request_id.to_string(),
        })
        .await;
    match asked {
        Ok(reply) => {
            let mut body = reply.body;
            let full = body.len();
            if full > MAX_BODY {
                let mut at = MAX_BODY;
                while !body.is_char_boundary(at) {
                    at -= 1;
                }
                body.truncate(at);
                detail.body_truncated = Some(true);
                detail.body_note = Some(format!(
                    "the body is {full} bytes{}; only the first {MAX_BODY} are returned",
                    if reply.base64_encoded {
                        " of base64"
                    } else {
                        ""
                    }
                ));
            }
            detail.body_base64 = reply.base64_encoded.then_some(true);
            detail.body = Some(body);
        }
        Err(e) if e.code() == ErrorCode::ProtocolError => {
            detail.body_note = Some(format!(
                "Chromium has no body for this request ({}): it keeps only recent bodies, and \
                 none of a page that navigated away or of a response without one",
                e.message()
            ));
        }
        Err(e) => {
            detail.body_note = Some(format!("the body could not be read: {}", e.message()));
        }
    }
}
