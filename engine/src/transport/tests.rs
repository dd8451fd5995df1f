//! Offline tests of the connection over an in-memory pipe, with a scripted "browser".

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use super::*;

#[derive(Serialize)]
struct Echo {
    x: i64,
}

#[derive(Deserialize, Debug, PartialEq)]
struct EchoReply {
    x: i64,
}

impl Command for Echo {
    const METHOD: &'static str = "Test.echo";
    type Response = EchoReply;
}

#[derive(Deserialize, Debug)]
struct Ticked {
    n: i64,
}

impl Event for Ticked {
    const METHOD: &'static str = "Test.ticked";
}

/// A connection plus the browser's ends of the two pipes.
fn connection() -> (Connection, DuplexStream, DuplexStream) {
    let (browser_out, our_in) = tokio::io::duplex(1 << 16);
    let (our_out, browser_in) = tokio::io::duplex(1 << 16);
    let options = ConnectionOptions {
        command_timeout: Duration::from_secs(5),
        event_capacity: 4,
        ..ConnectionOptions::default()
    };
    (
        Connection::over_pipe(our_in, our_out, options),
        browser_out,
        browser_in,
    )
}

/// A browser that answers every `Test.echo` with its params, after `delay`.
fn echo_browser(mut out: DuplexStream, input: DuplexStream) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        loop {
            let mut frame = Vec::new();
            match input.read_until(0, &mut frame).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            frame.pop();
            let request: serde_json::Value = match serde_json::from_slice(&frame) {
                Ok(v) => v,
                Err(_) => return,
            };
            if request["method"] == "Test.never" {
                continue;
            }
            let reply = serde_json::json!({
                "id": request["id"],
                "result": request["params"],
                "sessionId": request.get("sessionId"),
            });
            let mut bytes = serde_json::to_vec(&reply).unwrap_or_default();
            bytes.push(0);
            if out.write_all(&bytes).await.is_err() {
                return;
            }
        }
    })
}

#[tokio::test]
async fn concurrent_commands_are_correlated() {
    let (conn, out, input) = connection();
    let _browser = echo_browser(out, input);
    let mut tasks = Vec::new();
    for x in 0..200 {
        let conn = conn.clone();
        tasks.push(tokio::spawn(
            async move { conn.send(None, &Echo { x }).await },
        ));
    }
    for (x, task) in tasks.into_iter().enumerate() {
        let reply = task.await.map_err(|e| e.to_string());
        assert_eq!(reply, Ok(Ok(EchoReply { x: x as i64 })));
    }
}

#[tokio::test]
async fn send_now_writes_at_the_call_in_call_order() {
    let (conn, mut out, input) = connection();
    let timeout = Duration::from_secs(5);
    let first = conn.send_now(None, &Echo { x: 1 }, timeout);
    let dropped = conn.send_now(None, &Echo { x: 2 }, timeout);
    let third = conn.send_raw_now("Test.echo", None, &serde_json::json!({ "x": 3 }), timeout);
    drop(dropped);
    // The browser has all three, in order, though no reply is awaited yet.
    let mut input = BufReader::new(input);
    let mut requests = Vec::new();
    for _ in 0..3 {
        let mut frame = Vec::new();
        let read = tokio::time::timeout(Duration::from_secs(2), input.read_until(0, &mut frame));
        assert!(matches!(read.await, Ok(Ok(n)) if n > 0));
        frame.pop();
        let request: serde_json::Value = serde_json::from_slice(&frame).unwrap_or_default();
        requests.push((request["id"].clone(), request["params"]["x"].as_i64()));
    }
    let xs: Vec<Option<i64>> = requests.iter().map(|(_, x)| *x).collect();
    assert_eq!(xs, [Some(1), Some(2), Some(3)]);
    // The dropped command's slot is gone; its late reply is discarded.
    assert_eq!(conn.inner.shared.lock().pending.len(), 2);
    for (id, x) in requests.iter().rev() {
        let reply = serde_json::json!({ "id": id, "result": { "x": x } });
        let mut bytes = serde_json::to_vec(&reply).unwrap_or_default();
        bytes.push(0);
        assert!(out.write_all(&bytes).await.is_ok());
    }
    let third = third.await.map(|raw| raw.to_value().ok());
    assert_eq!(
        third.map_err(|e| e.code()),
        Ok(Some(serde_json::json!({ "x": 3 })))
    );
    assert_eq!(first.await.ok(), Some(EchoReply { x: 1 }));
    assert!(conn.inner.shared.lock().pending.is_empty());
}

#[tokio::test]
async fn framing_survives_split_batched_and_malformed_frames() {
    let (conn, mut out, _input) = connection();
    let mut ticks = conn.subscribe::<Ticked>(None);
    let mut session_ticks = conn.subscribe::<Ticked>(Some(&SessionId::from("S1")));
    // One message split across three writes, then several messages in one write, with garbage
    // in between: invalid JSON, no id nor method, an empty frame, an id that is not a number.
    let stream: Vec<&[u8]> = vec![
        b"{\"method\":\"Test.tic",
        b"ked\",\"params\":{\"n\"",
        b":1}}\0",
        b"this is not json\0{\"params\":{}}\0\0{\"id\":\"x\"}\0{\"method\":\"Test.ticked\",\"params\":{\"n\":2}}\0{\"method\":\"Test.ticked\",\"sessionId\":\"S1\",\"params\":{\"n\":3}}\0",
        b"{\"method\":\"Test.other\",\"params\":{\"n\":4}}\0{\"method\":\"Test.ticked\",\"params\":{\"n\":5}}\0",
    ];
    for chunk in stream {
        assert!(out.write_all(chunk).await.is_ok());
        out.flush().await.ok();
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut seen = Vec::new();
    for _ in 0..3 {
        match tokio::time::timeout(Duration::from_secs(2), ticks.next()).await {
            Ok(Some(Ok(t))) => seen.push(t.n),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(seen, vec![1, 2, 5]);
    match tokio::time::timeout(Duration::from_secs(2), session_ticks.next()).await {
        Ok(Some(Ok(t))) => assert_eq!(t.n, 3),
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(conn.malformed_frames(), 3);
    assert!(!conn.is_closed());
}

#[tokio::test]
async fn eof_fails_every_waiter_and_subscriber() {
    let (conn, out, input) = connection();
    let mut events = conn.subscribe_all();
    let mut waiters = Vec::new();
    for _ in 0..20 {
        let conn = conn.clone();
        waiters.push(tokio::spawn(async move {
            conn.send_raw("Test.never", None, &serde_json::json!({}))
                .await
        }));
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    drop(out);
    drop(input);
    for waiter in waiters {
        match tokio::time::timeout(Duration::from_secs(1), waiter).await {
            Ok(Ok(Err(e))) => assert_eq!(e.code(), ErrorCode::BrowserClosed),
            other => panic!("unexpected {other:?}"),
        }
    }
    match tokio::time::timeout(Duration::from_secs(1), events.next()).await {
        Ok(Some(Err(e))) => assert_eq!(e.code(), ErrorCode::BrowserClosed),
        other => panic!("unexpected {other:?}"),
    }
    assert!(events.next().await.is_none());
    let after = conn.send(None, &Echo { x: 1 }).await;
    assert_eq!(after.map_err(|e| e.code()), Err(ErrorCode::BrowserClosed));
}

#[tokio::test]
async fn timeout_leaves_the_connection_usable() {
    let (conn, out, input) = connection();
    let _browser = echo_browser(out, input);
    let started = std::time::Instant::now();
    let result = conn
        .send_raw_with_timeout(
            "Test.never",
            None,
            &serde_json::json!({}),
            Duration::from_millis(100),
        )
        .await;
    assert_eq!(result.map_err(|e| e.code()).err(), Some(ErrorCode::Timeout));
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(
        conn.send(None, &Echo { x: 9 }).await.ok(),
        Some(EchoReply { x: 9 })
    );
    assert!(conn.inner.shared.lock().pending.is_empty());
}

#[tokio::test]
async fn cdp_error_reply_is_a_protocol_error() {
    let (conn, mut out, _input) = connection();
    let call = tokio::spawn({
        let conn = conn.clone();
        async move { conn.send(None, &Echo { x: 1 }).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let reply =
        b"{\"id\":1,\"error\":{\"code\":-32601,\"message\":\"'Test.echo' wasn't found\"}}\0";
    assert!(out.write_all(reply).await.is_ok());
    match call.await {
        Ok(Err(e)) => {
            assert_eq!(e.code(), ErrorCode::ProtocolError);
            assert!(e.message().contains("'Test.echo' wasn't found"), "{e}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn slow_subscriber_loses_oldest_and_is_told() {
    let (conn, mut out, _input) = connection();
    let mut ticks = conn.subscribe::<Ticked>(None);
    let mut frames = Vec::new();
    for n in 0..10 {
        frames.extend_from_slice(
            format!("{{\"method\":\"Test.ticked\",\"params\":{{\"n\":{n}}}}}\0").as_bytes(),
        );
    }
    frames.extend_from_slice(b"{\"id\":99,\"result\":{}}\0");
    assert!(out.write_all(&frames).await.is_ok());
    // Wait until the reader has gone through everything (capacity is 4).
    tokio::time::sleep(Duration::from_millis(100)).await;
    match ticks.next().await {
        Some(Err(e)) => assert!(e.message().contains("6 event(s) were dropped"), "{e}"),
        other => panic!("unexpected {other:?}"),
    }
    let mut rest = Vec::new();
    while let Some(Ok(t)) = ticks.try_next() {
        rest.push(t.n);
    }
    assert_eq!(rest, vec![6, 7, 8, 9]);
}

#[tokio::test]
async fn detached_session_fails_its_waiters_only() {
    let (conn, mut out, _input) = connection();
    let s1 = SessionId::from("S1");
    let mut s1_events = conn.subscribe_session(Some(&s1));
    let waiter = tokio::spawn({
        let conn = conn.clone();
        let s1 = s1.clone();
        async move { conn.send(Some(&s1), &Echo { x: 1 }).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let detached =
        b"{\"method\":\"Target.detachedFromTarget\",\"params\":{\"sessionId\":\"S1\",\"targetId\":\"T\"}}\0";
    assert!(out.write_all(detached).await.is_ok());
    match tokio::time::timeout(Duration::from_secs(1), waiter).await {
        Ok(Ok(Err(e))) => {
            assert_eq!(e.code(), ErrorCode::BrowserClosed);
            assert!(e.message().contains("S1"), "{e}");
        }
        other => panic!("unexpected {other:?}"),
    }
    match tokio::time::timeout(Duration::from_secs(1), s1_events.next()).await {
        Ok(Some(Err(e))) => assert_eq!(e.code(), ErrorCode::BrowserClosed),
        other => panic!("unexpected {other:?}"),
    }
    let again = conn.send(Some(&s1), &Echo { x: 2 }).await;
    assert_eq!(
        again.map_err(|e| e.code()).err(),
        Some(ErrorCode::BrowserClosed)
    );
    assert!(!conn.is_closed());
}

#[tokio::test]
async fn dropped_subscription_unregisters() {
    let (conn, _out, _input) = connection();
    let sub = conn.subscribe::<Ticked>(Some(&SessionId::from("S")));
    let all = conn.subscribe_all();
    assert_eq!(conn.inner.shared.lock().sessions.len(), 1);
    drop(sub);
    drop(all);
    let state = conn.inner.shared.lock();
    assert!(state.sessions.is_empty() && state.all.is_empty());
}

#[tokio::test]
async fn dropping_every_handle_closes_subscriptions() {
    let (conn, _out, _input) = connection();
    let mut events = conn.subscribe_all();
    drop(conn);
    match tokio::time::timeout(Duration::from_secs(1), events.next()).await {
        Ok(Some(Err(e))) => assert_eq!(e.code(), ErrorCode::BrowserClosed),
        other => panic!("unexpected {other:?}"),
    }
}

#[derive(Deserialize, Debug)]
struct Padded {
    n: i64,
    pad: String,
}

impl Event for Padded {
    const METHOD: &'static str = "Test.padded";
}

/// A `Test.padded` event, NUL-terminated, whose pad is `pad_len` copies of a letter of its own.
fn padded_frame(n: i64, pad_len: usize) -> Vec<u8> {
    let pad = pad_letter(n).to_string().repeat(pad_len);
    let mut frame =
        format!("{{\"method\":\"Test.padded\",\"params\":{{\"n\":{n},\"pad\":\"{pad}\"}}}}")
            .into_bytes();
    frame.push(0);
    frame
}

fn pad_letter(n: i64) -> char {
    char::from(b'a' + n.rem_euclid(26) as u8)
}

/// The browser's end of the pipe, as the reader sees it: exactly these reads, each at most
/// what the reader asks for, then the end of the stream or nothing ever again.
struct ScriptedReads {
    reads: std::collections::VecDeque<Vec<u8>>,
    then_eof: bool,
}

impl AsyncRead for ScriptedReads {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        match self.reads.pop_front() {
            Some(mut read) => {
                if read.len() > buf.remaining() {
                    let rest = read.split_off(buf.remaining());
                    self.reads.push_front(rest);
                }
                buf.put_slice(&read);
                std::task::Poll::Ready(Ok(()))
            }
            None if self.then_eof => std::task::Poll::Ready(Ok(())),
            None => std::task::Poll::Pending,
        }
    }
}

/// A connection reading `reads` (empty ones left out: a read of nothing is the end).
fn scripted_connection(reads: Vec<Vec<u8>>, then_eof: bool) -> Connection {
    let reader = ScriptedReads {
        reads: reads.into_iter().filter(|read| !read.is_empty()).collect(),
        then_eof,
    };
    let options = ConnectionOptions {
        command_timeout: Duration::from_secs(5),
        event_capacity: 1024,
        ..ConnectionOptions::default()
    };
    Connection::over_pipe(reader, tokio::io::sink(), options)
}

/// The first `count` `Test.padded` events read from `reads`, as (n, pad length); every pad
/// must be made of its event's letter.
async fn padded_events(reads: Vec<Vec<u8>>, count: usize) -> (Connection, Vec<(i64, usize)>) {
    let conn = scripted_connection(reads, false);
    let mut events = conn.subscribe::<Padded>(None);
    let mut seen = Vec::new();
    for _ in 0..count {
        match tokio::time::timeout(Duration::from_secs(5), events.next()).await {
            Ok(Some(Ok(event))) => {
                assert!(event.pad.chars().all(|c| c == pad_letter(event.n)));
                seen.push((event.n, event.pad.len()));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    (conn, seen)
}

#[tokio::test]
async fn frames_split_across_reads_at_every_position() {
    // Three frames with an empty one between the second and the third.
    let mut stream = padded_frame(1, 0);
    stream.extend(padded_frame(2, 10));
    stream.push(0);
    stream.extend(padded_frame(3, 3));
    let expected = vec![(1, 0), (2, 10), (3, 3)];
    for cut in 0..=stream.len() {
        let reads = vec![stream[..cut].to_vec(), stream[cut..].to_vec()];
        let (conn, seen) = padded_events(reads, 3).await;
        assert_eq!(seen, expected, "cut at {cut}");
        assert_eq!(conn.malformed_frames(), 0);
        assert!(!conn.is_closed());
    }
    // And one byte per read.
    let reads = stream.iter().map(|&b| vec![b]).collect();
    let (conn, seen) = padded_events(reads, 3).await;
    assert_eq!(seen, expected);
    assert_eq!(conn.malformed_frames(), 0);
}

#[tokio::test]
async fn several_frames_in_one_read_and_a_nul_last_in_a_read() {
    let first: Vec<u8> = (0..50).flat_map(|n| padded_frame(n, n as usize)).collect();
    let second = padded_frame(50, 7);
    let (conn, seen) = padded_events(vec![first, second], 51).await;
    let mut expected: Vec<(i64, usize)> = (0..50).map(|n| (n, n as usize)).collect();
    expected.push((50, 7));
    assert_eq!(seen, expected);
    assert_eq!(conn.malformed_frames(), 0);
}

#[tokio::test]
async fn huge_frames_are_read_whole_between_small_ones() {
    // Sizes around the read buffer's (256 KiB), and far beyond it, some starting in the
    // middle of a read, some at its start.
    let sizes = [
        3 << 20,
        5,
        (256 << 10) - 60,
        (256 << 10) + 1,
        0,
        9 << 20,
        300 << 10,
        (1 << 20) + 17,
        2,
    ];
    let stream: Vec<u8> = sizes
        .iter()
        .enumerate()
        .flat_map(|(n, &size)| padded_frame(n as i64, size))
        .collect();
    let expected: Vec<(i64, usize)> = sizes
        .iter()
        .enumerate()
        .map(|(n, &size)| (n as i64, size))
        .collect();
    // A pipe's reads, odd-sized reads, and everything at once.
    for read_size in [64 << 10, 100_003, stream.len()] {
        let reads = stream.chunks(read_size).map(<[u8]>::to_vec).collect();
        let (conn, seen) = padded_events(reads, sizes.len()).await;
        assert_eq!(seen, expected, "reads of {read_size}");
        assert_eq!(conn.malformed_frames(), 0);
    }
}

/// The error every subscriber gets once the scripted reads end, and the frames cut by it.
async fn end_of(reads: Vec<Vec<u8>>, events_before: usize) -> (Error, u64) {
    let conn = scripted_connection(reads, true);
    let mut events = conn.subscribe::<Padded>(None);
    for n in 0..events_before {
        match tokio::time::timeout(Duration::from_secs(5), events.next()).await {
            Ok(Some(Ok(event))) => assert_eq!(event.n, n as i64),
            other => panic!("unexpected {other:?}"),
        }
    }
    match tokio::time::timeout(Duration::from_secs(5), events.next()).await {
        Ok(Some(Err(e))) => (e, conn.malformed_frames()),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn end_of_stream_between_frames_and_inside_one() {
    let (closed, malformed) = end_of(vec![padded_frame(0, 4), padded_frame(1, 4)], 2).await;
    assert_eq!(closed.code(), ErrorCode::BrowserClosed);
    assert!(closed.message().contains("(end of stream)"), "{closed}");
    assert_eq!(malformed, 0);

    let (closed, malformed) = end_of(Vec::new(), 0).await;
    assert!(closed.message().contains("(end of stream)"), "{closed}");
    assert_eq!(malformed, 0);

    // Cut inside a small frame read with a whole one, and inside a huge one.
    let mut cut = padded_frame(0, 4);
    cut.extend_from_slice(b"{\"method\":\"Test.pad");
    let mut huge = padded_frame(1, 2 << 20);
    huge.truncate(huge.len() - 1);
    for (reads, before) in [(vec![cut], 1), (vec![padded_frame(0, 1), huge], 1)] {
        let (closed, malformed) = end_of(reads, before).await;
        assert_eq!(closed.code(), ErrorCode::BrowserClosed);
        assert!(
            closed.message().contains("end of stream inside a message"),
            "{closed}"
        );
        assert_eq!(malformed, 1);
    }
}

#[tokio::test]
async fn a_crashed_session_fails_its_waiters_saying_so() {
    let (conn, mut out, _input) = connection();
    let s1 = SessionId::from("S1");
    let waiter = tokio::spawn({
        let conn = conn.clone();
        let s1 = s1.clone();
        async move { conn.send(Some(&s1), &Echo { x: 1 }).await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let crashed = b"{\"method\":\"Inspector.targetCrashed\",\"sessionId\":\"S1\",\"params\":{}}\0";
    assert!(out.write_all(crashed).await.is_ok());
    match tokio::time::timeout(Duration::from_secs(1), waiter).await {
        Ok(Ok(Err(e))) => assert!(e.message().contains("crashed"), "{e}"),
        other => panic!("unexpected {other:?}"),
    }
    // Later calls hear the same, even once the session has detached too.
    let detached =
        b"{\"method\":\"Target.detachedFromTarget\",\"params\":{\"sessionId\":\"S1\",\"targetId\":\"T\"}}\0";
    assert!(out.write_all(detached).await.is_ok());
    tokio::time::sleep(Duration::from_millis(20)).await;
    let again = conn.send(Some(&s1), &Echo { x: 2 }).await;
    assert!(again.is_err_and(|e| e.message().contains("crashed")));
    assert!(!conn.is_closed());
}

#[tokio::test]
async fn ended_sessions_are_remembered_up_to_a_bound() {
    let (conn, mut out, _input) = connection();
    for n in 0..(MAX_ENDED_SESSIONS + 500) {
        let detached = format!(
            "{{\"method\":\"Target.detachedFromTarget\",\"params\":{{\"sessionId\":\"S{n}\",\"targetId\":\"T\"}}}}\0"
        );
        assert!(out.write_all(detached.as_bytes()).await.is_ok());
    }
    let newest = SessionId::from(format!("S{}", MAX_ENDED_SESSIONS + 499).as_str());
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        if conn
            .inner
            .shared
            .lock()
            .ended_sessions
            .contains_key(newest.as_str())
        {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the events were not read"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let state = conn.inner.shared.lock();
    assert_eq!(state.ended_sessions.len(), MAX_ENDED_SESSIONS);
    assert_eq!(state.ended_order.len(), MAX_ENDED_SESSIONS);
    assert!(
        !state.ended_sessions.contains_key("S0"),
        "the oldest is forgotten"
    );
}
